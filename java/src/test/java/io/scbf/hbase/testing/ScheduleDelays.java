package io.scbf.hbase.testing;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.wal.WALEdit;

/**
 * A region observer of a test cluster that delays operations at named points, as the current {@link
 * Schedule} says: index puts and deletes (on index tables, before the rows are locked, so a delayed
 * delete can land after a later put of the same row), data writes and data region closes. The
 * region servers of a mini cluster share the test's JVM, and HBase creates the observer itself, so
 * the schedule is handed over in a static field that only tests set.
 */
public final class ScheduleDelays implements RegionCoprocessor, RegionObserver {
  /** Where a delay can be injected. */
  public enum Point {
    INDEX_PUT,
    INDEX_DELETE,
    DATA_WRITE,
    DATA_CLOSE
  }

  /** Which operations wait, and how long: drawn from a seeded random, so a schedule reruns. */
  public static final class Schedule {
    private final Random random;
    private final Map<Point, double[]> delays = new EnumMap<>(Point.class);

    public Schedule(long seed) {
      this.random = new Random(seed);
    }

    /** Operations at {@code point} wait, with probability {@code p}, up to {@code maxMs}. */
    public Schedule delay(Point point, double p, long maxMs) {
      delays.put(point, new double[] {p, maxMs});
      return this;
    }

    synchronized long millis(Point point) {
      double[] d = delays.get(point);
      if (d == null || random.nextDouble() >= d[0]) return 0;
      return (long) (random.nextDouble() * d[1]);
    }
  }

  private static volatile Schedule schedule;
  private static final AtomicInteger waiting = new AtomicInteger();
  private static final Map<Point, AtomicLong> delayed = new EnumMap<>(Point.class);

  static {
    for (Point p : Point.values()) delayed.put(p, new AtomicLong());
  }

  /** Sets the schedule the observers follow from now on (null: none). */
  public static void follow(Schedule next) {
    schedule = next;
  }

  /** Operations delayed at {@code point} so far. */
  public static long delayed(Point point) {
    return delayed.get(point).get();
  }

  /** Waits (up to {@code ms}) until no operation is held at a point; false if one still is. */
  public static boolean awaitNoneWaiting(long ms) throws InterruptedException {
    long until = System.currentTimeMillis() + ms;
    while (waiting.get() > 0) {
      if (System.currentTimeMillis() > until) return false;
      Thread.sleep(5);
    }
    return true;
  }

  private static void pause(Point point) throws IOException {
    Schedule s = schedule;
    long ms = s == null ? 0 : s.millis(point);
    if (ms <= 0) return;
    waiting.incrementAndGet();
    delayed.get(point).incrementAndGet();
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("delay at " + point + " interrupted");
    } finally {
      waiting.decrementAndGet();
    }
  }

  private boolean indexTable;

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public void start(org.apache.hadoop.hbase.CoprocessorEnvironment env) {
    if (env instanceof RegionCoprocessorEnvironment e) {
      indexTable = e.getRegionInfo().getTable().getNameAsString().contains("__idx_");
    }
  }

  @Override
  public void prePut(
      ObserverContext<RegionCoprocessorEnvironment> c, Put put, WALEdit edit, Durability d)
      throws IOException {
    pause(indexTable ? Point.INDEX_PUT : Point.DATA_WRITE);
  }

  @Override
  public void preDelete(
      ObserverContext<RegionCoprocessorEnvironment> c, Delete delete, WALEdit edit, Durability d)
      throws IOException {
    pause(indexTable ? Point.INDEX_DELETE : Point.DATA_WRITE);
  }

  @Override
  public void preClose(ObserverContext<RegionCoprocessorEnvironment> c, boolean abortRequested)
      throws IOException {
    if (!indexTable && !abortRequested) pause(Point.DATA_CLOSE);
  }
}
