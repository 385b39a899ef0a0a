package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.HBaseBenchmark.say;

import io.scbf.hbase.Coprocessors;
import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexEntry;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.QueryTrace;
import io.scbf.hbase.ValueOrder;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.Settings;
import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.Size;
import org.apache.hadoop.hbase.StartMiniClusterOption;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;
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
import org.apache.phoenix.schema.types.PDecimal;

/**
 * Range queries on typed {@code ORDERED} scbf indexes next to Apache Phoenix 5.2.1's covered global
 * indexes, on one mini cluster (2 region servers, both products installed), in one run:
 *
 * <ol>
 *   <li>the same rows (a {@code BIGINT}/{@code LONG} column {@code v} uniform over [-2^40, 2^40), a
 *       {@code DOUBLE} column {@code x} uniform over [-1e6, 1e6), a 100-byte payload {@code p}) in
 *       an scbf table with {@code ORDERED} typed indexes on v and x covering p, an scbf table with
 *       a {@code BY_VALUE} index on v covering p (the previous layout, as a reference), and a
 *       Phoenix table with a covered global index ({@code INCLUDE (P)}) on each column; every index
 *       table split into {@code range.regions} (8) regions before the load and the regions of every
 *       table spread over both servers;
 *   <li>ranges of 0.01%, 0.1% and 1% of the rows at random positions: queries per second at {@code
 *       range.threads} (16) threads (the systems taking turns), the regions each scbf query asked,
 *       single-thread latency, and a filtered full scan (HBase, server-side filter) as the
 *       baseline;
 *   <li>the first 10 in value order of a 1% range, both orders, single thread: median and p99;
 *   <li>equality on {@code ORDERED} against {@code BY_VALUE} (and Phoenix), queries per second;
 *   <li>loads of increasing timestamps into salted (4 buckets) and unsalted {@code ORDERED}
 *       indexes, each against random values into the same layout, the four tables taking turns.
 * </ol>
 *
 * Every answer of the single-thread passes is checked against an oracle kept in Java (row counts,
 * the first ten values). Prints a markdown table per section and writes a CSV ({@code range.csv},
 * default target/bench-ranges.csv).
 */
public final class RangeBenchmark {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] V = Bytes.toBytes("v");
  static final byte[] X = Bytes.toBytes("x");
  static final byte[] P = Bytes.toBytes("p");
  static final byte[] TS = Bytes.toBytes("ts");
  static final TableName ORDERED = TableName.valueOf("range_ordered");
  static final TableName BY_VALUE = TableName.valueOf("range_by_value");
  static final String PHOENIX = "P_RANGE";
  static final String PHOENIX_V = "P_RANGE_V";
  static final String PHOENIX_X = "P_RANGE_X";

  /** v is uniform over [MIN_V, MIN_V + SPAN_V). */
  static final long MIN_V = -(1L << 40);

  static final long SPAN_V = 1L << 41;
  static final double MAX_X = 1e6;
  static final double[] WIDTHS = {0.0001, 0.001, 0.01};
  static final int BATCH = 500;
  static final int WRITERS = Integer.getInteger("range.writers", 4);
  static final int REGIONS = Integer.getInteger("range.regions", 8);
  static final int THREADS = Integer.getInteger("range.threads", 16);
  static final long MEASURE_MS =
      (long) (Double.parseDouble(System.getProperty("range.seconds", "8")) * 1000);
  static final int ROUNDS = Integer.getInteger("range.rounds", 2);
  static final int SAMPLES = Integer.getInteger("range.samples", 30);
  static final int TOP_SAMPLES = Integer.getInteger("range.topSamples", 200);
  static final int SCANS = Integer.getInteger("range.scans", 3);
  static final int TS_BUCKETS = Integer.getInteger("range.tsBuckets", 4);

  final int rows;
  final int tsRows;
  final HBaseTestingUtility util;
  final Connection hbase;
  final String url;
  final PrintWriter csv;

  /** The oracle: v and x of row i, and both sorted. */
  final long[] vs;

  final double[] xs;
  final long[] sortedV;
  final double[] sortedX;

  final Random random = new Random(38);

  RangeBenchmark(int rows, int tsRows, HBaseTestingUtility util, String url, PrintWriter csv)
      throws java.io.IOException {
    this.rows = rows;
    this.tsRows = tsRows;
    this.util = util;
    this.hbase = util.getConnection();
    this.url = url;
    this.csv = csv;
    vs = new long[rows];
    xs = new double[rows];
    for (int i = 0; i < rows; i++) {
      Random r = rowRandom(i);
      vs[i] = MIN_V + (r.nextLong() >>> 23);
      xs[i] = (r.nextDouble() * 2 - 1) * MAX_X;
    }
    sortedV = vs.clone();
    Arrays.sort(sortedV);
    sortedX = xs.clone();
    Arrays.sort(sortedX);
  }

  public static void main(String[] args) throws Exception {
    int rows = Integer.getInteger("range.rows", 1_000_000);
    int tsRows = Integer.getInteger("range.tsRows", 0);
    if (tsRows <= 0) tsRows = Math.max(10_000, rows / 4);
    Path csvPath = Path.of(System.getProperty("range.csv", "target/bench-ranges.csv"));
    HBaseTestingUtility util = new HBaseTestingUtility();
    Configuration conf = util.getConfiguration();
    Coprocessors.configure(conf);
    Coprocessors.trustInProcessRegionServers(conf);
    // Phoenix's mutable global indexes require its WAL codec on every region server.
    conf.set(
        "hbase.regionserver.wal.codec",
        "org.apache.hadoop.hbase.regionserver.wal.IndexedWALEditCodec");
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    // Two region servers share this JVM's heap: each gets a fifth for memstores and block cache.
    conf.setFloat("hbase.regionserver.global.memstore.size", 0.2f);
    conf.setFloat("hfile.block.cache.size", 0.2f);
    conf.setLong("hbase.balancer.period", 3_600_000L);
    long wall = System.nanoTime();
    say(
        "# range benchmark: %,d rows (timestamp loads: %,d rows per table), %d threads, %d regions"
            + " per index, %d cores, load average at start %s",
        rows, tsRows, THREADS, REGIONS, Runtime.getRuntime().availableProcessors(), loadAverage());
    util.startMiniCluster(
        StartMiniClusterOption.builder().numRegionServers(2).numDataNodes(1).build());
    String url = "jdbc:phoenix:localhost:" + util.getZkCluster().getClientPort() + ":/hbase";
    try (PrintWriter csv =
        new PrintWriter(Files.newBufferedWriter(csvPath, StandardCharsets.UTF_8))) {
      csv.println("section,system,case,metric,value");
      RangeBenchmark b = new RangeBenchmark(rows, tsRows, util, url, csv);
      b.run();
      say("%nCSV: %s", csvPath.toAbsolutePath());
    } finally {
      util.shutdownMiniCluster();
    }
    say(
        "whole run %.1f min, load average at the end %s",
        HBaseBenchmark.seconds(wall) / 60, loadAverage());
  }

  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (Exception e) {
      return "?";
    }
  }

  void run() throws Exception {
    long t0 = System.nanoTime();
    try (java.sql.Connection c = DriverManager.getConnection(url)) {
      say("Phoenix connected (system tables created) in %.1f s", HBaseBenchmark.seconds(t0));
    }
    setUp();
    load();
    buildIndexes();
    settle(allTables());
    regionReport();
    explainPhoenix();
    try (IndexedTable ordered = new IndexedTable(hbase, ORDERED);
        IndexedTable byValue = new IndexedTable(hbase, BY_VALUE)) {
      ranges(ordered, byValue);
      doubleRanges(ordered);
      topTen(ordered);
      equality(ordered, byValue);
    }
    timestampLoads();
  }

  // ---------------------------------------------------------------- rows and tables

  static Random rowRandom(int i) {
    return new Random(i * 0x9E3779B97F4A7C15L + 38);
  }

  /** Row i's key: a bijection of i over 32 bits, so that every batch spreads over the regions. */
  static String key(int i) {
    return String.format("r%08x", (int) (i * 0x9E3779B1L));
  }

  static byte[][] dataSplits() {
    byte[][] s = new byte[REGIONS - 1][];
    for (int k = 1; k < REGIONS; k++) {
      s[k - 1] = Bytes.toBytes(String.format("r%08x", (int) ((1L << 32) * k / REGIONS)));
    }
    return s;
  }

  static String payload(int i) {
    Random r = new Random(i * 31L + 7);
    char[] c = new char[100];
    for (int k = 0; k < c.length; k++) c[k] = (char) ('a' + r.nextInt(26));
    return new String(c);
  }

  /** The value quantiles at which every index table is split (the values are uniform). */
  static long[] vSplits() {
    long[] s = new long[REGIONS - 1];
    for (int k = 1; k < REGIONS; k++) s[k - 1] = MIN_V + SPAN_V / REGIONS * k;
    return s;
  }

  static double[] xSplits() {
    double[] s = new double[REGIONS - 1];
    for (int k = 1; k < REGIONS; k++) s[k - 1] = -MAX_X + 2 * MAX_X * k / REGIONS;
    return s;
  }

  /** The data tables, empty: the rows go in before the indexes are built. */
  void setUp() throws Exception {
    try (Admin admin = hbase.getAdmin()) {
      for (TableName t : List.of(ORDERED, BY_VALUE)) {
        admin.createTable(
            TableDescriptorBuilder.newBuilder(t)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
                .build(),
            dataSplits());
      }
    }
    try (java.sql.Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE "
              + PHOENIX
              + " (PK VARCHAR PRIMARY KEY, V BIGINT, X DOUBLE, P VARCHAR) SPLIT ON ("
              + quoted(dataSplits())
              + ")");
    }
    spread(List.of(ORDERED, BY_VALUE, TableName.valueOf(PHOENIX)));
    say(
        "data tables %s, %s (scbf) and %s (Phoenix: PK VARCHAR, V BIGINT, X DOUBLE, P VARCHAR), %d"
            + " regions each",
        ORDERED, BY_VALUE, PHOENIX, REGIONS);
  }

  static String quoted(byte[][] keys) {
    StringBuilder out = new StringBuilder();
    for (byte[] s : keys) {
      if (out.length() > 0) out.append(',');
      out.append('\'').append(Bytes.toString(s)).append('\'');
    }
    return out.toString();
  }

  /**
   * The indexes, built from the loaded rows by each product's own build: scbf defines each index
   * (an empty index table), splits it at the value quantiles ({@code IndexAdmin.splitIndexAt}),
   * spreads its regions and backfills it ({@code rebuildIndex}); Phoenix creates each covered index
   * already split ({@code CREATE INDEX ... SPLIT ON}) and builds it on its servers.
   */
  void buildIndexes() throws Exception {
    IndexAdmin indexes = new IndexAdmin(hbase);
    IndexSpec v =
        IndexSpec.builder(D, V)
            .alias("v")
            .type(IndexSpec.ValueType.LONG)
            .layout(IndexSpec.Layout.ORDERED)
            .covered(D, P)
            .build();
    IndexSpec x =
        IndexSpec.builder(D, X)
            .alias("x")
            .type(IndexSpec.ValueType.DOUBLE)
            .layout(IndexSpec.Layout.ORDERED)
            .covered(D, P)
            .build();
    IndexSpec byValue =
        IndexSpec.builder(D, V)
            .alias("v")
            .type(IndexSpec.ValueType.LONG)
            .layout(IndexSpec.Layout.BY_VALUE)
            .buckets(REGIONS)
            .covered(D, P)
            .build();
    indexes.defineIndex(ORDERED, v);
    indexes.defineIndex(ORDERED, x);
    indexes.defineIndex(BY_VALUE, byValue);
    long[] vSplits = vSplits();
    byte[][] vAt = new byte[vSplits.length][];
    for (int k = 0; k < vSplits.length; k++) vAt[k] = Bytes.toBytes(vSplits[k]);
    indexes.splitIndexAt(ORDERED, "v", vAt);
    double[] xSplits = xSplits();
    byte[][] xAt = new byte[xSplits.length][];
    for (int k = 0; k < xSplits.length; k++) xAt[k] = Bytes.toBytes(xSplits[k]);
    indexes.splitIndexAt(ORDERED, "x", xAt);
    spread(
        List.of(
            IndexCatalog.indexTableName(ORDERED, "v"),
            IndexCatalog.indexTableName(ORDERED, "x"),
            IndexCatalog.indexTableName(BY_VALUE, "v")));
    for (Object[] build : new Object[][] {{ORDERED, "v"}, {ORDERED, "x"}, {BY_VALUE, "v"}}) {
      long t0 = System.nanoTime();
      indexes.rebuildIndex((TableName) build[0], (String) build[1]);
      double s = HBaseBenchmark.seconds(t0);
      say("scbf index '%s' of %s built in %.1f s (%,.0f rows/s)", build[1], build[0], s, rows / s);
    }
    say(
        "scbf: %s has ORDERED indexes 'v' (LONG) and 'x' (DOUBLE) covering d:p, each split at %d"
            + " value quantiles (IndexAdmin.splitIndexAt) before its build; %s has a BY_VALUE"
            + " index 'v' (LONG) covering d:p (%d regions to start)",
        ORDERED, REGIONS - 1, BY_VALUE, REGIONS);

    // A covered global index's row key starts with the indexed value, which Phoenix stores as a
    // DECIMAL in the index (a nullable fixed-width column becomes variable-width there): the
    // split points are the same quantiles in that encoding, given as bytes.
    List<byte[]> pv = new ArrayList<>();
    for (long q : vSplits) pv.add(PDecimal.INSTANCE.toBytes(BigDecimal.valueOf(q)));
    List<byte[]> px = new ArrayList<>();
    for (double q : xSplits) px.add(PDecimal.INSTANCE.toBytes(BigDecimal.valueOf(q)));
    try (java.sql.Connection c = DriverManager.getConnection(url)) {
      for (Object[] index : new Object[][] {{PHOENIX_V, "V", pv}, {PHOENIX_X, "X", px}}) {
        @SuppressWarnings("unchecked")
        List<byte[]> at = (List<byte[]>) index[2];
        String marks = String.join(", ", java.util.Collections.nCopies(at.size(), "?"));
        long t0 = System.nanoTime();
        try (PreparedStatement ps =
            c.prepareStatement(
                "CREATE INDEX "
                    + index[0]
                    + " ON "
                    + PHOENIX
                    + " ("
                    + index[1]
                    + ") INCLUDE (P) SPLIT ON ("
                    + marks
                    + ")")) {
          for (int k = 0; k < at.size(); k++) ps.setBytes(k + 1, at.get(k));
          ps.execute();
        }
        double s = HBaseBenchmark.seconds(t0);
        say("Phoenix index %s built in %.1f s (%,.0f rows/s)", index[0], s, rows / s);
      }
    }
    spread(List.of(TableName.valueOf(PHOENIX_V), TableName.valueOf(PHOENIX_X)));
    say(
        "Phoenix: covered global indexes %s (V) INCLUDE (P) and %s (X) INCLUDE (P), created with"
            + " SPLIT ON at the same quantiles (Phoenix's DECIMAL encoding of the index's leading"
            + " column)",
        PHOENIX_V, PHOENIX_X);
  }

  List<TableName> allTables() {
    return List.of(
        ORDERED,
        IndexCatalog.indexTableName(ORDERED, "v"),
        IndexCatalog.indexTableName(ORDERED, "x"),
        BY_VALUE,
        IndexCatalog.indexTableName(BY_VALUE, "v"),
        TableName.valueOf(PHOENIX),
        TableName.valueOf(PHOENIX_V),
        TableName.valueOf(PHOENIX_X));
  }

  /**
   * Places the regions of each table on the servers in turn (by start key), then turns the balancer
   * off: split daughters stay on their parent's server, and both products should have their regions
   * on both servers.
   */
  void spread(List<TableName> tables) throws Exception {
    try (Admin admin = hbase.getAdmin()) {
      List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
      servers.sort(null);
      for (TableName t : tables) {
        try (org.apache.hadoop.hbase.client.RegionLocator locator = hbase.getRegionLocator(t)) {
          List<HRegionLocation> all = new ArrayList<>(locator.getAllRegionLocations());
          all.sort(Comparator.comparing(l -> l.getRegion().getStartKey(), Bytes.BYTES_COMPARATOR));
          for (int i = 0; i < all.size(); i++) {
            ServerName to = servers.get(i % servers.size());
            if (!all.get(i).getServerName().equals(to)) {
              admin.move(all.get(i).getRegion().getEncodedNameAsBytes(), to);
            }
          }
        }
      }
      util.waitUntilNoRegionsInTransition(120_000);
      admin.balancerSwitch(false, true);
    }
  }

  /** Flushes the tables, then waits (at most 5 minutes) until no compaction runs on them. */
  void settle(List<TableName> tables) throws Exception {
    long t0 = System.nanoTime();
    try (Admin admin = hbase.getAdmin()) {
      for (TableName t : tables) admin.flush(t);
      Thread.sleep(2000);
      for (int wait = 0; wait < 300; wait++) {
        boolean busy = false;
        for (TableName t : tables) {
          if (admin.getCompactionState(t) != CompactionState.NONE) busy = true;
        }
        if (!busy) break;
        Thread.sleep(1000);
      }
    }
    // The regions publish their counts (the planner's row estimates) every few seconds.
    Thread.sleep(5000);
    say("flushed, compactions settled in %.1f s", HBaseBenchmark.seconds(t0));
  }

  // ---------------------------------------------------------------- the load

  void load() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    try {
      Map<String, Long> nanos = new LinkedHashMap<>();
      int chunk = Math.max(BATCH * WRITERS, rows / 10);
      for (int from = 0; from < rows; from += chunk) {
        int to = Math.min(rows, from + chunk);
        List<List<Put>> batches = new ArrayList<>();
        for (int b = from; b < to; b += BATCH) {
          List<Put> batch = new ArrayList<>(BATCH);
          for (int i = b; i < Math.min(to, b + BATCH); i++) {
            batch.add(
                new Put(Bytes.toBytes(key(i)))
                    .addColumn(D, V, Bytes.toBytes(vs[i]))
                    .addColumn(D, X, Bytes.toBytes(xs[i]))
                    .addColumn(D, P, Bytes.toBytes(payload(i))));
          }
          batches.add(batch);
        }
        for (TableName t : List.of(ORDERED, BY_VALUE)) {
          try (Table table = hbase.getTable(t)) {
            nanos.merge(
                t.getNameAsString(), HBaseBenchmark.load(pool, table, batches, WRITERS), Long::sum);
          }
        }
        nanos.merge(PHOENIX, phoenixLoad(pool, from, to), Long::sum);
      }
      say(
          "%nload of the data tables (setup; no index yet; the tables took turns chunk by chunk,"
              + " %d writers):",
          WRITERS);
      for (Map.Entry<String, Long> e : nanos.entrySet()) {
        say("  %-16s %,10.0f rows/s", e.getKey(), rows / (e.getValue() / 1e9));
      }
    } finally {
      pool.shutdown();
    }
  }

  long phoenixLoad(ExecutorService pool, int from, int to) throws Exception {
    String sql = "UPSERT INTO " + PHOENIX + " (PK, V, X, P) VALUES (?, ?, ?, ?)";
    long start = System.nanoTime();
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      int first = w;
      done.add(
          pool.submit(
              () -> {
                try (java.sql.Connection c = DriverManager.getConnection(url);
                    PreparedStatement ps = c.prepareStatement(sql)) {
                  c.setAutoCommit(false);
                  for (int b = from + first * BATCH; b < to; b += WRITERS * BATCH) {
                    for (int i = b; i < Math.min(to, b + BATCH); i++) {
                      ps.setString(1, key(i));
                      ps.setLong(2, vs[i]);
                      ps.setDouble(3, xs[i]);
                      ps.setString(4, payload(i));
                      ps.executeUpdate();
                    }
                    c.commit();
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : done) f.get();
    return System.nanoTime() - start;
  }

  // ---------------------------------------------------------------- section 1: regions

  void regionReport() throws Exception {
    say("%n## 1. Index tables (after the load and a flush)%n");
    say("| index | system | layout | regions | store files MB per region, min / max |");
    say("| --- | --- | --- | ---: | --- |");
    Object[][] rows = {
      {"v (LONG)", "scbf", "ORDERED", IndexCatalog.indexTableName(ORDERED, "v")},
      {"x (DOUBLE)", "scbf", "ORDERED", IndexCatalog.indexTableName(ORDERED, "x")},
      {"v (LONG)", "scbf", "BY_VALUE", IndexCatalog.indexTableName(BY_VALUE, "v")},
      {"V (BIGINT)", "Phoenix", "covered global", TableName.valueOf(PHOENIX_V)},
      {"X (DOUBLE)", "Phoenix", "covered global", TableName.valueOf(PHOENIX_X)},
      {"data", "scbf", "-", ORDERED},
      {"data", "Phoenix", "-", TableName.valueOf(PHOENIX)},
    };
    for (Object[] r : rows) {
      TableName t = (TableName) r[3];
      double[] mb = regionSizes(t);
      double min = Double.MAX_VALUE, max = 0;
      for (double m : mb) {
        min = Math.min(min, m);
        max = Math.max(max, m);
      }
      say("| %s | %s | %s | %d | %.0f / %.0f |", r[0], r[1], r[2], mb.length, min, max);
      csv.printf("regions,%s %s %s,%s,regions,%d%n", r[1], r[2], r[0], t, mb.length);
    }
  }

  /** Store file MB of each region of {@code table}, over every server. */
  double[] regionSizes(TableName table) throws Exception {
    List<Double> out = new ArrayList<>();
    try (Admin admin = hbase.getAdmin()) {
      for (ServerName s : admin.getRegionServers()) {
        for (RegionMetrics m : admin.getRegionMetrics(s, table)) {
          out.add(m.getStoreFileSize().get(Size.Unit.MEGABYTE));
        }
      }
    }
    double[] a = new double[out.size()];
    for (int i = 0; i < a.length; i++) a[i] = out.get(i);
    return a;
  }

  void explainPhoenix() throws Exception {
    long lo = MIN_V / 2, hi = lo + SPAN_V / 1000;
    String[] queries = {
      "SELECT PK, P FROM " + PHOENIX + " WHERE V >= " + lo + " AND V < " + hi,
      "SELECT PK, P, V FROM "
          + PHOENIX
          + " WHERE V >= "
          + lo
          + " AND V < "
          + hi
          + " ORDER BY V LIMIT 10",
      "SELECT PK, P, V FROM "
          + PHOENIX
          + " WHERE V >= "
          + lo
          + " AND V < "
          + hi
          + " ORDER BY V DESC LIMIT 10",
      "SELECT PK, P FROM " + PHOENIX + " WHERE X >= -1.5 AND X < 500.5",
      "SELECT PK, P FROM " + PHOENIX + " WHERE V = " + vs[0],
    };
    say("%nPhoenix plans (EXPLAIN):");
    try (java.sql.Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement()) {
      for (String q : queries) {
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = st.executeQuery("EXPLAIN " + q)) {
          while (rs.next()) plan.append("    ").append(rs.getString(1)).append('\n');
        }
        say("  %s%n%s", q, plan);
        String index = q.contains("WHERE X") ? PHOENIX_X : PHOENIX_V;
        if (!plan.toString().contains(index)) {
          throw new IllegalStateException("Phoenix does not use " + index + " for " + q);
        }
      }
    }
  }

  // ---------------------------------------------------------------- helpers: oracle, measuring

  long countV(long lo, long hi) {
    return lowerBound(sortedV, hi) - lowerBound(sortedV, lo);
  }

  static int lowerBound(long[] a, long v) {
    int lo = 0, hi = a.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (a[mid] < v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  static int lowerBound(double[] a, double v) {
    int lo = 0, hi = a.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Double.compare(a[mid], v) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Random range starts for ranges of {@code span} values. */
  long[] starts(long span, int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) out[i] = MIN_V + (long) (random.nextDouble() * (SPAN_V - span));
    return out;
  }

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
  void throughput(List<Config> configs, int threads, int n) throws Exception {
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

  void csv(String section, String system, String kase, String metric, double value) {
    // No commas inside a field: a name's become semicolons.
    csv.printf(
        Locale.ROOT,
        "%s,%s,%s,%s,%.4f%n",
        section,
        system.replace(',', ';'),
        kase.replace(',', ';'),
        metric,
        value);
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

  static void check(long got, long expected, String what) {
    if (got != expected) {
      throw new IllegalStateException(what + ": " + got + " rows, the oracle has " + expected);
    }
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

  // ---------------------------------------------------------------- section 3: first 10

  /** The first 10 values of [lo, hi) in the order asked (the oracle). */
  List<Long> firstTen(long lo, long hi, boolean descending) {
    int from = lowerBound(sortedV, lo), to = lowerBound(sortedV, hi);
    List<Long> out = new ArrayList<>();
    if (descending) {
      for (int k = to - 1; k >= from && out.size() < 10; k--) out.add(sortedV[k]);
    } else {
      for (int k = from; k < to && out.size() < 10; k++) out.add(sortedV[k]);
    }
    return out;
  }

  interface TopQuery {
    List<Long> run(long lo, long hi) throws Exception;
  }

  void topTen(IndexedTable ordered) throws Exception {
    long span = SPAN_V / 100;
    long[] lo = starts(span, TOP_SAMPLES + 10);
    Map<String, TopQuery> systems = new LinkedHashMap<>();
    Map<String, Boolean> desc = new LinkedHashMap<>();
    for (ValueOrder order : ValueOrder.values()) {
      boolean d = order == ValueOrder.DESCENDING;
      systems.put(
          "scbf rows, range(v, lo, hi, " + order + ", 10)",
          (a, b) -> {
            List<Long> out = new ArrayList<>();
            for (Result r : ordered.range("v", Bytes.toBytes(a), Bytes.toBytes(b), order, 10)) {
              out.add(Bytes.toLong(r.getValue(D, V)));
            }
            return out;
          });
      desc.put("scbf rows, range(v, lo, hi, " + order + ", 10)", d);
      systems.put(
          "scbf covered, rangeEntries(v, lo, hi, " + order + ", 10)",
          (a, b) -> {
            List<Long> out = new ArrayList<>();
            for (IndexEntry e :
                ordered.rangeEntries("v", Bytes.toBytes(a), Bytes.toBytes(b), order, 10)) {
              out.add(Bytes.toLong(e.value()));
            }
            return out;
          });
      desc.put("scbf covered, rangeEntries(v, lo, hi, " + order + ", 10)", d);
      java.sql.Connection c = DriverManager.getConnection(url);
      PreparedStatement ps =
          c.prepareStatement(
              "SELECT PK, P, V FROM "
                  + PHOENIX
                  + " WHERE V >= ? AND V < ? ORDER BY V "
                  + (d ? "DESC " : "")
                  + "LIMIT 10");
      String name = "Phoenix ... ORDER BY V " + (d ? "DESC " : "") + "LIMIT 10";
      systems.put(
          name,
          (a, b) -> {
            ps.setLong(1, a);
            ps.setLong(2, b);
            List<Long> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                rs.getString(1);
                rs.getString(2);
                out.add(rs.getLong(3));
              }
            }
            return out;
          });
      desc.put(name, d);
    }
    Map<String, Samples> samples = new LinkedHashMap<>();
    for (String s : systems.keySet()) samples.put(s, new Samples());
    for (int i = 0; i < lo.length; i++) {
      for (Map.Entry<String, TopQuery> s : systems.entrySet()) {
        long t = System.nanoTime();
        List<Long> got = s.getValue().run(lo[i], lo[i] + span);
        long micros = (System.nanoTime() - t) / 1000;
        List<Long> expected = firstTen(lo[i], lo[i] + span, desc.get(s.getKey()));
        if (!got.equals(expected)) {
          throw new IllegalStateException(
              s.getKey()
                  + " ["
                  + lo[i]
                  + ", "
                  + (lo[i] + span)
                  + "): "
                  + got
                  + ", the oracle "
                  + expected);
        }
        if (i < 10) continue; // warm-up
        Samples sm = samples.get(s.getKey());
        sm.add(micros);
        if (s.getKey().startsWith("scbf")) sm.trace(ordered);
      }
    }
    say(
        "%n## 3. First 10 in value order of a 1%% range (%,d rows in range), 1 thread, %d ranges%n",
        rows / 100, TOP_SAMPLES);
    say("| query | median ms | p99 ms | regions asked | Phoenix median / this median |");
    say("| --- | ---: | ---: | ---: | ---: |");
    for (Map.Entry<String, Samples> e : samples.entrySet()) {
      boolean d = desc.get(e.getKey());
      double phoenix =
          samples.get("Phoenix ... ORDER BY V " + (d ? "DESC " : "") + "LIMIT 10").pctMs(50);
      Samples s = e.getValue();
      say(
          "| %s | %s | %s | %s | %s |",
          e.getKey(),
          ms(s.pctMs(50)),
          ms(s.pctMs(99)),
          Double.isNaN(s.meanAsked()) ? "-" : String.format(Locale.ROOT, "%.2f", s.meanAsked()),
          ratio(phoenix / s.pctMs(50)));
      csv("top10", e.getKey(), d ? "desc" : "asc", "median_ms", s.pctMs(50));
      csv("top10", e.getKey(), d ? "desc" : "asc", "p99_ms", s.pctMs(99));
    }
  }

  // ---------------------------------------------------------------- section 4: equality

  void equality(IndexedTable ordered, IndexedTable byValue) throws Exception {
    long[] values = new long[4096];
    for (int i = 0; i < values.length; i++) values[i] = vs[random.nextInt(rows)];
    List<Config> configs = new ArrayList<>();
    configs.add(
        new Config(
            "scbf ORDERED find",
            ordered,
            () -> i -> ordered.find(D, V, Bytes.toBytes(values[i])).size()));
    configs.add(
        new Config(
            "scbf BY_VALUE find",
            byValue,
            () -> i -> byValue.find(D, V, Bytes.toBytes(values[i])).size()));
    configs.add(
        new Config(
            "scbf ORDERED findEntries",
            ordered,
            () -> i -> ordered.findEntries(D, V, Bytes.toBytes(values[i])).size()));
    configs.add(
        new Config(
            "scbf BY_VALUE findEntries",
            byValue,
            () -> i -> byValue.findEntries(D, V, Bytes.toBytes(values[i])).size()));
    configs.add(
        new Config(
            "Phoenix covered (WHERE V = ?)",
            null,
            () -> {
              java.sql.Connection c = DriverManager.getConnection(url);
              PreparedStatement ps =
                  c.prepareStatement("SELECT PK, P FROM " + PHOENIX + " WHERE V = ?");
              return i -> {
                ps.setLong(1, values[i]);
                long n = 0;
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) {
                    rs.getString(2);
                    n++;
                  }
                }
                return n;
              };
            }));
    for (Config c : configs) {
      Query q = c.factory.open();
      for (int i = 0; i < SAMPLES; i++) {
        check(q.run(i), countV(values[i], values[i] + 1), c.name + " = " + values[i]);
      }
    }
    throughput(configs, THREADS, values.length);
    say("%n## 4. Equality on existing values (1 row each), %d threads%n", THREADS);
    say("| query | q/s | regions asked | vs BY_VALUE | vs Phoenix |");
    say("| --- | ---: | ---: | ---: | ---: |");
    double phoenix = configs.get(4).qps();
    Map<String, Double> byName = new TreeMap<>();
    for (Config c : configs) byName.put(c.name, c.qps());
    for (Config c : configs) {
      String base = c.name.replace("ORDERED", "BY_VALUE");
      double vsByValue = c.name.contains("ORDERED") ? c.qps() / byName.get(base) : Double.NaN;
      say(
          "| %s | %s | %s | %s | %s |",
          c.name,
          num(c.qps()),
          c.traced == null
              ? "-"
              : String.format(Locale.ROOT, "%.2f / %.0f", c.meanAsked(), c.meanTotal()),
          ratio(vsByValue),
          ratio(c.qps() / phoenix));
      csv("equality", c.name, "", "qps", c.qps());
      if (c.traced != null) csv("equality", c.name, "", "regions_asked", c.meanAsked());
    }
  }

  // ---------------------------------------------------------------- section 5: timestamp loads

  void timestampLoads() throws Exception {
    long t0 = 1_700_000_000_000L;
    String[] names = {
      "ts_salted_increasing", "ts_salted_random", "ts_unsalted_increasing", "ts_unsalted_random"
    };
    int[] buckets = {TS_BUCKETS, TS_BUCKETS, 1, 1};
    boolean[] increasing = {true, false, true, false};
    // Random: the same values as the increasing load, in a shuffled order.
    int[] perm = new int[tsRows];
    for (int i = 0; i < tsRows; i++) perm[i] = i;
    Random r = new Random(5);
    for (int i = tsRows - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      int t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    IndexAdmin indexes = new IndexAdmin(hbase);
    List<TableName> tables = new ArrayList<>();
    List<TableName> all = new ArrayList<>();
    byte[][] splits = new byte[REGIONS - 1][];
    for (int k = 1; k < REGIONS; k++)
      splits[k - 1] = Bytes.toBytes(t0 + (long) tsRows * k / REGIONS);
    try (Admin admin = hbase.getAdmin()) {
      for (int k = 0; k < names.length; k++) {
        TableName t = TableName.valueOf(names[k]);
        admin.createTable(
            TableDescriptorBuilder.newBuilder(t)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
                .build(),
            dataSplits());
        indexes.createIndex(
            t,
            IndexSpec.builder(D, TS)
                .alias("ts")
                .type(IndexSpec.ValueType.LONG)
                .layout(IndexSpec.Layout.ORDERED)
                .buckets(buckets[k])
                .build());
        indexes.splitIndexAt(t, "ts", splits);
        tables.add(t);
        // The data tables were created split (their regions assigned in turn); the split index
        // regions stayed on their parent's server.
        all.add(IndexCatalog.indexTableName(t, "ts"));
      }
    }
    spread(all);
    int[] regions = new int[names.length];
    try (Admin admin = hbase.getAdmin()) {
      for (int k = 0; k < names.length; k++) {
        regions[k] = admin.getRegions(IndexCatalog.indexTableName(tables.get(k), "ts")).size();
      }
    }
    long[] nanos = new long[names.length];
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    try {
      int slices = 10;
      int slice = Math.max(BATCH * WRITERS, (tsRows + slices - 1) / slices);
      int turn = 0;
      for (int from = 0; from < tsRows; from += slice, turn++) {
        int to = Math.min(tsRows, from + slice);
        for (int j = 0; j < names.length; j++) {
          int k = (j + turn) % names.length; // who goes first rotates
          List<List<Put>> batches = new ArrayList<>();
          for (int b = from; b < to; b += BATCH) {
            List<Put> batch = new ArrayList<>(BATCH);
            for (int i = b; i < Math.min(to, b + BATCH); i++) {
              long ts = t0 + (increasing[k] ? i : perm[i]);
              batch.add(
                  new Put(Bytes.toBytes(key(i)))
                      .addColumn(D, TS, Bytes.toBytes(ts))
                      .addColumn(D, P, Bytes.toBytes(payload(i))));
            }
            batches.add(batch);
          }
          try (Table table = hbase.getTable(tables.get(k))) {
            nanos[k] += HBaseBenchmark.load(pool, table, batches, WRITERS);
          }
        }
      }
    } finally {
      pool.shutdown();
    }
    // A check of the loaded indexes: the last 10 timestamps, newest first, in each table.
    for (TableName t : tables) {
      try (IndexedTable it = new IndexedTable(hbase, t)) {
        List<Result> last = it.range("ts", null, null, ValueOrder.DESCENDING, 10);
        for (int i = 0; i < last.size(); i++) {
          long got = Bytes.toLong(last.get(i).getValue(D, TS));
          if (got != t0 + tsRows - 1 - i) {
            throw new IllegalStateException(t + ": newest #" + i + " is " + got);
          }
        }
        if (last.size() != 10) throw new IllegalStateException(t + ": " + last.size() + " newest");
      }
    }
    say(
        "%n## 5. Loads of increasing timestamps vs random values, %,d rows per table, %d writers,"
            + " batches of %d, the four tables taking turns in 10 slices%n",
        tsRows, WRITERS, BATCH);
    say("| table | index | index regions | rows/s | increasing / random (same layout) |");
    say("| --- | --- | ---: | ---: | ---: |");
    for (int k = 0; k < names.length; k++) {
      double rate = tsRows / (nanos[k] / 1e9);
      int base = increasing[k] ? k + 1 : k;
      double baseRate = tsRows / (nanos[base] / 1e9);
      say(
          "| %s | ORDERED LONG, %s | %d | %s | %s |",
          names[k],
          buckets[k] == 1 ? "unsalted" : buckets[k] + " buckets",
          regions[k],
          num(rate),
          increasing[k] ? ratio(rate / baseRate) : "1.00x");
      csv("load", names[k], buckets[k] + " buckets", "rows_per_s", rate);
      csv("load", names[k], buckets[k] + " buckets", "index_regions", regions[k]);
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
