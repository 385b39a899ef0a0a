package io.scbf.hbase.client;

import io.scbf.hbase.IndexEntry;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.QueryPlan.Answer;
import io.scbf.hbase.QueryTrace;
import io.scbf.hbase.shared.PackedHits;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Point queries (one value of one index, or one tuple of a composite index): routed, planned, then
 * answered by the index (global buckets or local regions) or, if the planner chose it, by a scan of
 * the data table. {@code find} re-checks every row against its current value.
 */
@InterfaceAudience.Private
public final class PointQueries {
  private final QueryContext context;
  private final RangeQueries ranges;

  public PointQueries(QueryContext context, RangeQueries ranges) {
    this.context = context;
    this.ranges = ranges;
  }

  /** Row keys the index holds for {@code family:qualifier = value}, sorted, without re-check. */
  public List<byte[]> rowKeys(byte[] family, byte[] qualifier, byte[] value) throws IOException {
    IndexSpec spec = context.indexes.onColumn(family, qualifier);
    return rowKeys(spec, IndexValues.indexForm(spec, value));
  }

  /** {@link #rowKeys(byte[], byte[], byte[])} of one tuple of the index named {@code index}. */
  List<byte[]> rowKeys(String index, List<byte[]> values) throws IOException {
    IndexSpec spec = context.indexes.named(index);
    return rowKeys(spec, IndexValues.valueOf(spec, values));
  }

  private List<byte[]> rowKeys(IndexSpec spec, byte[] value) throws IOException {
    long start = System.nanoTime();
    Routed routed = context.route(spec, value);
    QueryPlan plan = context.plan(Answer.ROW_KEYS, spec, routed);
    if (plan.kind() != QueryPlan.Kind.DATA_SCAN && !spec.isLocal()) {
      GlobalLookups.Answer answer = context.global.point(spec, value, routed, Answer.ROW_KEYS);
      context.finishTrace(start, answer.planOr(plan));
      return answer.rowKeys();
    }
    List<byte[]> rows = rowKeys(spec, value, routed, plan);
    context.finishTrace(start, plan);
    return rows;
  }

  /** {@link #rowKeys} once routed and planned; also the keys of one condition of an AND. */
  List<byte[]> rowKeys(IndexSpec spec, byte[] value, Routed routed, QueryPlan plan)
      throws IOException {
    if (plan.kind() != QueryPlan.Kind.DATA_SCAN) {
      return spec.isLocal()
          ? context.local.rowKeys(
              context.local.point(spec, value, LocalQueryRequest.Answer.KEYS, routed))
          : context.global.point(spec, value, routed, Answer.ROW_KEYS).rowKeys();
    }
    List<byte[]> rows = new ArrayList<>();
    for (Result r : scan(spec, value, plan, routed)) rows.add(r.getRow());
    return rows;
  }

  /** The data rows with {@code family:qualifier = value} now (index answers re-checked). */
  public List<Result> rows(byte[] family, byte[] qualifier, byte[] value) throws IOException {
    IndexSpec spec = context.indexes.onColumn(family, qualifier);
    return rows(spec, IndexValues.indexForm(spec, value));
  }

  private List<Result> rows(IndexSpec spec, byte[] value) throws IOException {
    long start = System.nanoTime();
    Routed routed = context.route(spec, value);
    QueryPlan plan = context.plan(Answer.ROWS, spec, routed);
    List<Result> rows;
    if (plan.kind() == QueryPlan.Kind.DATA_SCAN) {
      rows = scan(spec, value, plan, routed);
    } else if (spec.isLocal()) {
      // Each region re-checked its rows and answered them whole: no second round trip.
      rows =
          context.local.rows(
              context.local.point(spec, value, LocalQueryRequest.Answer.ROWS, routed));
    } else {
      GlobalLookups.Answer answer = context.global.point(spec, value, routed, Answer.ROWS);
      plan = answer.planOr(plan);
      if (answer.scanned() != null) {
        rows = answer.scanned();
      } else {
        List<byte[]> indexed = answer.rowKeys();
        rows = context.rechecks.rows(indexed, spec, v -> Arrays.equals(v, value));
        context.rechecks.removeStaleInBackground(spec, value, indexed, rows);
      }
    }
    context.finishTrace(start, plan);
    return rows;
  }

  /** Index entries (row and covered values) for {@code family:qualifier = value}. */
  public List<IndexEntry> entries(byte[] family, byte[] qualifier, byte[] value)
      throws IOException {
    IndexSpec spec = context.indexes.onColumn(family, qualifier);
    return entries(spec, IndexValues.indexForm(spec, value));
  }

  /** {@link #entries(byte[], byte[], byte[])} of one tuple of the index named {@code index}. */
  List<IndexEntry> entries(String index, List<byte[]> values) throws IOException {
    IndexSpec spec = context.indexes.named(index);
    return entries(spec, IndexValues.valueOf(spec, values));
  }

  private List<IndexEntry> entries(IndexSpec spec, byte[] value) throws IOException {
    long start = System.nanoTime();
    Routed routed = context.route(spec, value);
    QueryPlan plan = context.plan(Answer.ENTRIES, spec, routed);
    List<IndexEntry> entries = new ArrayList<>();
    if (plan.kind() == QueryPlan.Kind.DATA_SCAN) {
      for (Result r : scan(spec, value, plan, routed)) entries.add(DataScan.entryOf(spec, r));
    } else if (spec.isLocal()) {
      for (LocalQueryResponse r :
          context.local.point(spec, value, LocalQueryRequest.Answer.ENTRIES, routed)) {
        r.getHitsList().forEach(h -> entries.add(IndexEntries.of(spec, PackedHits.Hit.of(h))));
      }
    } else {
      GlobalLookups.Answer found = context.global.point(spec, value, routed, Answer.ENTRIES);
      plan = found.planOr(plan);
      entries.addAll(found.entries(spec));
    }
    entries.sort((a, b) -> Bytes.compareTo(a.row(), b.row()));
    context.finishTrace(start, plan);
    return entries;
  }

  /** The plan a point query returning {@code answer} would run now, with its estimates. */
  public QueryPlan explain(byte[] family, byte[] qualifier, byte[] value, Answer answer) {
    IndexSpec spec = context.indexes.onColumn(family, qualifier);
    return explain(spec, IndexValues.indexForm(spec, value), answer);
  }

  /**
   * A {@code BY_VALUE} index's plan comes from its value's region; if that region cannot be asked,
   * the plan is the one a query would start with (the index), and says why.
   */
  private QueryPlan explain(IndexSpec spec, byte[] value, Answer answer) {
    Routed routed = context.route(spec, value);
    if (spec.routedByKey() && !context.strict()) {
      try {
        return context.global.explainByValue(spec, value, answer);
      } catch (IOException e) {
        QueryPlan start = context.plan(answer, spec, routed);
        return new QueryPlan(
            start.kind(),
            answer,
            -1,
            -1,
            -1,
            1,
            -1,
            Double.NaN,
            Double.NaN,
            "the value's region gave no estimate (" + e.getMessage() + "): the index");
      }
    }
    return context.plan(answer, spec, routed);
  }

  /**
   * The rows whose columns of index {@code index} equal {@code values}: a point query with one
   * value per column, a range over the rest with fewer (equality on the leading columns).
   */
  public List<Result> rows(String index, byte[]... values) throws IOException {
    IndexSpec spec = context.indexes.named(index);
    List<byte[]> given = List.of(values); // rejects null values
    if (given.isEmpty()) throw new IllegalArgumentException("find needs at least one value");
    if (given.size() >= spec.columns().size()) return rows(spec, IndexValues.valueOf(spec, given));
    return ranges.rows(index, given, null, null);
  }

  /** The plan {@link #rows(String, byte[]...)} would run for a point query on {@code index}. */
  public QueryPlan explain(String index, byte[]... values) {
    return explain(index, List.of(values), Answer.ROWS);
  }

  /** The plan a point query on one tuple of {@code index} returning {@code answer} would run. */
  QueryPlan explain(String index, List<byte[]> values, Answer answer) {
    IndexSpec spec = context.indexes.named(index);
    return explain(spec, IndexValues.valueOf(spec, values), answer);
  }

  /** Runs a DATA_SCAN plan and traces it. */
  private List<Result> scan(IndexSpec spec, byte[] value, QueryPlan plan, Routed routed)
      throws IOException {
    long start = System.nanoTime();
    List<Result> rows = context.scans.point(spec, value);
    context.trace(
        QueryTrace.builder(spec.isLocal() ? "local-point-scan (planned)" : "point-scan (planned)")
            .regions(QueryContext.regionsOf(spec), plan.regionsTotal(), 0, routed.unsure())
            .routing(routed.trace()) // a scan plan needs a route with estimates
            .lookups(new QueryTrace.Lookups(0, rows.size(), QueryContext.micros(start)))
            .build());
    return rows;
  }
}
