package io.scbf.hbase;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * One predicate of a multi-column query ({@link IndexedTable#find(Condition...)}): an indexed
 * column equal to one of some values, as SQL's {@code =} or {@code IN (...)}. Several conditions
 * are ANDed.
 *
 * @param values distinct, sorted; at least one
 */
@InterfaceAudience.Public
public record Condition(byte[] family, byte[] qualifier, List<byte[]> values) {
  public Condition {
    if (family == null || qualifier == null) {
      throw new IllegalArgumentException("family and qualifier must not be null");
    }
    if (values == null || values.isEmpty()) {
      throw new IllegalArgumentException("a condition needs at least one value");
    }
    TreeSet<byte[]> distinct = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    for (byte[] v : values) {
      if (v == null) throw new IllegalArgumentException("values must not be null");
      distinct.add(v);
    }
    values = List.copyOf(new ArrayList<>(distinct));
  }

  /** {@code family:qualifier = value}. */
  public static Condition eq(byte[] family, byte[] qualifier, byte[] value) {
    return new Condition(family, qualifier, java.util.Arrays.asList(value));
  }

  /** {@code family:qualifier IN (values)}. */
  public static Condition in(byte[] family, byte[] qualifier, byte[]... values) {
    return new Condition(family, qualifier, java.util.Arrays.asList(values));
  }

  /** True if {@code value} (the column's current value, or null if absent) satisfies it. */
  public boolean test(byte[] value) {
    if (value == null) return false;
    for (byte[] v : values) if (Bytes.equals(v, value)) return true;
    return false;
  }

  @Override
  public String toString() {
    List<String> shown = new ArrayList<>();
    for (byte[] v : values) shown.add(Bytes.toStringBinary(v));
    return Bytes.toStringBinary(family)
        + ":"
        + Bytes.toStringBinary(qualifier)
        + (values.size() == 1 ? " = " + shown.get(0) : " IN " + shown);
  }
}
