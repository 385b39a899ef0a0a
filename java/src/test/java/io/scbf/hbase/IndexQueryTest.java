package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class IndexQueryTest {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] Q = Bytes.toBytes("q");

  @Test
  void withMethodsLeaveTheQueryAsItWas() {
    IndexQuery base = IndexQuery.onIndex("age");
    IndexQuery ranged = base.withLower(Bytes.toBytes(1L), false).withLimit(3);
    assertFalse(base.isRange());
    assertEquals(-1, base.limit());
    assertTrue(ranged.isRange());
    assertEquals(3, ranged.limit());
    assertFalse(ranged.isLowerInclusive());
    assertNull(ranged.upper());
    assertFalse(ranged.isUpperInclusive());
    assertNull(ranged.order());
    assertFalse(ranged.isStrict());
    assertTrue(ranged.withStrict(true).isStrict());
  }

  @Test
  void arraysAreCopiedInAndOut() {
    byte[] value = Bytes.toBytes("x");
    byte[] family = D.clone();
    IndexQuery q = IndexQuery.onColumn(family, Q).withValue(value);
    value[0] = 'y';
    family[0] = 'e';
    assertArrayEquals(Bytes.toBytes("x"), q.values().get(0));
    assertArrayEquals(D, q.family());
    q.values().get(0)[0] = 'z';
    q.family()[0] = 'z';
    assertArrayEquals(Bytes.toBytes("x"), q.values().get(0));
    assertArrayEquals(D, q.family());
    assertNull(q.alias());
  }

  @Test
  void refusesWhatNoIndexCouldAnswer() {
    assertThrows(IllegalArgumentException.class, () -> IndexQuery.onIndex(""));
    assertThrows(IllegalArgumentException.class, () -> IndexQuery.onIndex(null));
    assertThrows(IllegalArgumentException.class, () -> IndexQuery.onColumn(null, Q));
    IndexQuery q = IndexQuery.onIndex("a");
    assertThrows(IllegalArgumentException.class, () -> q.withLimit(0));
    assertThrows(IllegalArgumentException.class, () -> q.withLimit(-1));
    assertThrows(IllegalArgumentException.class, () -> q.withValues());
    assertThrows(IllegalArgumentException.class, () -> q.withValues(D, null));
    assertThrows(IllegalArgumentException.class, () -> q.withOrder(null));
  }

  @Test
  void aColumnTakesOneValueOrBoundsAndNoOrderOnAPoint() {
    IndexQuery c = IndexQuery.onColumn(D, Q);
    IllegalArgumentException two =
        assertThrows(IllegalArgumentException.class, () -> c.withValues(D, Q));
    assertTrue(two.getMessage().contains("onIndex"), two.getMessage());
    assertThrows(
        IllegalArgumentException.class, () -> c.withValue(D).withLower(Bytes.toBytes("a"), true));
    assertThrows(
        IllegalArgumentException.class, () -> c.withUpper(Bytes.toBytes("a"), true).withValue(D));
    assertThrows(
        IllegalArgumentException.class, () -> c.withValue(D).withOrder(ValueOrder.DESCENDING));
    // An alias may be composite: equal values then a range on the next column.
    IndexQuery a = IndexQuery.onIndex("city_age").withValue(D).withLower(Q, true);
    assertEquals(1, a.values().size());
  }

  @Test
  void aNullBoundIsAnOpenSide() {
    IndexQuery q = IndexQuery.onIndex("a").withLower(null, true).withUpper(null, true);
    assertFalse(q.isRange());
    assertFalse(q.isLowerInclusive());
    assertFalse(q.isUpperInclusive());
    assertFalse(q.withLower(D, true).withLower(null, false).isRange());
  }

  @Test
  void showsTheQuestion() {
    assertEquals(
        "IndexQuery[index=s, >= a, <= b, DESCENDING, limit 2, strict]",
        IndexQuery.onIndex("s")
            .withLower(Bytes.toBytes("a"), true)
            .withUpper(Bytes.toBytes("b"), true)
            .withOrder(ValueOrder.DESCENDING)
            .withLimit(2)
            .withStrict(true)
            .toString());
    assertEquals(
        "IndexQuery[column=d:q, values=[x]]",
        IndexQuery.onColumn(D, Q).withValue(Bytes.toBytes("x")).toString());
  }
}
