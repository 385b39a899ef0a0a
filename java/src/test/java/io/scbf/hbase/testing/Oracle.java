package io.scbf.hbase.testing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/** Brute force: a full scan of the data table, grouping row keys by the column's latest value. */
public final class Oracle {
  private final TreeMap<byte[], TreeSet<byte[]>> rowsByValue =
      new TreeMap<>(Bytes.BYTES_COMPARATOR);

  public Oracle(Connection connection, TableName table, byte[] family, byte[] qualifier)
      throws IOException {
    try (Table t = connection.getTable(table);
        ResultScanner scanner = t.getScanner(new Scan().addColumn(family, qualifier))) {
      for (Result r : scanner) {
        rowsByValue
            .computeIfAbsent(
                r.getValue(family, qualifier), v -> new TreeSet<>(Bytes.BYTES_COMPARATOR))
            .add(r.getRow());
      }
    }
  }

  public List<String> rows(byte[] value) {
    return strings(rowsByValue.getOrDefault(value, new TreeSet<>(Bytes.BYTES_COMPARATOR)));
  }

  public List<String> range(byte[] lo, byte[] hi) {
    TreeSet<byte[]> all = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    rowsByValue.forEach(
        (v, rows) -> {
          if ((lo == null || Bytes.compareTo(v, lo) >= 0)
              && (hi == null || Bytes.compareTo(v, hi) < 0)) {
            all.addAll(rows);
          }
        });
    return strings(all);
  }

  public List<byte[]> values() {
    return new ArrayList<>(rowsByValue.keySet());
  }

  public static List<String> strings(Iterable<byte[]> rows) {
    List<String> out = new ArrayList<>();
    for (byte[] r : rows) out.add(Bytes.toStringBinary(r));
    return out;
  }

  public static List<String> resultRows(List<Result> results) {
    List<String> out = new ArrayList<>();
    for (Result r : results) out.add(Bytes.toStringBinary(r.getRow()));
    return out;
  }
}
