package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.BenchData.CITY;
import static io.scbf.hbase.bench.BenchData.D;
import static io.scbf.hbase.bench.HBaseBenchmark.say;

import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.QueryTrace;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * (b) (c) (d): point queries on many distinct values per kind. "Cold" is the first query of a value
 * (no hot-cache entry: the bucket does a prefix scan of its index rows), "hot" the same value asked
 * again (a hot-cache hit). A warm-up on other values comes first, so that cold measures the cache
 * miss, not JIT compilation or the client's first region lookups. Every answer is checked against
 * the row counts known from generation; a few against a full scan.
 */
final class QueryBench {
  private static final int HOT_REPEATS = 3;

  private final Connection connection;
  private final IndexedTable table;
  private final BenchData data;
  private final int samples;

  /** Buckets of a global index, data regions of a local one (from the traces). */
  private int total;

  QueryBench(Connection connection, IndexedTable table, BenchData data, int samples) {
    this.connection = connection;
    this.table = table;
    this.data = data;
    this.samples = samples;
  }

  /** Latencies and bucket counts of one kind of query. */
  private static final class Kind {
    final String label;
    final Latencies cold = new Latencies(), hot = new Latencies();
    final Latencies coldRoute = new Latencies(), coldLookups = new Latencies();
    final Latencies hotRoute = new Latencies(), hotLookups = new Latencies();
    final Latencies asked = new Latencies(), unsure = new Latencies(), rows = new Latencies();

    Kind(String label) {
      this.label = label;
    }
  }

  private interface Query {
    int run(byte[] value) throws IOException;
  }

  void run() throws Exception {
    List<String> selective = data.citiesWithRows(5, 15, 2 * samples + 50, 7);
    List<String> warmup = selective.subList(0, 50);
    List<String> keysOnly = selective.subList(50, 50 + samples);
    List<String> recheck = selective.subList(50 + samples, selective.size());
    List<String> oneRow = data.citiesWithRows(1, 1, samples, 11);
    List<String> absent = new ArrayList<>();
    for (int i = 0; i < samples; i++) absent.add("nowhere-" + i);

    Query rowKeys = v -> table.findRowKeys(D, CITY, v).size();
    Query rows = v -> table.find(D, CITY, v).size();
    measure(new Kind("warm-up"), warmup, rowKeys);
    List<Kind> kinds =
        List.of(
            measure(new Kind("absent"), absent, rowKeys),
            measure(new Kind("one-row"), oneRow, rowKeys),
            measure(new Kind("selective, row keys"), keysOnly, rowKeys),
            measure(new Kind("selective, find + re-check"), recheck, rows),
            measure(new Kind("popular, row keys"), List.of(BenchData.POPULAR), rowKeys),
            measure(new Kind("popular, find + re-check"), List.of(BenchData.POPULAR), rows));

    Latencies scans = new Latencies();
    for (String city :
        List.of(keysOnly.get(0), keysOnly.get(1), keysOnly.get(2), BenchData.POPULAR)) {
      long t0 = System.nanoTime();
      long n = HBaseBenchmark.scan(connection, city);
      scans.add((System.nanoTime() - t0) / 1000);
      int expected =
          city.equals(BenchData.POPULAR)
              ? table.findRowKeys(D, CITY, Bytes.toBytes(city)).size()
              : data.rowsOf(city);
      if (n != expected)
        throw new IllegalStateException(city + ": scan " + n + ", index " + expected);
    }
    report(kinds, scans);
  }

  private Kind measure(Kind kind, List<String> values, Query query) throws IOException {
    for (String v : values) {
      byte[] value = Bytes.toBytes(v);
      long t0 = System.nanoTime();
      int n = query.run(value);
      kind.cold.add((System.nanoTime() - t0) / 1000);
      QueryTrace trace = table.lastTrace();
      kind.coldRoute.add(trace.routing().micros());
      kind.coldLookups.add(trace.lookups().micros());
      kind.asked.add(trace.regions().asked());
      total = trace.regions().total();
      kind.unsure.add(trace.regions().unsure());
      kind.rows.add(n);
      check(v, n);
      for (int i = 0; i < HOT_REPEATS; i++) {
        t0 = System.nanoTime();
        check(v, query.run(value));
        kind.hot.add((System.nanoTime() - t0) / 1000);
        trace = table.lastTrace();
        kind.hotRoute.add(trace.routing().micros());
        kind.hotLookups.add(trace.lookups().micros());
      }
    }
    return kind;
  }

  private void check(String value, int found) {
    int expected = value.startsWith("nowhere-") ? 0 : data.rowsOf(value);
    if (expected >= 0 && found != expected) {
      throw new IllegalStateException(
          value + ": index found " + found + " rows, expected " + expected);
    }
  }

  private void report(List<Kind> kinds, Latencies scans) {
    double scanMs = scans.medianMs();
    say(
        "%n(b)(c)(d) point queries on d:city, %,d rows; latency in ms (median / p90), cold = first"
            + " query of a value, hot = %d repeats",
        data.rows(), HOT_REPEATS);
    say(
        "  %-28s %5s %8s %13s %17s %17s %9s %11s",
        "kind",
        "values",
        "rows/q",
        "asked / total",
        "cold med / p90",
        "hot med / p90",
        "cold/hot",
        "scan/cold");
    for (Kind k : kinds) {
      say(
          "  %-28s %5d %8.1f %7.2f / %-3d %8.2f / %-7.2f %8.2f / %-7.2f %8.1fx %10.0fx",
          k.label,
          k.cold.count(),
          k.rows.mean(),
          k.asked.mean(),
          total,
          k.cold.medianMs(),
          k.cold.p90Ms(),
          k.hot.medianMs(),
          k.hot.p90Ms(),
          k.cold.medianMs() / k.hot.medianMs(),
          scanMs / k.cold.medianMs());
    }
    say("  where the time goes (medians, ms): route call to the master / parallel bucket lookups");
    for (Kind k : kinds) {
      say(
          "  %-28s cold %6.2f / %-6.2f hot %6.2f / %-6.2f (unsure buckets per query %.2f)",
          k.label,
          k.coldRoute.medianMs(),
          k.coldLookups.medianMs(),
          k.hotRoute.medianMs(),
          k.hotLookups.medianMs(),
          k.unsure.mean());
    }
    say(
        "  full scan with SingleColumnValueFilter (scanner caching 1000): median %.0f ms, p90 %.0f ms"
            + " over %d scans",
        scanMs, scans.p90Ms(), scans.count());
  }
}
