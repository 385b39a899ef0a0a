package io.scbf.hbase.client;

import io.scbf.hbase.BuildProgress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts a long job's rows and finished parts (regions) from any thread, and passes a {@link
 * BuildProgress} to its listener about once a second and once at the end. The share done is the
 * parts' weighted fractions (weights: their store sizes, or equal if none is known; a part reports
 * where its scan is), and the time left is the elapsed time scaled by the share not done yet.
 */
final class ProgressTracker {
  private static final Logger LOG = LoggerFactory.getLogger(ProgressTracker.class);
  static final long REPORT_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** Fractions are kept in millionths, so that parts update them without a lock. */
  private static final double PPM = 1e6;

  private final String job;
  private final double[] weights;
  private final BuildProgress.Listener listener;
  private final long start = System.nanoTime();
  private final LongAdder rows = new LongAdder();
  private final LongAdder invalidRows = new LongAdder();
  private final AtomicLongArray partPpm;
  private final AtomicIntegerArray partDone;
  private final AtomicInteger partsDone = new AtomicInteger();
  private final long reportEveryNanos;
  private final AtomicLong nextReport;

  /**
   * @param partBytes each part's store size (all 0 or empty: equal weights)
   */
  ProgressTracker(String job, long[] partBytes, BuildProgress.Listener listener) {
    this(job, partBytes, listener, REPORT_EVERY_NANOS);
  }

  ProgressTracker(
      String job, long[] partBytes, BuildProgress.Listener listener, long reportEveryNanos) {
    this.job = job;
    this.listener = listener;
    this.reportEveryNanos = reportEveryNanos;
    this.nextReport = new AtomicLong(start + reportEveryNanos);
    boolean sized = false;
    for (long b : partBytes) sized |= b > 0;
    this.weights = new double[partBytes.length];
    for (int i = 0; i < partBytes.length; i++) weights[i] = sized ? partBytes[i] : 1;
    this.partPpm = new AtomicLongArray(partBytes.length);
    this.partDone = new AtomicIntegerArray(partBytes.length);
  }

  void rows(long n) {
    rows.add(n);
    maybeReport();
  }

  /** {@code n} rows read were not indexed: an indexed column holds a value not of its type. */
  void invalidRows(long n) {
    invalidRows.add(n);
  }

  /** Part {@code part} is about {@code fraction} (0..1) through its rows. */
  void partAt(int part, double fraction) {
    long ppm = (long) (Math.max(0, Math.min(1, fraction)) * PPM);
    partPpm.accumulateAndGet(part, ppm, Math::max); // a part never goes back
    maybeReport();
  }

  void partDone(int part) {
    partPpm.set(part, (long) PPM);
    if (partDone.compareAndSet(part, 0, 1)) partsDone.incrementAndGet();
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
    double total = 0;
    double doneWeight = 0;
    for (int i = 0; i < weights.length; i++) {
      total += weights[i];
      doneWeight += weights[i] * partPpm.get(i) / PPM;
    }
    double share = total == 0 ? 0 : doneWeight / total;
    long eta = share <= 0 ? -1 : (long) (elapsedNanos / 1e6 * (1 - share) / share);
    return new BuildProgress(
        job,
        done,
        invalidRows.sum(),
        partsDone.get(),
        weights.length,
        TimeUnit.NANOSECONDS.toMillis(elapsedNanos),
        elapsedNanos == 0 ? 0 : done / (elapsedNanos / 1e9),
        finished ? 0 : eta,
        finished);
  }
}
