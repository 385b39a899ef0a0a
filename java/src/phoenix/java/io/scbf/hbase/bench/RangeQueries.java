package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.HBaseBenchmark.say;
import static io.scbf.hbase.bench.RangeMeasure.ms;
import static io.scbf.hbase.bench.RangeMeasure.num;
import static io.scbf.hbase.bench.RangeMeasure.ratio;
import static io.scbf.hbase.bench.RangeMeasure.throughput;
import static io.scbf.hbase.bench.RangeMeasure.widthText;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.ValueOrder;
import io.scbf.hbase.bench.RangeMeasure.Config;
import io.scbf.hbase.bench.RangeMeasure.Query;
import io.scbf.hbase.bench.RangeMeasure.QueryFactory;
import io.scbf.hbase.bench.RangeMeasure.Samples;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.Settings;
import java.io.IOException;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Sections 2 and 2b of {@link RangeBenchmark}: ranges of each width on the LONG column (scbf
 * covered and rows, the floor, a filtered full scan, Phoenix), and one width on the DOUBLE column.
 */
final class RangeQueries extends RangeRun {
  RangeQueries(RangeRun run) {
    super(run);
  }

  // ---------------------------------------------------------------- section 2: ranges

  /** A filter passing rows with lo <= v < hi: HBase compares raw bytes, negatives after 0. */
  static Filter longRange(long lo, long hi) {
    FilterList any = new FilterList(FilterList.Operator.MUST_PASS_ONE);
    if (lo < 0) any.addFilter(between(lo, Math.min(hi, 0)));
    if (hi > 0) any.addFilter(between(Math.max(lo, 0), hi));
    return any;
  }

  private static FilterList between(long lo, long hi) {
    SingleColumnValueFilter from =
        new SingleColumnValueFilter(D, V, CompareOperator.GREATER_OR_EQUAL, Bytes.toBytes(lo));
    SingleColumnValueFilter to =
        new SingleColumnValueFilter(D, V, CompareOperator.LESS, Bytes.toBytes(hi));
    from.setFilterIfMissing(true);
    to.setFilterIfMissing(true);
    return new FilterList(from, to);
  }

  static final String FLOOR = "HBase scan of the same index rows (floor)";

  /**
   * The floor of a covered range (issue 50): a plain client scan of the index rows that {@code
   * rangeEntries("v", lo, hi)} reads, with caching as large as the client's page (1,000 rows), each
   * row's covered value read. No endpoint, no re-check, no decoding: what HBase itself costs.
   */
  long indexRowScan(long lo, long hi) throws Exception {
    IndexSpec spec = orderedV();
    byte[] alias = Bytes.toBytes(spec.alias());
    byte[][] bounds =
        IndexKeyCodec.rangeBounds(
            0,
            alias,
            IndexValues.indexForm(spec, Bytes.toBytes(lo)),
            IndexValues.indexForm(spec, Bytes.toBytes(hi)));
    long n = 0;
    try (Table t = hbase.getTable(IndexCatalog.indexTableName(ORDERED, "v"));
        ResultScanner s =
            t.getScanner(
                new Scan()
                    .withStartRow(bounds[0])
                    .withStopRow(bounds[1])
                    .addFamily(IndexCatalog.INDEX_FAMILY)
                    .setCaching(Settings.DEFAULT_CLIENT_PAGE_ROWS))) {
      for (Result r : s) {
        r.getValue(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER);
        n++;
      }
    }
    return n;
  }

  private volatile IndexSpec orderedV;

  /** The ORDERED index 'v' as the cluster holds it (one stream: the benchmark does not salt it). */
  IndexSpec orderedV() throws IOException {
    if (orderedV == null) {
      IndexSpec v =
          new IndexAdmin(hbase)
              .listIndexes(ORDERED).stream()
                  .filter(i -> i.alias().equals("v"))
                  .findFirst()
                  .orElseThrow();
      if (v.buckets() != 1) throw new IllegalStateException("the floor scan reads one stream");
      orderedV = v;
    }
    return orderedV;
  }

  long scanCount(long lo, long hi) throws Exception {
    long n = 0;
    try (Table t = hbase.getTable(ORDERED);
        ResultScanner s = t.getScanner(new Scan().setFilter(longRange(lo, hi)).setCaching(1000))) {
      for (Result r : s) {
        r.getValue(D, P);
        n++;
      }
    }
    return n;
  }

  void ranges(IndexedTable ordered, IndexedTable byValue) throws Exception {
    scanCount(0, 1); // a first scan, not counted: the data blocks into the cache
    Map<String, Map<String, double[]>> table = new LinkedHashMap<>();
    List<String> lines = new ArrayList<>();
    for (double width : WIDTHS) {
      long span = (long) (SPAN_V * width);
      long[] lo = starts(span, 4096);
      long[] expected = new long[lo.length];
      for (int i = 0; i < lo.length; i++) expected[i] = countV(lo[i], lo[i] + span);
      int limit = (int) Math.min(Integer.MAX_VALUE, 2L * rows * width + 1000);
      String w = widthText(width);
      say(
          "%nranges of %s of the rows (%.0f rows expected), limit %d for rangeEntries",
          w, rows * width, limit);

      Map<String, QueryFactory> systems = new LinkedHashMap<>();
      Map<String, IndexedTable> traced = new LinkedHashMap<>();
      systems.put(
          "scbf covered (ORDERED rangeEntries)",
          () ->
              i ->
                  ordered
                      .rangeEntries(
                          "v",
                          Bytes.toBytes(lo[i]),
                          Bytes.toBytes(lo[i] + span),
                          ValueOrder.ASCENDING,
                          limit)
                      .size());
      traced.put("scbf covered (ORDERED rangeEntries)", ordered);
      systems.put(FLOOR, () -> i -> indexRowScan(lo[i], lo[i] + span));
      traced.put(FLOOR, null);
      systems.put(
          "scbf rows (ORDERED range)",
          () -> i -> ordered.range(D, V, Bytes.toBytes(lo[i]), Bytes.toBytes(lo[i] + span)).size());
      traced.put("scbf rows (ORDERED range)", ordered);
      systems.put(
          "scbf rows (BY_VALUE range)",
          () -> i -> byValue.range(D, V, Bytes.toBytes(lo[i]), Bytes.toBytes(lo[i] + span)).size());
      traced.put("scbf rows (BY_VALUE range)", byValue);
      systems.put(
          "Phoenix covered global index",
          () -> {
            java.sql.Connection c = DriverManager.getConnection(url);
            PreparedStatement ps =
                c.prepareStatement("SELECT PK, P FROM " + PHOENIX + " WHERE V >= ? AND V < ?");
            return i -> {
              ps.setLong(1, lo[i]);
              ps.setLong(2, lo[i] + span);
              return readKeysAndPayloads(ps);
            };
          });
      traced.put("Phoenix covered global index", null);

      // Single thread, the systems taking turns per range: latency, regions asked, answers
      // checked against the oracle.
      Map<String, Samples> single = new LinkedHashMap<>();
      Map<String, Query> one = new LinkedHashMap<>();
      for (Map.Entry<String, QueryFactory> s : systems.entrySet()) {
        one.put(s.getKey(), s.getValue().open());
        single.put(s.getKey(), new Samples());
        for (int k = 0; k < 10; k++) one.get(s.getKey()).run(SAMPLES + 1 + k); // warm-up
      }
      Samples scan = new Samples();
      for (int i = 0; i < SAMPLES; i++) {
        for (Map.Entry<String, Query> s : one.entrySet()) {
          long t = System.nanoTime();
          long n = s.getValue().run(i);
          single.get(s.getKey()).add((System.nanoTime() - t) / 1000);
          IndexedTable tr = traced.get(s.getKey());
          if (tr != null) single.get(s.getKey()).trace(tr);
          check(n, expected[i], s.getKey() + " " + w + " [" + lo[i] + ", " + (lo[i] + span) + ")");
        }
        if (i < SCANS) {
          long t = System.nanoTime();
          long n = scanCount(lo[i], lo[i] + span);
          scan.add((System.nanoTime() - t) / 1000);
          check(n, expected[i], "filtered scan " + w);
        }
      }
      double scanMs = scan.meanMs();
      double scanQps = 1000 / scanMs;

      // 16 threads, in turns, on ranges the single-thread pass did not warm.
      List<Config> configs = new ArrayList<>();
      for (Map.Entry<String, QueryFactory> s : systems.entrySet()) {
        QueryFactory f = s.getValue();
        configs.add(
            new Config(
                s.getKey(),
                traced.get(s.getKey()),
                () -> {
                  Query q = f.open();
                  return i -> q.run(SAMPLES + 1 + i % (lo.length - SAMPLES - 1));
                }));
      }
      throughput(configs, THREADS, lo.length - SAMPLES - 1);

      double phoenixQps = configs.get(configs.size() - 1).qps();
      double phoenixMs = single.get("Phoenix covered global index").pctMs(50);
      for (Config c : configs) {
        Samples s = single.get(c.name);
        double med = s.pctMs(50);
        String asked =
            c.traced == null
                ? "-"
                : String.format(Locale.ROOT, "%.2f / %.0f", c.meanAsked(), c.meanTotal());
        lines.add(
            String.format(
                Locale.ROOT,
                "| %s | %s | %s | %s | %s | %s | %s | %s | %s |",
                w,
                c.name,
                num(c.qps()),
                asked,
                ms(med),
                ratio(scanMs / s.meanMs()),
                ratio(c.qps() / scanQps),
                ratio(c.qps() / phoenixQps),
                ratio(phoenixMs / med)));
        csv("range", c.name, w, "qps", c.qps());
        csv("range", c.name, w, "median_ms", med);
        csv("range", c.name, w, "mean_ms", s.meanMs());
        csv("range", c.name, w, "rows_per_query", c.meanRows());
        if (c.traced != null) {
          csv("range", c.name, w, "regions_asked", c.meanAsked());
          csv("range", c.name, w, "regions_total", c.meanTotal());
          csv("range", c.name, w, "scan_plans", c.scans.sum());
        }
        say(
            "  %-38s %,10.0f q/s, %.1f rows/q, regions asked %s, scan plans %d; 1 thread: median %s"
                + " ms, mean %s ms",
            c.name, c.qps(), c.meanRows(), asked, c.scans.sum(), ms(med), ms(s.meanMs()));
      }
      Samples covered = single.get("scbf covered (ORDERED rangeEntries)");
      Samples floor = single.get(FLOOR);
      double coveredQps = configs.get(0).qps();
      double floorQps =
          configs.stream().filter(c -> c.name.equals(FLOOR)).findFirst().orElseThrow().qps();
      say(
          "  covered range vs the floor (a plain scan of its index rows): %.2fx the time at 1 thread"
              + " (mean), %.2fx the cost at %d threads (floor q/s / covered q/s)",
          covered.meanMs() / floor.meanMs(), floorQps / coveredQps, THREADS);
      csv("range", "covered vs floor", w, "time_ratio_1_thread", covered.meanMs() / floor.meanMs());
      csv("range", "covered vs floor", w, "cost_ratio_threads", floorQps / coveredQps);
      lines.add(
          String.format(
              Locale.ROOT,
              "| %s | HBase filtered full scan (1 thread, %d scans) | %s | - | %s | 1.00x | 1.00x | %s | - |",
              w,
              scan.micros.size(),
              String.format(Locale.ROOT, "%.2f", scanQps),
              ms(scan.pctMs(50)),
              ratio(scanQps / phoenixQps)));
      csv("range", "HBase filtered scan", w, "qps", scanQps);
      csv("range", "HBase filtered scan", w, "median_ms", scan.pctMs(50));
      csv("range", "HBase filtered scan", w, "mean_ms", scanMs);
      say(
          "  HBase filtered full scan: mean %.1f ms (%d scans, 1 thread)",
          scanMs, scan.micros.size());
    }
    say("%n## 2. Ranges on v (LONG/BIGINT), %,d rows, %d threads%n", rows, THREADS);
    say(
        "q/s: %d threads, the systems taking turns (%d rounds of %.1f s each); regions asked: mean"
            + " per query / index regions; 1-thread: median of %d ranges; vs scan: the filtered"
            + " full scan's mean time / the system's mean time (1 thread each), and q/s at %d"
            + " threads / the scan's q/s at 1 thread; vs Phoenix: q/s ratio and 1-thread median"
            + " ratio (Phoenix / system)%n",
        THREADS, ROUNDS, MEASURE_MS / 1000.0 / ROUNDS, SAMPLES, THREADS);
    say(
        "| width | system | q/s | regions asked | 1-thread median ms | vs scan (time) | vs scan"
            + " (q/s) | vs Phoenix (q/s) | vs Phoenix (1-thread) |");
    say("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (String l : lines) say("%s", l);
  }

  /** A 0.1% range on the DOUBLE column: scbf covered and rows against Phoenix covered. */
  void doubleRanges(IndexedTable ordered) throws Exception {
    double width = 0.001;
    double span = 2 * MAX_X * width;
    double[] lo = new double[4096];
    long[] expected = new long[lo.length];
    for (int i = 0; i < lo.length; i++) {
      lo[i] = -MAX_X + random.nextDouble() * (2 * MAX_X - span);
      expected[i] = lowerBound(sortedX, lo[i] + span) - lowerBound(sortedX, lo[i]);
    }
    int limit = (int) (2L * rows * width + 1000);
    List<Config> configs = new ArrayList<>();
    configs.add(
        new Config(
            "scbf covered (ORDERED rangeEntries)",
            ordered,
            () ->
                i ->
                    ordered
                        .rangeEntries(
                            "x",
                            Bytes.toBytes(lo[i]),
                            Bytes.toBytes(lo[i] + span),
                            ValueOrder.ASCENDING,
                            limit)
                        .size()));
    configs.add(
        new Config(
            "scbf rows (ORDERED range)",
            ordered,
            () ->
                i ->
                    ordered.range(D, X, Bytes.toBytes(lo[i]), Bytes.toBytes(lo[i] + span)).size()));
    configs.add(
        new Config(
            "Phoenix covered global index",
            null,
            () -> {
              java.sql.Connection c = DriverManager.getConnection(url);
              PreparedStatement ps =
                  c.prepareStatement("SELECT PK, P FROM " + PHOENIX + " WHERE X >= ? AND X < ?");
              return i -> {
                ps.setDouble(1, lo[i]);
                ps.setDouble(2, lo[i] + span);
                return readKeysAndPayloads(ps);
              };
            }));
    for (Config c : configs) {
      Query q = c.factory.open();
      for (int i = 0; i < SAMPLES; i++) {
        check(q.run(i), expected[i], c.name + " DOUBLE [" + lo[i] + ", " + (lo[i] + span) + ")");
      }
    }
    throughput(configs, THREADS, lo.length);
    double phoenix = configs.get(2).qps();
    say("%n## 2b. Ranges on x (DOUBLE), 0.1%% of the rows, %d threads%n", THREADS);
    say("| system | q/s | regions asked | vs Phoenix (q/s) |");
    say("| --- | ---: | ---: | ---: |");
    for (Config c : configs) {
      say(
          "| %s | %s | %s | %s |",
          c.name,
          num(c.qps()),
          c.traced == null
              ? "-"
              : String.format(Locale.ROOT, "%.2f / %.0f", c.meanAsked(), c.meanTotal()),
          ratio(c.qps() / phoenix));
      csv("range_double", c.name, "0.1%", "qps", c.qps());
      if (c.traced != null) csv("range_double", c.name, "0.1%", "regions_asked", c.meanAsked());
    }
  }

  /** Runs a covered query's statement and reads each row's key and payload: the rows read. */
  static long readKeysAndPayloads(PreparedStatement ps) throws SQLException {
    long n = 0;
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rs.getString(1);
        rs.getString(2);
        n++;
      }
    }
    return n;
  }
}
