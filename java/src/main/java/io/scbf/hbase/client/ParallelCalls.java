package io.scbf.hbase.client;

import com.google.protobuf.ServiceException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Runs a query's calls (bucket lookups, region queries, region scans) in parallel on the table's
 * pool. The calling thread runs the first itself rather than idle: one thread hand-off less per
 * query, and none at all for a single call.
 */
final class ParallelCalls {
  private ParallelCalls() {}

  /**
   * The results of {@code calls}, in their order. A failure is thrown as the IOException the call
   * threw (unwrapped from a protobuf ServiceException), else as an IOException naming {@code what};
   * the calls still running are cancelled.
   */
  static <T> List<T> all(ExecutorService pool, List<Callable<T>> calls, String what)
      throws IOException {
    List<T> out = new ArrayList<>(calls.size());
    if (calls.isEmpty()) return out;
    List<Future<T>> rest = new ArrayList<>(calls.size() - 1);
    try {
      for (Callable<T> c : calls.subList(1, calls.size())) rest.add(pool.submit(c));
      out.add(calls.get(0).call());
      for (Future<T> f : rest) out.add(f.get());
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(what + " interrupted");
    } catch (ExecutionException e) {
      throw failure(what, e.getCause());
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw failure(what, e);
    } finally {
      for (Future<T> f : rest) f.cancel(true);
    }
  }

  private static IOException failure(String what, Throwable cause) {
    if (cause instanceof ServiceException se) return Rpcs.unwrap(se);
    if (cause instanceof IOException io) return io;
    return new IOException(what + " failed", cause);
  }
}
