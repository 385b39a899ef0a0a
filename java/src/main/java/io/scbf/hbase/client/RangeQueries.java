package io.scbf.hbase.client;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.shared.CompositeValue;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.client.Result;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Range queries ({@code lo <= value < hi}, null = unbounded; on a composite index, equality on the
 * leading columns and a range on the next): an {@code ORDERED} index's regions holding the range,
 * else every bucket or data region, are asked, whole or in pages, and the rows re-checked.
 */
@InterfaceAudience.Private
public final class RangeQueries {
  private final QueryContext context;

  public RangeQueries(QueryContext context) {
    this.context = context;
  }

  /** Row keys the index holds with {@code lo <= value < hi}, sorted, deduplicated. */
  public List<byte[]> rowKeys(byte[] family, byte[] qualifier, byte[] lo, byte[] hi)
      throws IOException {
    IndexSpec spec = context.indexes.onColumn(family, qualifier);
    return rowKeys(spec, form(spec, lo), form(spec, hi));
  }

  /**
   * Row keys the index {@code index} holds with its first {@code equal.size()} columns equal to
   * {@code equal} and the next in {@code [lo, hi)}, sorted, deduplicated.
   */
  List<byte[]> rowKeys(String index, List<byte[]> equal, byte[] lo, byte[] hi) throws IOException {
    IndexSpec spec = context.indexes.named(index);
    byte[][] bounds = compositeBounds(spec, equal, lo, hi);
    return rowKeys(spec, bounds[0], bounds[1]);
  }

  private List<byte[]> rowKeys(IndexSpec spec, byte[] lo, byte[] hi) throws IOException {
    long start = System.nanoTime();
    if (spec.isLocal()) {
      LocalQueries.RangeAnswer answer =
          context.local.range(
              spec, lo, hi, LocalQueryRequest.Answer.KEYS, QueryPlan.Answer.ROW_KEYS);
      context.finishTrace(start, answer.plan());
      return answer.scanned() != null
          ? answer.scanned().stream().map(Result::getRow).toList()
          : context.local.rowKeys(answer.answers());
    }
    GlobalLookups.Answer answer = context.global.range(spec, lo, hi, QueryPlan.Answer.ROW_KEYS);
    context.finishTrace(start, answer.plan());
    return answer.rowKeys();
  }

  /** The data rows with {@code lo <= family:qualifier < hi} now, re-checked. */
  public List<Result> rows(byte[] family, byte[] qualifier, byte[] lo, byte[] hi)
      throws IOException {
    IndexSpec spec = context.indexes.onColumn(family, qualifier);
    return rows(spec, form(spec, lo), form(spec, hi));
  }

  /**
   * The rows whose first {@code equal.size()} columns of index {@code index} equal {@code equal}
   * and whose next column lies in {@code [lo, hi)}, re-checked.
   */
  public List<Result> rows(String index, List<byte[]> equal, byte[] lo, byte[] hi)
      throws IOException {
    IndexSpec spec = context.indexes.named(index);
    byte[][] bounds = compositeBounds(spec, equal, lo, hi);
    return rows(spec, bounds[0], bounds[1]);
  }

  private List<Result> rows(IndexSpec spec, byte[] lo, byte[] hi) throws IOException {
    long start = System.nanoTime();
    List<Result> rows;
    QueryPlan plan = null;
    if (spec.isLocal()) {
      LocalQueries.RangeAnswer answer =
          context.local.range(spec, lo, hi, LocalQueryRequest.Answer.ROWS, QueryPlan.Answer.ROWS);
      plan = answer.plan();
      rows = answer.scanned() != null ? answer.scanned() : context.local.rows(answer.answers());
    } else {
      GlobalLookups.Answer answer = context.global.range(spec, lo, hi, QueryPlan.Answer.ROWS);
      plan = answer.plan();
      rows =
          answer.scanned() != null
              ? answer.scanned()
              : context.rechecks.rows(
                  answer.rowKeys(), spec, v -> IndexKeyCodec.inRange(v, lo, hi));
    }
    context.finishTrace(start, plan);
    return rows;
  }

  /**
   * The bounds of the indexed values with the leading columns {@code equal}, the next in [lo, hi).
   */
  static byte[][] compositeBounds(IndexSpec spec, List<byte[]> equal, byte[] lo, byte[] hi) {
    List<byte[]> given = List.copyOf(equal); // rejects null values
    if (given.size() >= spec.columns().size()) {
      throw new IllegalArgumentException(
          "a range on index '"
              + spec.alias()
              + "' takes equal values for at most its first "
              + (spec.columns().size() - 1)
              + " column(s) "
              + spec.columns()
              + ", got "
              + given.size());
    }
    List<byte[]> leading = new ArrayList<>(given.size());
    for (int i = 0; i < given.size(); i++)
      leading.add(IndexValues.indexForm(spec, i, given.get(i)));
    int next = given.size();
    byte[] from = lo == null ? null : IndexValues.indexForm(spec, next, lo);
    byte[] to = hi == null ? null : IndexValues.indexForm(spec, next, hi);
    return spec.isComposite() ? CompositeValue.bounds(leading, from, to) : new byte[][] {from, to};
  }

  /** The index form of a bound of a one-column range (null: unbounded). */
  static byte[] form(IndexSpec spec, byte[] bound) {
    return bound == null ? null : IndexValues.indexForm(spec, bound);
  }
}
