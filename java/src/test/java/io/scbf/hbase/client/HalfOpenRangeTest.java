package io.scbf.hbase.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.IndexSpec.ValueType;
import java.math.BigDecimal;
import java.util.Arrays;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class HalfOpenRangeTest {

  @Test
  void longBoundsBecomeHalfOpen() {
    HalfOpenRange r = HalfOpenRange.of(ValueType.LONG, b(5L), false, b(9L), true);
    assertEquals(6L, Bytes.toLong(r.lo()));
    assertEquals(10L, Bytes.toLong(r.hi()));
    r = HalfOpenRange.of(ValueType.LONG, b(-5L), true, b(9L), false);
    assertEquals(-5L, Bytes.toLong(r.lo()));
    assertEquals(9L, Bytes.toLong(r.hi()));
    r = HalfOpenRange.of(ValueType.LONG, b(-1L), false, null, false);
    assertEquals(0L, Bytes.toLong(r.lo()));
    assertNull(r.hi());
  }

  @Test
  void theLargestValueHasNoNext() {
    // Nothing is above MAX: an inclusive upper bound there is no bound at all.
    HalfOpenRange r = HalfOpenRange.of(ValueType.LONG, b(1L), true, b(Long.MAX_VALUE), true);
    assertNull(r.hi());
    r = HalfOpenRange.of(ValueType.INT, null, false, Bytes.toBytes(Integer.MAX_VALUE), true);
    assertNull(r.hi());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> HalfOpenRange.of(ValueType.LONG, b(Long.MAX_VALUE), false, null, false));
    assertTrue(e.getMessage().startsWith("empty range"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> HalfOpenRange.of(ValueType.DOUBLE, Bytes.toBytes(Double.NaN), false, null, false));
    assertNull(
        HalfOpenRange.of(ValueType.DOUBLE, null, false, Bytes.toBytes(Double.NaN), true).hi());
  }

  @Test
  void emptyRangesAreRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> HalfOpenRange.of(ValueType.LONG, b(5L), false, b(6L), false));
    assertThrows(
        IllegalArgumentException.class,
        () -> HalfOpenRange.of(ValueType.LONG, b(5L), true, b(5L), false));
    assertThrows(
        IllegalArgumentException.class,
        () -> HalfOpenRange.of(ValueType.LONG, b(7L), true, b(5L), true));
    HalfOpenRange one = HalfOpenRange.of(ValueType.LONG, b(5L), true, b(5L), true);
    assertEquals(6L, Bytes.toLong(one.hi()));
  }

  @Test
  void bytesAndStringsGainAZeroByte() {
    HalfOpenRange r =
        HalfOpenRange.of(ValueType.STRING, Bytes.toBytes("ab"), false, Bytes.toBytes("b"), true);
    assertArrayEquals(new byte[] {'a', 'b', 0}, r.lo());
    assertArrayEquals(new byte[] {'b', 0}, r.hi());
    r = HalfOpenRange.of(ValueType.BYTES, new byte[0], false, null, false);
    assertArrayEquals(new byte[] {0}, r.lo());
  }

  @Test
  void aValueOfAnotherTypeIsRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> HalfOpenRange.of(ValueType.LONG, Bytes.toBytes(1), false, null, false));
    assertThrows(
        IllegalArgumentException.class,
        () -> HalfOpenRange.of(ValueType.STRING, new byte[] {(byte) 0xff}, false, null, false));
  }

  @Test
  void bigDecimalsHaveNoNextValue() {
    byte[] one = Bytes.toBytes(BigDecimal.ONE);
    byte[] two = Bytes.toBytes(new BigDecimal("2.5"));
    HalfOpenRange r = HalfOpenRange.of(ValueType.BIG_DECIMAL, one, true, two, false);
    assertArrayEquals(one, r.lo());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> HalfOpenRange.of(ValueType.BIG_DECIMAL, one, false, two, false));
    assertTrue(e.getMessage().contains("BIG_DECIMAL"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> HalfOpenRange.of(ValueType.BIG_DECIMAL, one, true, two, true));
  }

  /**
   * The next double's index form is the one after the value's: the 8 bytes after the header are one
   * more as an unsigned number, so no double's form lies between (infinity's next is NaN, whose
   * form the index keeps one of).
   */
  @Test
  void theNextDoubleIsAdjacentInIndexOrder() {
    double[] values = {
      Double.NEGATIVE_INFINITY,
      -Double.MAX_VALUE,
      -1.5,
      -Double.MIN_VALUE,
      -0.0,
      0.0,
      Double.MIN_VALUE,
      1.0,
      Double.MAX_VALUE
    };
    for (double v : values) {
      byte[] form = ValueType.DOUBLE.indexForm(Bytes.toBytes(v));
      byte[] next =
          ValueType.DOUBLE.indexForm(HalfOpenRange.next(ValueType.DOUBLE, Bytes.toBytes(v), "x"));
      assertArrayEquals(plusOne(form), next, "after " + v);
    }
    byte[] afterInfinity =
        HalfOpenRange.next(ValueType.DOUBLE, Bytes.toBytes(Double.POSITIVE_INFINITY), "x");
    assertTrue(Double.isNaN(Bytes.toDouble(afterInfinity)));
    assertEquals(0.0, Bytes.toDouble(HalfOpenRange.next(ValueType.DOUBLE, b(-0.0), "x")));
    assertEquals(
        Float.floatToRawIntBits(0.0f),
        Float.floatToRawIntBits(
            Bytes.toFloat(HalfOpenRange.next(ValueType.FLOAT, Bytes.toBytes(-0.0f), "x"))));
  }

  @Test
  void theNextFloatIsAdjacentInIndexOrder() {
    float[] values = {Float.NEGATIVE_INFINITY, -2.5f, -Float.MIN_VALUE, -0.0f, 0.0f, 3.25f};
    for (float v : values) {
      byte[] form = ValueType.FLOAT.indexForm(Bytes.toBytes(v));
      byte[] next =
          ValueType.FLOAT.indexForm(HalfOpenRange.next(ValueType.FLOAT, Bytes.toBytes(v), "x"));
      assertArrayEquals(plusOne(form), next, "after " + v);
    }
  }

  private static byte[] plusOne(byte[] form) {
    byte[] out = Arrays.copyOf(form, form.length);
    for (int i = out.length - 1; i > 0; i--) {
      if (++out[i] != 0) break;
    }
    return out;
  }

  private static byte[] b(long v) {
    return Bytes.toBytes(v);
  }

  private static byte[] b(double v) {
    return Bytes.toBytes(v);
  }
}
