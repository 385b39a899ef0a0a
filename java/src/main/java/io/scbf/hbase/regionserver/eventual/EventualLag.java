package io.scbf.hbase.regionserver.eventual;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The EVENTUAL applier's progress on one region server, for its metrics: the batches being applied
 * (by replication source) and what has been applied. The lag is the age of the oldest edit of the
 * batches in progress: a source hands its next batch over as soon as the last one is acknowledged,
 * so a backlog shows up as old edits in the batch being applied.
 */
@InterfaceAudience.Private
public final class EventualLag {
  private final Map<Object, Long> inProgress = new ConcurrentHashMap<>();
  private final LongAdder edits = new LongAdder();
  private final LongAdder rows = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private final LongAdder held = new LongAdder();
  private final LongAdder released = new LongAdder();
  private final AtomicLong lastAgeMs = new AtomicLong();

  /** {@code source} starts applying a batch whose oldest edit was written at {@code writeTime}. */
  public void started(Object source, long oldestWriteTime) {
    inProgress.put(source, oldestWriteTime);
  }

  /** The batch of {@code source} is durable in the indexes (or failed: it will be sent again). */
  public void finished(Object source, boolean applied, int batchEdits, int batchRows) {
    Long oldest = inProgress.remove(source);
    if (!applied) {
      failures.increment();
      return;
    }
    edits.add(batchEdits);
    rows.add(batchRows);
    if (oldest != null) lastAgeMs.set(Math.max(0, EnvironmentEdgeManager.currentTime() - oldest));
  }

  /** Age of the oldest edit being applied, in ms; 0 when nothing is in progress. */
  public long lagMs() {
    long now = EnvironmentEdgeManager.currentTime();
    long lag = 0;
    for (long t : inProgress.values()) lag = Math.max(lag, now - t);
    return lag;
  }

  /** Age of the oldest edit of the last batch applied, when it became durable in the indexes. */
  public long lastAppliedAgeMs() {
    return lastAgeMs.get();
  }

  public long editsApplied() {
    return edits.sum();
  }

  public long rowsApplied() {
    return rows.sum();
  }

  /** {@code rows} of a table that could not be applied were set aside ({@link HeldRows}). */
  public void held(int rows) {
    held.add(rows);
  }

  /** {@code rows} set aside were applied (or dropped with their deleted table). */
  public void released(int rows) {
    released.add(rows);
  }

  public long rowsHeld() {
    return held.sum();
  }

  public long rowsReleased() {
    return released.sum();
  }

  /** Batches that failed and are sent again by replication. */
  public long failedBatches() {
    return failures.sum();
  }
}
