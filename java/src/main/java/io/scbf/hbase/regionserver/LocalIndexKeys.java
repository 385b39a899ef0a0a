package io.scbf.hbase.regionserver;

import java.util.Arrays;
import org.apache.hadoop.hbase.util.Bytes;

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
 */
final class LocalIndexKeys {
  private static final byte[] MARKER = {0, 0, 0};

  private final byte[] start;

  LocalIndexKeys(byte[] regionStartKey) {
    this.start = regionStartKey.clone();
  }

  /** The entry row of a (bucket-0) index key. */
  byte[] physical(byte[] indexKey) {
    byte[] out = Arrays.copyOf(start, start.length + indexKey.length);
    System.arraycopy(indexKey, 0, out, start.length, indexKey.length);
    return out;
  }

  /** The index key of an entry row of this region (the inverse of {@link #physical}). */
  byte[] indexKey(byte[] physical) {
    return Arrays.copyOfRange(physical, start.length, physical.length);
  }

  /** True if {@code row} is one of this region's entries (or its marker). */
  boolean isOwn(byte[] row) {
    return row.length > start.length && Bytes.startsWith(row, start) && row[start.length] == 0;
  }

  byte[] marker() {
    return physical(MARKER);
  }

  /** First row of this region's entries: the marker sorts first. */
  byte[] first() {
    return physical(new byte[] {0});
  }

  /** The row after this region's entries. */
  byte[] last() {
    return physical(new byte[] {1});
  }

  /** True if the entries of a region [{@code start}, {@code end}) lie inside it. */
  static boolean fits(byte[] start, byte[] end) {
    if (end.length == 0) return true;
    byte[] after = Arrays.copyOf(start, start.length + 1);
    after[start.length] = 1;
    return Bytes.compareTo(after, end) <= 0;
  }
}
