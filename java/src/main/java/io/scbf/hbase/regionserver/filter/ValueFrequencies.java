package io.scbf.hbase.regionserver.filter;

import io.scbf.hbase.shared.RowEstimates;
import io.scbf.hbase.shared.proto.IndexProtos.ValueCounts;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * How often each value occurs among one index region's entries, for the query planner: a count-min
 * sketch of the filter keys (it follows adds and removes; its estimates over-count by at most about
 * 0.13% of the region's entries, with probability 98%) and the values whose estimate reached the
 * heavy threshold, {@code max(32, entries / 128)}. Only the heavy values are published ({@link
 * #counts}), by hash: a value a query asks for is either among them, with its count, or below the
 * threshold in that region.
 *
 * <p>A value is noted heavy when one of its adds finds its estimate at the threshold, and dropped
 * when {@link #counts} finds it below. So a value that becomes heavy only because other values were
 * removed (the threshold fell) is noted at its next add. An estimate steers the plan only; answers
 * never depend on it. About 32 KiB per region.
 */
@InterfaceAudience.Private
public final class ValueFrequencies {
  static final int WIDTH = 2048;
  static final int DEPTH = 4;
  static final long MIN_THRESHOLD = 32;
  static final int THRESHOLD_SHARE = 128;

  /** Heavy values published per region, the largest first. */
  static final int MAX_HEAVY = 64;

  private final AtomicIntegerArray counters = new AtomicIntegerArray(WIDTH * DEPTH);
  private final AtomicLong entries = new AtomicLong();
  private final Set<Long> heavy = ConcurrentHashMap.newKeySet();

  void add(byte[] key, int off, int len) {
    long h = RowEstimates.hash(key, off, len);
    long n = entries.incrementAndGet();
    int estimate = Integer.MAX_VALUE;
    for (int row = 0; row < DEPTH; row++) {
      estimate = Math.min(estimate, counters.incrementAndGet(slot(h, row)));
    }
    // Bounded between two publications too: few values can pass a share of the entries.
    if (estimate >= threshold(n) && heavy.size() < 4 * MAX_HEAVY) heavy.add(h);
  }

  void remove(byte[] key, int off, int len) {
    long h = RowEstimates.hash(key, off, len);
    entries.decrementAndGet();
    for (int row = 0; row < DEPTH; row++) counters.decrementAndGet(slot(h, row));
  }

  long entries() {
    return Math.max(0, entries.get());
  }

  /** The estimated count of the value hashed to {@code h} (at least the true count). */
  long estimate(long h) {
    long min = Long.MAX_VALUE;
    for (int row = 0; row < DEPTH; row++) min = Math.min(min, counters.get(slot(h, row)));
    return Math.max(0, min);
  }

  /**
   * The entries and heavy values now; values no longer heavy are forgotten. Called by one thread at
   * a time (the publisher).
   */
  ValueCounts counts() {
    long n = entries();
    long threshold = threshold(n);
    List<long[]> found = new ArrayList<>();
    for (Long h : heavy) {
      long c = estimate(h);
      if (c >= threshold) {
        found.add(new long[] {h, c});
      } else {
        heavy.remove(h);
      }
    }
    found.sort(Comparator.comparingLong((long[] e) -> e[1]).reversed());
    ValueCounts.Builder out = ValueCounts.newBuilder().setEntries(n).setHeavyThreshold(threshold);
    for (int i = 0; i < found.size(); i++) {
      if (i < MAX_HEAVY) {
        out.addHeavyHash(found.get(i)[0]).addHeavyCount(found.get(i)[1]);
      } else {
        heavy.remove(found.get(i)[0]);
      }
    }
    return out.build();
  }

  /**
   * True if {@code now} differs from {@code sent} enough to publish: other heavy values, or a count
   * or the entries moved by more than a sixteenth (small changes would cost a message per write and
   * barely move a plan).
   */
  public static boolean changedEnough(ValueCounts sent, ValueCounts now) {
    if (sent == null) return true;
    if (moved(sent.getEntries(), now.getEntries())) return true;
    if (sent.getHeavyHashCount() != now.getHeavyHashCount()) return true;
    for (int i = 0; i < now.getHeavyHashCount(); i++) {
      long before = RowEstimates.heavyCount(sent, now.getHeavyHash(i));
      if (before < 0 || moved(before, now.getHeavyCount(i))) return true;
    }
    return false;
  }

  private static boolean moved(long before, long now) {
    return Math.abs(now - before) > Math.max(MIN_THRESHOLD, before / 16);
  }

  static long threshold(long entries) {
    return Math.max(MIN_THRESHOLD, entries / THRESHOLD_SHARE);
  }

  private static int slot(long h, int row) {
    int h1 = (int) h;
    int h2 = (int) (h >>> 32) | 1;
    return row * WIDTH + ((h1 + row * h2) & (WIDTH - 1));
  }
}
