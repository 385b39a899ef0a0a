package io.scbf.hbase.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** Queries per second of concurrent threads, each asking the values round-robin. */
final class Throughput {
  private Throughput() {}

  /** One query of one value. */
  interface Query {
    void run(String value) throws Exception;
  }

  /** A query per thread: a JDBC statement, for one, is not shared between threads. */
  interface QueryFactory {
    Query open() throws Exception;
  }

  /**
   * Runs {@code threads} threads for {@code ms} milliseconds, thread w asking values w, w +
   * threads, ... (after one warm-up query each: connections, region locations, routing copies);
   * returns the queries completed per second.
   */
  static double perSecond(int threads, long ms, QueryFactory factory, List<String> values)
      throws Exception {
    List<Query> queries = new ArrayList<>();
    for (int w = 0; w < threads; w++) queries.add(factory.open());
    for (Query q : queries) q.run(values.get(0));
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong done = new AtomicLong();
    List<Future<?>> work = new ArrayList<>();
    long start = System.nanoTime();
    for (int w = 0; w < threads; w++) {
      int first = w;
      Query q = queries.get(w);
      work.add(
          pool.submit(
              () -> {
                for (int i = first; !stop.get(); i += threads) {
                  q.run(values.get(i % values.size()));
                  done.incrementAndGet();
                }
                return null;
              }));
    }
    Thread.sleep(ms);
    stop.set(true);
    try {
      for (Future<?> f : work) f.get();
    } finally {
      pool.shutdown();
    }
    return done.get() / ((System.nanoTime() - start) / 1e9);
  }
}
