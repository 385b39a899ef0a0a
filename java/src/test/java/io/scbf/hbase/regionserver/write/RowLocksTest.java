package io.scbf.hbase.regionserver.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.exceptions.TimeoutIOException;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class RowLocksTest {
  private static byte[] row(String s) {
    return Bytes.toBytes(s);
  }

  @Test
  void batchesOfDistinctRowsDoNotWaitForEachOther() throws Exception {
    RowLocks locks = new RowLocks();
    RowLocks.Held a = locks.lock(List.of(row("a"), row("b")), 1000);
    // Another thread (locks are held and released by one handler thread) takes other rows at
    // once: with stripes, most such pairs of batches collided.
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      RowLocks.Held c = other.submit(() -> locks.lock(List.of(row("c"), row("d")), 0)).get();
      assertEquals(4, locks.size());
      other.submit(() -> locks.unlock(c)).get();
    } finally {
      other.shutdown();
    }
    locks.unlock(a);
    assertEquals(0, locks.size(), "the map holds only rows in use");
  }

  @Test
  void aRowHeldElsewhereTimesOutAndNothingStaysLocked() throws Exception {
    RowLocks locks = new RowLocks();
    RowLocks.Held held = locks.lock(List.of(row("m")), 1000);
    TimeoutIOException e =
        assertThrows(
            TimeoutIOException.class,
            () -> {
              try {
                CompletableFuture.runAsync(
                        () -> {
                          try {
                            locks.lock(List.of(row("a"), row("m"), row("z")), 50);
                          } catch (Exception ex) {
                            throw new RuntimeException(ex);
                          }
                        })
                    .get(5, TimeUnit.SECONDS);
              } catch (java.util.concurrent.ExecutionException ex) {
                throw ex.getCause().getCause();
              }
            });
    assertTrue(e.getMessage().contains("row m"), e.getMessage());
    // "a" was taken before "m" timed out, and given back.
    assertEquals(1, locks.size());
    locks.unlock(held);
    assertEquals(0, locks.size());
  }

  @Test
  void duplicateRowsInOneBatchAreLockedOnceAndInOrder() throws Exception {
    RowLocks locks = new RowLocks();
    RowLocks.Held held = locks.lock(List.of(row("b"), row("a"), row("b")), 1000);
    assertEquals(List.of(new Bytes(row("a")), new Bytes(row("b"))), held.rows());
    locks.unlock(held);
    assertEquals(0, locks.size());
  }
}
