package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.scbf.hbase.IndexSpec.ValueType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * Each kind of condition's test and text, and the implication table the planner trusts to use a
 * partial index: checked case by case, and against brute force over a small domain of values (a
 * condition implies another iff no value passes the first and fails the second).
 */
class ConditionTest {
  private static final byte[] F = Bytes.toBytes("d");
  private static final byte[] AGE = Bytes.toBytes("age");
  private static final byte[] NAME = Bytes.toBytes("name");

  private static byte[] i(int v) {
    return Bytes.toBytes(v);
  }

  private static byte[] s(String v) {
    return Bytes.toBytes(v);
  }

  private static Condition ints(Integer from, boolean fromIn, Integer to, boolean toIn) {
    return Condition.range(
        F,
        AGE,
        from == null ? null : i(from),
        fromIn,
        to == null ? null : i(to),
        toIn,
        ValueType.INT);
  }

  @Test
  void eachKindTestsTheColumnsCurrentValue() {
    Condition in = Condition.in(F, NAME, s("b"), s("a"), s("b"));
    assertEquals(Condition.Kind.IN, in.kind());
    assertEquals(2, in.values().size(), "distinct");
    assertTrue(in.test(s("a")));
    assertFalse(in.test(s("c")));
    assertFalse(in.test(null));

    Condition adult = ints(18, true, 65, false);
    assertEquals(List.of(), adult.values());
    assertTrue(adult.test(i(18)));
    assertTrue(adult.test(i(64)));
    assertFalse(adult.test(i(65)));
    assertFalse(adult.test(i(-20)), "in int order, not as bytes (negatives sort last as bytes)");
    assertFalse(adult.test(s("abc")), "not an int: outside");
    assertFalse(adult.test(null));
    Condition negative = ints(null, false, 0, false);
    assertTrue(negative.test(i(Integer.MIN_VALUE)));
    assertFalse(negative.test(i(0)));

    Condition bytes = Condition.range(F, NAME, s("b"), false, null, false);
    assertEquals(ValueType.BYTES, bytes.range().type());
    assertFalse(bytes.test(s("b")));
    assertTrue(bytes.test(s("b\0")));
    assertTrue(bytes.test(new byte[] {(byte) 0xff}), "unsigned, as HBase compares");
    assertFalse(bytes.test(s("a")));

    Condition decimal =
        Condition.range(
            F, AGE, Bytes.toBytes(new BigDecimal("1.0")), true, null, false, ValueType.BIG_DECIMAL);
    assertTrue(decimal.test(Bytes.toBytes(new BigDecimal("1.00"))), "compared by value");

    Condition present = Condition.present(F, NAME);
    assertTrue(present.test(new byte[0]));
    assertFalse(present.test(null));
  }

  @Test
  void theirTextIsReadable() {
    assertEquals("d:name = a", Condition.eq(F, NAME, s("a")).toString());
    assertEquals("d:name IN [a, b]", Condition.in(F, NAME, s("b"), s("a")).toString());
    assertEquals("d:age:int >= 18, < 65", ints(18, true, 65, false).toString());
    assertEquals("d:age:int <= -1", ints(null, true, -1, true).toString());
    assertEquals(
        "d:name > \\x00", Condition.range(F, NAME, new byte[1], false, null, true).toString());
    assertEquals("d:name present", Condition.present(F, NAME).toString());
  }

  @Test
  void badConditionsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new Condition(F, NAME, List.of()));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Condition(F, NAME, Condition.Kind.PRESENT, List.of(s("a")), null));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Condition(F, NAME, Condition.Kind.RANGE, null, null));
    assertTrue(message(() -> ints(null, true, null, true)).contains("needs a bound"));
    assertTrue(message(() -> ints(5, true, 4, true)).contains("empty range"));
    assertTrue(message(() -> ints(5, true, 5, false)).contains("empty range"));
    assertTrue(ints(5, true, 5, true).test(i(5)), "one value: allowed");
    assertTrue(
        message(() -> Condition.range(F, AGE, s("x"), true, null, false, ValueType.INT))
            .contains("range bound"));
    // An open bound is never inclusive, so equal ranges read the same.
    assertFalse(ints(null, true, 3, false).range().fromInclusive());
  }

  private static String message(Runnable r) {
    return assertThrows(IllegalArgumentException.class, r::run).getMessage();
  }

  @Test
  void theImplicationTable() {
    Condition active = Condition.eq(F, NAME, s("A"));
    Condition activeOrIdle = Condition.in(F, NAME, s("A"), s("I"));
    Condition present = Condition.present(F, NAME);
    Condition fromA = Condition.range(F, NAME, s("A"), true, null, false);
    // IN within IN
    assertTrue(active.implies(activeOrIdle));
    assertFalse(activeOrIdle.implies(active));
    assertTrue(activeOrIdle.implies(activeOrIdle));
    // IN within a range
    assertTrue(activeOrIdle.implies(fromA));
    assertFalse(Condition.in(F, NAME, s("A"), s("0")).implies(fromA));
    // everything but present implies present; present only present
    for (Condition c : List.of(active, activeOrIdle, fromA, present)) {
      assertTrue(c.implies(present), c.toString());
    }
    assertFalse(present.implies(active));
    assertFalse(present.implies(fromA));
    // a range never implies an IN, even of one value
    Condition justA = Condition.range(F, NAME, s("A"), true, s("A"), true);
    assertFalse(justA.implies(active));
    // another column implies nothing
    assertFalse(Condition.eq(F, AGE, s("A")).implies(active));
    assertFalse(Condition.present(F, AGE).implies(present));
    // a range within a range: bounds open, inclusive and exclusive
    Condition adults = ints(18, true, null, false);
    assertTrue(ints(18, true, 30, false).implies(adults));
    assertTrue(ints(18, false, 30, false).implies(adults));
    assertTrue(ints(19, true, null, false).implies(adults));
    assertFalse(ints(17, false, 30, false).implies(adults), "exact in the order, not over ints");
    assertFalse(ints(null, false, 30, false).implies(adults));
    Condition over18 = ints(18, false, null, false);
    assertFalse(ints(18, true, 30, false).implies(over18));
    assertTrue(ints(18, false, null, false).implies(over18));
    Condition under30 = ints(null, false, 30, false);
    assertTrue(ints(-5, true, 30, false).implies(under30));
    assertFalse(ints(-5, true, 30, true).implies(under30));
    assertTrue(ints(-5, true, 30, true).implies(ints(null, false, 30, true)));
    assertFalse(ints(-5, true, null, false).implies(under30));
    assertTrue(ints(-5, true, 30, false).implies(ints(-5, true, 30, false)));
    // ranges of another order do not compare
    assertFalse(
        Condition.range(F, AGE, i(18), true, null, false).implies(adults),
        "bytes order vs int order");
  }

  /**
   * Brute force over every int in [-4, 4] and a value that is not an int: {@code a} implies {@code
   * b} only if every value {@code a} allows {@code b} allows (sound, the planner's need). Unless
   * {@code a} is a range the converse holds too; a range's implication is compared in the type's
   * order, which over ints misses gaps ((0, 2) holds only 1), and a finite domain cannot tell an
   * open bound from a far one, so the table above checks ranges by hand.
   */
  @Test
  void implicationAgreesWithBruteForceOverSmallRanges() {
    List<Condition> all = new ArrayList<>();
    for (int lo = -3; lo <= 3; lo++) {
      for (int hi = lo; hi <= 3; hi++) {
        for (int flags = 0; flags < 4; flags++) {
          boolean loIn = (flags & 1) != 0;
          boolean hiIn = (flags & 2) != 0;
          if (lo == hi && !(loIn && hiIn)) continue;
          all.add(ints(lo, loIn, hi, hiIn));
          all.add(ints(null, false, hi, hiIn));
          all.add(ints(lo, loIn, null, false));
        }
      }
    }
    all.add(Condition.in(F, AGE, i(-1), i(2)));
    all.add(Condition.eq(F, AGE, i(0)));
    all.add(Condition.present(F, AGE));
    List<byte[]> domain = new ArrayList<>();
    for (int v = -4; v <= 4; v++) domain.add(i(v));
    domain.add(s("x"));
    for (Condition a : all) {
      for (Condition b : all) {
        boolean subset = domain.stream().noneMatch(v -> a.test(v) && !b.test(v));
        if (a.implies(b)) {
          assertTrue(subset, a + " => " + b);
        } else if (a.kind() != Condition.Kind.RANGE) {
          assertFalse(subset, a + " should imply " + b);
        }
      }
    }
  }

  private static byte[] dec(String v) {
    return Bytes.toBytes(new BigDecimal(v));
  }

  /**
   * A query compares an IN on a column with a typed index as that type, while a WHERE tests its IN
   * byte for byte: only a type whose equal values are equal bytes keeps the byte-wise implication.
   * Ranges test a type's form, so one implies another exactly in that type's order.
   */
  @Test
  void aTypedComparisonImpliesOnlyWhatEveryEqualValueSatisfies() {
    byte[] otherNan = Bytes.toBytes(0x7ff8000000000001L);
    assertTrue(Double.isNaN(Bytes.toDouble(otherNan)));
    Condition oneDec = Condition.eq(F, AGE, dec("1.0"));
    Condition nan = Condition.eq(F, AGE, Bytes.toBytes(Double.NaN));
    assertTrue(oneDec.implies(oneDec), "byte for byte");
    assertFalse(oneDec.implies(oneDec, ValueType.BIG_DECIMAL), "1.00 equals 1.0, not its bytes");
    assertFalse(oneDec.test(dec("1.00")));
    assertFalse(nan.implies(nan, ValueType.DOUBLE), "every NaN is one DOUBLE value");
    assertFalse(nan.test(otherNan));
    assertTrue(oneDec.implies(Condition.present(F, AGE), ValueType.BIG_DECIMAL));
    Condition decs =
        Condition.range(F, AGE, dec("0.5"), true, dec("2"), false, ValueType.BIG_DECIMAL);
    assertTrue(oneDec.implies(decs, ValueType.BIG_DECIMAL), "a range tests the same form");
    Condition rawBytes = Condition.range(F, AGE, dec("1.0"), true, dec("1.0"), true);
    assertTrue(oneDec.implies(rawBytes));
    assertFalse(oneDec.implies(rawBytes, ValueType.BIG_DECIMAL));
    assertFalse(rawBytes.test(dec("1.00")));
    // Types whose equal values are equal bytes answer as bytes do.
    Condition five = Condition.eq(F, AGE, Bytes.toBytes(5L));
    assertTrue(five.implies(five, ValueType.LONG));
    assertTrue(
        Condition.eq(F, AGE, s("é")).implies(Condition.eq(F, AGE, s("é")), ValueType.STRING));
    // -0.0 and 0.0 are two DOUBLE values: each range keeps the other out.
    Condition fromZero =
        Condition.range(F, AGE, Bytes.toBytes(0.0), true, null, false, ValueType.DOUBLE);
    Condition fromMinusZero =
        Condition.range(F, AGE, Bytes.toBytes(-0.0), true, null, false, ValueType.DOUBLE);
    assertTrue(fromZero.implies(fromMinusZero));
    assertFalse(fromMinusZero.implies(fromZero));
    assertFalse(fromZero.test(Bytes.toBytes(-0.0)));
    // A BIG_DECIMAL's bytes are not in numeric order (-1 is 0xff, above 10's 0x0a): a range of
    // bytes and one of numbers imply nothing of each other.
    Condition numbers =
        Condition.range(F, AGE, dec("2"), true, dec("10"), true, ValueType.BIG_DECIMAL);
    Condition byteOrder = Condition.range(F, AGE, dec("2"), true, dec("10"), true);
    assertFalse(numbers.implies(byteOrder));
    assertFalse(byteOrder.implies(numbers));
    assertTrue(byteOrder.test(dec("5")) && numbers.test(dec("5")));
    assertTrue(numbers.test(dec("2.50")) && !byteOrder.test(dec("2.50")));
    // STRING is BYTES minus what is not UTF-8, in the same order: still another type.
    Condition text = Condition.range(F, AGE, s("a"), true, s("c"), false, ValueType.STRING);
    Condition raw = Condition.range(F, AGE, s("a"), true, s("c"), false);
    assertFalse(raw.implies(text));
    assertTrue(raw.test(new byte[] {'b', (byte) 0xff}));
    assertFalse(text.test(new byte[] {'b', (byte) 0xff}));
    assertFalse(text.implies(raw));
  }

  /**
   * Brute force over values with several encodings of one typed value (scales, float NaNs): if an
   * IN compared as a type implies a condition, every value equal in that type to one of the IN's
   * satisfies it.
   */
  @Test
  void typedImplicationAgreesWithBruteForce() {
    List<byte[]> domain =
        new ArrayList<>(
            List.of(
                dec("1"),
                dec("1.0"),
                dec("1.00"),
                dec("-1"),
                dec("10"),
                dec("0"),
                dec("0.000"),
                Bytes.toBytes(Double.NaN),
                Bytes.toBytes(0x7ff8000000000001L),
                Bytes.toBytes(0.0),
                Bytes.toBytes(-0.0),
                Bytes.toBytes(1.5),
                Bytes.toBytes(Float.NaN),
                Bytes.toBytes(0x7fc00001),
                Bytes.toBytes(2.5f),
                Bytes.toBytes(7L),
                i(7),
                s("x")));
    // A double's first 4 bytes read as a BIG_DECIMAL's scale are huge for most doubles, and
    // ordering such a number ran this test's JVM out of heap: the doubles kept have small ones.
    domain.removeIf(v -> v.length > 4 && Math.abs((long) Bytes.toInt(v)) > 1000);
    List<Condition> all = new ArrayList<>();
    for (byte[] v : domain) all.add(Condition.eq(F, AGE, v));
    all.add(Condition.in(F, AGE, dec("1.0"), dec("10")));
    all.add(Condition.present(F, AGE));
    for (ValueType t : ValueType.values()) {
      for (byte[] lo : domain) {
        for (byte[] hi : domain) {
          try {
            all.add(Condition.range(F, AGE, lo, true, hi, true, t));
            all.add(Condition.range(F, AGE, lo, false, null, false, t));
          } catch (IllegalArgumentException notOfTheTypeOrEmpty) {
            // only ranges the type can hold
          }
        }
      }
    }
    for (ValueType t : ValueType.values()) {
      for (Condition a : all) {
        if (a.kind() != Condition.Kind.IN) continue;
        for (Condition b : all) {
          if (!a.implies(b, t)) continue;
          for (byte[] v : domain) {
            boolean matches =
                a.values().stream().anyMatch(q -> sameTyped(t, q, v) || Bytes.equals(q, v));
            if (matches && !b.test(v)) fail(a + " as " + t + " => " + b + ", not for " + v);
          }
        }
      }
    }
  }

  private static boolean sameTyped(ValueType t, byte[] a, byte[] b) {
    try {
      return Bytes.equals(t.indexForm(a), t.indexForm(b));
    } catch (IllegalArgumentException notOfTheType) {
      return false;
    }
  }

  /** Issue 51: two equal conditions are equal, hash alike, and share no array with the caller. */
  @Test
  void equalConditionsAreEqualAndOwnTheirArrays() {
    byte[] a = s("a");
    Condition in = Condition.in(F, NAME, a, s("b"));
    assertEquals(Condition.in(F, NAME, s("b"), s("a")), in);
    assertEquals(Condition.in(F, NAME, s("b"), s("a")).hashCode(), in.hashCode());
    Condition range = Condition.range(F, AGE, i(18), true, i(65), false, ValueType.INT);
    assertEquals(Condition.range(F, AGE, i(18), true, i(65), false, ValueType.INT), range);
    assertEquals(
        Condition.range(F, AGE, i(18), true, i(65), false, ValueType.INT).hashCode(),
        range.hashCode());
    assertFalse(range.equals(Condition.range(F, AGE, i(18), true, i(65), true, ValueType.INT)));
    assertEquals(Condition.present(F, AGE), Condition.present(F, AGE));

    a[0] = 'z';
    assertTrue(in.test(s("a")), "the caller's array changed after construction");
    in.values().get(0)[0] = 'z';
    in.family()[0] = 'z';
    range.range().from()[0] = 9;
    assertTrue(in.test(s("a")));
    assertEquals("d", Bytes.toString(in.family()));
    assertTrue(range.test(i(18)));
  }
}
