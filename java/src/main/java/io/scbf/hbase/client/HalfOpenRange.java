package io.scbf.hbase.client;

import io.scbf.hbase.IndexSpec.ValueType;
import java.util.Arrays;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * A range with inclusive or exclusive bounds as the half-open {@code [lo, hi)} the engine reads:
 * {@code > v} is {@code >= next(v)} and {@code <= v} is {@code < next(v)}, where next is the
 * smallest value of the type above {@code v} in its index order, so no value lies between. Values
 * are in {@code Bytes.toBytes} form throughout, as the engine's entry points take them.
 */
@InterfaceAudience.Private
public record HalfOpenRange(byte[] lo, byte[] hi) {

  /**
   * The half-open form of a range of {@code type} (null bound: open side).
   *
   * @throws IllegalArgumentException if the range holds no value, or needs the next value of a type
   *     that has none ({@code BIG_DECIMAL}: between two numbers there is always a third)
   */
  public static HalfOpenRange of(
      ValueType type, byte[] lower, boolean lowerInclusive, byte[] upper, boolean upperInclusive) {
    byte[] lo = lower;
    if (lower != null && !lowerInclusive) {
      lo = next(type, lower, "an exclusive lower bound");
      if (lo == null)
        throw empty(type, lower, upper, "nothing of its type is above " + show(type, lower));
    }
    byte[] hi = upper;
    if (upper != null && upperInclusive) {
      hi = next(type, upper, "an inclusive upper bound"); // none: the type's largest, so open
    }
    if (lo != null && hi != null && Bytes.compareTo(type.indexForm(lo), type.indexForm(hi)) >= 0) {
      throw empty(type, lower, upper, "no value of its type lies between the bounds");
    }
    return new HalfOpenRange(lo, hi);
  }

  /**
   * The smallest value of {@code type} above {@code v} in index order, or null if {@code v} is the
   * largest. Floats are ordered by their bits, -0 below +0 and NaN above infinity.
   */
  static byte[] next(ValueType type, byte[] v, String need) {
    type.indexForm(v); // a value of another type fails here, saying what was expected
    return switch (type) {
      case BYTES, STRING -> Arrays.copyOf(v, v.length + 1); // v + 0x00: nothing between
      case INT -> {
        int i = Bytes.toInt(v);
        yield i == Integer.MAX_VALUE ? null : Bytes.toBytes(i + 1);
      }
      case LONG -> {
        long l = Bytes.toLong(v);
        yield l == Long.MAX_VALUE ? null : Bytes.toBytes(l + 1);
      }
      case FLOAT -> {
        float f = Bytes.toFloat(v);
        if (Float.isNaN(f)) yield null;
        if (f == Float.POSITIVE_INFINITY) yield Bytes.toBytes(Float.NaN);
        yield Bytes.toBytes(isNegativeZero(f) ? 0.0f : Math.nextUp(f));
      }
      case DOUBLE -> {
        double d = Bytes.toDouble(v);
        if (Double.isNaN(d)) yield null;
        if (d == Double.POSITIVE_INFINITY) yield Bytes.toBytes(Double.NaN);
        yield Bytes.toBytes(isNegativeZero(d) ? 0.0d : Math.nextUp(d));
      }
      case BIG_DECIMAL ->
          throw new IllegalArgumentException(
              "a BIG_DECIMAL column has no next value, so "
                  + need
                  + " cannot be read as the engine's half-open range: give an inclusive lower"
                  + " and an exclusive upper bound");
    };
  }

  // Math.nextUp(-0.0) skips +0.0, which the index orders above -0.0.
  private static boolean isNegativeZero(float f) {
    return Float.floatToRawIntBits(f) == Integer.MIN_VALUE;
  }

  private static boolean isNegativeZero(double d) {
    return Double.doubleToRawLongBits(d) == Long.MIN_VALUE;
  }

  private static IllegalArgumentException empty(
      ValueType type, byte[] lower, byte[] upper, String why) {
    return new IllegalArgumentException(
        "empty range (from "
            + (lower == null ? "open" : show(type, lower))
            + " to "
            + (upper == null ? "open" : show(type, upper))
            + "): "
            + why);
  }

  private static String show(ValueType type, byte[] value) {
    return type.format(value);
  }
}
