package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.RangeRun.MEASURE_MS;
import static io.scbf.hbase.bench.RangeRun.ROUNDS;

import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.QueryTrace;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * How {@link RangeBenchmark} measures and prints: the queries of a system, queries per second with
 * the systems taking turns, latency samples, and the number formats of its tables.
 */
final class RangeMeasure {
  private RangeMeasure() {}

  /** One query (the i-th of its list), answering a count of rows. */
  interface Query {
    long run(int i) throws Exception;
  }

  /** A query per thread: a JDBC statement is not shared between threads. */
  interface QueryFactory {
    Query open() throws Exception;
  }

  /** A system measured: its queries and, for scbf, the table whose traces count regions. */
  static final class Config {
    final String name;
    final QueryFactory factory;
    final IndexedTable traced;
    final List<Query> perThread = new ArrayList<>();
    final LongAdder done = new LongAdder();
    final LongAdder rowsAnswered = new LongAdder();
    final LongAdder asked = new LongAdder();
    final LongAdder total = new LongAdder();
    final LongAdder scans = new LongAdder();
    long nanos;

    Config(String name, IndexedTable traced, QueryFactory factory) {
      this.name = name;
      this.traced = traced;
      this.factory = factory;
    }

    double qps() {
      return done.sum() / (nanos / 1e9);
    }

    double meanAsked() {
      return traced == null || done.sum() == 0 ? Double.NaN : (double) asked.sum() / done.sum();
    }

    double meanTotal() {
      return traced == null || done.sum() == 0 ? Double.NaN : (double) total.sum() / done.sum();
    }

    double meanRows() {
      return done.sum() == 0 ? 0 : (double) rowsAnswered.sum() / done.sum();
    }

    void count(long rows) {
      done.increment();
      rowsAnswered.add(rows);
      if (traced != null) {
        QueryTrace t = traced.lastTrace();
        if (t != null && t.regions().asked() >= 0) {
          asked.add(t.regions().asked());
          total.add(t.regions().total());
          if (t.regions().target() == QueryTrace.Target.DATA_REGIONS) scans.increment();
        }
      }
    }
  }

  /**
   * Queries per second of each config at {@code threads} threads, the configs taking turns: {@code
   * ROUNDS} rounds, each config running {@code MEASURE_MS / ROUNDS} per round; thread w asks
   * queries w, w + threads, ... of {@code n}. One warm-up query per thread first.
   */
  static void throughput(List<Config> configs, int threads, int n) throws Exception {
    for (Config c : configs) {
      for (int w = 0; w < threads; w++) c.perThread.add(c.factory.open());
      for (int w = 0; w < threads; w++) c.perThread.get(w).run(w % n);
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      int[] next = new int[threads];
      for (int w = 0; w < threads; w++) next[w] = w;
      for (int round = 0; round < ROUNDS; round++) {
        for (Config c : configs) {
          AtomicBoolean stop = new AtomicBoolean();
          List<Future<Integer>> work = new ArrayList<>();
          long start = System.nanoTime();
          for (int w = 0; w < threads; w++) {
            int from = next[w];
            Query q = c.perThread.get(w);
            work.add(
                pool.submit(
                    () -> {
                      int i = from;
                      while (!stop.get()) {
                        c.count(q.run(i % n));
                        i += threads;
                      }
                      return i;
                    }));
          }
          Thread.sleep(MEASURE_MS / ROUNDS);
          stop.set(true);
          for (int w = 0; w < threads; w++) next[w] = work.get(w).get();
          c.nanos += System.nanoTime() - start;
        }
      }
    } finally {
      pool.shutdown();
    }
  }

  /** Latency samples in microseconds: median and p99 (nearest rank). */
  static final class Samples {
    final List<Long> micros = new ArrayList<>();
    long asked;
    long regions;
    int traced;

    void add(long m) {
      micros.add(m);
    }

    double pctMs(double p) {
      if (micros.isEmpty()) return Double.NaN;
      List<Long> s = new ArrayList<>(micros);
      s.sort(null);
      int rank = (int) Math.ceil(p / 100.0 * s.size());
      return s.get(Math.max(0, rank - 1)) / 1000.0;
    }

    double meanMs() {
      long sum = 0;
      for (long m : micros) sum += m;
      return micros.isEmpty() ? Double.NaN : sum / 1000.0 / micros.size();
    }

    void trace(IndexedTable t) {
      QueryTrace tr = t.lastTrace();
      if (tr != null && tr.regions().asked() >= 0) {
        asked += tr.regions().asked();
        regions += tr.regions().total();
        traced++;
      }
    }

    double meanAsked() {
      return traced == 0 ? Double.NaN : (double) asked / traced;
    }
  }

  static String widthText(double w) {
    return String.format(
        Locale.ROOT, "%s%%", BigDecimal.valueOf(w * 100).stripTrailingZeros().toPlainString());
  }

  static String ratio(double r) {
    return Double.isNaN(r) ? "-" : String.format(Locale.ROOT, "%.2fx", r);
  }

  static String num(double d) {
    return Double.isNaN(d) ? "-" : String.format(Locale.ROOT, "%,.0f", d);
  }

  static String ms(double d) {
    return Double.isNaN(d) ? "-" : String.format(Locale.ROOT, d < 10 ? "%.2f" : "%,.1f", d);
  }
}
