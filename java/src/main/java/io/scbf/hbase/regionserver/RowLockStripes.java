package io.scbf.hbase.regionserver;

import java.io.IOException;
import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.hadoop.hbase.exceptions.TimeoutIOException;

/**
 * Exclusive locks on data rows for index maintenance. HBase takes only shared row locks for
 * non-atomic batches, so two batches on one row can both read the row's old value and write
 * conflicting index rows; the index needs the read-compute-write of a row to be exclusive (as
 * Phoenix does with its own lock manager). Rows map to stripes; a batch locks its stripes in
 * ascending order, so batches never wait on each other in a cycle.
 */
final class RowLockStripes {
  private final ReentrantLock[] stripes;

  RowLockStripes(int count) {
    stripes = new ReentrantLock[count];
    for (int i = 0; i < count; i++) stripes[i] = new ReentrantLock();
  }

  /** Locks the stripes of the rows; returns them for {@link #unlock}. */
  int[] lock(Collection<byte[]> rows, long timeoutMs) throws IOException {
    int[] ids =
        rows.stream()
            .mapToInt(r -> Math.floorMod(Arrays.hashCode(r), stripes.length))
            .distinct()
            .sorted()
            .toArray();
    for (int i = 0; i < ids.length; i++) {
      boolean locked;
      try {
        locked = stripes[ids[i]].tryLock(timeoutMs, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        locked = false;
      }
      if (!locked) {
        unlock(Arrays.copyOf(ids, i));
        throw new TimeoutIOException(
            "scbf: timed out after "
                + timeoutMs
                + " ms waiting for the index lock of a row being written concurrently");
      }
    }
    return ids;
  }

  void unlock(int[] ids) {
    for (int id : ids) stripes[id].unlock();
  }
}
