package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.HBaseBenchmark.say;
import static io.scbf.hbase.bench.HBaseBenchmark.seconds;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.shared.Settings;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The query planner (issue 12, part 5): for values from 0.01% to 30% of {@code bench.rows} rows,
 * the time of {@code find} with the index plan forced ({@code scbf.planner = index}), with the scan
 * plan forced, and as planned, in both index modes, next to a sequential full scan with
 * SingleColumnValueFilter (the baseline a user would write). Each figure is the median of 3 runs
 * after one warm-up, on flushed tables. Prints the per-row costs the planner's settings should hold
 * on this machine and writes target/bench-planner.csv for scripts/plot_planner.py.
 *
 * <p>{@code mvn -B -Pbench-hbase verify -Dbench.main=io.scbf.hbase.bench.PlannerBenchmark
 * -Dbench.rows=200000}
 */
public final class PlannerBenchmark {
  static final TableName TABLE = TableName.valueOf("planner");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city"); // global index
  static final byte[] ZIP = Bytes.toBytes("zip"); // local index, same values
  static final byte[] NAME = Bytes.toBytes("name");
  static final double[] SHARES = {0.0001, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.3};
  static final int RUNS = 3;

  public static void main(String[] args) throws Exception {
    int rows = Integer.getInteger("bench.rows", 200_000);
    long t0 = System.nanoTime();
    HBaseTestingUtility util = BenchCluster.start(2);
    say("mini cluster (2 region servers) up in %.1f s; %,d rows", seconds(t0), rows);
    try {
      run(util, rows);
    } finally {
      util.shutdownMiniCluster();
    }
    System.exit(0);
  }

  /**
   * The value of row i: one of the share values, or a filler value of about 10 rows. Drawn by a
   * hash unrelated to the row key's mix, so every value spreads over every region.
   */
  static String valueOf(int i, int rows) {
    long z = (i + 1) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    double p = ((z ^ (z >>> 31)) >>> 11) / (double) (1L << 53);
    double at = 0;
    for (double s : SHARES) {
      at += s;
      if (p < at) return "share-" + s;
    }
    return "filler-" + (i % Math.max(1, rows / 10));
  }

  static byte[] rowKey(int i) {
    return Bytes.toBytes(String.format("u%08x", (int) (i * 0x9E3779B1L)));
  }

  static void run(HBaseTestingUtility util, int rows) throws Exception {
    Connection connection = util.getConnection();
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          BenchData.splits(8));
    }
    IndexAdmin indexes = new IndexAdmin(connection);
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, CITY)
            .alias("city")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(16)
            .build());
    indexes.createIndex(TABLE, IndexSpec.builder(D, ZIP).alias("zip").local().build());
    Map<String, Integer> counts = new LinkedHashMap<>();
    long t0 = System.nanoTime();
    try (Table t = connection.getTable(TABLE)) {
      List<Put> batch = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        String v = valueOf(i, rows);
        counts.merge(v, 1, Integer::sum);
        byte[] value = Bytes.toBytes(v);
        batch.add(
            new Put(rowKey(i))
                .addColumn(D, CITY, value)
                .addColumn(D, ZIP, value)
                .addColumn(D, NAME, Bytes.toBytes("name-of-row-" + i + "-padding-padding")));
        if (batch.size() == 2000) {
          t.put(batch);
          batch.clear();
        }
      }
      t.put(batch);
    }
    say("loaded in %.1f s; table and index regions flushed", seconds(t0));
    try (Admin admin = connection.getAdmin()) {
      for (TableName t : admin.listTableNames()) admin.flush(t);
    }
    Thread.sleep(4000); // every region publishes its bitmap and value counts

    Configuration indexConf = new Configuration(connection.getConfiguration());
    indexConf.set(Settings.PLANNER, "index");
    Configuration scanConf = new Configuration(connection.getConfiguration());
    scanConf.setDouble(Settings.PLANNER_SCAN_ROW_US, 0.001); // a scan whenever estimated
    Path csv = Path.of("target/bench-planner.csv");
    Files.createDirectories(csv.getParent());
    try (Connection indexOnly = ConnectionFactory.createConnection(indexConf);
        Connection scanOnly = ConnectionFactory.createConnection(scanConf);
        IndexedTable planned = new IndexedTable(connection, TABLE);
        IndexedTable index = new IndexedTable(indexOnly, TABLE);
        IndexedTable scan = new IndexedTable(scanOnly, TABLE);
        PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
      out.println("mode,share,rows,index_ms,index_keys_ms,scan_ms,planned_ms,plan,baseline_ms");
      say(
          "%n%-6s %7s %7s %10s %10s %10s %10s %-13s %12s %9s",
          "mode",
          "share",
          "rows",
          "index ms",
          "keys ms",
          "scan ms",
          "planned ms",
          "plan",
          "baseline ms",
          "plan/base");
      Map<String, List<double[]>> findPerRow = new LinkedHashMap<>();
      List<double[]> keysPerRow = new ArrayList<>();
      List<Double> scanPerRow = new ArrayList<>();
      for (byte[] column : List.of(CITY, ZIP)) {
        String mode = column == CITY ? "global" : "local";
        for (double share : SHARES) {
          byte[] value = Bytes.toBytes("share-" + share);
          int expected = counts.getOrDefault("share-" + share, 0);
          double indexMs = median(() -> check(index.find(D, column, value).size(), expected));
          double keysMs = median(() -> check(index.findRowKeys(D, column, value).size(), expected));
          double scanMs = median(() -> check(scan.find(D, column, value).size(), expected));
          String scanPlan = scan.lastTrace().plan().kind().toString();
          if (!scanPlan.equals("DATA_SCAN")) throw new IllegalStateException(scanPlan);
          double plannedMs = median(() -> check(planned.find(D, column, value).size(), expected));
          QueryPlan.Kind plan = planned.lastTrace().plan().kind();
          double baseMs = median(() -> check(baseline(connection, column, value), expected));
          say(
              "%-6s %6.2f%% %7d %10.1f %10.1f %10.1f %10.1f %-13s %12.1f %8.2fx",
              mode,
              share * 100,
              expected,
              indexMs,
              keysMs,
              scanMs,
              plannedMs,
              plan,
              baseMs,
              plannedMs / baseMs);
          out.printf(
              "%s,%s,%d,%.2f,%.2f,%.2f,%.2f,%s,%.2f%n",
              mode, share, expected, indexMs, keysMs, scanMs, plannedMs, plan, baseMs);
          if (expected >= 1000) {
            findPerRow
                .computeIfAbsent(mode, k -> new ArrayList<>())
                .add(new double[] {indexMs * 1000 / expected});
            keysPerRow.add(new double[] {keysMs * 1000 / expected});
          }
          scanPerRow.add(scanMs * 1000 / rows);
        }
        say(
            "  explain of the largest value: %s",
            planned.explain(D, column, Bytes.toBytes("share-0.3")));
      }
      double entryUs = medianOf(keysPerRow);
      double globalUs = medianOf(findPerRow.get("global"));
      double localUs = medianOf(findPerRow.get("local"));
      say(
          "%nper-row costs measured (medians over values of >= 1000 rows; warm: hot cache, blocks"
              + " cached): index entry %.2f us (both modes); find global %.2f us -> re-check"
              + " fetch %.2f us; find local %.2f us -> row read in the region %.2f us; scan %.2f"
              + " us per table row",
          entryUs,
          globalUs,
          globalUs - entryUs,
          localUs,
          localUs - entryUs,
          scanPerRow.stream()
              .mapToDouble(Double::doubleValue)
              .sorted()
              .toArray()[scanPerRow.size() / 2]);
      say(
          "defaults: %s = %s, %s = %s, %s = %s, %s = %s",
          Settings.PLANNER_INDEX_ENTRY_US,
          Settings.DEFAULT_PLANNER_INDEX_ENTRY_US,
          Settings.PLANNER_FETCH_ROW_US,
          Settings.DEFAULT_PLANNER_FETCH_ROW_US,
          Settings.PLANNER_LOCAL_ROW_US,
          Settings.DEFAULT_PLANNER_LOCAL_ROW_US,
          Settings.PLANNER_SCAN_ROW_US,
          Settings.DEFAULT_PLANNER_SCAN_ROW_US);
      ranges(connection, planned, index, scan, counts);
    }
    say("wrote %s (plot: python3 scripts/plot_planner.py %s docs/img)", csv, csv);
  }

  /** The range widths measured, as shares of the table's rows. */
  static final double[] RANGE_SHARES = {0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0};

  /**
   * Ranges on both indexes ({@code BY_ROW} global, local), from the first value in byte order to
   * the value where the share of the rows is reached: each with the index plan forced, the scan
   * plan forced, as planned, and the sequential scan an application would write (the baseline). The
   * planner's per-row costs were set on point queries (above, 2026-11-24): these ranges are held
   * out from that tuning.
   */
  static void ranges(
      Connection connection,
      IndexedTable planned,
      IndexedTable index,
      IndexedTable scan,
      Map<String, Integer> counts)
      throws Exception {
    TreeMap<String, Integer> byValue = new TreeMap<>(counts);
    int rows = counts.values().stream().mapToInt(Integer::intValue).sum();
    Path csv = Path.of("target/bench-planner-ranges.csv");
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
      out.println("mode,share,rows,index_ms,scan_ms,planned_ms,plan,baseline_ms");
      say(
          "%n%-6s %7s %7s %10s %10s %10s %-13s %12s %11s %9s",
          "mode",
          "range",
          "rows",
          "index ms",
          "scan ms",
          "planned ms",
          "plan",
          "baseline ms",
          "plan/best",
          "plan/base");
      for (byte[] column : List.of(CITY, ZIP)) {
        String mode = column == CITY ? "global" : "local";
        for (double share : RANGE_SHARES) {
          byte[] lo = Bytes.toBytes(byValue.firstKey());
          byte[] hi = null;
          int expected = 0;
          for (Map.Entry<String, Integer> e : byValue.entrySet()) {
            if (share < 1.0 && expected >= share * rows) {
              hi = Bytes.toBytes(e.getKey());
              break;
            }
            expected += e.getValue();
          }
          byte[] upper = hi;
          int want = expected;
          double indexMs = median(() -> check(index.range(D, column, lo, upper).size(), want));
          double scanMs = median(() -> check(scan.range(D, column, lo, upper).size(), want));
          double plannedMs = median(() -> check(planned.range(D, column, lo, upper).size(), want));
          QueryPlan.Kind plan = planned.lastTrace().plan().kind();
          double baseMs = median(() -> check(rangeBaseline(connection, column, lo, upper), want));
          say(
              "%-6s %6.1f%% %7d %10.1f %10.1f %10.1f %-13s %12.1f %10.2fx %8.2fx",
              mode,
              share * 100,
              expected,
              indexMs,
              scanMs,
              plannedMs,
              plan,
              baseMs,
              plannedMs / Math.min(indexMs, scanMs),
              plannedMs / baseMs);
          out.printf(
              "%s,%s,%d,%.2f,%.2f,%.2f,%s,%.2f%n",
              mode, share, expected, indexMs, scanMs, plannedMs, plan, baseMs);
        }
        say(
            "  explain of the widest range: %s",
            planned.explainRange(column == CITY ? "city" : "zip", Bytes.toBytes(""), null));
      }
    }
    say("wrote %s", csv);
  }

  /** {@link #baseline} of the range [lo, hi) (hi null: unbounded). */
  static long rangeBaseline(Connection connection, byte[] column, byte[] lo, byte[] hi)
      throws Exception {
    FilterList bounds = new FilterList(FilterList.Operator.MUST_PASS_ALL);
    SingleColumnValueFilter from =
        new SingleColumnValueFilter(D, column, CompareOperator.GREATER_OR_EQUAL, lo);
    from.setFilterIfMissing(true);
    bounds.addFilter(from);
    if (hi != null) {
      SingleColumnValueFilter to = new SingleColumnValueFilter(D, column, CompareOperator.LESS, hi);
      to.setFilterIfMissing(true);
      bounds.addFilter(to);
    }
    return countScanned(connection, bounds);
  }

  /** The rows a sequential scan of the table with {@code filter} returns. */
  static long countScanned(Connection connection, Filter filter) throws Exception {
    long n = 0;
    try (Table t = connection.getTable(TABLE);
        ResultScanner scanner = t.getScanner(new Scan().setCaching(1000).setFilter(filter))) {
      for (Result r : scanner) n++;
    }
    return n;
  }

  private interface Run {
    void run() throws Exception;
  }

  /** The median of {@link #RUNS} timed runs after one warm-up, ms. */
  static double median(Run r) throws Exception {
    r.run();
    double[] ms = new double[RUNS];
    for (int i = 0; i < RUNS; i++) {
      long t0 = System.nanoTime();
      r.run();
      ms[i] = (System.nanoTime() - t0) / 1e6;
    }
    Arrays.sort(ms);
    return ms[RUNS / 2];
  }

  static double medianOf(List<double[]> xs) {
    double[] v = xs.stream().mapToDouble(x -> x[0]).sorted().toArray();
    return v.length == 0 ? Double.NaN : v[v.length / 2];
  }

  static void check(long found, int expected) {
    if (found != expected) {
      throw new IllegalStateException("found " + found + " rows, expected " + expected);
    }
  }

  /** A sequential full scan with SingleColumnValueFilter, as an application would write it. */
  static long baseline(Connection connection, byte[] column, byte[] value) throws Exception {
    SingleColumnValueFilter f =
        new SingleColumnValueFilter(D, column, CompareOperator.EQUAL, value);
    f.setFilterIfMissing(true);
    return countScanned(connection, f);
  }
}
