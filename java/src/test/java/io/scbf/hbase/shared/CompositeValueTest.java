package io.scbf.hbase.shared;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** The tuple encoding against a direct comparison of tuples, on random tuples full of 0x00/0xFF. */
class CompositeValueTest {
  static final Comparator<List<byte[]>> TUPLES =
      (a, b) -> {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
          int c = Bytes.compareTo(a.get(i), b.get(i));
          if (c != 0) return c;
        }
        return Integer.compare(a.size(), b.size());
      };

  static byte[] randomValue(Random r) {
    byte[] v = new byte[r.nextInt(4)];
    byte[] alphabet = {0, 0, 1, (byte) 0xfe, (byte) 0xff, 'a'};
    for (int i = 0; i < v.length; i++) v[i] = alphabet[r.nextInt(alphabet.length)];
    return v;
  }

  static List<byte[]> randomTuple(Random r, int columns) {
    List<byte[]> t = new ArrayList<>();
    for (int i = 0; i < columns; i++) t.add(randomValue(r));
    return t;
  }

  @Test
  void encodingOrdersAndRoundTripsLikeTheTuples() {
    Random r = new Random(7);
    for (int i = 0; i < 20_000; i++) {
      List<byte[]> a = randomTuple(r, 3);
      List<byte[]> b = randomTuple(r, 3);
      byte[] ea = CompositeValue.encode(a);
      assertEquals(
          Integer.signum(TUPLES.compare(a, b)),
          Integer.signum(Bytes.compareTo(ea, CompositeValue.encode(b))));
      List<byte[]> back = CompositeValue.decode(ea);
      assertEquals(a.size(), back.size());
      for (int c = 0; c < a.size(); c++) assertArrayEquals(a.get(c), back.get(c));
    }
  }

  /**
   * Equality on the first k columns and a range on the next selects exactly the tuples the same
   * test on the values selects.
   */
  @Test
  void boundsSelectExactlyTheMatchingTuples() {
    Random r = new Random(11);
    for (int i = 0; i < 20_000; i++) {
      List<byte[]> t = randomTuple(r, 3);
      int k = r.nextInt(3);
      List<byte[]> equal = r.nextInt(3) == 0 ? t.subList(0, k) : randomTuple(r, k);
      byte[] lo = r.nextInt(4) == 0 ? null : randomValue(r);
      byte[] hi = r.nextInt(4) == 0 ? null : randomValue(r);
      boolean expected = TUPLES.compare(t.subList(0, k), equal) == 0;
      if (lo != null) expected &= Bytes.compareTo(t.get(k), lo) >= 0;
      if (hi != null) expected &= Bytes.compareTo(t.get(k), hi) < 0;
      byte[][] bounds = CompositeValue.bounds(equal, lo, hi);
      assertEquals(
          expected,
          IndexKeyCodec.inRange(CompositeValue.encode(t), bounds[0], bounds[1]),
          () -> "tuple " + t + " equal " + equal + " lo " + lo + " hi " + hi);
    }
  }

  @Test
  void noConditionIsUnbounded() {
    byte[][] bounds = CompositeValue.bounds(List.of(), null, null);
    assertNull(bounds[0]);
    assertNull(bounds[1]);
  }
}
