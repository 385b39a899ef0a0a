package io.scbf.hbase.differential;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The oracle's input: what a plain HBase scan of the data table shows now, row by row and column by
 * column. Nothing of the product is used to read it, so HBase decides every question of timestamps,
 * delete markers, versions and TTL. {@code aheadOfClock}: the rows showing a cell stamped after the
 * read began (a client timestamp in the future), which the answers do not compare but an expiring
 * index entry's allowance does (see {@link Checker}).
 */
record Snapshot(TreeMap<String, TreeMap<String, byte[]>> rows, Set<String> aheadOfClock) {
  static Snapshot read(Connection connection, TableName table) throws IOException {
    long now = System.currentTimeMillis();
    TreeMap<String, TreeMap<String, byte[]>> rows = new TreeMap<>();
    Set<String> ahead = new TreeSet<>();
    try (Table t = connection.getTable(table);
        ResultScanner scanner = t.getScanner(new Scan())) {
      for (Result r : scanner) add(r, now, rows, ahead);
    }
    return new Snapshot(rows, ahead);
  }

  private static void add(
      Result r, long now, TreeMap<String, TreeMap<String, byte[]>> rows, Set<String> ahead) {
    String row = Bytes.toString(r.getRow());
    rows.put(row, cells(r));
    for (Cell c : r.rawCells()) {
      if (c.getTimestamp() > now) ahead.add(row);
    }
  }

  /**
   * The rows a Get of each of {@code rows} shows: HBase's two reads must agree (the product hooks
   * region scanners, to hide a local index's family, and must not change what a scan shows).
   */
  static Snapshot readByGets(Connection connection, TableName table, java.util.List<String> rows)
      throws IOException {
    long now = System.currentTimeMillis();
    TreeMap<String, TreeMap<String, byte[]>> out = new TreeMap<>();
    Set<String> ahead = new TreeSet<>();
    try (Table t = connection.getTable(table)) {
      for (String row : rows) {
        Result r = t.get(new org.apache.hadoop.hbase.client.Get(Bytes.toBytes(row)));
        if (!r.isEmpty()) add(r, now, out, ahead);
      }
    }
    return new Snapshot(out, ahead);
  }

  static TreeMap<String, byte[]> cells(Result r) {
    TreeMap<String, byte[]> cells = new TreeMap<>();
    for (Cell c : r.rawCells()) {
      cells.put(
          Bytes.toString(CellUtil.cloneFamily(c))
              + ":"
              + Bytes.toString(CellUtil.cloneQualifier(c)),
          CellUtil.cloneValue(c));
    }
    return cells;
  }

  /** A row as the answers are compared: its key and every cell HBase shows. */
  static String describe(String row, Map<String, byte[]> cells) {
    StringBuilder b = new StringBuilder(row).append('{');
    String sep = "";
    for (Map.Entry<String, byte[]> e : cells.entrySet()) {
      b.append(sep).append(e.getKey()).append('=').append(Bytes.toStringBinary(e.getValue()));
      sep = ", ";
    }
    return b.append('}').toString();
  }

  String describe(String row) {
    return describe(row, rows.getOrDefault(row, new TreeMap<>()));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Snapshot s && s.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    for (String row : rows.keySet()) b.append(describe(row)).append(' ');
    return b.toString();
  }
}
