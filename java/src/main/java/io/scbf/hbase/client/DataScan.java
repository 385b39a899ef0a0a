package io.scbf.hbase.client;

import io.scbf.hbase.Condition;
import io.scbf.hbase.IndexEntry;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.shared.CompositeValue;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexValueFilter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Answers a query on an indexed column by scanning the data table's regions in parallel, with the
 * value test run in the region servers: the plan the {@link QueryPlanner} picks for a popular
 * value, and the answer of a global index that cannot answer yet because it is being built (after
 * {@code createIndex} started, a snapshot restore or clone), so a query is slow, never incomplete.
 * Rows come back in row-key order.
 */
final class DataScan {
  private static final int CACHING = 1000;

  private final QueryContext context;
  private final Connection connection;
  private final TableName table;
  private final ExecutorService pool;

  DataScan(QueryContext context, Connection connection, TableName table, ExecutorService pool) {
    this.context = context;
    this.connection = connection;
    this.table = table;
    this.pool = pool;
  }

  /** Rows whose current value of the index ({@link IndexValues#valueOf}) equals {@code value}. */
  List<Result> point(IndexSpec spec, byte[] value) throws IOException {
    return scan(pointFilter(spec, value), valueTest(spec, v -> Bytes.equals(v, value)));
  }

  /** Every indexed column equal to its part of {@code value}, tested in the region servers. */
  private static Filter pointFilter(IndexSpec spec, byte[] value) {
    if (computed(spec)) return IndexValueFilter.equalTo(spec, value);
    if (!spec.isComposite()) {
      return test(spec.family(), spec.qualifier(), CompareOperator.EQUAL, value);
    }
    FilterList all = new FilterList(FilterList.Operator.MUST_PASS_ALL);
    List<byte[]> values = CompositeValue.decode(value);
    for (int i = 0; i < values.size(); i++) {
      IndexSpec.Column c = spec.columns().get(i);
      all.addFilter(test(c.family(), c.qualifier(), CompareOperator.EQUAL, values.get(i)));
    }
    return all;
  }

  /**
   * True if the index's value of a row is not its columns' bytes (a type's form, an expression, a
   * WHERE): the region servers compute it ({@link IndexValueFilter}) rather than compare bytes.
   */
  private static boolean computed(IndexSpec spec) {
    return spec.isTyped() || !spec.answersByColumn();
  }

  /**
   * Rows satisfying every condition (each tested in the region servers, a typed range only for its
   * column's presence: the client tests the bounds); {@code specs} are the conditions' indexes
   * (null: none), in the same order, whose types decide how values compare.
   */
  List<Result> matching(List<Condition> conditions, List<IndexSpec> specs) throws IOException {
    FilterList all = new FilterList(FilterList.Operator.MUST_PASS_ALL);
    for (int i = 0; i < conditions.size(); i++)
      all.addFilter(test(conditions.get(i), specs.get(i)));
    return scan(all, r -> MultiColumnQueries.matchesAll(conditions, specs, r));
  }

  private static Filter test(Condition c, IndexSpec spec) {
    byte[] f = c.family();
    byte[] q = c.qualifier();
    Condition.Range r = c.range();
    if (c.kind() == Condition.Kind.IN) {
      FilterList any = new FilterList(FilterList.Operator.MUST_PASS_ONE);
      for (byte[] v : c.values()) {
        any.addFilter(
            spec != null && spec.isTyped()
                ? IndexValueFilter.equalTo(spec, IndexValues.indexForm(spec, v))
                : test(f, q, CompareOperator.EQUAL, v));
      }
      return any;
    }
    FilterList bounds = new FilterList(FilterList.Operator.MUST_PASS_ALL);
    bounds.addFilter(test(f, q, CompareOperator.GREATER_OR_EQUAL, new byte[0])); // present
    if (r != null && r.type() == IndexSpec.ValueType.BYTES) {
      if (r.from() != null) {
        bounds.addFilter(
            test(
                f,
                q,
                r.fromInclusive() ? CompareOperator.GREATER_OR_EQUAL : CompareOperator.GREATER,
                r.from()));
      }
      if (r.to() != null) {
        bounds.addFilter(
            test(
                f,
                q,
                r.toInclusive() ? CompareOperator.LESS_OR_EQUAL : CompareOperator.LESS,
                r.to()));
      }
    }
    return bounds;
  }

  /**
   * Rows whose current value lies in {@code [lo, hi)} (null = unbounded). For a composite index the
   * region servers only drop rows lacking an indexed column; the bounds are tested here.
   */
  List<Result> range(IndexSpec spec, byte[] lo, byte[] hi) throws IOException {
    if (computed(spec)) {
      return scan(
          new IndexValueFilter(spec, lo, hi),
          valueTest(spec, v -> IndexKeyCodec.inRange(v, lo, hi)));
    }
    FilterList bounds = new FilterList(FilterList.Operator.MUST_PASS_ALL);
    if (spec.isComposite()) {
      for (IndexSpec.Column c : spec.columns()) {
        bounds.addFilter(
            test(c.family(), c.qualifier(), CompareOperator.GREATER_OR_EQUAL, new byte[0]));
      }
    } else if (lo != null) {
      bounds.addFilter(test(spec.family(), spec.qualifier(), CompareOperator.GREATER_OR_EQUAL, lo));
    }
    if (hi != null && !spec.isComposite())
      bounds.addFilter(test(spec.family(), spec.qualifier(), CompareOperator.LESS, hi));
    // Also the only test of an unbounded range (no server-side filter then).
    return scan(
        bounds.size() == 0 ? null : bounds, valueTest(spec, v -> IndexKeyCodec.inRange(v, lo, hi)));
  }

  /**
   * The rows of {@link #point} in pages of at most {@code pageRows}, in row-key order, from one
   * sequential scanner (a stream holds one page; the parallel scan would hold one per region). A
   * scanner that fails on stale locations is opened again after the last row it returned ({@link
   * QueryContext#readAgainIfMoved}).
   */
  QueryStream.Pages pointPages(IndexSpec spec, byte[] value, int pageRows) throws IOException {
    Predicate<Result> matches = valueTest(spec, v -> Bytes.equals(v, value));
    Scan scan = new Scan().setCaching(pageRows).setFilter(pointFilter(spec, value));
    Table t = connection.getTable(table);
    return new QueryStream.Pages() {
      ResultScanner rows;
      byte[] last; // the last row returned: where a scanner opened again starts after

      @Override
      public List<Result> next() throws IOException {
        List<Result> page = new ArrayList<>();
        while (page.size() < pageRows) {
          Result r = context.readAgainIfMoved(this::nextRow);
          if (r == null) return page.isEmpty() ? null : page;
          if (matches.test(r)) page.add(r);
        }
        return page;
      }

      private Result nextRow() throws IOException {
        if (rows == null) {
          rows = t.getScanner(last == null ? scan : new Scan(scan).withStartRow(last, false));
        }
        try {
          Result r = rows.next();
          if (r != null) last = r.getRow();
          return r;
        } catch (IOException | RuntimeException e) {
          rows.close();
          rows = null;
          throw e;
        }
      }

      @Override
      public void close() {
        if (rows != null) rows.close();
        try {
          t.close();
        } catch (IOException e) {
          // A Table from a shared connection holds nothing to release.
        }
      }
    };
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

  private static Filter test(byte[] family, byte[] qualifier, CompareOperator op, byte[] operand) {
    SingleColumnValueFilter f = new SingleColumnValueFilter(family, qualifier, op, operand);
    f.setFilterIfMissing(true);
    f.setLatestVersionOnly(true);
    return f;
  }

  /** The client-side test of the row's current value of the index (absent: no match). */
  private static Predicate<Result> valueTest(IndexSpec spec, Predicate<byte[]> matches) {
    return r -> {
      byte[] v = IndexValues.valueOf(spec, r);
      return v != null && matches.test(v);
    };
  }

  /**
   * One scan per region, in parallel ({@link ParallelCalls}). A region that split or moved
   * meanwhile is handled by the client's scanner: each scan covers a key range, not a region.
   */
  private List<Result> scan(Filter filter, Predicate<Result> matches) throws IOException {
    List<HRegionLocation> regions;
    try (RegionLocator locator = connection.getRegionLocator(table)) {
      regions = locator.getAllRegionLocations();
    }
    List<Callable<List<Result>>> scans = new ArrayList<>(regions.size());
    for (HRegionLocation r : regions) scans.add(() -> scanRange(r, filter, matches));
    List<Result> out = new ArrayList<>();
    for (List<Result> part : ParallelCalls.all(pool, scans, "scan of " + table)) out.addAll(part);
    return out;
  }

  private List<Result> scanRange(HRegionLocation region, Filter filter, Predicate<Result> matches)
      throws IOException {
    Scan scan =
        new Scan()
            .withStartRow(region.getRegion().getStartKey())
            .withStopRow(region.getRegion().getEndKey())
            .setCaching(CACHING);
    if (filter != null) scan.setFilter(filter);
    List<Result> out = new ArrayList<>();
    try (Table t = connection.getTable(table);
        ResultScanner rows = t.getScanner(scan)) {
      for (Result r : rows) {
        if (matches.test(r)) out.add(r);
      }
    }
    return out;
  }
}
