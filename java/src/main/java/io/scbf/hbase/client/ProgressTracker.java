package io.scbf.hbase.client;

import io.scbf.hbase.BuildProgress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts a long job's rows and finished regions from any thread, and passes a {@link BuildProgress}
 * to its listener about once a second and once at the end. The time left is the elapsed time scaled
 * by the share of the store size (or of the regions, if sizes are unknown) not finished yet.
 */
final class ProgressTracker {
  private static final Logger LOG = LoggerFactory.getLogger(ProgressTracker.class);
  static final long REPORT_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final String job;
  private final int regions;
  private final long totalBytes;
  private final BuildProgress.Listener listener;
  private final long start = System.nanoTime();
  private final LongAdder rows = new LongAdder();
  private final AtomicInteger regionsDone = new AtomicInteger();
  private final AtomicLong bytesDone = new AtomicLong();
  private final long reportEveryNanos;
  private final AtomicLong nextReport;

  ProgressTracker(String job, int regions, long totalBytes, BuildProgress.Listener listener) {
    this(job, regions, totalBytes, listener, REPORT_EVERY_NANOS);
  }

  ProgressTracker(
      String job,
      int regions,
      long totalBytes,
      BuildProgress.Listener listener,
      long reportEveryNanos) {
    this.job = job;
    this.regions = regions;
    this.totalBytes = totalBytes;
    this.listener = listener;
    this.reportEveryNanos = reportEveryNanos;
    this.nextReport = new AtomicLong(start + reportEveryNanos);
  }

  void rows(long n) {
    rows.add(n);
    maybeReport();
  }

  void regionDone(long bytes) {
    regionsDone.incrementAndGet();
    bytesDone.addAndGet(bytes);
    maybeReport();
  }

  /** The last report; returns it. */
  BuildProgress finish() {
    return report(true);
  }

  private void maybeReport() {
    long now = System.nanoTime();
    long next = nextReport.get();
    if (now >= next && nextReport.compareAndSet(next, now + reportEveryNanos)) report(false);
  }

  private synchronized BuildProgress report(boolean finished) {
    BuildProgress p = snapshot(finished);
    try {
      listener.onProgress(p);
    } catch (RuntimeException e) { // the job goes on: a listener's failure is not the job's
      LOG.warn("scbf: progress listener of {} failed: {}", job, e.toString());
    }
    return p;
  }

  BuildProgress snapshot(boolean finished) {
    long elapsedNanos = System.nanoTime() - start;
    long done = rows.sum();
    int finishedRegions = regionsDone.get();
    double share =
        totalBytes > 0
            ? (double) bytesDone.get() / totalBytes
            : regions > 0 ? (double) finishedRegions / regions : 0;
    long eta = share <= 0 ? -1 : (long) (elapsedNanos / 1e6 * (1 - share) / share);
    return new BuildProgress(
        job,
        done,
        finishedRegions,
        regions,
        TimeUnit.NANOSECONDS.toMillis(elapsedNanos),
        elapsedNanos == 0 ? 0 : done / (elapsedNanos / 1e9),
        finished ? 0 : eta,
        finished);
  }
}
