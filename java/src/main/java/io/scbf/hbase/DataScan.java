package io.scbf.hbase;

import io.scbf.hbase.shared.IndexKeyCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Answers a query on an indexed column by scanning the data table, with the value test run in the
 * region servers: for a global index that cannot answer yet because it is being built (after {@code
 * createIndex} started, a snapshot restore or clone), so a query is slow, never incomplete.
 */
final class DataScan {
  private static final int CACHING = 1000;

  private DataScan() {}

  /** Rows whose current {@code spec.column()} value equals {@code value}. */
  static List<Result> point(Connection connection, TableName table, IndexSpec spec, byte[] value)
      throws IOException {
    return scan(
        connection,
        table,
        spec,
        test(spec, CompareOperator.EQUAL, value),
        v -> Bytes.equals(v, value));
  }

  /** Rows whose current value lies in {@code [lo, hi)} (null = unbounded). */
  static List<Result> range(
      Connection connection, TableName table, IndexSpec spec, byte[] lo, byte[] hi)
      throws IOException {
    FilterList bounds = new FilterList(FilterList.Operator.MUST_PASS_ALL);
    if (lo != null) bounds.addFilter(test(spec, CompareOperator.GREATER_OR_EQUAL, lo));
    if (hi != null) bounds.addFilter(test(spec, CompareOperator.LESS, hi));
    return scan(
        connection,
        table,
        spec,
        bounds.size() == 0 ? null : bounds,
        v -> IndexKeyCodec.inRange(v, lo, hi));
  }

  /** The index entry a row would have: its key and the covered columns it holds. */
  static IndexEntry entryOf(IndexSpec spec, Result row) {
    Map<IndexSpec.Column, byte[]> covered = new LinkedHashMap<>();
    for (IndexSpec.Column c : spec.covered()) {
      byte[] v = row.getValue(c.family(), c.qualifier());
      if (v != null) covered.put(c, v);
    }
    return new IndexEntry(row.getRow(), covered);
  }

  private static Filter test(IndexSpec spec, CompareOperator op, byte[] operand) {
    SingleColumnValueFilter f =
        new SingleColumnValueFilter(spec.family(), spec.qualifier(), op, operand);
    f.setFilterIfMissing(true);
    f.setLatestVersionOnly(true);
    return f;
  }

  private static List<Result> scan(
      Connection connection,
      TableName table,
      IndexSpec spec,
      Filter filter,
      Predicate<byte[]> matches)
      throws IOException {
    Scan scan = new Scan().setCaching(CACHING);
    if (filter != null) scan.setFilter(filter);
    List<Result> out = new ArrayList<>();
    try (Table t = connection.getTable(table);
        ResultScanner rows = t.getScanner(scan)) {
      for (Result r : rows) {
        // Also the only test of an unbounded range (no server-side filter then).
        byte[] v = r.getValue(spec.family(), spec.qualifier());
        if (v != null && matches.test(v)) out.add(r);
      }
    }
    return out;
  }
}
