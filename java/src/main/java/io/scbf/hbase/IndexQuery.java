package io.scbf.hbase;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * One question to an index, answered by {@link IndexedTable#get}, {@link IndexedTable#rowKeys},
 * {@link IndexedTable#entries}, {@link IndexedTable#getScanner} and {@link IndexedTable#explain},
 * in the manner of HBase's {@code Scan}:
 *
 * <pre>{@code
 * IndexQuery adults = IndexQuery.onIndex("age")
 *     .withLower(Bytes.toBytes(18L), true)
 *     .withUpper(Bytes.toBytes(65L), false)
 *     .withOrder(ValueOrder.DESCENDING)
 *     .withLimit(10);
 * List<Result> rows = table.get(adults);
 * }</pre>
 *
 * <p>The index is named by its alias ({@link #onIndex}) or by its column ({@link #onColumn}: the
 * one-column index on it). With values for every indexed column and no bound the query is a point
 * query; otherwise it is a range: equality on the leading columns given ({@link #withValues}, by
 * alias only), then the next column between the bounds (none: every value). Values and bounds are
 * given as the column holds them ({@code Bytes.toBytes(-5L)} for a {@code LONG} column) and
 * compared in the column type's order.
 *
 * <p>Bounds are inclusive or exclusive. The engine reads half-open ranges, so an exclusive lower or
 * inclusive upper bound is turned into the next value of the column's type ({@code 6L} for {@code >
 * 5L}, {@code "ab\0"} for {@code <= "ab"}, the next float for a float); a {@code BIG_DECIMAL}
 * column has no next value, and the query then fails with an {@link IllegalArgumentException}, as
 * one whose range holds no value does.
 *
 * <p>A value: every {@code with} method returns a new query and leaves this one as it was, so a
 * query may be kept, shared between threads and asked again. Arrays are copied in and out.
 */
@InterfaceAudience.Public
public final class IndexQuery {
  private final String alias;
  private final byte[] family;
  private final byte[] qualifier;
  private final List<byte[]> values;
  private final byte[] lower;
  private final boolean lowerInclusive;
  private final byte[] upper;
  private final boolean upperInclusive;
  private final ValueOrder order;
  private final int limit;
  private final boolean strict;

  /**
   * A query's fields while a {@code with} method changes one: copied from a query, changed, then
   * made a new query (whose fields stay final, so a query is safe to share between threads).
   */
  private static final class Parts {
    String alias;
    byte[] family;
    byte[] qualifier;
    List<byte[]> values = List.of();
    byte[] lower;
    boolean lowerInclusive;
    byte[] upper;
    boolean upperInclusive;
    ValueOrder order;
    int limit = -1;
    boolean strict;
  }

  private IndexQuery(Parts p) {
    this.alias = p.alias;
    this.family = p.family;
    this.qualifier = p.qualifier;
    this.values = p.values;
    this.lower = p.lower;
    this.lowerInclusive = p.lower != null && p.lowerInclusive;
    this.upper = p.upper;
    this.upperInclusive = p.upper != null && p.upperInclusive;
    this.order = p.order;
    this.limit = p.limit;
    this.strict = p.strict;
    if (alias == null && values.size() > 1) {
      throw new IllegalArgumentException(
          "a query on a column takes one value; ask a composite index by its alias"
              + " (IndexQuery.onIndex)");
    }
    if (alias == null && !values.isEmpty() && isRange()) {
      throw new IllegalArgumentException(
          "a query on a column takes a value or bounds, not both; equality on leading columns"
              + " and a range on the next is asked of a composite index by its alias");
    }
    if (order != null && alias == null && !isRange() && !values.isEmpty()) {
      throw new IllegalArgumentException("a value order applies to a range, not to a point query");
    }
  }

  private Parts parts() {
    Parts p = new Parts();
    p.alias = alias;
    p.family = family;
    p.qualifier = qualifier;
    p.values = values;
    p.lower = lower;
    p.lowerInclusive = lowerInclusive;
    p.upper = upper;
    p.upperInclusive = upperInclusive;
    p.order = order;
    p.limit = limit;
    p.strict = strict;
    return p;
  }

  /** A query of the index named {@code alias} (composite or not). */
  public static IndexQuery onIndex(String alias) {
    if (alias == null || alias.isEmpty()) {
      throw new IllegalArgumentException("an index alias must not be null or empty");
    }
    Parts p = new Parts();
    p.alias = alias;
    return new IndexQuery(p);
  }

  /** A query of the one-column index on {@code family:qualifier}. */
  public static IndexQuery onColumn(byte[] family, byte[] qualifier) {
    if (family == null || qualifier == null) {
      throw new IllegalArgumentException("family and qualifier must not be null");
    }
    Parts p = new Parts();
    p.family = family.clone();
    p.qualifier = qualifier.clone();
    return new IndexQuery(p);
  }

  /** The query with the indexed column equal to {@code value}. */
  public IndexQuery withValue(byte[] value) {
    return withValues(value);
  }

  /**
   * The query with its index's leading columns equal to {@code values}, in index order: a point
   * query when there is one per column, else a range over the next column.
   */
  public IndexQuery withValues(byte[]... values) {
    if (values == null || values.length == 0) {
      throw new IllegalArgumentException("withValues needs at least one value");
    }
    List<byte[]> copies = new ArrayList<>(values.length);
    for (byte[] v : values) {
      if (v == null) throw new IllegalArgumentException("values must not be null");
      copies.add(v.clone());
    }
    Parts p = parts();
    p.values = List.copyOf(copies);
    return new IndexQuery(p);
  }

  /**
   * The query with the range's values at or above ({@code inclusive}) or above {@code value}; null
   * leaves the lower side open, as the positional methods' null bound did.
   */
  public IndexQuery withLower(byte[] value, boolean inclusive) {
    Parts p = parts();
    p.lower = bound(value);
    p.lowerInclusive = inclusive;
    return new IndexQuery(p);
  }

  /**
   * The query with the range's values at or below ({@code inclusive}) or below {@code value}; null
   * leaves the upper side open.
   */
  public IndexQuery withUpper(byte[] value, boolean inclusive) {
    Parts p = parts();
    p.upper = bound(value);
    p.upperInclusive = inclusive;
    return new IndexQuery(p);
  }

  private static byte[] bound(byte[] value) {
    return value == null ? null : value.clone();
  }

  /**
   * The query answered in value order (the column type's order, ties by row key; {@link
   * ValueOrder#DESCENDING} reverses both): a range of an {@code ORDERED} index without equal values
   * only; other queries fail with an {@link IllegalArgumentException} when asked.
   */
  public IndexQuery withOrder(ValueOrder order) {
    if (order == null) throw new IllegalArgumentException("order must not be null");
    Parts p = parts();
    p.order = order;
    return new IndexQuery(p);
  }

  /**
   * The query answering at most {@code limit} rows, keys or entries: the first ones in value order
   * if it has one, else the first of its stream (see {@link IndexedTable#get(IndexQuery)}).
   */
  public IndexQuery withLimit(int limit) {
    if (limit <= 0) throw new IllegalArgumentException("limit must be > 0, not " + limit);
    Parts p = parts();
    p.limit = limit;
    return new IndexQuery(p);
  }

  /**
   * A strict point query skips routing and asks every bucket or region: it sees every acknowledged
   * write at once, for this query only (ranges ask every region that may hold them anyway).
   */
  public IndexQuery withStrict(boolean strict) {
    Parts p = parts();
    p.strict = strict;
    return new IndexQuery(p);
  }

  /** The index's alias, or null for a query on a column. */
  public String alias() {
    return alias;
  }

  /** The column's family, or null for a query on an alias. */
  public byte[] family() {
    return family == null ? null : family.clone();
  }

  /** The column's qualifier, or null for a query on an alias. */
  public byte[] qualifier() {
    return qualifier == null ? null : qualifier.clone();
  }

  /** The values of the leading columns (empty: none). */
  public List<byte[]> values() {
    return values.stream().map(byte[]::clone).toList();
  }

  /** The lower bound, or null if open. */
  public byte[] lower() {
    return lower == null ? null : lower.clone();
  }

  public boolean isLowerInclusive() {
    return lowerInclusive;
  }

  /** The upper bound, or null if open. */
  public byte[] upper() {
    return upper == null ? null : upper.clone();
  }

  public boolean isUpperInclusive() {
    return upperInclusive;
  }

  /** True if the query has a bound: a range even with a value for every column. */
  public boolean isRange() {
    return lower != null || upper != null;
  }

  /** The value order, or null for the engine's own order. */
  public ValueOrder order() {
    return order;
  }

  /** The limit, or -1 for none. */
  public int limit() {
    return limit;
  }

  public boolean isStrict() {
    return strict;
  }

  /** {@code IndexQuery[index=age, >= \x80..., < ..., DESCENDING, limit 10]}, bytes as binary. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("IndexQuery[");
    sb.append(alias != null ? "index=" + alias : "column=" + show(family) + ":" + show(qualifier));
    if (!values.isEmpty())
      sb.append(", values=").append(values.stream().map(v -> show(v)).toList());
    if (lower != null) sb.append(lowerInclusive ? ", >= " : ", > ").append(show(lower));
    if (upper != null) sb.append(upperInclusive ? ", <= " : ", < ").append(show(upper));
    if (order != null) sb.append(", ").append(order);
    if (limit > 0) sb.append(", limit ").append(limit);
    if (strict) sb.append(", strict");
    return sb.append(']').toString();
  }

  private static String show(byte[] bytes) {
    return Bytes.toStringBinary(bytes);
  }
}
