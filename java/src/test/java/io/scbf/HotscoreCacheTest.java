package io.scbf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class HotscoreCacheTest {

  @Test
  void getPutInvalidateClearAndStats() {
    try (HotscoreCache cache = HotscoreCache.builder().capacityBytes(1 << 20).build()) {
      byte[] key = "city|Nanjing".getBytes();
      assertNull(cache.get(key));
      assertTrue(cache.put(key, "row1,row2".getBytes()));
      assertArrayEquals("row1,row2".getBytes(), cache.get(key));
      assertTrue(cache.put(key, new byte[0]), "replace with an empty value");
      assertArrayEquals(new byte[0], cache.get(key));

      byte[] big = new byte[100_000];
      Arrays.fill(big, (byte) 7);
      big[99_999] = 9;
      assertTrue(cache.put("big".getBytes(), big));
      assertArrayEquals(
          big, cache.get("big".getBytes()), "a value larger than the glue's stack buffer");
      assertArrayEquals(big, cache.get("big".getBytes()));

      assertTrue(cache.invalidate(key));
      assertFalse(cache.invalidate(key));
      assertNull(cache.get(key));

      CacheStats s = cache.stats();
      assertEquals(2, s.misses());
      assertTrue(s.hits() >= 4, s.toString());
      assertEquals(3, s.admissions());
      assertEquals(1, s.invalidations());
      assertEquals(1, s.entries());
      assertTrue(s.bytesUsed() > 100_000 && s.bytesUsed() <= s.capacityBytes(), s.toString());
      assertEquals(1 << 20, s.capacityBytes());
      assertEquals((double) s.hits() / (s.hits() + s.misses()), s.hitRatio());

      cache.clear();
      assertNull(cache.get("big".getBytes()));
      assertEquals(0, cache.stats().entries());
    }
  }

  @Test
  void valueLargerThanTheCacheIsNotAdmitted() {
    try (HotscoreCache cache =
        HotscoreCache.builder().capacityBytes(64 << 10).policy(HotscoreCache.Policy.LRU).build()) {
      assertFalse(cache.put("k".getBytes(), new byte[128 << 10]));
      assertNull(cache.get("k".getBytes()));
      assertEquals(1, cache.stats().rejections());
    }
  }

  @Test
  void staysWithinCapacityUnderChurn() {
    for (HotscoreCache.Policy policy : HotscoreCache.Policy.values()) {
      try (HotscoreCache cache =
          HotscoreCache.builder()
              .capacityBytes(256 << 10)
              .policy(policy)
              .period(1_000)
              .decay(0.5)
              .periodNanos(0)
              .ghostEntries(512)
              .build()) {
        byte[] value = new byte[1_000];
        for (int i = 0; i < 20_000; i++) {
          byte[] key = Keys.of(i % 3 == 0 ? i % 30 : i);
          if (cache.get(key) == null) {
            cache.put(key, value);
          }
        }
        CacheStats s = cache.stats();
        assertTrue(s.bytesUsed() <= s.capacityBytes(), policy + " " + s);
        assertTrue(s.evictions() + s.rejections() > 0, "the cache filled up: " + policy + " " + s);
        assertTrue(s.hits() > 5_000, "the 30 hot keys hit: " + policy + " " + s);
      }
    }
  }

  /**
   * A hot set that moves on every 2,000 lookups: admission by frequency holds on to the keys that
   * were hot, so the default policy's chooser takes the FIFO mode and out-hits the adaptive window
   * alone (Policy.ADAPTIVE, the chooser off) by more than 1% of the lookups.
   */
  @Test
  void theChooserCanBeTurnedOffAndPaysOnAMovingHotSet() {
    long[] hits = new long[2];
    HotscoreCache.Policy[] policies = {
      HotscoreCache.Policy.HOTSCORE, HotscoreCache.Policy.ADAPTIVE
    };
    int lookups = 60_000;
    for (int p = 0; p < 2; p++) {
      try (HotscoreCache cache =
          HotscoreCache.builder()
              .capacityBytes(1 << 20)
              .maxEntries(60)
              .policy(policies[p])
              .build()) {
        java.util.Random random = new java.util.Random(5);
        int hot = 42;
        int keys = 360;
        for (int op = 0; op < lookups; op++) {
          int k =
              random.nextInt(5) > 0
                  ? (op / 2_000 * hot + random.nextInt(hot)) % keys
                  : random.nextInt(keys);
          byte[] key = Keys.of(k);
          if (cache.get(key) == null) {
            cache.put(key, new byte[1]);
          }
        }
        hits[p] = cache.stats().hits();
      }
    }
    assertTrue(
        hits[0] > hits[1] + lookups / 100, "chooser " + hits[0] + ", window alone " + hits[1]);
  }

  @Test
  void nativeRejectionsAreIllegalArguments() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> HotscoreCache.builder().capacityBytes(64).build());
    assertTrue(e.getMessage().startsWith("HotscoreCache.build: "), e.getMessage());
  }

  @Test
  void builderValidation() {
    assertThrows(IllegalStateException.class, () -> HotscoreCache.builder().build());
    assertThrows(IllegalArgumentException.class, () -> HotscoreCache.builder().capacityBytes(0));
    assertThrows(IllegalArgumentException.class, () -> HotscoreCache.builder().period(0));
    assertThrows(IllegalArgumentException.class, () -> HotscoreCache.builder().decay(0));
    assertThrows(IllegalArgumentException.class, () -> HotscoreCache.builder().decay(1.5));
    assertThrows(IllegalArgumentException.class, () -> HotscoreCache.builder().periodNanos(-1));
    assertThrows(IllegalArgumentException.class, () -> HotscoreCache.builder().maxEntries(-1));
    assertThrows(IllegalArgumentException.class, () -> HotscoreCache.builder().ghostEntries(-1));
    assertThrows(NullPointerException.class, () -> HotscoreCache.builder().policy(null));
  }

  @Test
  void nullsAndClosedCache() {
    HotscoreCache cache = HotscoreCache.builder().capacityBytes(1 << 16).build();
    assertThrows(NullPointerException.class, () -> cache.get(null));
    assertThrows(NullPointerException.class, () -> cache.put(new byte[1], null));
    assertThrows(NullPointerException.class, () -> cache.put(null, new byte[1]));
    assertThrows(NullPointerException.class, () -> cache.invalidate(null));
    cache.close();
    cache.close();
    assertTrue(cache.isClosed());
    assertEquals(
        "HotscoreCache is closed",
        assertThrows(IllegalStateException.class, () -> cache.get(new byte[1])).getMessage());
    assertThrows(IllegalStateException.class, () -> cache.put(new byte[1], new byte[1]));
    assertThrows(IllegalStateException.class, cache::stats);
    assertThrows(IllegalStateException.class, cache::clear);
  }
}
