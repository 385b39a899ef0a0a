package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.BenchData.CITY;
import static io.scbf.hbase.bench.BenchData.D;
import static io.scbf.hbase.bench.HBaseBenchmark.say;

import io.scbf.hbase.Coprocessors;
import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.StartMiniClusterOption;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Apache Phoenix 5.2.1 and scbf side by side on one mini cluster (1 region server, the scbf
 * coprocessors loaded, Phoenix's installed per table by Phoenix): the same generated rows ({@link
 * BenchData}), 8 regions per table, batches of 500 rows (Phoenix: committed per 500 upserts), 2
 * writer threads, WAL on. Loads and a 25% update pass of the indexed column run chunk by chunk in
 * turn over every configuration; then the same point and range queries, cold (first time) and hot
 * (repeated). Prints a table and writes a CSV ({@code -Dbench.csv}, default
 * target/bench-phoenix.csv).
 */
public final class PhoenixBenchmark {
  static final int BATCH = 500;
  static final int WRITERS = 2;

  /** scbf global indexes covering name and age, as P_COVERED does: one per layout. */
  static final TableName COVERED_BY_ROW = TableName.valueOf("bench_covered_by_row");

  static final TableName COVERED_BY_VALUE = TableName.valueOf("bench_covered_by_value");

  /** One way of writing the rows: an scbf/HBase table or a Phoenix table. */
  interface Target {
    String name();

    /** Writes rows [from, to) (or the updates of every fourth row); returns nanoseconds. */
    long write(BenchData data, int from, int to, boolean update) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    BenchData data = new BenchData(Integer.getInteger("bench.rows", 200_000));
    int samples = Integer.getInteger("bench.samples", 50);
    Path csv = Path.of(System.getProperty("bench.csv", "target/bench-phoenix.csv"));
    HBaseTestingUtility util = new HBaseTestingUtility();
    Configuration conf = util.getConfiguration();
    Coprocessors.configure(conf);
    Coprocessors.trustInProcessRegionServers(conf);
    // Phoenix's mutable global indexes require its WAL codec on every region server (it reads
    // plain cells as the default codec does, so the scbf tables are unaffected).
    conf.set(
        "hbase.regionserver.wal.codec",
        "org.apache.hadoop.hbase.regionserver.wal.IndexedWALEditCodec");
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    util.startMiniCluster(
        StartMiniClusterOption.builder().numRegionServers(1).numDataNodes(1).build());
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    String url = "jdbc:phoenix:localhost:" + util.getZkCluster().getClientPort() + ":/hbase";
    try {
      org.apache.hadoop.hbase.client.Connection hbase = util.getConnection();
      HBaseBenchmark.createTables(
          hbase, HBaseBenchmark.PLAIN, HBaseBenchmark.INDEXED, HBaseBenchmark.LOCAL);
      createCoveredTables(hbase);
      long t0 = System.nanoTime();
      try (Connection c = DriverManager.getConnection(url)) {
        say("Phoenix connected (system tables created) in %.1f s", HBaseBenchmark.seconds(t0));
        createPhoenixTables(c);
      }
      List<Target> targets = new ArrayList<>();
      for (TableName t :
          List.of(
              HBaseBenchmark.PLAIN,
              HBaseBenchmark.INDEXED,
              HBaseBenchmark.LOCAL,
              COVERED_BY_ROW,
              COVERED_BY_VALUE)) targets.add(hbaseTarget(hbase, t, pool));
      for (String t : List.of("P_PLAIN", "P_GLOBAL", "P_COVERED", "P_LOCAL"))
        targets.add(phoenixTarget(url, t, pool));
      Map<String, double[]> rates = new LinkedHashMap<>(); // name -> {load, update} rows/s
      for (boolean update : new boolean[] {false, true}) {
        long[] nanos = new long[targets.size()];
        int chunk = Math.max(BATCH * WRITERS, data.rows() / 10);
        for (int from = 0; from < data.rows(); from += chunk) {
          int to = Math.min(data.rows(), from + chunk);
          for (int i = 0; i < targets.size(); i++) {
            nanos[i] += targets.get(i).write(data, from, to, update);
          }
        }
        int rows = update ? (data.rows() + 3) / 4 : data.rows();
        for (int i = 0; i < targets.size(); i++) {
          rates.computeIfAbsent(targets.get(i).name(), k -> new double[2])[update ? 1 : 0] =
              rows / (nanos[i] / 1e9);
        }
        if (!update) Thread.sleep(3000); // filters publish before the update pass and queries
      }
      say("%nwrites, rows/s (ratio to the unindexed table of the same system)");
      say("  %-26s %12s %8s %12s %8s", "configuration", "load", "ratio", "update", "ratio");
      double[] scbfPlain = rates.get(HBaseBenchmark.PLAIN.getNameAsString());
      double[] phoenixPlain = rates.get("P_PLAIN");
      try (PrintWriter out =
          new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8))) {
        out.println("kind,configuration,metric,value");
        for (Map.Entry<String, double[]> e : rates.entrySet()) {
          double[] base = e.getKey().startsWith("P_") ? phoenixPlain : scbfPlain;
          say(
              "  %-26s %,12.0f %7.2fx %,12.0f %7.2fx",
              e.getKey(),
              e.getValue()[0],
              e.getValue()[0] / base[0],
              e.getValue()[1],
              e.getValue()[1] / base[1]);
          out.printf("write,%s,load_rows_per_s,%.0f%n", e.getKey(), e.getValue()[0]);
          out.printf("write,%s,load_ratio,%.3f%n", e.getKey(), e.getValue()[0] / base[0]);
          out.printf("write,%s,update_rows_per_s,%.0f%n", e.getKey(), e.getValue()[1]);
          out.printf("write,%s,update_ratio,%.3f%n", e.getKey(), e.getValue()[1] / base[1]);
        }
        queries(util, url, data, samples, out);
        coveredThroughput(util, url, data, out);
      }
      say("%nCSV: %s", csv.toAbsolutePath());
    } finally {
      pool.shutdown();
      util.shutdownMiniCluster();
    }
  }

  private static void createCoveredTables(org.apache.hadoop.hbase.client.Connection hbase)
      throws Exception {
    try (Admin admin = hbase.getAdmin()) {
      for (TableName t : List.of(COVERED_BY_ROW, COVERED_BY_VALUE)) {
        admin.createTable(
            TableDescriptorBuilder.newBuilder(t)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
                .build(),
            BenchData.splits(HBaseBenchmark.REGIONS));
      }
    }
    IndexAdmin indexes = new IndexAdmin(hbase);
    indexes.createIndex(
        COVERED_BY_ROW,
        IndexSpec.builder(D, CITY)
            .alias("city")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(HBaseBenchmark.BUCKETS)
            .covered(D, BenchData.NAME)
            .covered(D, BenchData.AGE)
            .build());
    indexes.createIndex(
        COVERED_BY_VALUE,
        IndexSpec.builder(D, CITY)
            .alias("city")
            .layout(IndexSpec.Layout.BY_VALUE)
            .buckets(HBaseBenchmark.REGIONS)
            .covered(D, BenchData.NAME)
            .covered(D, BenchData.AGE)
            .build());
    say(
        "scbf tables %s (%d buckets) and %s (by value, %d regions to start): index 'city'"
            + " covering name and age",
        COVERED_BY_ROW, HBaseBenchmark.BUCKETS, COVERED_BY_VALUE, HBaseBenchmark.REGIONS);
  }

  /**
   * Covered selective queries per second, {@code bench.threads} threads (16) for {@code
   * bench.query.ms} (10 s) per system: Phoenix's covered index (each thread its own connection and
   * statement) against scbf's covered global index in each layout ({@code findEntries}).
   */
  private static void coveredThroughput(
      HBaseTestingUtility util, String url, BenchData data, PrintWriter out) throws Exception {
    int threads = Integer.getInteger("bench.threads", 16);
    long ms = Long.getLong("bench.query.ms", 10_000);
    List<String> values = data.citiesWithRows(5, 15, 2000, 11);
    say(
        "%ncovered selective queries per second (%d values of 5-15 rows), %d threads, %d s each",
        values.size(), threads, ms / 1000);
    Map<String, Double> qps = new LinkedHashMap<>();
    qps.put(
        "phoenix P_COVERED",
        Throughput.perSecond(
            threads,
            ms,
            () -> {
              Connection c = DriverManager.getConnection(url);
              PreparedStatement ps =
                  c.prepareStatement("SELECT K, NAME, AGE FROM P_COVERED WHERE CITY = ?");
              return v -> {
                ps.setString(1, v);
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) rs.getString(1);
                }
              };
            },
            values));
    for (TableName t : List.of(COVERED_BY_ROW, COVERED_BY_VALUE)) {
      try (IndexedTable table = new IndexedTable(util.getConnection(), t)) {
        qps.put(
            "scbf " + t.getNameAsString(),
            Throughput.perSecond(
                threads, ms, () -> v -> table.findEntries(D, CITY, Bytes.toBytes(v)), values));
      }
    }
    double phoenix = qps.get("phoenix P_COVERED");
    for (Map.Entry<String, Double> e : qps.entrySet()) {
      say(
          "  %-30s %,10.0f queries/s  %6.1fx Phoenix covered",
          e.getKey(), e.getValue(), e.getValue() / phoenix);
      out.printf("covered_qps,%s,queries_per_s,%.0f%n", e.getKey(), e.getValue());
    }
  }

  private static void createPhoenixTables(Connection c) throws Exception {
    StringBuilder splits = new StringBuilder();
    for (byte[] s : BenchData.splits(HBaseBenchmark.REGIONS)) {
      if (splits.length() > 0) splits.append(',');
      splits.append('\'').append(Bytes.toString(s)).append('\'');
    }
    try (Statement st = c.createStatement()) {
      for (String t : List.of("P_PLAIN", "P_GLOBAL", "P_COVERED", "P_LOCAL")) {
        st.execute(
            "CREATE TABLE "
                + t
                + " (K VARCHAR PRIMARY KEY, CITY VARCHAR, AGE VARCHAR, NAME VARCHAR) SPLIT ON ("
                + splits
                + ")");
      }
      st.execute("CREATE INDEX P_GLOBAL_CITY ON P_GLOBAL (CITY)");
      st.execute("CREATE INDEX P_COVERED_CITY ON P_COVERED (CITY) INCLUDE (NAME, AGE)");
      st.execute("CREATE LOCAL INDEX P_LOCAL_CITY ON P_LOCAL (CITY)");
    }
    say("Phoenix tables P_PLAIN, P_GLOBAL (global index), P_COVERED (INCLUDE), P_LOCAL (local)");
  }

  private static Target hbaseTarget(
      org.apache.hadoop.hbase.client.Connection hbase, TableName name, ExecutorService pool) {
    // The queries pick their values from the rows per city, counted once: on the first table.
    boolean countValues = name.equals(HBaseBenchmark.PLAIN);
    return new Target() {
      public String name() {
        return name.getNameAsString();
      }

      public long write(BenchData data, int from, int to, boolean update) throws Exception {
        List<List<Put>> batches =
            HBaseBenchmark.batches(
                data,
                from,
                to,
                BATCH,
                Durability.USE_DEFAULT,
                countValues,
                update ? 0 : HBaseBenchmark.LOAD);
        try (Table t = hbase.getTable(name)) {
          return HBaseBenchmark.load(pool, t, batches, WRITERS);
        }
      }
    };
  }

  private static Target phoenixTarget(String url, String table, ExecutorService pool) {
    return new Target() {
      public String name() {
        return table;
      }

      public long write(BenchData data, int from, int to, boolean update) throws Exception {
        List<Put> rows =
            update
                ? data.updates(from, to, Durability.USE_DEFAULT, 0)
                : data.puts(from, to, Durability.USE_DEFAULT, false);
        String sql =
            update
                ? "UPSERT INTO " + table + " (K, CITY) VALUES (?, ?)"
                : "UPSERT INTO " + table + " (K, CITY, AGE, NAME) VALUES (?, ?, ?, ?)";
        long start = System.nanoTime();
        List<Future<?>> done = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
          int first = w;
          done.add(
              pool.submit(
                  () -> {
                    try (Connection c = DriverManager.getConnection(url);
                        PreparedStatement ps = c.prepareStatement(sql)) {
                      c.setAutoCommit(false);
                      int n = 0;
                      for (int b = first * BATCH; b < rows.size(); b += WRITERS * BATCH) {
                        for (Put p : rows.subList(b, Math.min(rows.size(), b + BATCH))) {
                          ps.setString(1, Bytes.toString(p.getRow()));
                          ps.setString(2, Bytes.toString(value(p, CITY)));
                          if (!update) {
                            ps.setString(3, Bytes.toString(value(p, BenchData.AGE)));
                            ps.setString(4, Bytes.toString(value(p, BenchData.NAME)));
                          }
                          ps.executeUpdate();
                          n++;
                        }
                        c.commit();
                      }
                      return n;
                    }
                  }));
        }
        for (Future<?> f : done) f.get();
        return System.nanoTime() - start;
      }
    };
  }

  private static byte[] value(Put p, byte[] qualifier) {
    return org.apache.hadoop.hbase.CellUtil.cloneValue(p.get(D, qualifier).get(0));
  }

  /** The same values asked of every index: cold (first) and hot (second) medians in ms. */
  private static void queries(
      HBaseTestingUtility util, String url, BenchData data, int samples, PrintWriter out)
      throws Exception {
    List<String> selective = data.citiesWithRows(5, 15, samples, 7);
    List<String> absent = new ArrayList<>();
    for (int i = 0; i < samples; i++) absent.add("nowhere-" + i);
    Map<String, List<String>> kinds = new LinkedHashMap<>();
    kinds.put("selective", selective);
    kinds.put("popular", List.of(BenchData.POPULAR));
    kinds.put("absent", absent);
    say(
        "%nqueries (rows of d:city = v, whole rows), median ms cold / hot, %d values per kind",
        samples);
    say("  %-26s %-10s %10s %10s %8s", "configuration", "kind", "cold", "hot", "rows/q");
    try (IndexedTable global = new IndexedTable(util.getConnection(), HBaseBenchmark.INDEXED);
        IndexedTable local = new IndexedTable(util.getConnection(), HBaseBenchmark.LOCAL);
        Connection phoenix = DriverManager.getConnection(url)) {
      Map<String, Query> systems = new LinkedHashMap<>();
      systems.put("scbf global", v -> global.find(D, CITY, Bytes.toBytes(v)).size());
      systems.put("scbf local", v -> local.find(D, CITY, Bytes.toBytes(v)).size());
      for (String t : List.of("P_GLOBAL", "P_COVERED", "P_LOCAL")) {
        // Phoenix's planner uses an uncovered global index only when hinted (else: a full scan).
        String hint = t.equals("P_GLOBAL") ? "/*+ INDEX(P_GLOBAL P_GLOBAL_CITY) */ " : "";
        PreparedStatement ps =
            phoenix.prepareStatement(
                "SELECT " + hint + "K, CITY, AGE, NAME FROM " + t + " WHERE CITY = ?");
        systems.put(
            "phoenix " + t,
            v -> {
              ps.setString(1, v);
              int n = 0;
              try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) n++;
              }
              return n;
            });
      }
      for (Map.Entry<String, Query> s : systems.entrySet()) {
        for (Map.Entry<String, List<String>> k : kinds.entrySet()) {
          Latencies cold = new Latencies(), hot = new Latencies();
          long rows = 0;
          for (String v : k.getValue()) {
            long t = System.nanoTime();
            rows += s.getValue().run(v);
            cold.add((System.nanoTime() - t) / 1000);
            t = System.nanoTime();
            s.getValue().run(v);
            hot.add((System.nanoTime() - t) / 1000);
          }
          double perQuery = (double) rows / k.getValue().size();
          say(
              "  %-26s %-10s %10.2f %10.2f %8.1f",
              s.getKey(), k.getKey(), cold.medianMs(), hot.medianMs(), perQuery);
          out.printf("query,%s,%s_cold_ms,%.3f%n", s.getKey(), k.getKey(), cold.medianMs());
          out.printf("query,%s,%s_hot_ms,%.3f%n", s.getKey(), k.getKey(), hot.medianMs());
        }
      }
    }
  }

  interface Query {
    int run(String value) throws Exception;
  }

  private PhoenixBenchmark() {}
}
