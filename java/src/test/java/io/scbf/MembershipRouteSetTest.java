package io.scbf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MembershipRouteSetTest {
  private static byte[] key(int i) {
    return ("value-" + i).getBytes(StandardCharsets.UTF_8);
  }

  private static boolean has(long[] bits, int slot) {
    return (bits[slot >>> 6] >>> (slot & 63) & 1) != 0;
  }

  /** Every slot answers as its own bitmap, through sets, deltas (previous named) and clears. */
  @Test
  void answersAsEachRegionsBitmap() {
    int regions = 130;
    ScalableSplitCountingBloomFilter[] filters = new ScalableSplitCountingBloomFilter[regions];
    MembershipFilter[] bitmaps = new MembershipFilter[regions];
    try (MembershipRouteSet set = new MembershipRouteSet()) {
      for (int r = 0; r < regions; r++) {
        filters[r] = ScalableSplitCountingBloomFilter.create(r % 2 == 0 ? 300 : 800, 0.01);
        for (int i = 0; i < 100; i++) filters[r].add(key(r * 1000 + i));
        bitmaps[r] = MembershipFilter.of(filters[r]);
        set.set(r, null, bitmaps[r]);
      }
      assertEquals(
          new MembershipRouteSet.Stats(regions, 2, regions, 4, set.stats().bytes()), set.stats());
      assertSameAnswers(set, bitmaps, regions * 1000);
      for (int r = 0; r < regions; r++) {
        for (int i = 100; i < 200; i++) filters[r].add(key(r * 1000 + i));
        for (int i = 0; i < 50; i++) filters[r].remove(key(r * 1000 + i));
        MembershipFilter next = MembershipFilter.of(filters[r]);
        set.set(r, bitmaps[r], next);
        bitmaps[r].close();
        bitmaps[r] = next;
      }
      for (int r = 0; r < regions; r += 3) {
        set.clear(r);
        bitmaps[r].close();
        bitmaps[r] = null;
      }
      assertSameAnswers(set, bitmaps, regions * 1000);
    } finally {
      for (int r = 0; r < regions; r++) {
        if (filters[r] != null) filters[r].close();
        if (bitmaps[r] != null) bitmaps[r].close();
      }
    }
  }

  private static void assertSameAnswers(
      MembershipRouteSet set, MembershipFilter[] bitmaps, int keys) {
    for (int k = 0; k < keys; k += 7) {
      long[] bits = set.query(key(k), bitmaps.length);
      for (int r = 0; r < bitmaps.length; r++) {
        boolean want = bitmaps[r] != null && bitmaps[r].mightContain(key(k));
        assertEquals(want, has(bits, r), "slot " + r + ", key " + k);
      }
    }
  }

  @Test
  void badSlotsAndUseAfterCloseAreRefused() throws Exception {
    MembershipRouteSet set = new MembershipRouteSet();
    try (ScalableSplitCountingBloomFilter f = ScalableSplitCountingBloomFilter.create(100, 0.01);
        MembershipFilter m = MembershipFilter.of(f)) {
      assertThrows(IllegalArgumentException.class, () -> set.set(-1, null, m));
      assertThrows(
          IllegalArgumentException.class, () -> set.set(MembershipRouteSet.MAX_SLOTS, null, m));
      assertThrows(NullPointerException.class, () -> set.set(0, null, null));
      assertThrows(NullPointerException.class, () -> set.query(null, 1));
      set.set(500, null, m);
      assertEquals(8, set.query(key(1), 0).length, "sized to the highest slot set");
      set.close();
      set.close();
      assertThrows(IllegalStateException.class, () -> set.query(key(1), 1));
      assertThrows(IllegalStateException.class, () -> set.set(0, null, m));
    }
  }
}
