package io.scbf.hbase.regionserver.write;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.hadoop.hbase.exceptions.TimeoutIOException;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Exclusive locks on data rows for index maintenance. HBase takes only shared row locks for
 * non-atomic batches, so two batches on one row could both read the row's old value and write
 * conflicting index rows; the index needs the read-compute-write of a row to be exclusive (Phoenix
 * keeps its own lock manager for the same reason).
 *
 * <p>One lock per row, not per stripe: a mini-batch holds its locks across the index RPC, and with
 * stripes two batches of a few hundred distinct rows almost always share a stripe, which serialized
 * every concurrent indexed write of a region. Per row, only writers of the same row wait for each
 * other, as they must. A batch takes its rows in sorted order, so batches never wait on each other
 * in a cycle. The map holds only rows locked or waited for.
 */
@InterfaceAudience.Private
public final class RowLocks {
  private static final class Entry {
    public final ReentrantLock lock = new ReentrantLock();
    int users; // guarded by the map's compute on this entry's key
  }

  private final ConcurrentHashMap<Bytes, Entry> rows = new ConcurrentHashMap<>();

  /** Rows this batch holds, for {@link #unlock}. */
  public static final class Held {
    private final List<Bytes> rows;

    private Held(List<Bytes> rows) {
      this.rows = rows;
    }

    /** The distinct rows held, sorted. */
    public List<Bytes> rows() {
      return rows;
    }
  }

  /** Locks every row (each once, in sorted order) or none, waiting at most timeoutMs per row. */
  public Held lock(Collection<byte[]> keys, long timeoutMs) throws IOException {
    TreeSet<Bytes> sorted = new TreeSet<>();
    for (byte[] k : keys) sorted.add(new Bytes(k));
    List<Bytes> held = new ArrayList<>(sorted.size());
    for (Bytes row : sorted) {
      Entry e = rows.compute(row, (k, v) -> retain(v));
      boolean locked;
      try {
        locked = e.lock.tryLock(timeoutMs, TimeUnit.MILLISECONDS);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        locked = false;
      }
      if (!locked) {
        rows.computeIfPresent(row, (k, v) -> release(v));
        unlock(new Held(held));
        throw new TimeoutIOException(
            "scbf: timed out after "
                + timeoutMs
                + " ms waiting for the index lock of row "
                + Bytes.toStringBinary(row.get())
                + ", being written concurrently");
      }
      held.add(row);
    }
    return new Held(held);
  }

  public void unlock(Held held) {
    for (Bytes row : held.rows) {
      rows.get(row).lock.unlock();
      rows.computeIfPresent(row, (k, v) -> release(v));
    }
  }

  /** Rows locked or waited for now (for tests: the map must not grow with the rows written). */
  int size() {
    return rows.size();
  }

  private static Entry retain(Entry e) {
    Entry entry = e == null ? new Entry() : e;
    entry.users++;
    return entry;
  }

  private static Entry release(Entry e) {
    return --e.users == 0 ? null : e;
  }
}
