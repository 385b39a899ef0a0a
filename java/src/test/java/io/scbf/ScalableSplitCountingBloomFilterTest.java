package io.scbf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class ScalableSplitCountingBloomFilterTest {

  private static Iterator<byte[]> keys(long from, long to) {
    return LongStream.range(from, to).mapToObj(Keys::of).iterator();
  }

  @Test
  void growsPastItsInitialCapacityWithoutFalseNegatives() {
    try (ScalableSplitCountingBloomFilter f =
        ScalableSplitCountingBloomFilter.create(1_000, 0.01)) {
      assertEquals(1, f.stats().filters());
      KeyBatch batch = new KeyBatch();
      for (int i = 0; i < 20_000; i++) {
        batch.add(Keys.of(i));
      }
      f.addAll(batch);
      ScalableFilterStats s = f.stats();
      assertTrue(s.filters() >= 4, "grew: " + s);
      assertEquals(20_000, s.adds());
      assertTrue(s.designFpr() <= 0.01, "tightening keeps the compound rate under target: " + s);
      assertTrue(s.estimatedFpr() <= 0.011, s.toString());
      for (boolean b : f.mightContainAll(batch)) {
        assertTrue(b);
      }
      int falsePositives = 0;
      for (int i = 20_000; i < 120_000; i++) {
        falsePositives += f.mightContain(Keys.of(i)) ? 1 : 0;
      }
      assertTrue(falsePositives < 1_500, "false positives " + falsePositives + " / 100000");
    }
  }

  @Test
  void singleKeyFormsAndRemove() {
    try (ScalableSplitCountingBloomFilter f =
        ScalableSplitCountingBloomFilter.builder(100, 0.01)
            .growth(4)
            .tightening(0.8)
            .counterBits(8)
            .maxFilters(8)
            .residueThreshold(1000)
            .build()) {
      ByteBuffer direct = ByteBuffer.allocateDirect(8).putLong(42).flip();
      f.add(direct);
      f.add("abc".getBytes(), 1, 2);
      assertTrue(f.mightContain(direct));
      assertTrue(f.mightContain("bc".getBytes()));
      assertTrue(f.remove(ByteBuffer.wrap("bc".getBytes())));
      assertTrue(f.remove(direct));
      assertFalse(f.remove(direct));
      assertEquals(2, f.stats().removes());
    }
  }

  @Test
  void ambiguousRemovesBecomeResidueAndCompactionClearsIt() {
    try (ScalableSplitCountingBloomFilter f =
        ScalableSplitCountingBloomFilter.builder(500, 0.05).residueThreshold(10).build()) {
      KeyBatch all = new KeyBatch();
      for (int i = 0; i < 10_000; i++) {
        all.add(Keys.of(i));
      }
      f.addAll(all);
      KeyBatch half = new KeyBatch();
      for (int i = 0; i < 5_000; i++) {
        half.add(Keys.of(i));
      }
      assertEquals(
          5_000, f.removeAll(half), "every added key is removable (residue counts as removed)");
      ScalableFilterStats s = f.stats();
      assertTrue(
          s.residue() > 10,
          "with a 5% rate and several sub-filters some removes are ambiguous: " + s);
      assertTrue(f.needsCompaction());
      assertTrue(s.needsCompaction());
      for (int i = 5_000; i < 10_000; i++) {
        assertTrue(f.mightContain(Keys.of(i)), "survivor " + i);
      }

      f.compact(5_000, keys(5_000, 10_000));
      ScalableFilterStats after = f.stats();
      assertTrue(after.filters() < s.filters(), after + " after " + s);
      assertEquals(0, after.residue());
      assertFalse(f.needsCompaction());
      for (int i = 5_000; i < 10_000; i++) {
        assertTrue(f.mightContain(Keys.of(i)), "kept by compaction " + i);
      }
    }
  }

  @Test
  @SuppressWarnings("try") // the iterator closes the filter on purpose
  void compactionAbortsCleanlyWhenTheIteratorFails() {
    try (ScalableSplitCountingBloomFilter f =
        ScalableSplitCountingBloomFilter.create(1_000, 0.01)) {
      for (int i = 0; i < 5_000; i++) {
        f.add(Keys.of(i));
      }
      byte[] before = f.toByteArray();
      UncheckedIOException boom = new UncheckedIOException(new IOException("scan failed"));
      Iterator<byte[]> failing =
          new Iterator<>() {
            int n;

            @Override
            public boolean hasNext() {
              return true;
            }

            @Override
            public byte[] next() {
              if (++n == 3_000) {
                throw boom;
              }
              return Keys.of(n);
            }
          };
      assertSame(boom, assertThrows(UncheckedIOException.class, () -> f.compact(5_000, failing)));
      assertArrayEquals(
          before, f.toByteArray(), "an aborted compaction leaves the filter unchanged");

      List<byte[]> withNull = new ArrayList<>();
      withNull.add(Keys.of(1));
      withNull.add(null);
      NullPointerException npe =
          assertThrows(NullPointerException.class, () -> f.compact(2, withNull.iterator()));
      assertTrue(npe.getMessage().contains("null"), npe.getMessage());
      assertArrayEquals(before, f.toByteArray());

      Iterator<byte[]> lying =
          new Iterator<>() {
            @Override
            public boolean hasNext() {
              return true;
            }

            @Override
            public byte[] next() {
              throw new NoSuchElementException();
            }
          };
      assertThrows(NoSuchElementException.class, () -> f.compact(1, lying));

      Iterator<byte[]> closing = callingOnEveryKey(f::close);
      IllegalStateException self =
          assertThrows(IllegalStateException.class, () -> f.compact(1, closing));
      assertTrue(self.getMessage().contains("callback"), self.getMessage());
      Iterator<byte[]> nested = callingOnEveryKey(() -> f.compact(1, keys(0, 1)));
      assertThrows(IllegalStateException.class, () -> f.compact(1, nested));
      // clear() and a merge into the filter wait for the compaction's lock: from inside its own
      // iterator they would wait forever (the thread hung), so they are refused too.
      try (ScalableSplitCountingBloomFilter other =
          ScalableSplitCountingBloomFilter.create(1_000, 0.01)) {
        for (Runnable inside : List.<Runnable>of(f::clear, () -> f.merge(other))) {
          Iterator<byte[]> calling = callingOnEveryKey(inside);
          IllegalStateException refused =
              assertTimeoutPreemptively(
                  Duration.ofSeconds(20),
                  () -> assertThrows(IllegalStateException.class, () -> f.compact(1, calling)));
          assertTrue(refused.getMessage().contains("callback"), refused.getMessage());
        }
        other.merge(f); // the other way round waits for nothing: it reads f
      }
      assertFalse(f.isClosed());
      assertArrayEquals(before, f.toByteArray());

      assertThrows(IllegalArgumentException.class, () -> f.compact(-1, keys(0, 1)));
      assertThrows(NullPointerException.class, () -> f.compact(1, null));
    }
  }

  /** Endless keys, {@code action} run before each: a compaction's iterator that calls back. */
  private static Iterator<byte[]> callingOnEveryKey(Runnable action) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return true;
      }

      @Override
      public byte[] next() {
        action.run();
        return Keys.of(0);
      }
    };
  }

  @Test
  void largeKeysAndManyChunksThroughCompaction() {
    try (ScalableSplitCountingBloomFilter f = ScalableSplitCountingBloomFilter.create(100, 0.01)) {
      List<byte[]> big = new ArrayList<>();
      for (int i = 0; i < 3_000; i++) {
        byte[] k = new byte[i % 7 == 0 ? 5_000 : 3];
        System.arraycopy(Keys.of(i), 0, k, 0, 3);
        k[k.length - 1] = (byte) i;
        big.add(k);
      }
      f.compact(big.size(), big.iterator());
      for (byte[] k : big) {
        assertTrue(f.mightContain(k));
      }
    }
  }

  @Test
  void mergeAndSnapshot() {
    try (ScalableSplitCountingBloomFilter a = ScalableSplitCountingBloomFilter.create(200, 0.01);
        ScalableSplitCountingBloomFilter b = ScalableSplitCountingBloomFilter.create(200, 0.01);
        ScalableSplitCountingBloomFilter c = ScalableSplitCountingBloomFilter.create(300, 0.01)) {
      for (int i = 0; i < 1_000; i++) {
        b.add(Keys.of(i));
      }
      a.add(Keys.of(-1));
      a.merge(b);
      assertTrue(a.stats().filters() >= b.stats().filters());
      for (int i = -1; i < 1_000; i++) {
        assertTrue(a.mightContain(Keys.of(i)));
      }
      assertThrows(IllegalArgumentException.class, () -> a.merge(c));

      byte[] bytes = a.toByteArray();
      try (ScalableSplitCountingBloomFilter r =
          ScalableSplitCountingBloomFilter.fromByteArray(bytes)) {
        assertEquals(a.stats(), r.stats());
        for (int i = -1; i < 5_000; i++) {
          assertEquals(a.mightContain(Keys.of(i)), r.mightContain(Keys.of(i)));
        }
      }
      a.clear();
      assertEquals(1, a.stats().filters());
      assertFalse(a.mightContain(Keys.of(5)));
    }
  }

  @Test
  void badArguments() {
    assertThrows(
        IllegalArgumentException.class, () -> ScalableSplitCountingBloomFilter.create(0, 0.01));
    assertThrows(
        IllegalArgumentException.class, () -> ScalableSplitCountingBloomFilter.create(10, 1.5));
    assertThrows(
        IllegalArgumentException.class,
        () -> ScalableSplitCountingBloomFilter.builder(10, 0.1).tightening(1));
    assertThrows(
        IllegalArgumentException.class,
        () -> ScalableSplitCountingBloomFilter.builder(10, 0.1).growth(0));
    assertThrows(
        IllegalArgumentException.class,
        () -> ScalableSplitCountingBloomFilter.builder(10, 0.1).counterBits(16));
    assertThrows(
        IllegalArgumentException.class,
        () -> ScalableSplitCountingBloomFilter.builder(10, 0.1).maxFilters(0));
    assertThrows(
        IllegalArgumentException.class,
        () -> ScalableSplitCountingBloomFilter.builder(10, 0.1).residueThreshold(-1));
    assertThrows(
        CorruptSnapshotException.class,
        () -> ScalableSplitCountingBloomFilter.fromByteArray(new byte[100]));
    ScalableSplitCountingBloomFilter f = ScalableSplitCountingBloomFilter.create(10, 0.1);
    f.close();
    assertEquals(
        "ScalableSplitCountingBloomFilter is closed",
        assertThrows(IllegalStateException.class, f::needsCompaction).getMessage());
    assertThrows(IllegalStateException.class, () -> f.compact(1, keys(0, 1)));
  }
}
