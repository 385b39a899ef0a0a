package io.scbf.hbase.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.BuildProgress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ProgressTrackerTest {
  @Test
  void reportsAreRateLimitedAndTheLastOneIsFinished() throws Exception {
    List<BuildProgress> seen = new ArrayList<>();
    ProgressTracker t = new ProgressTracker("job", 4, 0, seen::add, TimeUnit.HOURS.toNanos(1));
    for (int i = 0; i < 100; i++) t.rows(10);
    assertEquals(List.of(), seen, "nothing before the interval");
    BuildProgress last = t.finish();
    assertEquals(1, seen.size());
    assertTrue(last.finished());
    assertEquals(1000, last.rows());
    assertTrue(last.toString().contains("done in"), last.toString());
  }

  @Test
  void theTimeLeftFollowsTheShareOfBytesDone() throws Exception {
    ProgressTracker t = new ProgressTracker("job", 4, 400, p -> {}, 0);
    assertEquals(-1, t.snapshot(false).etaMs(), "unknown before a region finishes");
    Thread.sleep(50);
    t.regionDone(100); // a quarter of the bytes in ~50 ms: about 150 ms left
    BuildProgress p = t.snapshot(false);
    assertEquals(1, p.regionsDone());
    assertTrue(p.etaMs() >= 3 * 50 - 5 && p.etaMs() <= 3 * p.elapsedMs() + 5, p.toString());
    ProgressTracker bySizeUnknown = new ProgressTracker("job", 2, 0, q -> {}, 0);
    bySizeUnknown.regionDone(0);
    assertTrue(bySizeUnknown.snapshot(false).etaMs() >= 0, "by regions when sizes are unknown");
  }

  @Test
  void concurrentCountsAreExactAndAFailingListenerDoesNotStopTheJob() throws Exception {
    List<BuildProgress> seen = new ArrayList<>();
    ProgressTracker t =
        new ProgressTracker(
            "job",
            8,
            0,
            p -> {
              seen.add(p);
              throw new IllegalStateException("listener bug");
            },
            0);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    for (int r = 0; r < 8; r++) {
      pool.execute(
          () -> {
            for (int i = 0; i < 1000; i++) t.rows(1);
            t.regionDone(0);
          });
    }
    pool.shutdown();
    assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
    BuildProgress last = t.finish();
    assertEquals(8000, last.rows());
    assertEquals(8, last.regionsDone());
    assertFalse(seen.isEmpty());
    for (int i = 1; i < seen.size(); i++) {
      assertTrue(seen.get(i).rows() >= seen.get(i - 1).rows(), "reports never go back");
    }
  }
}
