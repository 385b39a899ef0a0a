package io.scbf;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Every misuse we can think of, in one JVM that must survive it: run by {@link MisuseStormTest} in
 * a forked JVM with {@code -Xcheck:jni}. Exits 0 and prints "MISUSE STORM OK" only if every misuse
 * threw the expected exception and nothing else went wrong.
 */
public final class MisuseStorm {
  private static final List<String> unexpected = new ArrayList<>();
  private static long misuses;
  private static long exceptions;
  private static long closesDuringUse;
  private static long racedBatches;

  private MisuseStorm() {}

  public static void main(String[] args) throws Exception {
    useAfterClose();
    garbageArguments();
    corruptSnapshots();
    batchMutatedDuringCall();
    closeDuringUse();
    closeDuringCompaction();
    forgottenObjects();
    System.out.printf(
        "misuses=%d exceptions=%d closesDuringUse=%d racedBatches=%d unexpected=%d%n",
        misuses, exceptions, closesDuringUse, racedBatches, unexpected.size());
    unexpected.stream().limit(50).forEach(u -> System.out.println("UNEXPECTED " + u));
    if (unexpected.isEmpty() && misuses == exceptions) {
      System.out.println("MISUSE STORM OK");
    }
    System.exit(unexpected.isEmpty() ? 0 : 1);
  }

  private static void expect(Class<? extends Throwable> type, String what, Runnable misuse) {
    misuses++;
    try {
      misuse.run();
      unexpected.add(what + ": no exception");
    } catch (Throwable t) {
      if (type.isInstance(t)) {
        exceptions++;
      } else {
        unexpected.add(what + ": expected " + type.getSimpleName() + " but got " + t);
      }
    }
  }

  /** Every operation of a filter, as misuses with the given key arguments. */
  private static void everyFilterOp(
      Class<? extends Throwable> type,
      String what,
      CountingBloomFilter f,
      byte[] key,
      ByteBuffer buffer,
      KeyBatch batch) {
    expect(type, what + " add", () -> f.add(key));
    expect(type, what + " add slice", () -> f.add(key, 0, 0));
    expect(type, what + " add buffer", () -> f.add(buffer));
    expect(type, what + " mightContain", () -> f.mightContain(key));
    expect(type, what + " mightContain buffer", () -> f.mightContain(buffer));
    expect(type, what + " remove", () -> f.remove(key));
    expect(type, what + " remove buffer", () -> f.remove(buffer));
    expect(type, what + " addAll", () -> f.addAll(batch));
    expect(type, what + " mightContainAll", () -> f.mightContainAll(batch));
    expect(type, what + " removeAll", () -> f.removeAll(batch));
  }

  private static void useAfterClose() {
    byte[] key = {1, 2, 3};
    ByteBuffer direct = ByteBuffer.allocateDirect(3);
    KeyBatch batch = KeyBatch.of(key, key);
    SplitCountingBloomFilter f = SplitCountingBloomFilter.create(1_000, 0.01);
    ScalableSplitCountingBloomFilter s = ScalableSplitCountingBloomFilter.create(1_000, 0.01);
    HotscoreCache c = HotscoreCache.builder().capacityBytes(1 << 20).build();
    SplitCountingBloomFilter live = SplitCountingBloomFilter.create(1_000, 0.01);
    for (int i = 0; i < 3; i++) { // double and triple close are no-ops
      f.close();
      s.close();
      c.close();
    }
    for (CountingBloomFilter closed : List.of(f, s)) {
      String what = closed.getClass().getSimpleName() + " after close:";
      everyFilterOp(IllegalStateException.class, what, closed, key, direct, batch);
      expect(IllegalStateException.class, what + " clear", closed::clear);
      expect(IllegalStateException.class, what + " toByteArray", closed::toByteArray);
    }
    expect(IllegalStateException.class, "scbf stats after close", f::stats);
    expect(IllegalStateException.class, "merge from closed", () -> live.merge(f));
    expect(IllegalStateException.class, "merge into closed", () -> f.merge(live));
    expect(IllegalStateException.class, "sscbf stats after close", s::stats);
    expect(IllegalStateException.class, "sscbf needsCompaction after close", s::needsCompaction);
    expect(
        IllegalStateException.class,
        "sscbf compact after close",
        () -> s.compact(1, List.of(key).iterator()));
    expect(IllegalStateException.class, "cache get after close", () -> c.get(key));
    expect(IllegalStateException.class, "cache put after close", () -> c.put(key, key));
    expect(IllegalStateException.class, "cache invalidate after close", () -> c.invalidate(key));
    expect(IllegalStateException.class, "cache clear after close", c::clear);
    expect(IllegalStateException.class, "cache stats after close", c::stats);
    live.close();
  }

  private static void garbageArguments() {
    try (SplitCountingBloomFilter f = SplitCountingBloomFilter.create(1_000, 0.01);
        ScalableSplitCountingBloomFilter s = ScalableSplitCountingBloomFilter.create(1_000, 0.01);
        HotscoreCache c = HotscoreCache.builder().capacityBytes(1 << 20).build()) {
      for (CountingBloomFilter filter : List.of(f, s)) {
        String what = filter.getClass().getSimpleName() + " null";
        everyFilterOp(NullPointerException.class, what, filter, null, null, null);
        byte[] key = new byte[10];
        for (int[] bad :
            new int[][] {
              {-1, 1},
              {0, 11},
              {10, 1},
              {5, -1},
              {Integer.MAX_VALUE, 1},
              {1, Integer.MAX_VALUE},
              {Integer.MIN_VALUE, 0}
            }) {
          String range = filter.getClass().getSimpleName() + " range " + bad[0] + "+" + bad[1];
          expect(
              IndexOutOfBoundsException.class,
              range + " add",
              () -> filter.add(key, bad[0], bad[1]));
          expect(
              IndexOutOfBoundsException.class,
              range + " mightContain",
              () -> filter.mightContain(key, bad[0], bad[1]));
          expect(
              IndexOutOfBoundsException.class,
              range + " remove",
              () -> filter.remove(key, bad[0], bad[1]));
        }
        expect(
            IllegalArgumentException.class,
            "results too short",
            () -> filter.mightContainAll(KeyBatch.of(key, key, key), new boolean[2]));
        expect(NullPointerException.class, "null in byte[][]", () -> filter.addAll(key, null));
      }
      expect(IllegalArgumentException.class, "merge scbf into itself", () -> f.merge(f));
      expect(IllegalArgumentException.class, "merge sscbf into itself", () -> s.merge(s));
      try (SplitCountingBloomFilter other = SplitCountingBloomFilter.create(5_000, 0.01)) {
        expect(IllegalArgumentException.class, "merge different shapes", () -> f.merge(other));
      }
      expect(NullPointerException.class, "cache null key", () -> c.get(null));
      expect(NullPointerException.class, "cache null value", () -> c.put(new byte[1], null));
      expect(NullPointerException.class, "cache null invalidate", () -> c.invalidate(null));
      expect(
          IllegalArgumentException.class,
          "compact negative",
          () -> s.compact(-1, List.<byte[]>of().iterator()));
      expect(NullPointerException.class, "compact null", () -> s.compact(1, null));
    }
    long[] absurdSizes = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 40};
    for (long n : absurdSizes) {
      expect(
          IllegalArgumentException.class,
          "create " + n,
          () -> SplitCountingBloomFilter.create(n, 0.01).close());
      expect(
          IllegalArgumentException.class,
          "positions " + n,
          () -> SplitCountingBloomFilter.createWithPositions(n, 0.01).close());
      expect(
          IllegalArgumentException.class,
          "scalable " + n,
          () -> ScalableSplitCountingBloomFilter.create(n, 0.01).close());
      if (n <= 0) {
        expect(
            IllegalArgumentException.class,
            "cache " + n,
            () -> HotscoreCache.builder().capacityBytes(n));
      }
    }
    for (double p :
        new double[] {0, 1, -0.5, 2, Double.NaN, Double.POSITIVE_INFINITY, Double.MIN_VALUE * 0}) {
      expect(
          IllegalArgumentException.class,
          "fpp " + p,
          () -> SplitCountingBloomFilter.create(10, p).close());
      expect(
          IllegalArgumentException.class,
          "scalable fpp " + p,
          () -> ScalableSplitCountingBloomFilter.create(10, p).close());
    }
    expect(
        IllegalArgumentException.class,
        "counter bits",
        () -> SplitCountingBloomFilter.create(10, 0.1, 3).close());
    expect(
        IllegalStateException.class,
        "cache without capacity",
        () -> HotscoreCache.builder().build());
    expect(
        IllegalArgumentException.class,
        "cache below overhead",
        () -> HotscoreCache.builder().capacityBytes(1).build().close());
  }

  private static void corruptSnapshots() {
    SplittableRandom rnd = new SplittableRandom(42);
    byte[] scbf;
    byte[] sscbf;
    try (SplitCountingBloomFilter f = SplitCountingBloomFilter.create(500, 0.01);
        ScalableSplitCountingBloomFilter s = ScalableSplitCountingBloomFilter.create(100, 0.01)) {
      for (int i = 0; i < 1_000; i++) {
        f.add(Keys.of(i));
        s.add(Keys.of(i));
      }
      scbf = f.toByteArray();
      sscbf = s.toByteArray();
    }
    corrupt("scbf", scbf, SplitCountingBloomFilter::fromByteArray, rnd);
    corrupt("sscbf", sscbf, ScalableSplitCountingBloomFilter::fromByteArray, rnd);
    expect(
        CorruptSnapshotException.class,
        "sscbf bytes as scbf",
        () -> SplitCountingBloomFilter.fromByteArray(sscbf));
    expect(
        CorruptSnapshotException.class,
        "scbf bytes as sscbf",
        () -> ScalableSplitCountingBloomFilter.fromByteArray(scbf));
    expect(
        NullPointerException.class,
        "null snapshot",
        () -> SplitCountingBloomFilter.fromByteArray(null));
  }

  private static void corrupt(
      String what,
      byte[] good,
      java.util.function.Function<byte[], ? extends AutoCloseable> read,
      SplittableRandom rnd) {
    for (int len = 0; len < good.length; len += 1 + len / 64) {
      byte[] cut = java.util.Arrays.copyOf(good, len);
      expect(CorruptSnapshotException.class, what + " truncated to " + len, () -> read.apply(cut));
    }
    for (int i = 0; i < 2_000; i++) {
      byte[] flipped = good.clone();
      int at = rnd.nextInt(flipped.length);
      flipped[at] ^= (byte) (1 << rnd.nextInt(8));
      expect(
          CorruptSnapshotException.class, what + " bit flip at " + at, () -> read.apply(flipped));
    }
    for (int i = 0; i < 2_000; i++) {
      byte[] noise = new byte[rnd.nextInt(4 * good.length)];
      rnd.nextBytes(noise);
      if (i % 2 == 0 && noise.length >= 4) {
        System.arraycopy(good, 0, noise, 0, Math.min(good.length, Math.min(noise.length, 96)));
      }
      expect(
          CorruptSnapshotException.class, what + " noise " + noise.length, () -> read.apply(noise));
    }
  }

  /**
   * Another thread rewrites a batch during calls: answers may be nonsense, memory must stay safe.
   */
  private static void batchMutatedDuringCall() throws InterruptedException {
    try (SplitCountingBloomFilter f = SplitCountingBloomFilter.create(10_000, 0.01)) {
      KeyBatch batch = new KeyBatch(8, 8);
      for (int i = 0; i < 3_000; i++) {
        batch.add(Keys.of(i));
      }
      AtomicBoolean stop = new AtomicBoolean();
      Thread mutator =
          new Thread(
              () -> {
                SplittableRandom rnd = new SplittableRandom(7);
                while (!stop.get()) {
                  batch.clear();
                  int n = rnd.nextInt(5_000);
                  for (int i = 0; i < n; i++) {
                    batch.add(new byte[rnd.nextInt(40)]);
                  }
                }
              });
      mutator.start();
      boolean[] results = new boolean[10_000];
      long deadline = System.nanoTime() + 2_000_000_000L;
      while (System.nanoTime() < deadline) {
        try {
          f.mightContainAll(batch, results);
          f.addAll(batch);
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
          racedBatches++; // detected by the glue's offset check, or by KeyBatch itself
        } catch (RuntimeException e) {
          unexpected.add("racing batch: " + e);
        }
      }
      stop.set(true);
      mutator.join();
    }
  }

  /** Worker threads hammer an object while it is closed under them: they may only see "closed". */
  private static void closeDuringUse() throws InterruptedException {
    SplittableRandom rnd = new SplittableRandom(3);
    for (int round = 0; round < 60; round++) {
      SplitCountingBloomFilter f = SplitCountingBloomFilter.create(10_000, 0.01);
      race(
          f,
          rnd,
          filter -> {
            byte[] k = Keys.of(Thread.currentThread().getId());
            filter.add(k);
            filter.mightContain(ByteBuffer.wrap(k));
            filter.mightContainAll(KeyBatch.of(k, k, k));
            filter.remove(k);
            filter.stats();
            filter.toByteArray();
          });
      ScalableSplitCountingBloomFilter s = ScalableSplitCountingBloomFilter.create(100, 0.01);
      race(
          s,
          rnd,
          filter -> {
            KeyBatch b = new KeyBatch();
            for (int i = 0; i < 200; i++) {
              b.add(Keys.of(ThreadLocalRandom.current().nextLong()));
            }
            filter.addAll(b);
            filter.stats();
            filter.toByteArray();
            filter.compact(200, List.of(b.key(0), b.key(1)).iterator());
          });
      HotscoreCache c = HotscoreCache.builder().capacityBytes(64 << 10).build();
      race(
          c,
          rnd,
          cache -> {
            byte[] k = Keys.of(Thread.currentThread().getId() % 5);
            if (cache.get(k) == null) {
              cache.put(k, new byte[100]);
            }
            cache.invalidate(k);
            cache.stats();
          });
    }
  }

  private static <T extends AutoCloseable> void race(
      T target, SplittableRandom rnd, Consumer<T> work) throws InterruptedException {
    int workers = 3;
    CountDownLatch started = new CountDownLatch(workers);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < workers; t++) {
      Thread thread =
          new Thread(
              () -> {
                started.countDown();
                while (true) {
                  try {
                    work.accept(target);
                  } catch (IllegalStateException e) {
                    if (!e.getMessage().endsWith(" is closed")) {
                      unexpected.add("close during use: " + e);
                    }
                    return;
                  } catch (Throwable e) {
                    unexpected.add("close during use: " + e);
                    return;
                  }
                }
              });
      threads.add(thread);
      thread.start();
    }
    started.await();
    Thread.sleep(rnd.nextInt(3));
    Thread secondCloser = new Thread(() -> closeQuietly(target));
    secondCloser.start();
    closeQuietly(target);
    secondCloser.join();
    for (Thread thread : threads) {
      thread.join(30_000);
      if (thread.isAlive()) {
        unexpected.add("worker still running after close");
      }
    }
    closesDuringUse++;
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      unexpected.add("close threw " + e);
    }
  }

  /** close() from another thread while compact() is pulling keys: close waits for it. */
  private static void closeDuringCompaction() throws InterruptedException {
    ScalableSplitCountingBloomFilter s = ScalableSplitCountingBloomFilter.create(100, 0.01);
    CountDownLatch inIterator = new CountDownLatch(1);
    Iterator<byte[]> slow =
        new Iterator<>() {
          int n;

          @Override
          public boolean hasNext() {
            return n < 5_000;
          }

          @Override
          public byte[] next() {
            if (n == 2_000) {
              inIterator.countDown();
              sleep(200);
            }
            return Keys.of(n++);
          }
        };
    Thread compactor = new Thread(() -> s.compact(5_000, slow));
    compactor.start();
    inIterator.await();
    s.close();
    compactor.join();
    expect(IllegalStateException.class, "add after close-during-compact", () -> s.add(new byte[1]));
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Objects never closed: the Cleaner frees them (with a warning) without crashing. */
  private static void forgottenObjects() throws InterruptedException {
    List<Supplier<Object>> makers =
        List.of(
            () -> SplitCountingBloomFilter.create(10_000, 0.01),
            () -> ScalableSplitCountingBloomFilter.create(10_000, 0.01),
            () -> HotscoreCache.builder().capacityBytes(1 << 20).build());
    for (int i = 0; i < 300; i++) {
      makers.get(i % 3).get();
    }
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(50);
    }
  }
}
