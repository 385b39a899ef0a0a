package io.scbf.hbase.regionserver.region;

import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.LocalIndexKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link IndexRegionRows} of a real region, read with region scanners: the rows of an index-table
 * region (family {@code i}), or the entries of one local index in a data region (its own family,
 * rows prefixed by the region's start key, see {@link LocalIndexKeys}), which it presents under
 * their bucket-0 index keys so the rest of {@link IndexRegion} cannot tell the two apart.
 */
@InterfaceAudience.Private
public final class HRegionRows implements IndexRegionRows {
  private static final Logger LOG = LoggerFactory.getLogger(HRegionRows.class);

  private final Region region;
  private final byte[] family;
  private final LocalIndexKeys local; // null for an index-table region

  public HRegionRows(Region region) {
    this(region, IndexCatalog.INDEX_FAMILY, null);
  }

  private HRegionRows(Region region, byte[] family, LocalIndexKeys local) {
    this.region = region;
    this.family = family;
    this.local = local;
  }

  /**
   * The entries of the local index whose family is {@code family} in data region {@code region}.
   */
  public static HRegionRows local(Region region, byte[] family) {
    return new HRegionRows(
        region, family, new LocalIndexKeys(region.getRegionInfo().getStartKey()));
  }

  @Override
  public boolean expires() {
    ColumnFamilyDescriptor cf = region.getTableDescriptor().getColumnFamily(family);
    return cf != null && cf.getTimeToLive() != HConstants.FOREVER;
  }

  private byte[] toRow(byte[] indexKey) {
    return local == null ? indexKey : local.physical(indexKey);
  }

  private byte[] toIndexKey(byte[] row) {
    return local == null ? row : local.indexKey(row);
  }

  @Override
  public Set<byte[]> existing(Collection<byte[]> rows) throws IOException {
    // Exactly as a Get per row would read, but with one scanner for the batch.
    List<byte[]> physical = new ArrayList<>(rows.size());
    for (byte[] r : rows) physical.add(toRow(r));
    Set<byte[]> out = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    for (byte[] row :
        RowBatchReader.read(region, physical, new Scan().addFamily(family)).keySet()) {
      out.add(toIndexKey(row));
    }
    return out;
  }

  @Override
  public void scan(byte[] start, byte[] stop, int limit, Consumer<Cell> consumer)
      throws IOException {
    Scan scan =
        new Scan()
            .withStartRow(toRow(start))
            .withStopRow(stop.length == 0 && local != null ? local.last() : toRow(stop))
            .addColumn(family, IndexCatalog.INDEX_QUALIFIER)
            .readVersions(1);
    read(scan, limit, consumer);
  }

  @Override
  public void scanDescending(byte[] start, byte[] stop, int limit, Consumer<Cell> consumer)
      throws IOException {
    if (local != null) throw new UnsupportedOperationException("local index rows read forwards");
    // A reversed scan starts at its start row (here the range's exclusive end) and goes down.
    Scan scan =
        new Scan()
            .withStartRow(stop, false)
            .withStopRow(start, true)
            .setReversed(true)
            .addColumn(family, IndexCatalog.INDEX_QUALIFIER)
            .readVersions(1);
    read(scan, limit, consumer);
  }

  private void read(Scan scan, int limit, Consumer<Cell> consumer) throws IOException {
    try (RegionScanner scanner = region.getScanner(scan)) {
      // One region operation around the whole read, as HBase's nextRaw asks of coprocessors:
      // next() opens and closes one per row, running every coprocessor's hooks each time (a
      // fifth of a wide range's server time, profiled).
      region.startRegionOperation(Region.Operation.SCAN);
      try {
        synchronized (scanner) {
          List<Cell> cells = new ArrayList<>();
          boolean more;
          int rows = 0;
          do {
            more = scanner.nextRaw(cells);
            if (!cells.isEmpty()) rows++;
            for (Cell c : cells) consumer.accept(local == null ? c : withIndexKey(c));
            cells.clear();
          } while (more && rows < limit);
        }
      } finally {
        region.closeRegionOperation(Region.Operation.SCAN);
      }
    }
  }

  private Cell withIndexKey(Cell c) {
    return new KeyValue(
        local.indexKey(CellUtil.cloneRow(c)),
        IndexCatalog.INDEX_FAMILY,
        IndexCatalog.INDEX_QUALIFIER,
        c.getTimestamp(),
        KeyValue.Type.Put,
        CellUtil.cloneValue(c));
  }

  @Override
  public Iterator<byte[]> filterKeys(BooleanSupplier cancelled) {
    return new FilterKeyScan(cancelled);
  }

  /** Row keys only, 1024 rows per refill. */
  private final class FilterKeyScan implements Iterator<byte[]> {
    private final BooleanSupplier cancelled;
    private final RegionScanner scanner;
    private final List<Cell> cells = new ArrayList<>();
    private final List<byte[]> pending = new ArrayList<>();
    private boolean more = true;
    private int next;

    FilterKeyScan(BooleanSupplier cancelled) {
      this.cancelled = cancelled;
      Scan scan =
          new Scan()
              .addFamily(family)
              .setFilter(new FilterList(new FirstKeyOnlyFilter(), new KeyOnlyFilter()))
              .setCacheBlocks(false);
      // The marker sorts before the entries and is no entry: start after it.
      if (local != null) scan.withStartRow(local.marker(), false).withStopRow(local.last());
      try {
        scanner = region.getScanner(scan);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public boolean hasNext() {
      while (next == pending.size()) {
        if (!more) {
          closeScanner();
          return false;
        }
        if (cancelled.getAsBoolean()) {
          closeScanner();
          throw new CancellationException();
        }
        fill();
      }
      return true;
    }

    @Override
    public byte[] next() {
      if (!hasNext()) throw new NoSuchElementException();
      return pending.get(next++);
    }

    private void fill() {
      pending.clear();
      next = 0;
      try {
        for (int i = 0; i < 1024 && more; i++) {
          more = scanner.next(cells);
          for (Cell c : cells) {
            byte[] row = toIndexKey(CellUtil.cloneRow(c));
            pending.add(IndexKeyCodec.filterKeyOf(row));
          }
          cells.clear();
        }
      } catch (IOException e) {
        closeScanner();
        throw new UncheckedIOException(e);
      }
    }

    private void closeScanner() {
      try {
        scanner.close();
      } catch (IOException e) {
        LOG.debug("closing scbf filter scan of {}", region.getRegionInfo().getEncodedName(), e);
      }
    }
  }
}
