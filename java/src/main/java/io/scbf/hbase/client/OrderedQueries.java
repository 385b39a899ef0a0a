package io.scbf.hbase.client;

import io.scbf.hbase.IndexEntry;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.QueryTrace;
import io.scbf.hbase.ValueOrder;
import io.scbf.hbase.shared.PackedHits.Hit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Range queries in value order on an {@code ORDERED} index: rows (each page re-checked against the
 * data), or entries answered from the index alone (covered ranges), streamed, or the first N. Each
 * salted stream is read from the region holding the range's start (its end when descending) on, and
 * only as far as the entries wanted.
 */
@InterfaceAudience.Private
public final class OrderedQueries {
  private final QueryContext context;

  public OrderedQueries(QueryContext context) {
    this.context = context;
  }

  /** The rows of {@code lo <= value < hi} in {@code order}, page by page. */
  public ResultScanner stream(String index, byte[] lo, byte[] hi, ValueOrder order)
      throws IOException {
    IndexSpec spec = ordered(index);
    byte[][] bounds = bounds(spec, lo, hi);
    return new QueryStream(rowPages(spec, bounds[0], bounds[1], order, context.pageRows, -1));
  }

  /** At most {@code limit} rows of {@code lo <= value < hi}, in {@code order}. */
  public List<Result> first(String index, byte[] lo, byte[] hi, ValueOrder order, int limit)
      throws IOException {
    checkLimit(limit);
    IndexSpec spec = ordered(index);
    byte[][] bounds = bounds(spec, lo, hi);
    List<Result> rows = new ArrayList<>(limit);
    // Pages of the limit: the first page of each stream then holds every entry that could be in
    // the answer unless rows turned out stale.
    try (ResultScanner s =
        new QueryStream(rowPages(spec, bounds[0], bounds[1], order, pageFor(limit), limit))) {
      for (Result r = rows.size() < limit ? s.next() : null;
          r != null;
          r = rows.size() < limit ? s.next() : null) {
        rows.add(r);
      }
    }
    return rows;
  }

  /**
   * At most {@code limit} index entries of {@code lo <= value < hi} in {@code order}, from the
   * index alone: each with its value and covered columns as of the last index write, without
   * reading the data rows (as {@code findEntries} answers a point).
   */
  public List<IndexEntry> entries(String index, byte[] lo, byte[] hi, ValueOrder order, int limit)
      throws IOException {
    checkLimit(limit);
    long start = System.nanoTime();
    IndexSpec spec = ordered(index);
    byte[][] bounds = bounds(spec, lo, hi);
    List<IndexEntry> out = new ArrayList<>(Math.min(limit, context.pageRows));
    try (Table table = context.connection.getTable(context.global.indexTableOf(spec))) {
      OrderedEntries entries =
          context.global.ordered(
              spec, table, bounds[0], bounds[1], order == ValueOrder.DESCENDING, pageFor(limit));
      for (Hit h = out.size() < limit ? entries.next() : null;
          h != null;
          h = out.size() < limit ? entries.next() : null) {
        out.add(IndexEntries.of(spec, h));
      }
      if (entries.building()) {
        out.clear();
        for (Result r : sortedScan(spec, bounds[0], bounds[1], order)) {
          if (out.size() == limit) break;
          out.add(DataScan.entryOf(spec, r));
        }
        trace("range-entries-scan (index building)", spec, 0, start, out.size());
        return out;
      }
      trace("range-entries (ordered)", spec, entries.regions(), start, out.size());
    }
    return out;
  }

  /**
   * The plan a range on {@code index} would run now: on a global {@code ORDERED} or {@code BY_ROW}
   * index, from the entries its regions count in the range (up to the point where a scan costs
   * less); on a local index, from the entries its data regions count in the range (likewise).
   */
  public QueryPlan explain(String index, byte[] lo, byte[] hi) throws IOException {
    return explain(index, List.of(), lo, hi);
  }

  /** {@link #explain(String, byte[], byte[])} with the leading columns equal to {@code equal}. */
  QueryPlan explain(String index, List<byte[]> equal, byte[] lo, byte[] hi) throws IOException {
    IndexSpec spec = context.indexes.named(index);
    byte[][] bounds = RangeQueries.compositeBounds(spec, equal, lo, hi);
    QueryContext.checkBounds(spec, bounds[0], bounds[1]);
    if (spec.isLocal()) return explainLocal(spec, bounds[0], bounds[1]);
    boolean byRow = spec.layout() == IndexSpec.Layout.BY_ROW;
    if (spec.layout() != IndexSpec.Layout.ORDERED && !byRow) {
      return new QueryPlan(
          QueryPlan.Kind.INDEX_LOOKUP,
          QueryPlan.Answer.ROWS,
          -1,
          -1,
          -1,
          -1,
          -1,
          Double.NaN,
          Double.NaN,
          "BY_VALUE index: explain does not count a range; the range reads every region's"
              + " part until a scan is cheaper");
    }
    long tableRows = context.global.tableRowsOf(spec);
    long scanAbove = context.router.scanAboveRows(QueryPlan.Answer.ROWS, false, tableRows);
    long limit = scanAbove > 0 ? scanAbove : Integer.MAX_VALUE - 1;
    RangeSizes.Count counted =
        byRow
            ? context.rangeSizes.countBuckets(spec, bounds[0], bounds[1], limit)
            : context.rangeSizes.countRange(spec, bounds[0], bounds[1], limit);
    // The table's size as the budget was set (the count may teach a newer one), or, if none was
    // known, the one the count taught.
    long rows = tableRows > 0 ? tableRows : context.global.tableRowsOf(spec);
    if (rows <= 0 || counted.entries() < 0) {
      return new QueryPlan(
          counted.entries() < 0 ? QueryPlan.Kind.DATA_SCAN : QueryPlan.Kind.INDEX_LOOKUP,
          QueryPlan.Answer.ROWS,
          counted.entries(),
          -1,
          -1,
          counted.regions(),
          context.global.regionsOf(spec),
          Double.NaN,
          Double.NaN,
          counted.entries() < 0
              ? "the index is building: a query scans"
              : "the table's size is not known yet: the index");
    }
    QueryPlan plan =
        context.router.planRange(
            QueryPlan.Answer.ROWS,
            false,
            counted.entries(),
            rows,
            counted.regions(),
            context.global.regionsOf(spec));
    if (!counted.extrapolated()) return plan;
    return withReason(
        plan,
        byRow
            ? "buckets over their share of the budget sized from one bucket's whole count"
            : "counted until a scan was cheaper, the rest sized from the index regions the range"
                + " spans");
  }

  /** {@code plan} with {@code more} added to its reason. */
  private static QueryPlan withReason(QueryPlan plan, String more) {
    return new QueryPlan(
        plan.kind(),
        plan.answer(),
        plan.estimatedRows(),
        plan.boundRows(),
        plan.tableRows(),
        plan.regionsAsked(),
        plan.regionsTotal(),
        plan.indexCostMs(),
        plan.scanCostMs(),
        plan.reason() + "; " + more);
  }

  /**
   * A local range's plan: its data regions count its entries up to the budget, and those over their
   * part of it are counted whole.
   */
  private QueryPlan explainLocal(IndexSpec spec, byte[] lo, byte[] hi) throws IOException {
    long tableRows = context.local.tableRows(spec);
    long scanAbove = context.router.scanAboveRows(QueryPlan.Answer.ROWS, true, tableRows);
    RangeSizes.Count counted =
        context.local.countRange(spec, lo, hi, scanAbove > 0 ? scanAbove : Integer.MAX_VALUE - 1);
    long rows = tableRows > 0 ? tableRows : context.local.tableRows(spec);
    if (rows <= 0) {
      return new QueryPlan(
          QueryPlan.Kind.INDEX_LOOKUP,
          QueryPlan.Answer.ROWS,
          counted.entries(),
          -1,
          -1,
          counted.regions(),
          counted.regions(),
          Double.NaN,
          Double.NaN,
          "the table's size is not known yet: the index");
    }
    QueryPlan plan =
        context.router.planRange(
            QueryPlan.Answer.ROWS,
            true,
            counted.entries(),
            rows,
            counted.regions(),
            counted.regions());
    return counted.extrapolated()
        ? withReason(plan, "regions over the budget counted whole")
        : plan;
  }

  private static int pageFor(int limit) {
    return Math.max(1, Math.min(limit, 10_000));
  }

  private static void checkLimit(int limit) {
    if (limit < 0) throw new IllegalArgumentException("limit must be >= 0, not " + limit);
  }

  /** The index named {@code index}, which must be {@code ORDERED} to answer in value order. */
  private IndexSpec ordered(String index) {
    IndexSpec spec = context.indexes.named(index);
    if (spec.layout() != IndexSpec.Layout.ORDERED) {
      throw new IllegalArgumentException(
          "index '"
              + index
              + "' is "
              + (spec.isLocal() ? "local" : spec.layout().toString())
              + ": answers in value order need an ORDERED index (create one beside it:"
              + " IndexSpec.Builder.layout(Layout.ORDERED))");
    }
    return spec;
  }

  /** The index-form bounds of a range on the index's (first) column. */
  private static byte[][] bounds(IndexSpec spec, byte[] lo, byte[] hi) {
    byte[][] b = RangeQueries.compositeBounds(spec, List.of(), lo, hi);
    QueryContext.checkBounds(spec, b[0], b[1]);
    return b;
  }

  /**
   * The rows of the range in order, page by page: each page of entries re-checked by one multi-get
   * (which keeps their order); stale entries are dropped. {@code limit} (-1: none) is only the size
   * the caller stops at, for the trace.
   */
  private QueryStream.Pages rowPages(
      IndexSpec spec, byte[] lo, byte[] hi, ValueOrder order, int pageRows, int limit)
      throws IOException {
    long start = System.nanoTime();
    Table table = context.connection.getTable(context.global.indexTableOf(spec));
    OrderedEntries entries;
    Hit first;
    try {
      entries =
          context.global.ordered(spec, table, lo, hi, order == ValueOrder.DESCENDING, pageRows);
      first = entries.next();
    } catch (IOException | RuntimeException e) {
      table.close();
      throw e;
    }
    if (entries.building()) {
      table.close();
      trace("range-ordered-scan (index building)", spec, 0, start, -1);
      return QueryStream.onePage(() -> sortedScan(spec, lo, hi, order));
    }
    String kind = "range-ordered" + (limit >= 0 ? " (first " + limit + ")" : "");
    trace(kind, spec, entries.regions(), start, -1);
    return new QueryStream.Pages() {
      Hit next = first;
      int rows;

      @Override
      public List<Result> next() throws IOException {
        while (next != null) {
          List<byte[]> keys = new ArrayList<>(pageRows);
          List<byte[]> values = new ArrayList<>(pageRows);
          while (next != null && keys.size() < pageRows) {
            keys.add(next.row());
            values.add(next.value());
            next = entries.next();
          }
          // A stream whose region turned to building answers no more entries: not the range's end.
          if (entries.building()) throw context.globalPages.rebuiltWhileStreaming(spec);
          List<Result> rows =
              context.readAgainIfMoved(() -> context.rechecks.rowsAt(keys, values, spec));
          this.rows += rows.size();
          if (!rows.isEmpty()) return rows;
        }
        return null;
      }

      @Override
      public void close() {
        trace(kind, spec, entries.regions(), start, this.rows);
        try {
          table.close();
        } catch (IOException e) {
          // A Table from a shared connection holds nothing to release.
        }
      }
    };
  }

  /** The range's rows by a scan, sorted by (value, row) in {@code order}: while it is building. */
  private List<Result> sortedScan(IndexSpec spec, byte[] lo, byte[] hi, ValueOrder order)
      throws IOException {
    List<Result> rows = new ArrayList<>(context.scans.range(spec, lo, hi));
    Comparator<Result> ascending =
        Comparator.<Result, byte[]>comparing(r -> IndexValues.valueOf(spec, r), Bytes::compareTo)
            .thenComparing(Result::getRow, Bytes::compareTo);
    rows.sort(order == ValueOrder.DESCENDING ? ascending.reversed() : ascending);
    return rows;
  }

  private void trace(String kind, IndexSpec spec, int asked, long startNanos, int rows) {
    context.trace(
        QueryTrace.builder(kind)
            .regions(QueryTrace.Target.INDEX_REGIONS, context.global.knownRegionsOf(spec), asked, 0)
            .lookups(new QueryTrace.Lookups(0, Math.max(rows, 0), QueryContext.micros(startNanos)))
            .build());
  }
}
