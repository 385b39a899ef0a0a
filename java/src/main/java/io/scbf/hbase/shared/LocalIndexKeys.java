package io.scbf.hbase.shared;

import java.util.Arrays;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Row keys of local index entries inside a data region: {@code regionStartKey | indexKey}, where
 * {@code indexKey} is the global index row key of bucket 0 ({@code 0x00 | esc(alias) | esc(value) |
 * userRow}, see {@code IndexKeyCodec}). The region's start key keeps every entry inside the
 * region's key range, and entries sort as in a global bucket, so a value is one prefix scan.
 *
 * <p>All entries of a region (and its build marker, {@code regionStartKey | 0x00 0x00 0x00}, which
 * no entry can equal since an escaped alias never starts with 0x00) lie in {@code [start | 0x00,
 * start | 0x01)}. That range must lie inside the region: {@link #fits} (a split point or region
 * boundary that cuts it makes the daughters rebuild their entries; the split policy avoids them).
 *
 * <p>Shared by the data regions, which write entries with their rows, and the MapReduce bulk build,
 * which writes the same entries into HFiles.
 */
@InterfaceAudience.Private
public final class LocalIndexKeys {
  private static final byte[] MARKER = {0, 0, 0};

  private final byte[] start;

  public LocalIndexKeys(byte[] regionStartKey) {
    this.start = regionStartKey.clone();
  }

  /** The entry row of a (bucket-0) index key. */
  public byte[] physical(byte[] indexKey) {
    byte[] out = Arrays.copyOf(start, start.length + indexKey.length);
    System.arraycopy(indexKey, 0, out, start.length, indexKey.length);
    return out;
  }

  /** The index key of an entry row of this region (the inverse of {@link #physical}). */
  public byte[] indexKey(byte[] physical) {
    return Arrays.copyOfRange(physical, start.length, physical.length);
  }

  /**
   * The entry mutation, in the local index's column {@code family}, of an index put or delete (from
   * {@link IndexUpdatePlanner} or {@link IndexRows}): same value, row key under this region.
   */
  public Mutation entry(Mutation indexMutation, byte[] family, long timestamp) {
    byte[] row = physical(indexMutation.getRow());
    if (indexMutation instanceof Delete) {
      return new Delete(row, timestamp).addFamily(family, timestamp);
    }
    Put put = new Put(row, timestamp);
    for (Cell c : indexMutation.getFamilyCellMap().get(IndexCatalog.INDEX_FAMILY)) {
      put.addColumn(family, IndexCatalog.INDEX_QUALIFIER, timestamp, CellUtil.cloneValue(c));
    }
    return put;
  }

  /**
   * The build marker: the entries in {@code family} are complete for the rows up to {@code
   * regionEndKey} (empty: the table's end). A region opening with a marker whose end key is at or
   * after its own trusts its entries.
   */
  public Put markerPut(byte[] family, byte[] regionEndKey) {
    return new Put(marker()).addColumn(family, IndexCatalog.INDEX_QUALIFIER, regionEndKey);
  }

  /** True if {@code row} is one of this region's entries (or its marker). */
  public boolean isOwn(byte[] row) {
    return row.length > start.length && Bytes.startsWith(row, start) && row[start.length] == 0;
  }

  public byte[] marker() {
    return physical(MARKER);
  }

  /** First row of this region's entries: the marker sorts first. */
  public byte[] first() {
    return physical(new byte[] {0});
  }

  /** The row after this region's entries. */
  public byte[] last() {
    return physical(new byte[] {1});
  }

  /** True if the entries of a region [{@code start}, {@code end}) lie inside it. */
  public static boolean fits(byte[] start, byte[] end) {
    if (end.length == 0) return true;
    byte[] after = Arrays.copyOf(start, start.length + 1);
    after[start.length] = 1;
    return Bytes.compareTo(after, end) <= 0;
  }
}
