package io.scbf.hbase.shared;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexSpec.ValueType;
import io.scbf.hbase.IndexValues;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** The index forms of typed values sort as the values do, and decode back. */
class TypedValuesTest {
  private static final Random RANDOM = new Random(38);

  private static <T> void assertOrdered(
      ValueType type, List<T> values, Comparator<T> order, Function<T, byte[]> raw) {
    for (int i = 0; i < values.size(); i++) {
      for (int j = 0; j < values.size(); j++) {
        T a = values.get(i), b = values.get(j);
        int want = Integer.signum(order.compare(a, b));
        int got =
            Integer.signum(
                Bytes.compareTo(type.indexForm(raw.apply(a)), type.indexForm(raw.apply(b))));
        assertEquals(want, got, type + ": " + a + " vs " + b);
      }
    }
  }

  @Test
  void longsSortNumericallyNegativesIncluded() {
    List<Long> values =
        new ArrayList<>(List.of(Long.MIN_VALUE, -5L, -1L, 0L, 1L, 7L, Long.MAX_VALUE));
    for (int i = 0; i < 60; i++) values.add(RANDOM.nextLong());
    assertOrdered(ValueType.LONG, values, Long::compare, Bytes::toBytes);
    for (long v : values) {
      assertArrayEquals(
          Bytes.toBytes(v), ValueType.LONG.rawForm(ValueType.LONG.indexForm(Bytes.toBytes(v))));
    }
  }

  @Test
  void intsSortNumerically() {
    List<Integer> values = new ArrayList<>(List.of(Integer.MIN_VALUE, -2, 0, 3, Integer.MAX_VALUE));
    for (int i = 0; i < 60; i++) values.add(RANDOM.nextInt());
    assertOrdered(ValueType.INT, values, Integer::compare, Bytes::toBytes);
  }

  @Test
  void doublesFollowDoubleCompare() {
    List<Double> values =
        new ArrayList<>(
            List.of(
                Double.NEGATIVE_INFINITY,
                -1e300,
                -2.5,
                -Double.MIN_VALUE,
                -0.0,
                0.0,
                Double.MIN_VALUE,
                1.0,
                Double.MAX_VALUE,
                Double.POSITIVE_INFINITY,
                Double.NaN));
    for (int i = 0; i < 60; i++) values.add((RANDOM.nextDouble() - 0.5) * 1e6);
    assertOrdered(ValueType.DOUBLE, values, Double::compare, Bytes::toBytes);
    // Every NaN is one value.
    byte[] otherNaN = Bytes.toBytes(Double.longBitsToDouble(0xfff8000000000123L));
    assertArrayEquals(
        ValueType.DOUBLE.indexForm(Bytes.toBytes(Double.NaN)),
        ValueType.DOUBLE.indexForm(otherNaN));
  }

  @Test
  void floatsFollowFloatCompare() {
    List<Float> values =
        new ArrayList<>(List.of(Float.NEGATIVE_INFINITY, -3f, -0f, 0f, 2f, Float.NaN));
    for (int i = 0; i < 60; i++) values.add((RANDOM.nextFloat() - 0.5f) * 1e6f);
    assertOrdered(ValueType.FLOAT, values, Float::compare, Bytes::toBytes);
  }

  @Test
  void bigDecimalsCompareByValue() {
    List<BigDecimal> values =
        new ArrayList<>(
            List.of(
                new BigDecimal("-1e40"),
                new BigDecimal("-12.5"),
                new BigDecimal("-0.001"),
                BigDecimal.ZERO,
                new BigDecimal("0.001"),
                new BigDecimal("1.5"),
                new BigDecimal("123456789012345678901234567890.123")));
    for (int i = 0; i < 40; i++) {
      values.add(new BigDecimal(new BigInteger(80, RANDOM), RANDOM.nextInt(20) - 10).negate());
      values.add(new BigDecimal(new BigInteger(80, RANDOM), RANDOM.nextInt(20) - 10));
    }
    assertOrdered(ValueType.BIG_DECIMAL, values, BigDecimal::compareTo, Bytes::toBytes);
    assertArrayEquals(
        ValueType.BIG_DECIMAL.indexForm(Bytes.toBytes(new BigDecimal("1.0"))),
        ValueType.BIG_DECIMAL.indexForm(Bytes.toBytes(new BigDecimal("1.00"))));
    // The index keeps no scale: an entry's value comes back at its smallest (user guide).
    byte[] back =
        ValueType.BIG_DECIMAL.rawForm(
            ValueType.BIG_DECIMAL.indexForm(Bytes.toBytes(new BigDecimal("1.00"))));
    assertEquals(new BigDecimal("1"), Bytes.toBigDecimal(back));
  }

  @Test
  void invalidEncodingsAreRefusedWithTheReason() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> ValueType.LONG.indexForm(new byte[] {1, 2, 3}));
    assertTrue(e.getMessage().contains("8 bytes"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ValueType.INT.indexForm(new byte[8]));
    assertThrows(IllegalArgumentException.class, () -> ValueType.DOUBLE.indexForm(new byte[4]));
    assertThrows(
        IllegalArgumentException.class, () -> ValueType.BIG_DECIMAL.indexForm(new byte[3]));
    assertThrows(
        IllegalArgumentException.class,
        () -> ValueType.STRING.indexForm(new byte[] {(byte) 0xc3, (byte) 0x28}));
    assertArrayEquals(new byte[] {1, 2, 3}, ValueType.BYTES.indexForm(new byte[] {1, 2, 3}));
  }

  @Test
  void aTypedSpecRoundTripsAndAnOlderVersionIsRefused() {
    IndexSpec spec =
        IndexSpec.builder(Bytes.toBytes("f"), Bytes.toBytes("ts"))
            .alias("by_ts")
            .type(ValueType.LONG)
            .thenColumn(Bytes.toBytes("f"), Bytes.toBytes("price"), ValueType.DOUBLE)
            .layout(IndexSpec.Layout.ORDERED)
            .buckets(4)
            .build();
    assertTrue(spec.encode().startsWith("v3;"), spec.encode());
    assertEquals(spec, IndexSpec.decode(spec.encode()));
    assertEquals(
        List.of(ValueType.LONG, ValueType.DOUBLE), IndexSpec.decode(spec.encode()).types());
    // A jar that reads v3 as v2 would misplace every row: a mismatched version is refused.
    assertThrows(
        IllegalArgumentException.class,
        () -> IndexSpec.decode(spec.encode().replaceFirst("v3", "v2")));
    assertEquals(
        1,
        IndexSpec.builder(Bytes.toBytes("f"), Bytes.toBytes("q"))
            .alias("o")
            .layout(IndexSpec.Layout.ORDERED)
            .build()
            .buckets());
    // An invalid row value is not indexed (null), a valid one is in index form.
    assertEquals(null, IndexValues.valueOf(spec, c -> new byte[3]));
  }

  /**
   * Issue 49: a scale of 2^31 - 1 (four bytes anyone may write) is shown in a few characters (its
   * plain form failed, and a scale of 10^9 would have filled a heap).
   */
  @Test
  void anExtremeBigDecimalScaleFormatsShort() {
    for (int scale : new int[] {Integer.MAX_VALUE, Integer.MIN_VALUE, 65, -65}) {
      byte[] raw = Bytes.toBytes(new BigDecimal(BigInteger.TEN, scale));
      String shown = IndexSpec.ValueType.BIG_DECIMAL.format(raw);
      assertTrue(shown.length() < 40, shown);
      assertTrue(shown.startsWith("1.0E") || shown.startsWith("10E"), shown);
    }
    assertEquals(
        "0.15", IndexSpec.ValueType.BIG_DECIMAL.format(Bytes.toBytes(new BigDecimal("0.15"))));
  }
}
