package io.scbf.hbase.regionserver.write;

import io.scbf.ScalableSplitCountingBloomFilter;
import io.scbf.hbase.IndexSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * A membership filter of the data rows of one region that may hold a watched (indexed or covered)
 * column, so that an indexed write of a row it proves absent skips reading the row's old values (a
 * load of new rows then reads nothing, as an insert-only table does).
 *
 * <p>Every indexed write (puts and deletes) adds its rows before the data is written (under the
 * row's lock), and a raw scan of the watched families adds the rows already there (with cells or
 * only delete markers); only when that scan is done does the filter answer "absent". A wrong
 * "absent" could only cost a stale index entry and an over-counted filter (the write would not
 * delete the old value's entry), never a missed row; bulk loads into watched families, which no
 * write hook sees, are refused. Rows are never removed (a deleted row is a false positive: one
 * read). Past {@code maxRows} rows the filter turns itself off, which bounds its native memory
 * (about 4 bytes per row).
 */
@InterfaceAudience.Private
public final class WatchedRows implements AutoCloseable {
  private static final double FPP = 0.02;

  private final ScalableSplitCountingBloomFilter filter;
  private final long maxRows;
  private final AtomicLong rows = new AtomicLong();
  private volatile boolean complete;
  private volatile boolean off;

  public WatchedRows(long maxRows) {
    this.maxRows = maxRows;
    this.off = maxRows <= 0;
    this.filter =
        off ? null : ScalableSplitCountingBloomFilter.create(Math.min(maxRows, 1 << 16), FPP);
  }

  /** True only if no row of these may hold a watched column now. */
  public boolean provesAbsent(byte[] row) {
    return complete && !off && !filter.mightContain(row);
  }

  /** Call with the rows' locks held, before their data is written. */
  public void add(Collection<byte[]> written) {
    if (off) return;
    for (byte[] row : written) {
      if (!filter.mightContain(row)) {
        filter.add(row);
        if (rows.incrementAndGet() > maxRows) off = true;
      }
    }
  }

  public boolean isOn() {
    return complete && !off;
  }

  /**
   * Adds the rows already in the region (after WAL replay: call once it is open), then starts
   * answering. Stops early, leaving the filter off, if the region closes or the rows exceed the
   * cap.
   */
  public void build(Region region, Collection<IndexSpec.Column> watched, BooleanSupplier closing)
      throws IOException {
    if (off) return;
    // Raw, and the watched columns' whole families: a row holding only delete markers is not
    // absent, since its markers may mask a later put (family markers carry no qualifier).
    Scan scan =
        new Scan()
            .setRaw(true)
            .readVersions(1)
            .setCacheBlocks(false)
            .setFilter(new FilterList(new FirstKeyOnlyFilter(), new KeyOnlyFilter()));
    for (IndexSpec.Column c : watched) scan.addFamily(c.family());
    try (RegionScanner scanner = region.getScanner(scan)) {
      List<Cell> cells = new ArrayList<>();
      boolean more;
      do {
        if (off || closing.getAsBoolean()) return;
        more = scanner.next(cells);
        if (!cells.isEmpty()) {
          add(List.of(CellUtil.cloneRow(cells.get(0))));
          cells.clear();
        }
      } while (more);
    }
    complete = true;
  }

  @Override
  public void close() {
    off = true;
    if (filter != null) filter.close();
  }
}
