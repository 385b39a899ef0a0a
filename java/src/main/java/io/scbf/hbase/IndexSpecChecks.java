package io.scbf.hbase;

import static io.scbf.hbase.IndexSpec.MAX_BUCKETS;
import static io.scbf.hbase.IndexSpec.MAX_COLUMNS;
import static io.scbf.hbase.IndexSpec.MAX_INITIAL_CAPACITY;
import static io.scbf.hbase.IndexSpec.MAX_INITIAL_FILTER_BYTES;
import static io.scbf.hbase.IndexSpec.MIN_BUCKETS;
import static io.scbf.hbase.IndexSpec.MIN_FPP;

import io.scbf.hbase.IndexSpec.Column;
import io.scbf.hbase.IndexSpec.Consistency;
import io.scbf.hbase.IndexSpec.Layout;
import io.scbf.hbase.IndexSpec.ValueType;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The checks of {@link IndexSpec.Builder#build()}, in the order it runs them: a spec that fails one
 * never reaches a descriptor, so every spec a server decodes passed them all.
 */
@InterfaceAudience.Private
final class IndexSpecChecks {
  private static final Pattern ALIAS = Pattern.compile("[A-Za-z0-9_]{1,32}");

  private IndexSpecChecks() {}

  /** The indexed column and the alias every index needs. */
  static void named(byte[] family, byte[] qualifier, String alias) {
    if (family == null || family.length == 0) {
      throw new IllegalArgumentException("index family must be given and non-empty");
    }
    if (qualifier == null) {
      throw new IllegalArgumentException("index qualifier must not be null (it may be empty)");
    }
    if (alias == null || !ALIAS.matcher(alias).matches()) {
      throw new IllegalArgumentException(
          "index alias must match [A-Za-z0-9_]{1,32}, got "
              + (alias == null ? "none" : "'" + alias + "'"));
    }
  }

  /** What a local index cannot be given; {@code layout} is null unless the builder set it. */
  static void local(boolean bucketsSet, int buckets, Layout layout, Consistency consistency) {
    if (bucketsSet && buckets != 1) {
      throw new IllegalArgumentException(
          "a local index has no buckets (its entries live in the data regions), got buckets="
              + buckets);
    }
    if (layout != null && layout != Layout.BY_ROW) {
      throw new IllegalArgumentException(
          "a local index lives in the data regions; layout " + layout + " is for global ones");
    }
    if (consistency == Consistency.EVENTUAL) {
      throw new IllegalArgumentException(
          "a local index is written in the data write's own mini-batch and WAL entry, so it is"
              + " always STRONG; EVENTUAL is for global indexes");
    }
  }

  /** The buckets and the filter's sizing, within what every region server can allocate. */
  static void sizes(int buckets, double fpp, long initialCapacity) {
    if (buckets < MIN_BUCKETS || buckets > MAX_BUCKETS) {
      throw new IllegalArgumentException(
          "buckets must be in [" + MIN_BUCKETS + ", " + MAX_BUCKETS + "], got " + buckets);
    }
    if (!(fpp >= MIN_FPP && fpp <= 0.5)) {
      throw new IllegalArgumentException("fpp must be in [" + MIN_FPP + ", 0.5], got " + fpp);
    }
    if (initialCapacity < 1 || initialCapacity > MAX_INITIAL_CAPACITY) {
      throw new IllegalArgumentException(
          "initialCapacity must be in [1, 2^24], got " + initialCapacity);
    }
    long filterBytes = IndexSpec.initialFilterBytes(initialCapacity, fpp);
    if (filterBytes > MAX_INITIAL_FILTER_BYTES) {
      throw new IllegalArgumentException(
          "initialCapacity "
              + initialCapacity
              + " at fpp "
              + fpp
              + " needs a first filter of "
              + (filterBytes >> 20)
              + " MiB per bucket; the limit is "
              + (MAX_INITIAL_FILTER_BYTES >> 20)
              + " MiB (lower the capacity: the filter grows as keys arrive)");
    }
  }

  /** The indexed and covered columns: at most {@link IndexSpec#MAX_COLUMNS} indexed, each once. */
  static void columns(List<Column> indexed, List<Column> covered) {
    if (indexed.size() > MAX_COLUMNS) {
      throw new IllegalArgumentException(
          "a composite index has at most " + MAX_COLUMNS + " columns, got " + indexed.size());
    }
    for (int i = 1; i < indexed.size(); i++) {
      if (indexed.subList(0, i).contains(indexed.get(i))) {
        throw new IllegalArgumentException("indexed column " + indexed.get(i) + " listed twice");
      }
    }
    for (int i = 0; i < covered.size(); i++) {
      if (indexed.contains(covered.get(i))) {
        throw new IllegalArgumentException(
            "covered column " + covered.get(i) + " is an indexed column");
      }
      if (covered.subList(0, i).contains(covered.get(i))) {
        throw new IllegalArgumentException("covered column " + covered.get(i) + " listed twice");
      }
    }
  }

  /**
   * An expression ({@code null} if none) on one column with a result of the declared {@code type},
   * and a WHERE naming each column, with its family, once.
   */
  static void derivation(
      IndexExpression expression, ValueType type, List<Condition> where, int columns) {
    if (expression != null) {
      if (columns > 1) {
        throw new IllegalArgumentException(
            "an expression index has one column; a composite index indexes its columns' values");
      }
      boolean fits =
          expression.producesLong()
              ? type == ValueType.BYTES || type == ValueType.LONG
              : type == ValueType.BYTES || type == ValueType.STRING;
      if (!fits) {
        throw new IllegalArgumentException(
            "expression "
                + expression
                + " produces "
                + (expression.producesLong()
                    ? "a long (type long or bytes)"
                    : "text (type string or bytes)")
                + ", not "
                + type.text());
      }
    }
    if (where.size() > MAX_COLUMNS) {
      throw new IllegalArgumentException(
          "a partial index has at most " + MAX_COLUMNS + " WHERE conditions, got " + where.size());
    }
    for (int i = 0; i < where.size(); i++) {
      Condition c = where.get(i);
      if (c.family().length == 0) {
        throw new IllegalArgumentException("WHERE condition " + c + " needs a column family");
      }
      for (int j = 0; j < i; j++) {
        Condition o = where.get(j);
        if (Arrays.equals(c.family(), o.family()) && Arrays.equals(c.qualifier(), o.qualifier())) {
          throw new IllegalArgumentException(
              "WHERE names column " + new Column(c.family(), c.qualifier()) + " twice");
        }
      }
    }
  }
}
