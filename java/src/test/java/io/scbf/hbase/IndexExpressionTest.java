package io.scbf.hbase;

import static io.scbf.hbase.IndexExpression.jsonPath;
import static io.scbf.hbase.IndexExpression.lower;
import static io.scbf.hbase.IndexExpression.prefix;
import static io.scbf.hbase.IndexExpression.reverse;
import static io.scbf.hbase.IndexExpression.truncate;
import static io.scbf.hbase.IndexExpression.upper;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class IndexExpressionTest {
  private static String text(IndexExpression e, String in) {
    byte[] out = e.apply(Bytes.toBytes(in));
    return out == null ? null : Bytes.toString(out);
  }

  @Test
  void textFunctionsWorkOnCharactersNotBytes() {
    assertEquals("alice@example.com", text(lower(), "Alice@Example.COM"));
    assertEquals("ÉCOLE", text(upper(), "école"));
    // 3 characters, 2 of them 2-byte and one a surrogate pair (4 bytes of UTF-8).
    assertEquals("żó😀", text(prefix(3), "żó😀xyz"));
    assertEquals("ab", text(prefix(5), "ab"));
    assertEquals("😀cba", text(reverse(), "abc😀"));
    assertEquals("moc.", text(reverse().then(prefix(4)), "a@b.com"));
    assertEquals("ali", text(lower().then(prefix(3)), "ALICE"));
    // Not UTF-8: no text value, so the row is not indexed.
    assertNull(lower().apply(new byte[] {(byte) 0xff, (byte) 0xfe}));
    assertNull(lower().apply(null));
  }

  @Test
  void jsonPathReadsOneScalarAndNothingFromBadDocuments() {
    String doc = "{\"user\":{\"email\":\"a@b.c\",\"age\":42,\"vip\":true,\"tags\":[\"x\",\"y\"]}}";
    assertEquals("a@b.c", text(jsonPath("$.user.email"), doc));
    assertEquals("42", text(jsonPath("$.user.age"), doc));
    assertEquals("true", text(jsonPath("$.user.vip"), doc));
    assertEquals("y", text(jsonPath("$.user.tags[1]"), doc));
    assertEquals("a@b.c", text(jsonPath("$.user.email").then(upper()).then(lower()), doc));
    assertNull(text(jsonPath("$.user.tags[2]"), doc)); // past the end
    assertNull(text(jsonPath("$.user.missing"), doc));
    assertNull(text(jsonPath("$.user"), doc)); // an object is not a scalar
    assertNull(text(jsonPath("$.user.email.x"), doc)); // a string has no fields
    assertNull(text(jsonPath("$.a"), "{\"a\":null}"));
    // Malformed anywhere, even after the field: not indexed.
    assertNull(text(jsonPath("$.a"), "{\"a\":\"v\""));
    assertNull(text(jsonPath("$.a"), "{\"a\":\"v\"} trailing"));
    assertNull(text(jsonPath("$.a"), "{a:'v'}"));
    assertNull(text(jsonPath("$.a"), "not json"));
    assertNull(text(jsonPath("$.a"), ""));
    // Deep nesting neither overflows the stack nor is indexed as the field.
    String deep = "{\"b\":" + "[".repeat(200_000) + "]".repeat(200_000) + ",\"a\":\"v\"}";
    String result = text(jsonPath("$.a"), deep);
    assertTrue(result == null || result.equals("v"), result);
    assertNull(text(jsonPath("$.a"), "[".repeat(200_000)));
  }

  @Test
  void truncateRoundsDownToTheUnit() {
    long hour = 3_600_000L;
    assertArrayEquals(Bytes.toBytes(7 * hour), truncate(hour).apply(Bytes.toBytes(7 * hour + 59)));
    assertArrayEquals(Bytes.toBytes(-hour), truncate(hour).apply(Bytes.toBytes(-1L)));
    assertNull(truncate(hour).apply(Bytes.toBytes(5))); // an int, not a long
  }

  /**
   * Near the ends of the long range, against floor(v / unit) * unit computed without overflow: the
   * lowest bucket's multiple is below Long.MIN_VALUE, so its values truncate to Long.MIN_VALUE (it
   * is cut short there, as the highest bucket is at Long.MAX_VALUE), never wrapping to the top.
   */
  @Test
  void truncateNearTheEndsOfTheLongRangeNeitherOverflowsNorWraps() {
    long[] units = {1, 2, 3, 7, 1000, 3_600_000L, 86_400_000L, 1L << 62, Long.MAX_VALUE};
    BigInteger min = BigInteger.valueOf(Long.MIN_VALUE);
    for (long unit : units) {
      BigInteger u = BigInteger.valueOf(unit);
      for (long base : new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0}) {
        for (long k = -3; k <= 3; k++) {
          for (long e = -2; e <= 2; e++) {
            long v = base + k * unit + e; // wraps past an end to the other: both get covered
            BigInteger[] qr = BigInteger.valueOf(v).divideAndRemainder(u);
            BigInteger floor = qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
            long expected = floor.multiply(u).max(min).longValueExact();
            assertEquals(
                expected,
                Bytes.toLong(truncate(unit).apply(Bytes.toBytes(v))),
                "truncate(" + unit + ") of " + v);
          }
        }
      }
    }
    assertEquals(Long.MIN_VALUE, Bytes.toLong(truncate(3).apply(Bytes.toBytes(Long.MIN_VALUE))));
    assertEquals(
        Long.MAX_VALUE - 1, Bytes.toLong(truncate(3).apply(Bytes.toBytes(Long.MAX_VALUE))));
  }

  @Test
  void textFormRoundTripsAndBadFormsFailClearly() {
    for (IndexExpression e :
        new IndexExpression[] {
          lower(),
          upper().then(reverse()),
          lower().then(prefix(3)),
          jsonPath("$.a[0].b-c_d"),
          jsonPath("$.x").then(lower()),
          truncate(86_400_000L)
        }) {
      assertEquals(e, IndexExpression.parse(e.text()));
      assertEquals(e.text(), IndexExpression.parse(e.text()).text());
    }
    assertEquals(lower().then(prefix(3)), IndexExpression.parse(" lower , prefix(3)"));
    assertEquals(lower().then(reverse()), IndexExpression.parse("lower(),reverse()"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> IndexExpression.parse("soundex"))
            .getMessage()
            .contains("unknown index function 'soundex'"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> IndexExpression.parse("prefix(x)"))
            .getMessage()
            .contains("whole number"));
    assertThrows(IllegalArgumentException.class, () -> IndexExpression.parse(""));
    assertThrows(IllegalArgumentException.class, () -> prefix(0));
    assertThrows(IllegalArgumentException.class, () -> truncate(0));
    for (String bad : new String[] {"a.b", "$", "$.", "$.a b", "$[x]", "$.a;b", "$..a"}) {
      String message =
          assertThrows(IllegalArgumentException.class, () -> jsonPath(bad)).getMessage();
      assertTrue(message.contains("malformed JSON path"), message);
    }
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> lower().then(jsonPath("$.a")))
            .getMessage()
            .contains("first function"));
    assertThrows(IllegalArgumentException.class, () -> truncate(10).then(lower()));
    assertThrows(IllegalArgumentException.class, () -> lower().then(truncate(10)));
  }
}
