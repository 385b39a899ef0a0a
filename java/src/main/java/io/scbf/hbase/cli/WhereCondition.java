package io.scbf.hbase.cli;

import io.scbf.hbase.Condition;
import io.scbf.hbase.IndexSpec;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * A {@code --where} condition of {@code create}, in the form {@link Condition#toString} shows:
 *
 * <ul>
 *   <li>{@code FAMILY:QUALIFIER=VALUE[,VALUE...]}: equality, or IN of several, each value as {@code
 *       Bytes.toBytesBinary} reads it ({@code \x2C} for a comma in a value);
 *   <li>{@code FAMILY:QUALIFIER[:TYPE]>=LOW[,<HIGH]}: a range, either bound alone or both, each
 *       {@code >=}, {@code >}, {@code <=} or {@code <}, values and order of the type ({@link
 *       Args#value}: {@code d:bal:int>=0}; bytes by default); spaces around a bound are dropped
 *       ({@code \x20} for one in a bytes value);
 *   <li>{@code FAMILY:QUALIFIER present}: the column holds a value.
 * </ul>
 */
final class WhereCondition {
  static final String USAGE =
      "--where takes FAMILY:QUALIFIER=VALUE[,VALUE...], FAMILY:QUALIFIER[:TYPE]>=LOW[,<HIGH] (or"
          + " >, <=, <) or 'FAMILY:QUALIFIER present'";
  private static final String PRESENT = " present";

  private WhereCondition() {}

  static Condition parse(String text) throws UsageException {
    int op = firstOperator(text);
    if (op < 0 && text.endsWith(PRESENT)) {
      byte[][] column = Args.column(text.substring(0, text.length() - PRESENT.length()).strip());
      return Condition.present(column[0], column[1]);
    }
    if (op < 0) throw new UsageException(USAGE + ": " + text);
    if (text.charAt(op) == '=') {
      byte[][] column = Args.column(text.substring(0, op));
      List<byte[]> values = new ArrayList<>();
      for (String v : text.substring(op + 1).split(",", -1)) values.add(Bytes.toBytesBinary(v));
      return new Condition(column[0], column[1], values);
    }
    return range(Args.typedColumn(text.substring(0, op).strip()), text.substring(op), text);
  }

  /** Where the column's name ends: the first {@code =}, {@code <} or {@code >} after its colon. */
  private static int firstOperator(String text) {
    for (int i = Math.max(0, text.indexOf(':')); i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '=' || c == '<' || c == '>') return i;
    }
    return -1;
  }

  private static Condition range(Args.TypedColumn column, String bounds, String text)
      throws UsageException {
    IndexSpec.ValueType type = column.typeOr(IndexSpec.ValueType.BYTES);
    byte[] from = null;
    byte[] to = null;
    boolean fromInclusive = false;
    boolean toInclusive = false;
    String[] parts = bounds.split(",", -1);
    if (parts.length > 2) throw new UsageException("a range has two bounds at most: " + text);
    for (String part : parts) {
      String p = part.strip();
      boolean lower = p.startsWith(">");
      if (!lower && !p.startsWith("<")) {
        throw new UsageException("a range bound starts with >=, >, <= or <: " + text);
      }
      boolean inclusive = p.startsWith("=", 1);
      byte[] value = Args.value(type, p.substring(inclusive ? 2 : 1).strip());
      if (lower ? from != null : to != null) {
        throw new UsageException("a range has one lower and one upper bound: " + text);
      }
      if (lower) {
        from = value;
        fromInclusive = inclusive;
      } else {
        to = value;
        toInclusive = inclusive;
      }
    }
    try {
      return Condition.range(
          column.column()[0], column.column()[1], from, fromInclusive, to, toInclusive, type);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage() + ": " + text);
    }
  }
}
