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
    ProgressTracker t =
        new ProgressTracker("job", new long[4], seen::add, TimeUnit.HOURS.toNanos(1));
    for (int i = 0; i < 100; i++) t.rows(10);
    assertEquals(List.of(), seen, "nothing before the interval");
    BuildProgress last = t.finish();
    assertEquals(1, seen.size());
    assertTrue(last.finished());
    assertEquals(1000, last.rows());
    assertTrue(last.toString().contains("done in"), last.toString());
  }

  @Test
  void theTimeLeftFollowsTheWeightedShareDone() throws Exception {
    ProgressTracker t = new ProgressTracker("job", new long[] {100, 100, 200}, p -> {}, 0);
    assertEquals(-1, t.snapshot(false).etaMs(), "unknown before any part moved");
    Thread.sleep(50);
    t.partDone(0); // a quarter of the bytes
    BuildProgress p = t.snapshot(false);
    assertEquals(1, p.regionsDone());
    assertTrue(p.etaMs() >= 3 * 50 - 5 && p.etaMs() <= 3 * p.elapsedMs() + 5, p.toString());
    t.partAt(2, 0.5); // and half of the largest part: half of everything
    BuildProgress half = t.snapshot(false);
    assertTrue(half.etaMs() <= half.elapsedMs() + 5, half.toString());
    t.partAt(2, 0.25);
    assertTrue(t.snapshot(false).etaMs() <= half.elapsedMs() + 20, "a part never goes back");
    t.partDone(0); // twice: counted once
    assertEquals(1, t.snapshot(false).regionsDone());
    t.partAt(1, 1.0); // its scan reached its last row: done only when it says so
    assertEquals(1, t.snapshot(false).regionsDone());
    t.partDone(1);
    assertEquals(2, t.snapshot(false).regionsDone());
    ProgressTracker unsized = new ProgressTracker("job", new long[2], q -> {}, 0);
    unsized.partAt(0, 1.0);
    assertTrue(unsized.snapshot(false).etaMs() >= 0, "equal weights when sizes are unknown");
  }

  @Test
  void concurrentCountsAreExactAndAFailingListenerDoesNotStopTheJob() throws Exception {
    List<BuildProgress> seen = new ArrayList<>();
    ProgressTracker t =
        new ProgressTracker(
            "job",
            new long[8],
            p -> {
              seen.add(p);
              throw new IllegalStateException("listener bug");
            },
            0);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    for (int r = 0; r < 8; r++) {
      int part = r;
      pool.execute(
          () -> {
            for (int i = 0; i < 1000; i++) {
              t.rows(1);
              t.partAt(part, i / 1000.0);
            }
            t.partDone(part);
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
