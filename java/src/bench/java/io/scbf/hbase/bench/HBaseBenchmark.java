package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.BenchData.CITY;
import static io.scbf.hbase.bench.BenchData.D;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.RoutingReport;
import io.scbf.hbase.shared.IndexCatalog;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The HBase benchmark, in one run on an in-process HBase with the scbf coprocessors: (a)
 * batched-put throughput of an unindexed table, one with a global index of buckets ({@code
 * BY_ROW}), one with a global index by value (the default layout) and one with a local index, (b)
 * routed point queries vs a full scan with SingleColumnValueFilter, (c) buckets or regions asked
 * per query, (d) hot vs cold lookups (b-d for both index kinds), (e) filter and cache memory, (f)
 * update passes rewriting the indexed column of 25% of the rows ({@code bench.updatePasses}, 1 by
 * default), then the global index's routing filters and filter compactions after them. Run with
 * {@code mvn -B -Pbench-hbase verify} ({@code -Dbench.rows=N}).
 */
public final class HBaseBenchmark {
  static final TableName PLAIN = TableName.valueOf("bench_plain");
  static final TableName INDEXED = TableName.valueOf("bench_indexed");
  static final TableName LOCAL = TableName.valueOf("bench_local");

  /** A global index in the default layout (BY_VALUE), for the write figures. */
  static final TableName BY_VALUE = TableName.valueOf("bench_by_value");

  /** A global index on a table declared insert-only (no read of the current row per put). */
  static final TableName IMMUTABLE = TableName.valueOf("bench_immutable");

  static final TableName LOCAL_IMMUTABLE = TableName.valueOf("bench_local_immutable");

  /** The second write comparison (data puts without WAL); dropped before the queries. */
  static final TableName PLAIN_SKIP_WAL = TableName.valueOf("bench_plain_skipwal");

  static final TableName INDEXED_SKIP_WAL = TableName.valueOf("bench_indexed_skipwal");
  static final int REGIONS = 8;
  static final int BUCKETS = Integer.getInteger("bench.buckets", 16);

  private static final com.sun.management.OperatingSystemMXBean CPU =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  /** {@link #writes}'s update pass for a load (new rows) instead. */
  static final int LOAD = -1;

  /** The data tables' block encoding (all of them, unindexed included). */
  static final DataBlockEncoding ENCODING =
      DataBlockEncoding.valueOf(System.getProperty("bench.encoding", "NONE"));

  public static void main(String[] args) throws Exception {
    BenchData data = new BenchData(Integer.getInteger("bench.rows", 1_000_000));
    int batch = Integer.getInteger("bench.batch", 2000);
    int writers = Integer.getInteger("bench.writers", 2);
    int samples = Integer.getInteger("bench.samples", 200);
    int updatePasses = Integer.getInteger("bench.updatePasses", 1);
    long t0 = System.nanoTime();
    HBaseTestingUtility util = BenchCluster.start(1);
    say(
        "HBase (mini cluster, 1 region server) up in %.1f s; %,d rows, batches of %d puts, %d writer"
            + " threads, data blocks encoded %s",
        seconds(t0), data.rows(), batch, writers, ENCODING);
    try {
      Connection connection = util.getConnection();
      createTables(connection, PLAIN, INDEXED, LOCAL);
      createByValueTable(connection);
      createTables(connection, null, IMMUTABLE, LOCAL_IMMUTABLE);
      new IndexAdmin(connection).setImmutableRows(IMMUTABLE, true);
      new IndexAdmin(connection).setImmutableRows(LOCAL_IMMUTABLE, true);
      say("%n(a) write throughput, batched puts");
      // Headline: what production does, the WAL on the data rows as on the index rows.
      double[] load =
          writes(
              connection,
              data,
              batch,
              writers,
              List.of(PLAIN, INDEXED, LOCAL, IMMUTABLE, LOCAL_IMMUTABLE, BY_VALUE),
              Durability.USE_DEFAULT,
              true,
              LOAD);
      try (Admin admin = connection.getAdmin()) {
        // Their global index tables follow (IndexLifecycleObserver).
        for (TableName t : List.of(IMMUTABLE, LOCAL_IMMUTABLE)) {
          admin.disableTable(t);
          admin.deleteTable(t);
        }
      }
      if (Boolean.getBoolean("bench.skipWal")) {
        // Data puts without WAL (index rows keep theirs), comparable with earlier runs.
        createTables(connection, PLAIN_SKIP_WAL, INDEXED_SKIP_WAL, null);
        writes(
            connection,
            data,
            batch,
            writers,
            List.of(PLAIN_SKIP_WAL, INDEXED_SKIP_WAL),
            Durability.SKIP_WAL,
            false,
            LOAD);
        dropSkipWalTables(connection);
      }
      Thread.sleep(3000); // every bucket and region publishes its filter (1 s interval)
      try (Admin admin = connection.getAdmin()) {
        // Queries, lookups and scans read HFiles (not memstores), as on a loaded cluster.
        for (TableName t :
            List.of(
                PLAIN,
                INDEXED,
                LOCAL,
                BY_VALUE,
                IndexCatalog.indexTableName(INDEXED, "city"),
                IndexCatalog.indexTableName(BY_VALUE, "city"))) admin.flush(t);
      }
      try (IndexedTable table = new IndexedTable(connection, INDEXED)) {
        say("%n--- global index (%s) ---", INDEXED);
        new QueryBench(connection, table, data, samples).run();
        memory(table);
      }
      try (IndexedTable table = new IndexedTable(connection, LOCAL)) {
        say("%n--- local index (%s) ---", LOCAL);
        new QueryBench(connection, table, data, samples).run();
      }
      say(
          "%n(f) update passes: the indexed column of 25%% of the rows rewritten, %d time(s)",
          updatePasses);
      double[] update = null;
      double[] secondsPerRow = new double[4]; // every pass rewrites as many rows
      for (int pass = 0; pass < updatePasses; pass++) {
        double[] rates =
            writes(
                connection,
                data,
                batch,
                writers,
                List.of(PLAIN, INDEXED, LOCAL, BY_VALUE),
                Durability.USE_DEFAULT,
                false,
                pass);
        if (update == null) update = rates;
        for (int i = 0; i < rates.length; i++) secondsPerRow[i] += 1 / rates[i];
      }
      afterUpdates(connection, data);
      say("%nSUMMARY (ratios to the unindexed table in this run)");
      say(
          "  load   global %.2fx   local %.2fx   immutable rows: global %.2fx, local %.2fx",
          load[1] / load[0], load[2] / load[0], load[3] / load[0], load[4] / load[0]);
      say(
          "  update global %.2fx   local %.2fx   (first pass)",
          update[1] / update[0], update[2] / update[0]);
      say(
          "  global by value (the default layout): load %.2fx   update %.2fx",
          load[5] / load[0], update[3] / update[0]);
      if (updatePasses > 1) {
        say(
            "  all %d update passes: global %.2fx   local %.2fx   by value %.2fx",
            updatePasses,
            secondsPerRow[0] / secondsPerRow[1],
            secondsPerRow[0] / secondsPerRow[2],
            secondsPerRow[0] / secondsPerRow[3]);
      }
    } finally {
      util.shutdownMiniCluster();
    }
  }

  private static void dropSkipWalTables(Connection connection) throws Exception {
    try (Admin admin = connection.getAdmin()) {
      // Their memstores and index regions would otherwise compete with the queries below.
      // The global index table follows its data table (IndexLifecycleObserver).
      for (TableName t : List.of(PLAIN_SKIP_WAL, INDEXED_SKIP_WAL)) {
        admin.disableTable(t);
        admin.deleteTable(t);
      }
    }
  }

  /**
   * The unindexed table (if not null), one with a global index and (if not null) one with a local
   * index.
   */
  static void createTables(
      Connection connection, TableName plain, TableName global, TableName local) throws Exception {
    List<TableName> tables = new ArrayList<>();
    for (TableName t : new TableName[] {plain, global, local}) {
      if (t != null) tables.add(t);
    }
    for (TableName t : tables) createDataTable(connection, t);
    IndexAdmin indexes = new IndexAdmin(connection);
    indexes.createIndex(
        global,
        IndexSpec.builder(D, CITY)
            .alias("city")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(BUCKETS)
            .fpp(0.001)
            .build());
    if (local != null) {
      indexes.createIndex(
          local, IndexSpec.builder(D, CITY).alias("city").local().fpp(0.001).build());
    }
    say(
        "tables %s, %s%s: %d regions each; index 'city' on %s (global: %d buckets, fpp 0.001)%s",
        plain == null ? "-" : plain,
        global,
        local == null ? "" : ", " + local,
        REGIONS,
        global,
        BUCKETS,
        local == null ? "" : " and on " + local + " (local, fpp 0.001)");
  }

  /** A data table of family {@code d}, pre-split into {@link #REGIONS} regions. */
  static void createDataTable(Connection connection, TableName table) throws Exception {
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(table)
              .setColumnFamily(
                  ColumnFamilyDescriptorBuilder.newBuilder(D)
                      .setDataBlockEncoding(ENCODING)
                      .build())
              .build(),
          BenchData.splits(REGIONS));
    }
  }

  /**
   * {@link #BY_VALUE}: a global index in the default layout, starting with one region per data
   * region.
   */
  static void createByValueTable(Connection connection) throws Exception {
    createDataTable(connection, BY_VALUE);
    new IndexAdmin(connection)
        .createIndex(
            BY_VALUE, IndexSpec.builder(D, CITY).alias("city").buckets(REGIONS).fpp(0.001).build());
    say(
        "table %s: %d regions; index 'city' by value (%d regions to start)",
        BY_VALUE, REGIONS, REGIONS);
  }

  /**
   * (a) The same rows into every table, chunk by chunk in turn, so that all see the same machine
   * load and the same memstore/flush phases; each table's time is the sum of its chunks. {@code
   * durability} applies to the data puts of all tables; the index rows always keep their WAL
   * (skipping it could lose an index row whose data row survives: a false negative). {@code
   * countValues} once per distinct set of rows, for the query checks. {@code updatePass}: {@link
   * #LOAD}, or rewrite the indexed column of every fourth row (pass 0, 1, ...: a new value each
   * time). Returns rows per second per table. Also prints the process's CPU time per row (client,
   * region server, master and HDFS share this JVM; background work of one table, such as index
   * deletes sent after the data write, may land in the next table's chunk).
   */
  static double[] writes(
      Connection connection,
      BenchData data,
      int batch,
      int writers,
      List<TableName> tables,
      Durability durability,
      boolean countValues,
      int updatePass)
      throws Exception {
    int chunk = Math.max(batch * writers, data.rows() / 10);
    long[] nanos = new long[tables.size()];
    long[] cpuNanos = new long[tables.size()];
    long[] rows = new long[tables.size()];
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    List<Table> open = new ArrayList<>();
    try {
      for (TableName t : tables) open.add(connection.getTable(t));
      for (int from = 0; from < data.rows(); from += chunk) {
        int to = Math.min(data.rows(), from + chunk);
        for (int i = 0; i < open.size(); i++) {
          List<List<Put>> batches =
              batches(data, from, to, batch, durability, countValues && i == 0, updatePass);
          long cpu = CPU.getProcessCpuTime();
          nanos[i] += load(pool, open.get(i), batches, writers);
          cpuNanos[i] += CPU.getProcessCpuTime() - cpu;
          for (List<Put> b : batches) rows[i] += b.size();
        }
      }
    } finally {
      for (Table t : open) t.close();
      pool.shutdown();
    }
    String wal =
        durability == Durability.SKIP_WAL
            ? "data puts SKIP_WAL (index rows with WAL)"
            : "WAL on data and index rows (production)";
    say("  %s%s", wal, updatePass == LOAD ? "" : ", update pass " + (updatePass + 1));
    double[] rates = new double[tables.size()];
    for (int i = 0; i < tables.size(); i++) {
      rates[i] = rows[i] / (nanos[i] / 1e9);
      say(
          "    %-22s %,10.0f rows/s  (%.1f s, cpu %5.1f us/row)%s",
          tables.get(i),
          rates[i],
          nanos[i] / 1e9,
          cpuNanos[i] / 1e3 / rows[i],
          i == 0 ? "" : String.format("   %.2fx unindexed", rates[i] / rates[0]));
    }
    return rates;
  }

  /**
   * The batches of rows [from, to): their puts ({@link #LOAD}), or the updates of every fourth row
   * in update pass {@code updatePass}.
   */
  static List<List<Put>> batches(
      BenchData data,
      int from,
      int to,
      int batch,
      Durability durability,
      boolean count,
      int updatePass) {
    List<List<Put>> batches = new ArrayList<>();
    List<Put> all =
        updatePass == LOAD
            ? data.puts(from, to, durability, count)
            : data.updates(from, to, durability, updatePass);
    for (int b = 0; b < all.size(); b += batch) {
      batches.add(all.subList(b, Math.min(all.size(), b + batch)));
    }
    return batches;
  }

  /** Sends the batches with {@code writers} threads; returns nanoseconds. */
  static long load(ExecutorService pool, Table table, List<List<Put>> batches, int writers)
      throws Exception {
    long start = System.nanoTime();
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int first = w;
      done.add(
          pool.submit(
              () -> {
                for (int i = first; i < batches.size(); i += writers) table.put(batches.get(i));
                return null;
              }));
    }
    for (Future<?> f : done) f.get();
    return System.nanoTime() - start;
  }

  /**
   * (e) Filter memory from the master's stats; cache memory from the region server's JMX gauges.
   */
  static void memory(IndexedTable table) throws Exception {
    RoutingReport stats = table.routingReport(D, CITY);
    say("%n(e) memory");
    say(
        "  routing filters on the master: %,d bytes for %d buckets (%d server); max estimated FPR %.5f",
        masterBytes(stats), stats.regions().size(), stats.servers().size(), maxFpr(stats));
    say(
        "  master routes served %d, buckets asked %d of %d offered",
        stats.routesServed(), stats.bucketsAsked(), stats.bucketsTotal());
    Map<String, Object> gauges = regionServerGauges();
    if (gauges.isEmpty()) say("  region server gauges not exported to JMX within 15 s");
    else say("  region server gauges (JMX):");
    gauges.forEach((name, value) -> say("    %-26s %s", name, value));
  }

  /**
   * After the update passes: the routing state of the global index of buckets (the master's bitmaps
   * per entry, the residue that blind index deletes leave) and the filter compactions so far.
   */
  static void afterUpdates(Connection connection, BenchData data) throws Exception {
    Thread.sleep(11_000); // publications reach the master; the JMX adapter exports every 10 s
    try (IndexedTable table = new IndexedTable(connection, INDEXED)) {
      RoutingReport stats = table.routingReport(D, CITY);
      long bytes = masterBytes(stats);
      long residue = stats.regions().stream().mapToLong(RoutingReport.Region::residue).sum();
      say(
          "  %s routing bitmaps on the master: %,d bytes for %,d entries (%.1f bits/entry);"
              + " residue %,d; max estimated FPR %.5f",
          INDEXED, bytes, data.rows(), 8.0 * bytes / data.rows(), residue, maxFpr(stats));
    }
    Map<String, Object> gauges = regionServerGauges(); // Hadoop capitalises the names
    say(
        "  filter compactions on the region server: %s, index rows read %s",
        gauges.get("ScbfFilterCompactions"), gauges.get("ScbfFilterCompactionRows"));
  }

  /** The routing bitmaps the master holds for the index, in bytes. */
  static long masterBytes(RoutingReport stats) {
    return stats.servers().stream().mapToLong(RoutingReport.Server::filterBytes).sum();
  }

  /** The highest false-positive rate the index's regions estimate for their filters. */
  static double maxFpr(RoutingReport stats) {
    return stats.regions().stream().mapToDouble(RoutingReport.Region::estimatedFpr).max().orElse(0);
  }

  /** The region server's scbf gauges as JMX exports them (empty if not exported within 15 s). */
  static Map<String, Object> regionServerGauges() throws Exception {
    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    long deadline = System.currentTimeMillis() + 15_000; // the JMX adapter exports every 10 s
    while (System.currentTimeMillis() < deadline) {
      for (ObjectName name :
          jmx.queryNames(new ObjectName("Hadoop:service=HBase,name=RegionServer,*"), null)) {
        Map<String, Object> scbf = new TreeMap<>();
        for (MBeanAttributeInfo a : jmx.getMBeanInfo(name).getAttributes()) {
          if (a.getName().toLowerCase().startsWith("scbf")) {
            scbf.put(a.getName(), jmx.getAttribute(name, a.getName()));
          }
        }
        if (!scbf.isEmpty()) return scbf;
      }
      Thread.sleep(1000);
    }
    return Map.of();
  }

  /** Rows matching {@code d:city = city} by a full scan with SingleColumnValueFilter. */
  static long scan(Connection connection, String city) throws Exception {
    long n = 0;
    Scan scan =
        new Scan()
            .setCaching(1000)
            .setFilter(
                new SingleColumnValueFilter(D, CITY, CompareOperator.EQUAL, Bytes.toBytes(city)));
    try (Table table = connection.getTable(INDEXED);
        ResultScanner scanner = table.getScanner(scan)) {
      for (Result r : scanner) n++;
    }
    return n;
  }

  static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  static void say(String format, Object... args) {
    System.out.println(String.format(format, args));
  }

  private HBaseBenchmark() {}
}
