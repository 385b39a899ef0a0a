package io.scbf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SplitCountingBloomFilterTest {

  @Test
  void addTestRemoveOnEveryKeyForm() {
    try (SplitCountingBloomFilter f = SplitCountingBloomFilter.create(10_000, 0.01)) {
      byte[] framed = "xxalphayy".getBytes();
      f.add(framed, 2, 5);
      assertTrue(f.mightContain("alpha".getBytes()));

      ByteBuffer heap = ByteBuffer.wrap("..beta..".getBytes(), 2, 4);
      f.add(heap);
      assertEquals(2, heap.position(), "a key buffer is not consumed");
      assertTrue(f.mightContain("beta".getBytes()));

      ByteBuffer direct = ByteBuffer.allocateDirect(16);
      direct.put("gamma".getBytes()).flip();
      f.add(direct);
      assertEquals(0, direct.position());
      assertTrue(f.mightContain(ByteBuffer.wrap("gamma".getBytes()).asReadOnlyBuffer()));
      ByteBuffer sliced = ByteBuffer.wrap("zzgamma".getBytes()).position(2).slice();
      assertTrue(f.mightContain(sliced), "heap buffer with an array offset");

      assertTrue(f.remove(direct));
      assertFalse(f.mightContain("gamma".getBytes()));
      assertFalse(f.remove("gamma".getBytes()), "removing an absent key changes nothing");
      assertTrue(f.remove(heap));
      assertTrue(f.remove("alpha".getBytes()));
      assertEquals(0, f.stats().nonZeroCounters());

      f.add(new byte[0]);
      assertTrue(f.mightContain(new byte[0]), "the empty key is a key");
    }
  }

  @Test
  void batchesMatchSingleKeyCalls() {
    try (SplitCountingBloomFilter f = SplitCountingBloomFilter.create(50_000, 0.01)) {
      KeyBatch batch = new KeyBatch(4, 8);
      for (int i = 0; i < 5_000; i += 2) {
        batch.add(Keys.of(i));
      }
      f.addAll(batch);
      KeyBatch probe = new KeyBatch();
      for (int i = 0; i < 5_000; i++) {
        probe.add(Keys.of(i));
      }
      boolean[] answers = f.mightContainAll(probe);
      int positives = 0;
      for (int i = 0; i < 5_000; i++) {
        assertEquals(f.mightContain(Keys.of(i)), answers[i], "key " + i);
        if (i % 2 == 0) {
          assertTrue(answers[i]);
        }
        positives += answers[i] ? 1 : 0;
      }
      boolean[] into = new boolean[probe.size() + 3];
      Arrays.fill(into, true);
      assertEquals(positives, f.mightContainAll(probe, into));
      assertTrue(into[probe.size()], "slots beyond the batch are left alone");
      assertArrayEquals(answers, Arrays.copyOf(into, probe.size()));

      boolean[] removed = new boolean[batch.size()];
      assertEquals(batch.size(), f.removeAll(batch, removed));
      for (boolean r : removed) {
        assertTrue(r);
      }
      assertEquals(0, f.stats().nonZeroCounters());
      assertEquals(0, f.removeAll(batch), "nothing left to remove");

      f.addAll(Keys.of(1), Keys.of(2));
      assertArrayEquals(new boolean[] {true, true}, f.mightContainAll(Keys.of(1), Keys.of(2)));
      assertEquals(2, f.removeAll(Keys.of(1), Keys.of(2)));
      f.addAll(new KeyBatch());
      assertEquals(0, f.mightContainAll(new KeyBatch()).length);
    }
  }

  @Test
  void statsFollowThePaperSizing() {
    try (SplitCountingBloomFilter f = SplitCountingBloomFilter.create(100_000, 0.01)) {
      FilterStats s = f.stats();
      assertEquals(7, s.k(), "k = ceil(log2(1/P))");
      assertEquals(s.k() * s.m(), s.positions());
      assertTrue(s.capacity() >= 100_000);
      assertEquals(4, s.counterBits());
      assertEquals(0.01, s.targetFpr());
      assertEquals(0, s.nonZeroCounters());
      assertEquals(0.0, s.estimatedFpr());
      assertEquals(7, s.sliceFill().length);
      assertTrue(s.bytes() >= s.positions() / 2);

      for (int i = 0; i < s.capacity(); i++) {
        f.add(Keys.of(i));
      }
      FilterStats full = f.stats();
      for (double fill : full.sliceFill()) {
        assertEquals(0.5, fill, 0.02, "every slice is half full at capacity");
      }
      assertEquals(0.01, full.estimatedFpr(), 0.003);
      assertEquals(0.5, full.maxFill(), 0.02);
    }
    try (SplitCountingBloomFilter f =
        SplitCountingBloomFilter.createWithPositions(70_000, 0.01, 8)) {
      FilterStats s = f.stats();
      assertEquals(70_000, s.positions());
      assertEquals(10_000, s.m());
      assertEquals(8, s.counterBits());
    }
  }

  @Test
  void countersSaturateAndStick() {
    try (SplitCountingBloomFilter f = SplitCountingBloomFilter.create(1_000, 0.01)) {
      byte[] hot = "hot".getBytes();
      for (int i = 0; i < 20; i++) {
        f.add(hot);
      }
      assertEquals(f.stats().k(), f.stats().saturatedCounters());
      for (int i = 0; i < 40; i++) {
        assertTrue(f.remove(hot), "a saturated key never goes away");
      }
      assertTrue(f.mightContain(hot));
    }
  }

  @Test
  void mergeAddsCountersAndRejectsOtherShapes() {
    try (SplitCountingBloomFilter a = SplitCountingBloomFilter.create(10_000, 0.01);
        SplitCountingBloomFilter b = SplitCountingBloomFilter.create(10_000, 0.01);
        SplitCountingBloomFilter other = SplitCountingBloomFilter.create(20_000, 0.01)) {
      a.add("a".getBytes());
      b.add("b".getBytes());
      b.add("a".getBytes());
      a.merge(b);
      assertTrue(a.mightContain("b".getBytes()));
      assertTrue(a.remove("a".getBytes()));
      assertTrue(a.mightContain("a".getBytes()), "merged counts add up: 'a' was in both");
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> a.merge(other));
      assertTrue(e.getMessage().contains("merge"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> a.merge(a));
      assertThrows(NullPointerException.class, () -> a.merge(null));
    }
  }

  @Test
  void clearEmptiesTheFilter() {
    try (SplitCountingBloomFilter f = SplitCountingBloomFilter.create(1_000, 0.01)) {
      f.add("x".getBytes());
      f.clear();
      assertFalse(f.mightContain("x".getBytes()));
      assertEquals(0, f.stats().nonZeroCounters());
    }
  }

  @Test
  void snapshotRoundTripKeepsEveryAnswer() {
    try (SplitCountingBloomFilter f = SplitCountingBloomFilter.create(5_000, 0.001)) {
      for (int i = 0; i < 5_000; i++) {
        f.add(Keys.of(i * 7L));
      }
      byte[] bytes = f.toByteArray();
      try (SplitCountingBloomFilter g = SplitCountingBloomFilter.fromByteArray(bytes)) {
        assertEquals(f.stats(), g.stats());
        for (int i = 0; i < 20_000; i++) {
          assertEquals(f.mightContain(Keys.of(i)), g.mightContain(Keys.of(i)));
        }
        assertArrayEquals(bytes, g.toByteArray());
      }
    }
  }

  @Test
  void corruptSnapshotsAreRejected() {
    byte[] good;
    try (SplitCountingBloomFilter f = SplitCountingBloomFilter.create(1_000, 0.01)) {
      f.add("k".getBytes());
      good = f.toByteArray();
    }
    assertThrows(NullPointerException.class, () -> SplitCountingBloomFilter.fromByteArray(null));
    assertThrows(
        CorruptSnapshotException.class, () -> SplitCountingBloomFilter.fromByteArray(new byte[0]));
    CorruptSnapshotException truncated =
        assertThrows(
            CorruptSnapshotException.class,
            () -> SplitCountingBloomFilter.fromByteArray(Arrays.copyOf(good, good.length - 1)));
    assertTrue(
        truncated.getMessage().startsWith("SplitCountingBloomFilter.fromByteArray: "),
        truncated.getMessage());
    byte[] flipped = good.clone();
    flipped[flipped.length / 2] ^= 0x10;
    assertThrows(
        CorruptSnapshotException.class, () -> SplitCountingBloomFilter.fromByteArray(flipped));
    byte[] magic = good.clone();
    magic[0] = 'X';
    assertThrows(
        CorruptSnapshotException.class, () -> SplitCountingBloomFilter.fromByteArray(magic));
    assertThrows(
        CorruptSnapshotException.class,
        () -> ScalableSplitCountingBloomFilter.fromByteArray(good),
        "an SCBF snapshot is not a scalable one");
  }

  @Test
  void badArgumentsFailBeforeNativeCode() {
    assertThrows(IllegalArgumentException.class, () -> SplitCountingBloomFilter.create(0, 0.01));
    assertThrows(IllegalArgumentException.class, () -> SplitCountingBloomFilter.create(-5, 0.01));
    assertThrows(IllegalArgumentException.class, () -> SplitCountingBloomFilter.create(100, 0));
    assertThrows(IllegalArgumentException.class, () -> SplitCountingBloomFilter.create(100, 1));
    assertThrows(
        IllegalArgumentException.class, () -> SplitCountingBloomFilter.create(100, Double.NaN));
    assertThrows(
        IllegalArgumentException.class, () -> SplitCountingBloomFilter.create(100, 0.01, 5));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            SplitCountingBloomFilter.createWithPositions(
                SplitCountingBloomFilter.MAX_POSITIONS + 1, 0.01));
    IllegalArgumentException tooMany =
        assertThrows(
            IllegalArgumentException.class,
            () -> SplitCountingBloomFilter.create(Long.MAX_VALUE / 2, 0.01));
    assertTrue(tooMany.getMessage().contains("create"), tooMany.getMessage());

    try (SplitCountingBloomFilter f = SplitCountingBloomFilter.create(100, 0.01)) {
      byte[] key = new byte[4];
      assertThrows(NullPointerException.class, () -> f.add((byte[]) null));
      assertThrows(NullPointerException.class, () -> f.mightContain((ByteBuffer) null));
      assertThrows(IndexOutOfBoundsException.class, () -> f.add(key, 3, 2));
      assertThrows(IndexOutOfBoundsException.class, () -> f.remove(key, -1, 1));
      assertThrows(IndexOutOfBoundsException.class, () -> f.mightContain(key, 0, -1));
      assertThrows(NullPointerException.class, () -> f.addAll((KeyBatch) null));
      assertThrows(NullPointerException.class, () -> f.addAll(new byte[][] {key, null}));
      KeyBatch two = KeyBatch.of(key, key);
      assertThrows(IllegalArgumentException.class, () -> f.mightContainAll(two, new boolean[1]));
      assertThrows(NullPointerException.class, () -> f.mightContainAll(two, null));
    }
  }

  @Test
  void callsAfterCloseThrowAndCloseIsIdempotent() {
    SplitCountingBloomFilter f = SplitCountingBloomFilter.create(100, 0.01);
    f.close();
    f.close();
    assertTrue(f.isClosed());
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> f.add("k".getBytes()));
    assertEquals("SplitCountingBloomFilter is closed", e.getMessage());
    assertThrows(IllegalStateException.class, () -> f.mightContain(ByteBuffer.allocateDirect(1)));
    assertThrows(IllegalStateException.class, () -> f.addAll(KeyBatch.of(new byte[1])));
    assertThrows(IllegalStateException.class, f::stats);
    assertThrows(IllegalStateException.class, f::toByteArray);
    assertThrows(IllegalStateException.class, f::clear);
    try (SplitCountingBloomFilter g = SplitCountingBloomFilter.create(100, 0.01)) {
      assertThrows(IllegalStateException.class, () -> g.merge(f));
      assertThrows(IllegalStateException.class, () -> f.merge(g));
    }
  }
}
