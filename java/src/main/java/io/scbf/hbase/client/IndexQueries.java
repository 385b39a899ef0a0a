package io.scbf.hbase.client;

import io.scbf.hbase.IndexEntry;
import io.scbf.hbase.IndexQuery;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.ValueOrder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Answers an {@link IndexQuery} by the engine's entry points for its shape: a point query by {@link
 * PointQueries} (or, with a limit, {@link StreamedQueries}), a range in value order by {@link
 * OrderedQueries}, another range by {@link RangeQueries} (or {@link StreamedQueries}).
 */
@InterfaceAudience.Private
public final class IndexQueries {
  private final QueryContext context;
  private final PointQueries points;
  private final RangeQueries ranges;
  private final StreamedQueries streams;
  private final OrderedQueries ordered;

  public IndexQueries(
      QueryContext context,
      PointQueries points,
      RangeQueries ranges,
      StreamedQueries streams,
      OrderedQueries ordered) {
    this.context = context;
    this.points = points;
    this.ranges = ranges;
    this.streams = streams;
    this.ordered = ordered;
  }

  /** The query against this table's indexes: its index, equal values and half-open range. */
  private record Asked(
      IndexSpec spec, List<byte[]> equal, HalfOpenRange range, ValueOrder order, int limit) {
    String alias() {
      return spec.alias();
    }

    boolean isPoint() {
      return range == null;
    }

    int limitOr(int none) {
      return limit > 0 ? limit : none;
    }
  }

  private Asked resolve(IndexQuery q) {
    IndexSpec spec =
        q.alias() != null
            ? context.indexes.named(q.alias())
            : context.indexes.onColumn(q.family(), q.qualifier());
    List<byte[]> equal = q.values();
    int columns = spec.columns().size();
    if (equal.size() > columns) {
      throw new IllegalArgumentException(
          "index '" + spec.alias() + "' has " + columns + " column(s), got " + equal.size());
    }
    if (!q.isRange() && equal.size() == columns) {
      if (q.order() != null) {
        throw new IllegalArgumentException(
            "a value order applies to a range; " + q + " is a point query");
      }
      return new Asked(spec, equal, null, null, q.limit());
    }
    if (equal.size() == columns) {
      throw new IllegalArgumentException(
          "a range on index '"
              + spec.alias()
              + "' is on the column after its equal values: give at most "
              + (columns - 1)
              + " of its "
              + columns
              + " column(s) "
              + spec.columns());
    }
    if (q.order() != null && !equal.isEmpty()) {
      throw new IllegalArgumentException(
          "a value order is answered for a range on an ORDERED index's first column, not after"
              + " equal values: "
              + q);
    }
    HalfOpenRange range =
        HalfOpenRange.of(
            spec.types().get(equal.size()),
            q.lower(),
            q.isLowerInclusive(),
            q.upper(),
            q.isUpperInclusive());
    return new Asked(spec, equal, range, q.order(), q.limit());
  }

  public List<Result> rows(IndexQuery q) throws IOException {
    return context.strictIf(q.isStrict(), () -> rows(resolve(q)));
  }

  private List<Result> rows(Asked a) throws IOException {
    if (a.isPoint()) {
      return a.limit > 0
          ? streams.first(streams.point(a.alias(), a.equal), a.limit)
          : points.rows(a.alias(), a.equal.toArray(byte[][]::new));
    }
    HalfOpenRange r = a.range;
    if (a.order != null) {
      return a.limit > 0
          ? ordered.first(a.alias(), r.lo(), r.hi(), a.order, a.limit)
          : all(ordered.stream(a.alias(), r.lo(), r.hi(), a.order));
    }
    return a.limit > 0
        ? streams.first(streams.range(a.alias(), a.equal, r.lo(), r.hi()), a.limit)
        : ranges.rows(a.alias(), a.equal, r.lo(), r.hi());
  }

  public List<byte[]> rowKeys(IndexQuery q) throws IOException {
    return context.strictIf(q.isStrict(), () -> rowKeys(resolve(q)));
  }

  private List<byte[]> rowKeys(Asked a) throws IOException {
    if (a.isPoint()) return first(points.rowKeys(a.alias(), a.equal), a.limit);
    HalfOpenRange r = a.range;
    if (a.order != null) {
      List<byte[]> keys = new ArrayList<>();
      for (IndexEntry e : orderedEntries(a)) keys.add(e.row());
      return keys;
    }
    return first(ranges.rowKeys(a.alias(), a.equal, r.lo(), r.hi()), a.limit);
  }

  public List<IndexEntry> entries(IndexQuery q) throws IOException {
    return context.strictIf(q.isStrict(), () -> entries(resolve(q)));
  }

  private List<IndexEntry> entries(Asked a) throws IOException {
    if (a.isPoint()) return first(points.entries(a.alias(), a.equal), a.limit);
    if (a.spec.layout() != IndexSpec.Layout.ORDERED || !a.equal.isEmpty()) {
      throw new IllegalArgumentException(
          "the entries of a range are read from an ORDERED index's first column (a covered"
              + " range); index '"
              + a.alias()
              + "' is "
              + (a.spec.isLocal() ? "local" : a.spec.layout().toString())
              + (a.equal.isEmpty() ? "" : " and the range follows equal values")
              + ": ask rowKeys or get");
    }
    return orderedEntries(a);
  }

  private List<IndexEntry> orderedEntries(Asked a) throws IOException {
    ValueOrder order = a.order == null ? ValueOrder.ASCENDING : a.order;
    return ordered.entries(
        a.alias(), a.range.lo(), a.range.hi(), order, a.limitOr(Integer.MAX_VALUE));
  }

  public ResultScanner scanner(IndexQuery q) throws IOException {
    return context.strictIf(q.isStrict(), () -> scanner(resolve(q)));
  }

  private ResultScanner scanner(Asked a) throws IOException {
    ResultScanner rows;
    if (a.isPoint()) {
      rows = streams.point(a.alias(), a.equal);
    } else if (a.order != null) {
      rows = ordered.stream(a.alias(), a.range.lo(), a.range.hi(), a.order);
    } else {
      rows = streams.range(a.alias(), a.equal, a.range.lo(), a.range.hi());
    }
    return a.limit > 0 ? new LimitedScanner(rows, a.limit) : rows;
  }

  public QueryPlan explain(IndexQuery q, QueryPlan.Answer answer) throws IOException {
    return context.strictIf(
        q.isStrict(),
        () -> {
          Asked a = resolve(q);
          return a.isPoint()
              ? points.explain(a.alias(), a.equal, answer)
              : ordered.explain(a.alias(), a.equal, a.range.lo(), a.range.hi());
        });
  }

  private static List<Result> all(ResultScanner stream) throws IOException {
    List<Result> rows = new ArrayList<>();
    try (ResultScanner s = stream) {
      for (Result r = s.next(); r != null; r = s.next()) rows.add(r);
    }
    return rows;
  }

  private static <T> List<T> first(List<T> answer, int limit) {
    return limit > 0 && answer.size() > limit ? List.copyOf(answer.subList(0, limit)) : answer;
  }
}
