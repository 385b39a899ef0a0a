package io.scbf.hbase.client;

import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;

/**
 * Where a row key lies between the first and the last row of a key range, as a fraction: the keys'
 * first eight bytes past their common prefix, read as unsigned numbers. Exact for evenly spread
 * keys and rough otherwise, which is enough for a progress estimate; never outside [0, 1].
 */
final class KeySpan {
  private final byte[] first;
  private final int prefix;
  private final int base;
  private final double from;
  private final double width;

  KeySpan(byte[] first, byte[] last) {
    this.first = first;
    int p = 0;
    while (p < first.length && p < last.length && first[p] == last[p]) p++;
    this.prefix = p;
    this.base = digits(first, p) && digits(last, p) ? 10 : 256;
    this.from = number(first, p, base);
    this.width = number(last, p, base) - from;
  }

  /**
   * The span of the rows in [start, stop) (empty: the table's ends): from its first row, read with
   * a 1-row scan, to {@code stop} (a region's end key, close enough for progress) or, without one,
   * to its last row, read with a 1-row reversed scan. A progress estimate never fails a build:
   * HBase 2.6's reversed scans can fail over a split region's half store files (a
   * NullPointerException in {@code HalfStoreFileReader} until the daughters compact; differential
   * seed 1127's rebuild failed on it), and then the span is empty (the part's progress moves at its
   * end).
   */
  static KeySpan of(Table table, byte[] start, byte[] stop) throws IOException {
    byte[] first = edge(table, new Scan().withStartRow(start).withStopRow(stop));
    if (stop.length > 0) return new KeySpan(first, stop);
    byte[] last;
    try {
      last = edge(table, new Scan().withStartRow(stop).withStopRow(start).setReversed(true));
    } catch (IOException e) {
      last = first;
    }
    return new KeySpan(first, last);
  }

  private static byte[] edge(Table table, Scan scan) throws IOException {
    scan.setLimit(1).setFilter(new KeyOnlyFilter());
    try (ResultScanner s = table.getScanner(scan)) {
      Result r = s.next();
      return r == null ? new byte[0] : r.getRow();
    }
  }

  double at(byte[] key) {
    if (width <= 0) return 0;
    if (!samePrefix(key)) return Arrays.compareUnsigned(key, first) < 0 ? 0 : 1;
    return Math.max(0, Math.min(1, (number(key, prefix, base) - from) / width));
  }

  private boolean samePrefix(byte[] key) {
    if (key.length < prefix) return false;
    for (int i = 0; i < prefix; i++) if (key[i] != first[i]) return false;
    return true;
  }

  private static boolean digits(byte[] key, int at) {
    for (int i = at; i < Math.min(key.length, at + 8); i++) {
      if (key[i] < '0' || key[i] > '9') return false;
    }
    return true;
  }

  /** Bytes [at, at + 8) of key (0 past its end) as an unsigned number in {@code base}. */
  private static double number(byte[] key, int at, int base) {
    double n = 0;
    for (int i = at; i < at + 8; i++) {
      int b = i < key.length ? key[i] & 0xFF : 0;
      n = n * base + (base == 10 ? Math.max(0, Math.min(9, b - '0')) : b);
    }
    return n;
  }
}
