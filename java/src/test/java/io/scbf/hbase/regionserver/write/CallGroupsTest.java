package io.scbf.hbase.regionserver.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@link CallGroups}: parts that wait go together, each caller gets its own part's result. */
class CallGroupsTest {
  @Test
  void aCallAloneGoesAtOnceInItsOwnThread() {
    CallGroups<String, Integer, String> groups = new CallGroups<>(100);
    Thread caller = Thread.currentThread();
    assertEquals(
        "a:[7]",
        groups.call(
            "a",
            7,
            1,
            (d, parts) -> {
              assertSame(caller, Thread.currentThread());
              return List.of(d + ":" + parts);
            }));
  }

  /**
   * While one call is held in flight, other callers wait; the next call carries them all (within
   * the weight), and each gets the result of its own part.
   */
  @Test
  void partsThatWaitGoTogetherAndEachGetsItsOwnResult() throws Exception {
    CallGroups<String, Integer, Integer> groups = new CallGroups<>(5);
    CountDownLatch firstInFlight = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<List<Integer>> calls = new ArrayList<>();
    CallGroups.Sender<String, Integer, Integer> sender =
        (d, parts) -> {
          synchronized (calls) {
            calls.add(List.copyOf(parts));
          }
          if (parts.contains(0)) {
            firstInFlight.countDown();
            await(release);
          }
          return parts.stream().map(p -> p * 10).toList();
        };
    ExecutorService pool = Executors.newFixedThreadPool(10);
    try {
      Future<Integer> first = pool.submit(() -> groups.call("s", 0, 1, sender));
      assertTrue(firstInFlight.await(10, TimeUnit.SECONDS));
      List<Future<Integer>> others = new ArrayList<>();
      for (int i = 1; i <= 7; i++) {
        int part = i;
        others.add(pool.submit(() -> groups.call("s", part, 1, sender)));
      }
      // A different destination is not held up by "s".
      assertEquals(90, (int) pool.submit(() -> groups.call("t", 9, 1, sender)).get(10, SECONDS));
      waitUntil(() -> queued(groups, "s") == 7);
      release.countDown();
      assertEquals(0, (int) first.get(10, SECONDS));
      for (int i = 1; i <= 7; i++) assertEquals(i * 10, (int) others.get(i - 1).get(10, SECONDS));
    } finally {
      pool.shutdownNow();
    }
    List<Integer> sizes = new ArrayList<>();
    int parts = 0;
    for (List<Integer> c : calls) {
      if (c.contains(9)) continue;
      sizes.add(c.size());
      parts += c.size();
    }
    // 0 alone, then the seven waiting parts in calls of at most 5 (the weight).
    assertEquals(8, parts, calls.toString());
    assertEquals(List.of(1, 5, 2), sizes, calls.toString());
  }

  @Test
  void whatTheSenderThrowsReachesEveryCallerOfItsGroup() throws Exception {
    CallGroups<String, Integer, Integer> groups = new CallGroups<>(100);
    CountDownLatch firstInFlight = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger sends = new AtomicInteger();
    CallGroups.Sender<String, Integer, Integer> sender =
        (d, parts) -> {
          if (sends.incrementAndGet() == 1) {
            firstInFlight.countDown();
            await(release);
            return List.of(0);
          }
          throw new IllegalStateException("refused " + parts);
        };
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      Future<Integer> first = pool.submit(() -> groups.call("s", 0, 1, sender));
      assertTrue(firstInFlight.await(10, TimeUnit.SECONDS));
      Future<Integer> a = pool.submit(() -> groups.call("s", 1, 1, sender));
      Future<Integer> b = pool.submit(() -> groups.call("s", 2, 1, sender));
      waitUntil(() -> queued(groups, "s") == 2);
      release.countDown();
      assertEquals(0, (int) first.get(10, SECONDS));
      for (Future<Integer> f : List.of(a, b)) {
        Exception e = assertThrows(Exception.class, () -> f.get(10, SECONDS));
        assertTrue(e.getCause() instanceof IllegalStateException, e.toString());
      }
      // The queue is free again: the next call goes at once.
      AtomicReference<Thread> sentBy = new AtomicReference<>();
      assertEquals(
          5,
          (int)
              groups.call(
                  "s",
                  5,
                  1,
                  (d, p) -> {
                    sentBy.set(Thread.currentThread());
                    return p;
                  }));
      assertSame(Thread.currentThread(), sentBy.get());
    } finally {
      pool.shutdownNow();
    }
  }

  private static final TimeUnit SECONDS = TimeUnit.SECONDS;

  private static int queued(CallGroups<String, Integer, ?> groups, String destination) {
    return groups.waiting(destination);
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void waitUntil(java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out");
      Thread.sleep(5);
    }
  }
}
