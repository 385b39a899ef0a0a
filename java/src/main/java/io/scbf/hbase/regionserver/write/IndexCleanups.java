package io.scbf.hbase.regionserver.write;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.hbase.exceptions.TimeoutIOException;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The index deletes of one data region's replaced values, sent after the data write is visible and
 * its row locks are released, so that neither the writer nor the region's other writes wait for
 * them (they held both across a second index round trip before).
 *
 * <p>A late delete is harmless (the old index row is a stale row, which queries re-check away), but
 * a delete that lands after a later put of the same index row would remove a live entry: a false
 * negative (value a, then b, then a again; the index row of the second a is the one the first
 * change deletes). So a cleanup is registered per data row while the row's lock is held, and the
 * next writer of the row waits, under that lock, until it has landed ({@link #awaitRows}). A
 * closing region waits for all of its cleanups, so the next server of the region cannot overtake
 * one either.
 */
@InterfaceAudience.Private
public final class IndexCleanups {
  private final ConcurrentHashMap<Bytes, CompletableFuture<Void>> byRow = new ConcurrentHashMap<>();
  private final Executor executor;

  public IndexCleanups(Executor executor) {
    this.executor = executor;
  }

  /** A registered cleanup, to be {@link #start}ed once the rows' locks are released. */
  public static final class Cleanup {
    private final List<Bytes> rows;
    private final Runnable send;
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    private Cleanup(List<Bytes> rows, Runnable send) {
      this.rows = rows;
      this.send = send;
    }
  }

  /** Call with the rows' locks held; {@code send} must not throw. */
  public Cleanup register(List<Bytes> rows, Runnable send) {
    Cleanup c = new Cleanup(rows, send);
    for (Bytes row : rows) byRow.put(row, c.done);
    return c;
  }

  /** Sends the cleanup on the executor (or in the calling thread when the executor is full). */
  public void start(Cleanup c) {
    executor.execute(
        () -> {
          try {
            c.send.run();
          } finally {
            c.done.complete(null);
            for (Bytes row : c.rows) byRow.remove(row, c.done);
          }
        });
  }

  /** Waits until no cleanup of these rows is in flight. Call with the rows' locks held. */
  public void awaitRows(Collection<Bytes> rows, long timeoutMs) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    for (Bytes row : rows) {
      CompletableFuture<Void> f = byRow.get(row);
      if (f != null) await(f, deadline, row);
    }
  }

  /** Waits for every cleanup in flight; false if some were still running at the timeout. */
  public boolean awaitAll(long timeoutMs) {
    try {
      CompletableFuture.allOf(byRow.values().toArray(new CompletableFuture<?>[0]))
          .get(timeoutMs, TimeUnit.MILLISECONDS);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException | TimeoutException e) {
      return false;
    }
  }

  /** Cleanups in flight (distinct data rows). */
  public int rowsInFlight() {
    return byRow.size();
  }

  private static void await(CompletableFuture<Void> f, long deadline, Bytes row)
      throws IOException {
    try {
      f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("scbf: interrupted waiting for an index cleanup");
    } catch (ExecutionException e) {
      // The send never throws; a cleanup that failed has ended all the same.
    } catch (TimeoutException e) {
      throw new TimeoutIOException(
          "scbf: the index deletes of an earlier write of row "
              + Bytes.toStringBinary(row.get())
              + " are still in flight; the write was not applied (retry)");
    }
  }
}
