package io.scbf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MembershipFilterTest {
  private static byte[] key(int i) {
    return ("value-" + i).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void answersAsTheCountingFilterItCameFrom() {
    try (ScalableSplitCountingBloomFilter f =
        ScalableSplitCountingBloomFilter.create(1000, 0.001)) {
      for (int i = 0; i < 5000; i++) f.add(key(i));
      for (int i = 0; i < 5000; i += 2) f.remove(key(i));
      try (MembershipFilter m = MembershipFilter.of(f)) {
        for (int i = 0; i < 50_000; i++) {
          assertEquals(f.mightContain(key(i)), m.mightContain(key(i)), "key " + i);
        }
        MembershipFilter.Stats s = m.stats();
        assertEquals(f.stats().filters(), s.filters());
        assertTrue(s.bytes() < f.stats().bytes() / 4 + 64 * s.filters(), s.toString());
        assertEquals(f.stats().estimatedFpr(), s.estimatedFpr(), 1e-12);
        assertEquals(s.bytes(), m.sizeBytes());
        assertEquals(m.toByteArray().length, m.sizeBytes());
      }
    }
  }

  @Test
  void deltasRebuildTheTargetAndRefuseOtherBases() {
    try (ScalableSplitCountingBloomFilter f =
            ScalableSplitCountingBloomFilter.create(10_000, 0.001);
        MembershipFilter v1 = derive(f, 0, 3000);
        MembershipFilter v2 = derive(f, 3000, 3010);
        MembershipFilter v3 = derive(f, 3010, 3020);
        MembershipFilter held = MembershipFilter.fromByteArray(v1.toByteArray())) {
      byte[] d12 = v2.deltaFrom(v1);
      byte[] d23 = v3.deltaFrom(v2);
      assertTrue(d12.length < 10 * 64, "10 changed keys in " + d12.length + " bytes");
      assertFalse(held.applyDelta(d23), "reordered");
      assertArrayEquals(v1.toByteArray(), held.toByteArray());
      assertTrue(held.applyDelta(d12));
      assertFalse(held.applyDelta(d12), "duplicated");
      assertTrue(held.applyDelta(d23));
      assertArrayEquals(v3.toByteArray(), held.toByteArray());
      byte[] bad = d23.clone();
      bad[bad.length / 2] ^= 1;
      assertThrows(CorruptSnapshotException.class, () -> held.applyDelta(bad));
      assertArrayEquals(v3.toByteArray(), held.toByteArray());
    }
  }

  @Test
  void growthNeedsAFullBitmap() {
    try (ScalableSplitCountingBloomFilter f = ScalableSplitCountingBloomFilter.create(100, 0.01);
        MembershipFilter small = derive(f, 0, 10);
        MembershipFilter grown = derive(f, 10, 1000)) {
      assertNull(grown.deltaFrom(small));
    }
  }

  @Test
  void badInputAndUseAfterClose() {
    assertThrows(CorruptSnapshotException.class, () -> MembershipFilter.fromByteArray(new byte[3]));
    assertThrows(NullPointerException.class, () -> MembershipFilter.fromByteArray(null));
    assertThrows(CorruptSnapshotException.class, () -> MembershipFilter.fromByteArray(new byte[0]));
    try (ScalableSplitCountingBloomFilter f = ScalableSplitCountingBloomFilter.create(100, 0.01)) {
      MembershipFilter m = MembershipFilter.of(f);
      assertThrows(IndexOutOfBoundsException.class, () -> m.mightContain(new byte[2], 1, 5));
      assertThrows(CorruptSnapshotException.class, () -> m.applyDelta(new byte[0]));
      m.close();
      m.close();
      assertThrows(IllegalStateException.class, () -> m.mightContain(key(1)));
      assertThrows(IllegalStateException.class, m::toByteArray);
      assertThrows(IllegalStateException.class, m::sizeBytes);
    }
  }

  private static MembershipFilter derive(ScalableSplitCountingBloomFilter f, int from, int to) {
    for (int i = from; i < to; i++) f.add(key(i));
    return MembershipFilter.of(f);
  }
}
