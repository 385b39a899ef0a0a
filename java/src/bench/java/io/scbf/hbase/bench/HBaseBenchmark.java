package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.BenchData.CITY;
import static io.scbf.hbase.bench.BenchData.D;

import io.scbf.hbase.Coprocessors;
import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.proto.IndexProtos.ServerStats;
import io.scbf.hbase.shared.proto.IndexProtos.StatsResponse;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.StartMiniClusterOption;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The HBase benchmark of issue 4, in one run on an in-process HBase with the scbf coprocessors: (a)
 * indexed vs unindexed batched-put throughput, (b) routed point queries vs a full scan with
 * SingleColumnValueFilter, (c) buckets asked per query, (d) hot vs cold lookups, (e) filter and
 * cache memory. Run with {@code mvn -B -Pbench-hbase verify} ({@code -Dbench.rows=N}).
 */
public final class HBaseBenchmark {
  static final TableName PLAIN = TableName.valueOf("bench_plain");
  static final TableName INDEXED = TableName.valueOf("bench_indexed");

  /** The second write comparison (data puts without WAL); dropped before the queries. */
  static final TableName PLAIN_SKIP_WAL = TableName.valueOf("bench_plain_skipwal");

  static final TableName INDEXED_SKIP_WAL = TableName.valueOf("bench_indexed_skipwal");
  static final int REGIONS = 8;
  static final int BUCKETS = 16;

  public static void main(String[] args) throws Exception {
    BenchData data = new BenchData(Integer.getInteger("bench.rows", 1_000_000));
    int batch = Integer.getInteger("bench.batch", 2000);
    int writers = Integer.getInteger("bench.writers", 2);
    int samples = Integer.getInteger("bench.samples", 200);
    HBaseTestingUtility util = new HBaseTestingUtility();
    Configuration conf = util.getConfiguration();
    Coprocessors.configure(conf);
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    long t0 = System.nanoTime();
    util.startMiniCluster(
        StartMiniClusterOption.builder().numRegionServers(1).numDataNodes(1).build());
    say(
        "HBase (mini cluster, 1 region server) up in %.1f s; %,d rows, batches of %d puts, %d writer"
            + " threads",
        seconds(t0), data.rows(), batch, writers);
    try {
      Connection connection = util.getConnection();
      createTables(connection, PLAIN, INDEXED);
      say("%n(a) write throughput, batched puts");
      // Headline: what production does, the WAL on the data rows as on the index rows.
      writes(connection, data, batch, writers, PLAIN, INDEXED, Durability.USE_DEFAULT, true);
      // Second line: data puts without WAL (index rows keep theirs), comparable with earlier runs.
      createTables(connection, PLAIN_SKIP_WAL, INDEXED_SKIP_WAL);
      writes(
          connection,
          data,
          batch,
          writers,
          PLAIN_SKIP_WAL,
          INDEXED_SKIP_WAL,
          Durability.SKIP_WAL,
          false);
      try (Admin admin = connection.getAdmin()) {
        // Their memstores and index regions would otherwise compete with the queries below.
        for (TableName t :
            List.of(
                PLAIN_SKIP_WAL,
                INDEXED_SKIP_WAL,
                IndexCatalog.indexTableName(INDEXED_SKIP_WAL, "city"))) {
          admin.disableTable(t);
          admin.deleteTable(t);
        }
      }
      Thread.sleep(3000); // every bucket publishes its filter (1 s interval)
      try (Admin admin = connection.getAdmin()) {
        // Queries, lookups and scans read HFiles (not memstores), as on a loaded cluster.
        admin.flush(PLAIN);
        admin.flush(INDEXED);
        admin.flush(IndexCatalog.indexTableName(INDEXED, "city"));
      }
      try (IndexedTable table = new IndexedTable(connection, INDEXED)) {
        new QueryBench(connection, table, data, samples).run();
        memory(table);
      }
    } finally {
      util.shutdownMiniCluster();
    }
  }

  static void createTables(Connection connection, TableName plain, TableName indexed)
      throws Exception {
    try (Admin admin = connection.getAdmin()) {
      for (TableName t : List.of(plain, indexed)) {
        admin.createTable(
            TableDescriptorBuilder.newBuilder(t)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
                .build(),
            BenchData.splits(REGIONS));
      }
    }
    new IndexAdmin(connection)
        .createIndex(
            indexed, IndexSpec.builder(D, CITY).alias("city").buckets(BUCKETS).fpp(0.001).build());
    say(
        "tables %s and %s: %d regions each; index 'city' on %s only (%d buckets, fpp 0.001)",
        plain, indexed, REGIONS, indexed, BUCKETS);
  }

  /**
   * (a) The same rows into both tables, chunk by chunk alternately, so that both see the same
   * machine load and the same memstore/flush phases; each table's time is the sum of its chunks.
   * {@code durability} applies to the data puts of both tables; the index rows always keep their
   * WAL (skipping it could lose an index row whose data row survives: a false negative). {@code
   * countValues} once per distinct set of rows, for the query checks.
   */
  static void writes(
      Connection connection,
      BenchData data,
      int batch,
      int writers,
      TableName plainTable,
      TableName indexedTable,
      Durability durability,
      boolean countValues)
      throws Exception {
    int chunk = Math.max(batch * writers, data.rows() / 10);
    long plainNanos = 0, indexedNanos = 0;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try (Table plain = connection.getTable(plainTable);
        Table indexed = connection.getTable(indexedTable)) {
      for (int from = 0; from < data.rows(); from += chunk) {
        int to = Math.min(data.rows(), from + chunk);
        plainNanos += load(pool, plain, data, from, to, batch, writers, durability, countValues);
        indexedNanos += load(pool, indexed, data, from, to, batch, writers, durability, false);
      }
    } finally {
      pool.shutdown();
    }
    double plainRate = data.rows() / (plainNanos / 1e9),
        indexedRate = data.rows() / (indexedNanos / 1e9);
    String wal =
        durability == Durability.SKIP_WAL
            ? "data puts SKIP_WAL (index rows with WAL)"
            : "WAL on data and index rows (production)";
    say("  %s", wal);
    say("    unindexed %-22s %,10.0f rows/s  (%.1f s)", plainTable, plainRate, plainNanos / 1e9);
    say(
        "    indexed   %-22s %,10.0f rows/s  (%.1f s)",
        indexedTable, indexedRate, indexedNanos / 1e9);
    say("    indexed / unindexed = %.2fx   (target >= 0.8x)", indexedRate / plainRate);
  }

  /**
   * Puts rows [from, to) with {@code writers} threads, each sending batches; returns nanoseconds.
   */
  static long load(
      ExecutorService pool,
      Table table,
      BenchData data,
      int from,
      int to,
      int batch,
      int writers,
      Durability durability,
      boolean countValues)
      throws Exception {
    // Generate first: the timed part is HBase's, not the generator's.
    List<List<org.apache.hadoop.hbase.client.Put>> batches = new ArrayList<>();
    for (int b = from; b < to; b += batch) {
      batches.add(data.puts(b, Math.min(to, b + batch), durability, countValues));
    }
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
    StatsResponse stats = table.routingStats(D, CITY);
    long masterBytes = 0;
    for (ServerStats s : stats.getServersList()) masterBytes += s.getFilterBytes();
    double maxFpr =
        stats.getRegionsList().stream().mapToDouble(r -> r.getEstimatedFpr()).max().orElse(0);
    say("%n(e) memory");
    say(
        "  routing filters on the master: %,d bytes for %d buckets (%d server); max estimated FPR %.5f",
        masterBytes, stats.getRegionsCount(), stats.getServersCount(), maxFpr);
    say(
        "  master routes served %d, buckets asked %d of %d offered",
        stats.getRoutesServed(), stats.getBucketsAsked(), stats.getBucketsTotal());
    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    long deadline = System.currentTimeMillis() + 15_000; // the JMX adapter exports every 10 s
    while (System.currentTimeMillis() < deadline) {
      for (ObjectName name :
          jmx.queryNames(new ObjectName("Hadoop:service=HBase,name=RegionServer,*"), null)) {
        List<String> scbf = new ArrayList<>();
        for (MBeanAttributeInfo a : jmx.getMBeanInfo(name).getAttributes()) {
          if (a.getName().toLowerCase().contains("scbf")) scbf.add(a.getName());
        }
        if (scbf.isEmpty()) continue;
        say("  region server gauges (JMX %s):", name.getKeyProperty("sub"));
        for (String attr : scbf) say("    %-26s %s", attr, jmx.getAttribute(name, attr));
        return;
      }
      Thread.sleep(1000);
    }
    say("  region server gauges not exported to JMX within 15 s");
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
