package io.scbf.hbase.regionserver.region;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Reads the current cells of many rows of one region with a single region scanner that seeks from
 * row to row, instead of a {@code Region#get} per row: profiles of the indexed write path showed
 * most of a Get's cost in building its region and store scanners, once per row (read-before-write
 * in the data region, existence check in the index region). What is read is the same as with Gets
 * (the same columns and versions, at the region's current read point).
 *
 * <p>The cells returned are copies where the scanner's were not on the heap: a data block read into
 * a pooled off-heap buffer (a BucketCache, or no block cache) goes back to the pool when the
 * scanner closes, and a cell still pointing into it then reads another block's bytes, or memory
 * past the buffer (as {@code HRegion#get} does since HBASE-26036).
 */
@InterfaceAudience.Private
public final class RowBatchReader {
  private RowBatchReader() {}

  /**
   * The cells {@code template} selects in each of {@code rows} (any order, duplicates allowed), by
   * row; rows without such cells are absent from the map.
   */
  public static Map<byte[], List<Cell>> read(Region region, Collection<byte[]> rows, Scan template)
      throws IOException {
    Map<byte[], List<Cell>> out = new TreeMap<>(Bytes.BYTES_COMPARATOR);
    if (rows.isEmpty()) return out;
    List<RowRange> ranges = new ArrayList<>(rows.size());
    byte[] first = null, last = null;
    for (byte[] row : rows) {
      ranges.add(new RowRange(row, true, row, true));
      if (first == null || Bytes.compareTo(row, first) < 0) first = row;
      if (last == null || Bytes.compareTo(row, last) > 0) last = row;
    }
    Scan scan =
        new Scan(template)
            .withStartRow(first)
            .withStopRow(last, true)
            .setFilter(new MultiRowRangeFilter(ranges));
    try (RegionScanner scanner = region.getScanner(scan)) {
      List<Cell> cells = new ArrayList<>();
      boolean more;
      do {
        more = scanner.next(cells); // cells of one row per call
        if (!cells.isEmpty()) {
          List<Cell> row =
              out.computeIfAbsent(CellUtil.cloneRow(cells.get(0)), r -> new ArrayList<>());
          for (Cell c : cells) row.add(CellUtil.cloneIfNecessary(c));
          cells.clear();
        }
      } while (more);
    }
    return out;
  }
}
