package io.scbf.hbase;

import io.scbf.hbase.IndexSpec.ValueType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * One predicate on a column, of a multi-column query ({@link IndexedTable#find(Condition...)}) or
 * of a partial index's WHERE ({@link IndexSpec.Builder#where}): the column equal to one of some
 * values, as SQL's {@code =} or {@code IN (...)} ({@link Kind#IN}); its value within a {@link
 * Range} ({@link Kind#RANGE}); or the column present with any value ({@link Kind#PRESENT}). A
 * missing column satisfies none. Several conditions are ANDed.
 *
 * @param kind which of the three it is
 * @param values for {@link Kind#IN}: distinct, sorted, at least one; empty for the other kinds
 * @param range for {@link Kind#RANGE}, null for the other kinds
 */
@InterfaceAudience.Public
public record Condition(
    byte[] family,
    byte[] qualifier,
    Condition.Kind kind,
    List<byte[]> values,
    Condition.Range range) {

  private static final HexFormat HEX = HexFormat.of();

  /** An open bound in {@link #text()}. */
  private static final String OPEN = "*";

  /** What a condition asks of its column's value. */
  public enum Kind {
    /** One of {@link Condition#values()}. */
    IN,
    /** Within {@link Condition#range()}. */
    RANGE,
    /** Any value. */
    PRESENT
  }

  public Condition {
    if (family == null || qualifier == null) {
      throw new IllegalArgumentException("family and qualifier must not be null");
    }
    if (kind == null) throw new IllegalArgumentException("kind must not be null");
    family = family.clone();
    qualifier = qualifier.clone();
    if ((kind == Kind.RANGE) != (range != null)) {
      throw new IllegalArgumentException("a range, and only a range, condition has a range");
    }
    if (kind == Kind.IN) {
      values = distinctSorted(values);
    } else if (values != null && !values.isEmpty()) {
      throw new IllegalArgumentException("a " + kind + " condition has no values");
    } else {
      values = List.of();
    }
  }

  /** {@code family:qualifier IN (values)}: the form of the releases before ranges. */
  public Condition(byte[] family, byte[] qualifier, List<byte[]> values) {
    this(family, qualifier, Kind.IN, values, null);
  }

  private static List<byte[]> distinctSorted(List<byte[]> values) {
    if (values == null || values.isEmpty()) {
      throw new IllegalArgumentException("a condition needs at least one value");
    }
    TreeSet<byte[]> distinct = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    for (byte[] v : values) {
      if (v == null) throw new IllegalArgumentException("values must not be null");
      distinct.add(v.clone());
    }
    return List.copyOf(new ArrayList<>(distinct));
  }

  @Override
  public byte[] family() {
    return family.clone();
  }

  @Override
  public byte[] qualifier() {
    return qualifier.clone();
  }

  /** The IN values, sorted (copies: a condition is a value no caller can change). */
  @Override
  public List<byte[]> values() {
    return values.stream().map(byte[]::clone).toList();
  }

  /** Equal when they ask the same of the same column, bytes compared. */
  @Override
  public boolean equals(Object o) {
    if (this == o) return true;
    if (!(o instanceof Condition c)) return false;
    if (kind != c.kind || !Arrays.equals(family, c.family)) return false;
    if (!Arrays.equals(qualifier, c.qualifier) || !Objects.equals(range, c.range)) {
      return false;
    }
    if (values.size() != c.values.size()) return false;
    for (int i = 0; i < values.size(); i++) {
      if (!Arrays.equals(values.get(i), c.values.get(i))) return false;
    }
    return true;
  }

  @Override
  public int hashCode() {
    int h = 31 * Arrays.hashCode(family) + Arrays.hashCode(qualifier);
    h = 31 * h + kind.hashCode();
    for (byte[] v : values) h = 31 * h + Arrays.hashCode(v);
    return 31 * h + Objects.hashCode(range);
  }

  /** {@code family:qualifier = value}. */
  public static Condition eq(byte[] family, byte[] qualifier, byte[] value) {
    return new Condition(family, qualifier, Arrays.asList(value));
  }

  /** {@code family:qualifier IN (values)}. */
  public static Condition in(byte[] family, byte[] qualifier, byte[]... values) {
    return new Condition(family, qualifier, Arrays.asList(values));
  }

  /**
   * {@code family:qualifier} between {@code from} and {@code to} (either null: unbounded on that
   * side) in unsigned byte order, as HBase compares.
   */
  public static Condition range(
      byte[] family,
      byte[] qualifier,
      byte[] from,
      boolean fromInclusive,
      byte[] to,
      boolean toInclusive) {
    return range(family, qualifier, from, fromInclusive, to, toInclusive, ValueType.BYTES);
  }

  /**
   * {@code family:qualifier} between {@code from} and {@code to} (either null: unbounded on that
   * side) in {@code type}'s order, bounds and values as {@code Bytes.toBytes} of the type writes
   * them; a value that is not of the type is outside.
   */
  public static Condition range(
      byte[] family,
      byte[] qualifier,
      byte[] from,
      boolean fromInclusive,
      byte[] to,
      boolean toInclusive,
      ValueType type) {
    return new Condition(
        family, qualifier, Kind.RANGE, null, new Range(from, fromInclusive, to, toInclusive, type));
  }

  /** {@code family:qualifier} holds a value (any, the empty one too). */
  public static Condition present(byte[] family, byte[] qualifier) {
    return new Condition(family, qualifier, Kind.PRESENT, null, null);
  }

  /** True if {@code value} (the column's current value, or null if absent) satisfies it. */
  public boolean test(byte[] value) {
    if (value == null) return false;
    return switch (kind) {
      case IN -> isOneOfTheValues(value);
      case RANGE -> range.test(value);
      case PRESENT -> true;
    };
  }

  private boolean isOneOfTheValues(byte[] value) {
    for (byte[] v : values) if (Bytes.equals(v, value)) return true;
    return false;
  }

  /**
   * True if every value this allows ({@link #test}: an IN's byte for byte), {@code other} allows
   * too, on the same column: so a row satisfying this satisfies {@code other}. Exact for IN within
   * IN or within a range and for "present"; a range within a range of the same type is compared in
   * the type's order (sound, but blind to gaps between ints); a range never implies an IN (a
   * one-value range would, but is not worth its special case), nor does a range of another type.
   */
  boolean implies(Condition other) {
    return implies(other, ValueType.BYTES);
  }

  /**
   * {@link #implies(Condition)} for a query that tests this condition's IN values against a row's
   * as {@code comparedIn} values (its column's typed index answers it): a row's value then
   * satisfies it when equal to one of them in that type, in bytes or not (a {@code BIG_DECIMAL}
   * 1.00 is 1.0). Only a type in which equal values are equal bytes keeps the byte-wise answer;
   * otherwise an IN implies "present" and a range of that very type (which tests the same typed
   * form), and no IN: {@code other}'s test is byte-wise.
   */
  boolean implies(Condition other, ValueType comparedIn) {
    if (!Arrays.equals(family, other.family) || !Arrays.equals(qualifier, other.qualifier)) {
      return false;
    }
    if (kind == Kind.IN && !equalMeansSameBytes(comparedIn)) {
      return switch (other.kind) {
        case PRESENT -> true;
        case IN -> false;
        case RANGE -> other.range.type == comparedIn && values.stream().allMatch(other::test);
      };
    }
    return switch (other.kind) {
      case PRESENT -> true;
      case IN -> kind == Kind.IN && values.stream().allMatch(other::test);
      case RANGE ->
          switch (kind) {
            case IN -> values.stream().allMatch(other::test);
            case RANGE -> range.within(other.range);
            case PRESENT -> false;
          };
    };
  }

  /**
   * False for the types whose {@link ValueType#indexForm} is one form of values with different
   * bytes: every NaN's encoding, a number at every scale.
   */
  private static boolean equalMeansSameBytes(ValueType type) {
    return switch (type) {
      case BYTES, STRING, INT, LONG -> true;
      case FLOAT, DOUBLE, BIG_DECIMAL -> false;
    };
  }

  /** {@code d:status = A}, {@code d:status IN [A, B]}, {@code d:age:int >= 18, < 65}, ... */
  @Override
  public String toString() {
    String column = Bytes.toStringBinary(family) + ":" + Bytes.toStringBinary(qualifier);
    return switch (kind) {
      case IN -> {
        List<String> shown = new ArrayList<>();
        for (byte[] v : values) shown.add(Bytes.toStringBinary(v));
        yield column + (values.size() == 1 ? " = " + shown.get(0) : " IN " + shown);
      }
      case RANGE -> column + range;
      case PRESENT -> column + " present";
    };
  }

  /**
   * The form in an index spec's {@code where} field: {@code family:qualifier:} in hex and then, for
   * an IN, its values {@code v1[:v2...]} in hex; {@code present}; or {@code range:TYPE:LO:HI} with
   * LO {@code [hex}, {@code (hex} or {@code *} (open) and HI {@code hex]}, {@code hex)} or {@code
   * *}. The words are not hex, so they cannot be read as a value, and a jar that knew IN only would
   * fail to parse them rather than misread them. No commas: the field joins conditions with them.
   */
  String text() {
    StringBuilder sb = new StringBuilder();
    sb.append(HEX.formatHex(family)).append(':').append(HEX.formatHex(qualifier));
    switch (kind) {
      case IN -> values.forEach(v -> sb.append(':').append(HEX.formatHex(v)));
      case PRESENT -> sb.append(":present");
      case RANGE -> {
        sb.append(":range:").append(range.type.text()).append(':');
        sb.append(
            range.from == null
                ? OPEN
                : (range.fromInclusive ? "[" : "(") + HEX.formatHex(range.from));
        sb.append(':');
        sb.append(
            range.to == null ? OPEN : HEX.formatHex(range.to) + (range.toInclusive ? "]" : ")"));
      }
    }
    return sb.toString();
  }

  /** Inverse of {@link #text()}. */
  static Condition parse(String text) {
    String[] parts = text.split(":", -1);
    if (parts.length < 3) throw malformed(text);
    byte[] family = HEX.parseHex(parts[0]);
    byte[] qualifier = HEX.parseHex(parts[1]);
    if (parts[2].equals("present")) {
      if (parts.length != 3) throw malformed(text);
      return present(family, qualifier);
    }
    if (parts[2].equals("range")) {
      if (parts.length != 6) throw malformed(text);
      String lo = parts[4];
      String hi = parts[5];
      boolean openLo = lo.equals(OPEN);
      boolean openHi = hi.equals(OPEN);
      if ((!openLo && !(lo.startsWith("[") || lo.startsWith("(")))
          || (!openHi && !(hi.endsWith("]") || hi.endsWith(")")))) {
        throw malformed(text);
      }
      return range(
          family,
          qualifier,
          openLo ? null : HEX.parseHex(lo.substring(1)),
          lo.startsWith("["),
          openHi ? null : HEX.parseHex(hi.substring(0, hi.length() - 1)),
          hi.endsWith("]"),
          ValueType.ofText(parts[3]));
    }
    List<byte[]> values = new ArrayList<>();
    for (int i = 2; i < parts.length; i++) values.add(HEX.parseHex(parts[i]));
    return new Condition(family, qualifier, values);
  }

  private static IllegalArgumentException malformed(String condition) {
    return new IllegalArgumentException("malformed where condition " + condition);
  }

  /**
   * The values between two bounds in a type's order ({@link ValueType#indexForm}); a null bound is
   * open (its inclusive flag is then false). Not empty: {@code from} is below {@code to}, or equal
   * to it with both inclusive.
   */
  public record Range(
      byte[] from, boolean fromInclusive, byte[] to, boolean toInclusive, ValueType type) {
    public Range {
      if (type == null) throw new IllegalArgumentException("a range needs a value type");
      if (from == null && to == null) {
        throw new IllegalArgumentException(
            "a range needs a bound (a column with any value: Condition.present)");
      }
      from = from == null ? null : from.clone();
      to = to == null ? null : to.clone();
      fromInclusive &= from != null;
      toInclusive &= to != null;
      byte[] lo = boundForm(type, from);
      byte[] hi = boundForm(type, to);
      if (lo != null && hi != null) {
        int c = Bytes.compareTo(lo, hi);
        if (c > 0 || (c == 0 && !(fromInclusive && toInclusive))) {
          throw new IllegalArgumentException(
              "empty range: " + show(type, from) + " is not below " + show(type, to));
        }
      }
    }

    private static byte[] boundForm(ValueType type, byte[] bound) {
      if (bound == null) return null;
      try {
        return type.indexForm(bound);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("range bound: " + e.getMessage(), e);
      }
    }

    /** True if {@code value} is of the type and between the bounds. */
    public boolean test(byte[] value) {
      if (value == null) return false;
      byte[] form;
      try {
        form = type.indexForm(value);
      } catch (IllegalArgumentException notOfTheType) {
        return false;
      }
      return (from == null || above(form, type.indexForm(from), fromInclusive))
          && (to == null || above(type.indexForm(to), form, toInclusive));
    }

    private static boolean above(byte[] value, byte[] bound, boolean orEqual) {
      int c = Bytes.compareTo(value, bound);
      return c > 0 || (c == 0 && orEqual);
    }

    /** True if every value within this is within {@code other}. */
    boolean within(Range other) {
      if (type != other.type) return false;
      boolean lowOk =
          other.from == null
              || (from != null
                  && above(
                      type.indexForm(from),
                      type.indexForm(other.from),
                      other.fromInclusive || !fromInclusive));
      boolean highOk =
          other.to == null
              || (to != null
                  && above(
                      type.indexForm(other.to),
                      type.indexForm(to),
                      other.toInclusive || !toInclusive));
      return lowOk && highOk;
    }

    @Override
    public byte[] from() {
      return from == null ? null : from.clone();
    }

    @Override
    public byte[] to() {
      return to == null ? null : to.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Range r
          && type == r.type
          && fromInclusive == r.fromInclusive
          && toInclusive == r.toInclusive
          && Arrays.equals(from, r.from)
          && Arrays.equals(to, r.to);
    }

    @Override
    public int hashCode() {
      int h = 31 * Arrays.hashCode(from) + Arrays.hashCode(to);
      return 31 * (31 * h + Boolean.hashCode(fromInclusive) * 2 + Boolean.hashCode(toInclusive))
          + type.hashCode();
    }

    /** {@code :int >= 18, < 65} (the type only if not bytes), after the column's name. */
    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder(type == ValueType.BYTES ? "" : ":" + type.text());
      if (from != null) sb.append(fromInclusive ? " >= " : " > ").append(show(type, from));
      if (from != null && to != null) sb.append(',');
      if (to != null) sb.append(toInclusive ? " <= " : " < ").append(show(type, to));
      return sb.toString();
    }

    private static String show(ValueType type, byte[] value) {
      return type.format(value);
    }
  }
}
