package io.scbf.hbase.client;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.QueryPlan.Answer;
import io.scbf.hbase.QueryTrace;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Streamed queries: the rows of a point or range query page by page ({@code scbf.client.page.rows}
 * entries, each page re-checked before the next is asked), so the client holds one page whatever
 * the answer's size. A global index is read bucket by bucket, a local index region by region, a
 * scan plan region by region.
 */
@InterfaceAudience.Private
public final class StreamedQueries {
  private final QueryContext context;

  public StreamedQueries(QueryContext context) {
    this.context = context;
  }

  /**
   * The rows of a point query ({@link PointQueries#rows(byte[], byte[], byte[])}), page by page:
   * routed and planned as it is, each page re-checked before the next is asked.
   */
  public ResultScanner point(byte[] family, byte[] qualifier, byte[] value) throws IOException {
    IndexSpec spec = context.indexes.onColumn(family, qualifier);
    return point(spec, IndexValues.indexForm(spec, value));
  }

  /** {@link #point(byte[], byte[], byte[])} of one tuple of the index named {@code index}. */
  ResultScanner point(String index, List<byte[]> values) throws IOException {
    IndexSpec spec = context.indexes.named(index);
    return point(spec, IndexValues.valueOf(spec, values));
  }

  private ResultScanner point(IndexSpec spec, byte[] value) throws IOException {
    Routed routed = context.route(spec, value);
    QueryPlan plan = context.plan(Answer.ROWS, spec, routed);
    boolean scan = plan.kind() == QueryPlan.Kind.DATA_SCAN;
    context.trace(
        QueryTrace.builder(
                (spec.isLocal() ? "local-" : "") + (scan ? "point-scan-stream" : "point-stream"))
            .regions(
                QueryContext.regionsOf(spec),
                routed.route() == null ? -1 : routed.route().getTotalRegions(),
                routed.route() == null ? -1 : routed.route().getCandidatesCount(),
                routed.unsure())
            .routing(routed.trace())
            .totalMicros(routed.micros())
            .plan(plan)
            .build());
    if (scan) return new QueryStream(context.scans.pointPages(spec, value, context.pageRows));
    if (spec.isLocal()) {
      return new QueryStream(context.local.pointPages(spec, value, routed, context.pageRows));
    }
    return new QueryStream(context.globalPages.pointPages(spec, value, routed.route()));
  }

  /**
   * At most {@code limit} of the rows of {@link #point}, sorted by row key; reads only the pages
   * they need.
   */
  public List<Result> first(byte[] family, byte[] qualifier, byte[] value, int limit)
      throws IOException {
    if (limit < 0) throw new IllegalArgumentException("limit must be >= 0, not " + limit);
    return first(point(family, qualifier, value), limit);
  }

  /**
   * At most {@code limit} rows of {@code stream}, which this closes, sorted by row key: only the
   * pages they need are read.
   */
  List<Result> first(ResultScanner stream, int limit) throws IOException {
    List<Result> rows = new ArrayList<>(Math.min(limit, context.pageRows));
    try (ResultScanner s = stream) {
      while (rows.size() < limit) {
        Result r = s.next();
        if (r == null) break;
        rows.add(r);
      }
    }
    rows.sort((a, b) -> Bytes.compareTo(a.getRow(), b.getRow()));
    return rows;
  }

  /**
   * The rows of a range query ({@link RangeQueries#rows(byte[], byte[], byte[], byte[])}), page by
   * page.
   */
  public ResultScanner range(byte[] family, byte[] qualifier, byte[] lo, byte[] hi)
      throws IOException {
    IndexSpec spec = context.indexes.onColumn(family, qualifier);
    return range(spec, RangeQueries.form(spec, lo), RangeQueries.form(spec, hi));
  }

  /**
   * The rows of a composite range ({@link RangeQueries#rows(String, List, byte[], byte[])}), page
   * by page.
   */
  public ResultScanner range(String index, List<byte[]> equal, byte[] lo, byte[] hi)
      throws IOException {
    IndexSpec spec = context.indexes.named(index);
    byte[][] bounds = RangeQueries.compositeBounds(spec, equal, lo, hi);
    return range(spec, bounds[0], bounds[1]);
  }

  private ResultScanner range(IndexSpec spec, byte[] lo, byte[] hi) throws IOException {
    return new QueryStream(
        spec.isLocal()
            ? context.local.rangePages(spec, lo, hi, context.pageRows)
            : context.globalPages.rangePages(spec, lo, hi));
  }
}
