package io.scbf.hbase.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class KeySpanTest {
  static byte[] row(int i) {
    return Bytes.toBytes(String.format("r%09d", i));
  }

  @Test
  void evenlySpreadKeysGiveTheirShare() {
    KeySpan span = new KeySpan(row(125_000), row(249_999));
    assertEquals(0.0, span.at(row(125_000)), 1e-9);
    assertEquals(1.0, span.at(row(249_999)), 1e-9);
    // Decimal digits read as bytes: monotone, roughly proportional.
    double middle = span.at(row(187_500));
    assertEquals(0.5, middle, 0.1);
    assertEquals(true, span.at(row(150_000)) < middle && middle < span.at(row(220_000)));
  }

  @Test
  void keysOutsideTheSpanAndDegenerateSpansStayInZeroToOne() {
    KeySpan span = new KeySpan(row(100), row(200));
    assertEquals(0.0, span.at(row(5)));
    assertEquals(1.0, span.at(row(999)));
    assertEquals(0.0, span.at(Bytes.toBytes("a")));
    assertEquals(1.0, span.at(Bytes.toBytes("z")));
    assertEquals(0.0, new KeySpan(row(7), row(7)).at(row(7)), "one row");
    assertEquals(0.0, new KeySpan(new byte[0], new byte[0]).at(row(1)), "no rows");
  }
}
