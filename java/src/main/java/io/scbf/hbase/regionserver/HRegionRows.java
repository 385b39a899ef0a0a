package io.scbf.hbase.regionserver;

import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link IndexRegionRows} of a real index region, read with region scanners. */
final class HRegionRows implements IndexRegionRows {
  private static final Logger LOG = LoggerFactory.getLogger(HRegionRows.class);

  private final Region region;

  HRegionRows(Region region) {
    this.region = region;
  }

  @Override
  public Set<byte[]> existing(Collection<byte[]> rows) throws IOException {
    // Exactly as a Get per row would read, but with one scanner for the batch.
    return RowBatchReader.read(region, rows, new Scan().addFamily(IndexCatalog.INDEX_FAMILY))
        .keySet();
  }

  @Override
  public void scan(byte[] start, byte[] stop, Consumer<Cell> consumer) throws IOException {
    Scan scan =
        new Scan()
            .withStartRow(start)
            .withStopRow(stop)
            .addColumn(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER)
            .readVersions(1);
    try (RegionScanner scanner = region.getScanner(scan)) {
      List<Cell> cells = new ArrayList<>();
      boolean more;
      do {
        more = scanner.next(cells);
        cells.forEach(consumer);
        cells.clear();
      } while (more);
    }
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
      try {
        scanner =
            region.getScanner(
                new Scan()
                    .setFilter(new FilterList(new FirstKeyOnlyFilter(), new KeyOnlyFilter()))
                    .setCacheBlocks(false));
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
            byte[] row = CellUtil.cloneRow(c);
            pending.add(Arrays.copyOfRange(row, 1, IndexKeyCodec.filterKeyEnd(row)));
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
