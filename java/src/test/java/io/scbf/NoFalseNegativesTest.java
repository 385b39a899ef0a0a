package io.scbf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The invariant of the whole product, through JNI: a key added more times than removed tests
 * positive. Several threads share one filter; each owns a disjoint key range and an exact model (a
 * count per key), mixes single-key calls on every key form with batch calls, removes only keys it
 * added, hammers a few hot keys into saturation, and checks every live key as it goes and at the
 * end. About 5 million operations in total.
 */
class NoFalseNegativesTest {
  private static final int THREADS = 4;
  private static final int OPS_PER_THREAD = 500_000;
  private static final int KEYS_PER_THREAD = 40_000;
  private static final int HOT_KEYS = 8;

  @Test
  void splitCountingBloomFilter() throws Exception {
    try (SplitCountingBloomFilter f = SplitCountingBloomFilter.create(100_000, 0.01)) {
      long checked = hammer(f, 1);
      assertTrue(f.stats().saturatedCounters() > 0, "hot keys saturated some counters");
      assertTrue(checked > 1_000_000, "checked " + checked);
    }
  }

  @Test
  void scalableSplitCountingBloomFilter() throws Exception {
    try (ScalableSplitCountingBloomFilter f =
        ScalableSplitCountingBloomFilter.create(2_000, 0.01)) {
      long checked = hammer(f, 2);
      ScalableFilterStats s = f.stats();
      assertTrue(s.filters() > 3, "grew under concurrent inserts: " + s);
      assertTrue(s.residue() > 0, "exercised ambiguous removes: " + s);
      assertTrue(checked > 1_000_000, "checked " + checked);
    }
  }

  @Test
  void mergedAndRestoredFiltersKeepEveryKey() throws Exception {
    try (SplitCountingBloomFilter a = SplitCountingBloomFilter.create(100_000, 0.01);
        SplitCountingBloomFilter b = SplitCountingBloomFilter.create(100_000, 0.01)) {
      Model ma = run(a, 10, 300_000);
      Model mb = run(b, 11, 300_000);
      a.merge(b);
      try (SplitCountingBloomFilter restored =
          SplitCountingBloomFilter.fromByteArray(a.toByteArray())) {
        ma.checkAll(restored);
        mb.checkAll(restored);
      }
    }
    try (ScalableSplitCountingBloomFilter a = ScalableSplitCountingBloomFilter.create(1_000, 0.01);
        ScalableSplitCountingBloomFilter b = ScalableSplitCountingBloomFilter.create(1_000, 0.01)) {
      Model ma = run(a, 12, 300_000);
      Model mb = run(b, 13, 300_000);
      a.merge(b);
      try (ScalableSplitCountingBloomFilter restored =
          ScalableSplitCountingBloomFilter.fromByteArray(a.toByteArray())) {
        ma.checkAll(restored);
        mb.checkAll(restored);
      }
      a.compact(ma.live() + mb.live(), concat(ma.liveKeys(), mb.liveKeys()).iterator());
      ma.checkAll(a);
      mb.checkAll(a);
    }
  }

  private static List<byte[]> concat(List<byte[]> x, List<byte[]> y) {
    List<byte[]> all = new ArrayList<>(x);
    all.addAll(y);
    return all;
  }

  /** Runs THREADS workers on one filter; returns the number of positive-checks made. */
  private static long hammer(CountingBloomFilter f, int seed) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<Model>> futures = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int id = seed * 100 + t;
        futures.add(pool.submit(() -> run(f, id, OPS_PER_THREAD)));
      }
      long checked = 0;
      for (Future<Model> future : futures) {
        Model m = get(future::get);
        m.checkAll(f);
        checked += m.checked;
      }
      return checked;
    } finally {
      pool.shutdownNow();
    }
  }

  private interface Call<T> {
    T call() throws InterruptedException, ExecutionException;
  }

  private static <T> T get(Call<T> c) throws InterruptedException {
    try {
      return c.call();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AssertionError a) {
        throw a;
      }
      throw new AssertionError(e.getCause());
    }
  }

  /** One worker: random operations on its own key range, against an exact count per key. */
  private static Model run(CountingBloomFilter f, int thread, int ops) {
    Model m = new Model(thread);
    SplittableRandom rnd = new SplittableRandom(thread * 7919L);
    KeyBatch batch = new KeyBatch();
    int[] batchIds = new int[64];
    boolean[] results = new boolean[64];
    ByteBuffer direct = ByteBuffer.allocateDirect(32);
    byte[] framed = new byte[24];
    for (int op = 0; op < ops; op++) {
      int id = rnd.nextInt(10) == 0 ? rnd.nextInt(HOT_KEYS) : rnd.nextInt(KEYS_PER_THREAD);
      byte[] key = m.key(id);
      int kind = rnd.nextInt(100);
      if (kind < 40) { // add, on a random key form
        switch (rnd.nextInt(3)) {
          case 0 -> f.add(key);
          case 1 -> {
            System.arraycopy(key, 0, framed, 5, key.length);
            f.add(framed, 5, key.length);
          }
          default -> {
            direct.clear().position(3);
            direct.put(key).flip().position(3);
            f.add(direct);
          }
        }
        m.counts[id]++;
      } else if (kind < 65) { // remove a key this worker added
        if (m.counts[id] > 0) {
          assertTrue(f.remove(key), "remove of a live key must succeed: " + m.describe(id));
          m.counts[id]--;
        }
      } else if (kind < 95) { // check
        if (m.counts[id] > 0) {
          boolean hit =
              rnd.nextBoolean() ? f.mightContain(key) : f.mightContain(ByteBuffer.wrap(key));
          if (!hit) {
            fail("false negative: " + m.describe(id));
          }
          m.checked++;
        }
      } else { // a batch of adds, removes or checks
        int n = 1 + rnd.nextInt(64);
        batch.clear();
        int mode = rnd.nextInt(3);
        for (int i = 0; i < n; i++) {
          int bid = rnd.nextInt(KEYS_PER_THREAD);
          if (mode == 1) { // removes need distinct live keys
            if (m.counts[bid] == 0 || contains(batchIds, batch.size(), bid)) {
              continue;
            }
          }
          batchIds[batch.size()] = bid;
          batch.add(m.key(bid));
        }
        if (mode == 0) {
          f.addAll(batch);
          for (int i = 0; i < batch.size(); i++) {
            m.counts[batchIds[i]]++;
          }
        } else if (mode == 1) {
          assertEquals(batch.size(), f.removeAll(batch, results), "batch remove of live keys");
          for (int i = 0; i < batch.size(); i++) {
            m.counts[batchIds[i]]--;
          }
        } else {
          f.mightContainAll(batch, results);
          for (int i = 0; i < batch.size(); i++) {
            if (m.counts[batchIds[i]] > 0 && !results[i]) {
              fail("false negative in a batch: " + m.describe(batchIds[i]));
            }
            m.checked++;
          }
        }
      }
    }
    m.checkAll(f);
    return m;
  }

  private static boolean contains(int[] ids, int n, int id) {
    for (int i = 0; i < n; i++) {
      if (ids[i] == id) {
        return true;
      }
    }
    return false;
  }

  /** Exact multiset of one worker's keys. */
  private static final class Model {
    final int thread;
    final int[] counts = new int[KEYS_PER_THREAD];
    long checked;

    Model(int thread) {
      this.thread = thread;
    }

    byte[] key(int id) {
      return Keys.of(((long) thread << 32) | id);
    }

    String describe(int id) {
      return "thread " + thread + " key " + id + " count " + counts[id];
    }

    int live() {
      int n = 0;
      for (int c : counts) {
        n += c > 0 ? 1 : 0;
      }
      return n;
    }

    /** Every occurrence of every live key, as a compaction source must list them. */
    List<byte[]> liveKeys() {
      List<byte[]> keys = new ArrayList<>();
      for (int id = 0; id < counts.length; id++) {
        for (int c = 0; c < counts[id]; c++) {
          keys.add(key(id));
        }
      }
      return keys;
    }

    void checkAll(CountingBloomFilter f) {
      KeyBatch all = new KeyBatch(KEYS_PER_THREAD, 8 * KEYS_PER_THREAD);
      for (int id = 0; id < counts.length; id++) {
        all.add(key(id));
      }
      boolean[] answers = f.mightContainAll(all);
      for (int id = 0; id < counts.length; id++) {
        if (counts[id] > 0 && !answers[id]) {
          fail("false negative in the final sweep: " + describe(id));
        }
      }
      checked += counts.length;
    }
  }
}
