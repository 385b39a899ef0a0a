package io.scbf.hbase.shared;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.IndexSpec;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class IndexKeyCodecTest {
  private static final byte[] ALIAS = Bytes.toBytes("city");

  private static byte[] randomBytes(Random rnd) {
    byte[] b = new byte[rnd.nextInt(6)];
    for (int i = 0; i < b.length; i++) {
      // Bias towards the bytes the escape treats specially.
      int pick = rnd.nextInt(4);
      b[i] = pick == 0 ? 0 : pick == 1 ? (byte) 0xff : (byte) rnd.nextInt(256);
    }
    return b;
  }

  @Test
  void escapingPreservesOrderAndNoValueKeyIsAPrefixOfAnother() {
    Random rnd = new Random(1);
    for (int i = 0; i < 200_000; i++) {
      byte[] a = randomBytes(rnd), b = randomBytes(rnd);
      byte[] ka = IndexKeyCodec.valuePrefix(3, ALIAS, a),
          kb = IndexKeyCodec.valuePrefix(3, ALIAS, b);
      assertEquals(
          Integer.signum(Bytes.compareTo(a, b)),
          Integer.signum(Bytes.compareTo(ka, kb)),
          Bytes.toStringBinary(a) + " vs " + Bytes.toStringBinary(b));
      if (!Arrays.equals(a, b)) {
        assertFalse(Bytes.startsWith(ka, kb) || Bytes.startsWith(kb, ka), "prefix-free");
      }
    }
  }

  @Test
  void rowKeysParseBackAndCarryTheirFilterKey() {
    Random rnd = new Random(2);
    for (int i = 0; i < 50_000; i++) {
      byte[] value = randomBytes(rnd), row = randomBytes(rnd);
      int bucket = rnd.nextInt(256);
      byte[] key = IndexKeyCodec.rowKey(bucket, ALIAS, value, row);
      IndexKeyCodec.Parsed p = IndexKeyCodec.parse(key);
      assertEquals(bucket, p.bucket());
      assertArrayEquals(ALIAS, p.alias());
      assertArrayEquals(value, p.value());
      assertArrayEquals(value, IndexKeyCodec.valueOfKey(key));
      assertArrayEquals(row, p.userRow());
      assertEquals(p.filterKeyEnd(), IndexKeyCodec.filterKeyEnd(key));
      assertArrayEquals(
          IndexKeyCodec.filterKey(ALIAS, value), Arrays.copyOfRange(key, 1, p.filterKeyEnd()));
      assertTrue(Bytes.startsWith(key, IndexKeyCodec.valuePrefix(bucket, ALIAS, value)));
    }
  }

  @Test
  void rangeBoundsSelectExactlyTheValuesInRange() {
    Random rnd = new Random(3);
    for (int i = 0; i < 50_000; i++) {
      byte[] v = randomBytes(rnd), lo = rnd.nextInt(5) == 0 ? null : randomBytes(rnd);
      byte[] hi = rnd.nextInt(5) == 0 ? null : randomBytes(rnd);
      byte[] key = IndexKeyCodec.rowKey(5, ALIAS, v, randomBytes(rnd));
      byte[][] bounds = IndexKeyCodec.rangeBounds(5, ALIAS, lo, hi);
      boolean inScan =
          Bytes.compareTo(key, bounds[0]) >= 0
              && (bounds[1].length == 0 || Bytes.compareTo(key, bounds[1]) < 0);
      boolean inRange =
          (lo == null || Bytes.compareTo(v, lo) >= 0) && (hi == null || Bytes.compareTo(v, hi) < 0);
      assertEquals(inRange, inScan);
    }
    // Another alias never falls in the range.
    byte[] other = IndexKeyCodec.rowKey(5, Bytes.toBytes("citz"), new byte[0], new byte[0]);
    byte[][] all = IndexKeyCodec.rangeBounds(5, ALIAS, null, null);
    assertTrue(Bytes.compareTo(other, all[1]) >= 0);
  }

  @Test
  void bucketsAreStableInRangeAndEven() {
    int buckets = 16;
    int[] counts = new int[buckets];
    for (int i = 0; i < 160_000; i++) {
      byte[] row = Bytes.toBytes("row-" + i);
      int b = IndexKeyCodec.bucket(row, buckets);
      assertEquals(b, IndexKeyCodec.bucket(row, buckets));
      counts[b]++;
    }
    for (int c : counts) assertTrue(c > 9_000 && c < 11_000, Arrays.toString(counts));
    assertEquals(0, IndexKeyCodec.bucket(Bytes.toBytes("any"), 1));
    assertEquals(15, IndexKeyCodec.splitKeys(16).length);
    assertEquals(0, IndexKeyCodec.bucketOfRegion(new byte[0]));
    assertEquals(255, IndexKeyCodec.bucketOfRegion(new byte[] {(byte) 255}));
  }

  @Test
  void malformedKeysAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> IndexKeyCodec.parse(new byte[] {1, 2}));
    assertThrows(
        IllegalArgumentException.class,
        () -> IndexKeyCodec.parse(new byte[] {1, 'a', 0, 0, 'b', 0, 7}));
    assertThrows(
        IllegalArgumentException.class,
        () -> IndexKeyCodec.filterKeyEnd(new byte[] {1, 'a', 'b', 'c', 'd'}));
  }

  @Test
  void coveredValuesRoundTrip() {
    java.util.List<byte[]> values = Arrays.asList(Bytes.toBytes("a"), null, new byte[0]);
    java.util.List<byte[]> back = CoveredValues.decode(CoveredValues.encode(values));
    assertEquals(3, back.size());
    assertArrayEquals(values.get(0), back.get(0));
    assertEquals(null, back.get(1));
    assertArrayEquals(new byte[0], back.get(2));
    assertThrows(
        IllegalArgumentException.class, () -> CoveredValues.decode(new byte[] {1, 0, 0, 0, 9}));
  }

  @Test
  void aByValueIndexPlacesEveryRowOfAValueUnderOneSlot() {
    var byValue =
        IndexSpec.builder(Bytes.toBytes("f"), Bytes.toBytes("q"))
            .alias("city")
            .layout(IndexSpec.Layout.BY_VALUE)
            .build();
    var byRow =
        IndexSpec.builder(Bytes.toBytes("f"), Bytes.toBytes("q"))
            .alias("city")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(16)
            .build();
    byte[] value = Bytes.toBytes("Nanjing");
    int slot = IndexPlacement.salt(byValue, ALIAS, value, Bytes.toBytes("r1"));
    Set<Integer> buckets = new HashSet<>();
    Set<Integer> slots = new HashSet<>();
    for (int r = 0; r < 100; r++) {
      byte[] row = Bytes.toBytes("r" + r);
      slots.add(IndexPlacement.salt(byValue, ALIAS, value, row));
      buckets.add(IndexPlacement.salt(byRow, ALIAS, value, row));
    }
    assertEquals(Set.of(slot), slots, "one slot whatever the row");
    assertTrue(buckets.size() > 8, "BY_ROW spreads one value over the buckets: " + buckets);
    byte[] filterKey = IndexKeyCodec.filterKey(ALIAS, value);
    assertEquals(slot, IndexKeyCodec.slot(filterKey, 0, filterKey.length));
    // Values spread over the slots.
    Set<Integer> spread = new HashSet<>();
    for (int v = 0; v < 2000; v++) {
      spread.add(IndexPlacement.salt(byValue, ALIAS, Bytes.toBytes("v" + v), new byte[0]));
    }
    assertEquals(IndexKeyCodec.SLOTS, spread.size());
    byte[][] splits = IndexKeyCodec.slotSplitKeys(4);
    assertEquals(3, splits.length);
    assertArrayEquals(new byte[] {64}, splits[0]);
    assertArrayEquals(new byte[] {(byte) 128}, splits[1]);
    assertArrayEquals(new byte[] {(byte) 192}, splits[2]);
  }
}
