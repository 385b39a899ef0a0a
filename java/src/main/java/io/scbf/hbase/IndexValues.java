package io.scbf.hbase;

import io.scbf.hbase.IndexSpec.Column;
import io.scbf.hbase.IndexSpec.ValueType;
import io.scbf.hbase.shared.CompositeValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.hadoop.hbase.client.Result;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * What an index holds of a data row: the value it indexes the row under, whether a value may be
 * written at all, which columns a write must read, and whether a query's conditions select only
 * rows a partial index holds. The write path, builds, verifies and query re-checks all ask here. In
 * the spec's package, not {@code shared}: {@link IndexSpec} keeps delegates of these for
 * compatibility, and a class in another package it calls must not call it back.
 */
@InterfaceAudience.Private
public final class IndexValues {
  private IndexValues() {}

  /**
   * The value a row holds for {@code spec}, given its columns' current values, in its index form
   * (see {@link ValueType}): the column's value, or for a composite index the encoded tuple; null
   * if the row lacks an indexed column or holds a value that is not a valid encoding of its
   * column's type (such a row is not indexed: writes of one are refused, builds name the rows
   * holding one), if its {@link IndexSpec#expression()} has no value of it, or if it does not
   * satisfy the {@link IndexSpec#where()} of a partial index.
   */
  public static byte[] valueOf(IndexSpec spec, Function<Column, byte[]> current) {
    List<Condition> where = spec.where();
    List<Column> whereColumns = spec.whereColumns();
    for (int i = 0; i < where.size(); i++) {
      if (!where.get(i).test(current.apply(whereColumns.get(i)))) return null;
    }
    if (!spec.isComposite()) {
      byte[] v = current.apply(spec.column());
      if (v != null && spec.expression() != null) v = spec.expression().apply(v);
      return v == null ? null : formOrNull(spec, 0, v);
    }
    List<Column> columns = spec.columns();
    List<byte[]> values = new ArrayList<>(columns.size());
    for (int i = 0; i < columns.size(); i++) {
      byte[] v = current.apply(columns.get(i));
      if (v == null) return null;
      byte[] form = formOrNull(spec, i, v);
      if (form == null) return null;
      values.add(form);
    }
    return CompositeValue.encode(values);
  }

  private static byte[] formOrNull(IndexSpec spec, int column, byte[] raw) {
    try {
      return spec.types().get(column).indexForm(raw);
    } catch (IllegalArgumentException notOfTheType) {
      return null;
    }
  }

  /** {@link #valueOf(IndexSpec, Function)} of a data row read with (at least) its columns. */
  public static byte[] valueOf(IndexSpec spec, Result row) {
    return valueOf(spec, c -> row.getValue(c.familyArray(), c.qualifierArray()));
  }

  /**
   * The indexed value of a row whose indexed columns hold {@code values}, in index order: the value
   * itself for a one-column index.
   */
  public static byte[] valueOf(IndexSpec spec, List<byte[]> values) {
    List<Column> columns = spec.columns();
    if (values.size() != columns.size()) {
      throw new IllegalArgumentException(
          "index '"
              + spec.alias()
              + "' has "
              + columns.size()
              + " column(s) "
              + columns
              + ", got "
              + values.size()
              + " value(s)");
    }
    List<byte[]> forms = new ArrayList<>(values.size());
    for (int i = 0; i < values.size(); i++) {
      byte[] v = values.get(i);
      if (v == null) throw new IllegalArgumentException("values must not be null");
      forms.add(indexForm(spec, i, v));
    }
    return spec.isComposite() ? CompositeValue.encode(forms) : forms.get(0);
  }

  /**
   * Why {@code raw} is not a value of indexed column {@code column}'s type, or null if it is (any
   * value of a {@link ValueType#BYTES} column is). Null for an expression index: a value the
   * expression cannot compute leaves the row unindexed, it does not refuse the write.
   */
  public static String invalidValue(IndexSpec spec, Column column, byte[] raw) {
    int i = spec.columns().indexOf(column);
    if (i < 0 || spec.types().get(i) == ValueType.BYTES || spec.expression() != null) return null;
    try {
      spec.types().get(i).indexForm(raw);
      return null;
    } catch (IllegalArgumentException e) {
      return "column "
          + column
          + " of index '"
          + spec.alias()
          + "' is "
          + spec.types().get(i)
          + ": "
          + e.getMessage();
    }
  }

  /**
   * The index form of a value of the indexed column (a composite index's first column) given as
   * {@code Bytes.toBytes} writes it: the form queries compare with.
   *
   * @throws IllegalArgumentException if {@code raw} is not a value of the column's type
   */
  public static byte[] indexForm(IndexSpec spec, byte[] raw) {
    return indexForm(spec, 0, raw);
  }

  /** {@link #indexForm(IndexSpec, byte[])} of the {@code column}-th indexed column (0-based). */
  public static byte[] indexForm(IndexSpec spec, int column, byte[] raw) {
    ValueType type = spec.types().get(column);
    try {
      return type.indexForm(raw);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "index '"
              + spec.alias()
              + "' column "
              + spec.columns().get(column)
              + " is "
              + type
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The value of a one-column index's index form as {@code Bytes.toBytes} writes it; a composite
   * index's tuple as it is.
   */
  public static byte[] rawForm(IndexSpec spec, byte[] indexForm) {
    return spec.isComposite() ? indexForm : spec.type().rawForm(indexForm);
  }

  /**
   * Every column whose change rewrites an index row: the indexed ones, then the covered ones, then
   * those of a partial index's {@link IndexSpec#where()} (each once).
   */
  public static List<Column> watchedColumns(IndexSpec spec) {
    List<Column> all =
        new ArrayList<>(spec.columns().size() + spec.covered().size() + spec.where().size());
    all.addAll(spec.columns());
    all.addAll(spec.covered());
    return withWhereColumns(spec, all);
  }

  /**
   * The columns that decide whether and under which value a row is indexed: the indexed ones, then
   * those of the {@link IndexSpec#where()} that are not indexed.
   */
  public static List<Column> decidingColumns(IndexSpec spec) {
    return withWhereColumns(spec, new ArrayList<>(spec.columns()));
  }

  /** {@code columns} followed by the WHERE's columns it lacks. */
  private static List<Column> withWhereColumns(IndexSpec spec, List<Column> columns) {
    for (Column c : spec.whereColumns()) {
      if (!columns.contains(c)) columns.add(c);
    }
    return columns;
  }

  /**
   * True if every row satisfying all of {@code conditions} satisfies {@code spec}'s {@link
   * IndexSpec#where()}: for each of its conditions, one of {@code conditions} on the same column
   * allows only values it allows. Always true for an index without a WHERE.
   */
  public static boolean isImpliedBy(IndexSpec spec, List<Condition> conditions) {
    return isImpliedBy(spec, conditions, c -> Set.of(ValueType.BYTES));
  }

  /**
   * {@link #isImpliedBy(IndexSpec, List)} for a query that may compare an IN condition's values
   * with a row's in any of {@code comparedIn(condition)} ({@link ValueType#BYTES}: byte for byte),
   * as it does when a typed index answers the condition: the implication must hold in each.
   */
  public static boolean isImpliedBy(
      IndexSpec spec, List<Condition> conditions, Function<Condition, Set<ValueType>> comparedIn) {
    for (Condition w : spec.where()) {
      if (conditions.stream()
          .noneMatch(c -> comparedIn.apply(c).stream().allMatch(t -> c.implies(w, t)))) {
        return false;
      }
    }
    return true;
  }
}
