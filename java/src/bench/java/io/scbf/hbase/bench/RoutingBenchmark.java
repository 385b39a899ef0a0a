package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.BenchData.CITY;
import static io.scbf.hbase.bench.BenchData.D;
import static io.scbf.hbase.bench.HBaseBenchmark.say;
import static io.scbf.hbase.bench.HBaseBenchmark.seconds;

import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.regionserver.IndexProbe;
import io.scbf.hbase.shared.Settings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Routing at {@code bench.rows} rows on 2 region servers (issue 12, parts 1-3): master memory per
 * indexed entry (routing bitmaps now, the counting filters the master used to hold as the
 * baseline), bytes published while idle and per changed index entry (with what full snapshots of
 * the changed buckets would have sent), master calls per warm query with the client's routing copy
 * (and per-query master routing as the baseline), and queries with the master down.
 *
 * <p>{@code mvn -B -Pbench-hbase verify -Dbench.main=io.scbf.hbase.bench.RoutingBenchmark
 * -Dbench.rows=200000}
 */
public final class RoutingBenchmark {
  static final TableName INDEXED = TableName.valueOf("routing_global");
  static final TableName LOCAL = TableName.valueOf("routing_local");

  public static void main(String[] args) throws Exception {
    BenchData data = new BenchData(Integer.getInteger("bench.rows", 200_000));
    int queries = Integer.getInteger("bench.queries", 2000);
    List<String> cities = null;
    long t0 = System.nanoTime();
    HBaseTestingUtility util = BenchCluster.start(2);
    Configuration conf = util.getConfiguration();
    say("mini cluster (2 region servers) up in %.1f s; %,d rows", seconds(t0), data.rows());
    try {
      Connection connection = util.getConnection();
      HBaseBenchmark.createTables(connection, null, INDEXED, LOCAL);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      for (TableName t : List.of(INDEXED, LOCAL)) {
        try (Table table = connection.getTable(t)) {
          HBaseBenchmark.load(
              pool,
              table,
              HBaseBenchmark.batches(
                  data,
                  0,
                  data.rows(),
                  2000,
                  Durability.USE_DEFAULT,
                  t == INDEXED,
                  HBaseBenchmark.LOAD),
              2);
        }
      }
      pool.shutdown();
      cities = data.citiesWithRows(1, 20, 200, 42);
      Thread.sleep(5000); // every region publishes

      say("%n(1) routing memory at the master");
      long global = bitmapBytes(connection, INDEXED);
      long local = bitmapBytes(connection, LOCAL);
      long counting = IndexProbe.countingFilterBytes(util);
      long entries = 2L * data.rows();
      say(
          "  routing bitmaps: global %,d B + local %,d B = %.1f bits per indexed entry",
          global, local, 8.0 * (global + local) / entries);
      say(
          "  counting filters (what the master held before): %,d B = %.1f bits per indexed entry",
          counting, 8.0 * counting / entries);

      say("%n(2) publication");
      long before = IndexProbe.publishedBytes(util);
      Thread.sleep(10_000);
      long idle = IndexProbe.publishedBytes(util) - before;
      say("  idle 10 s: %,d bytes published by 2 servers (keep-alives only)", idle);
      int changed = Integer.getInteger("bench.changed", 1000);
      before = IndexProbe.publishedBytes(util);
      try (Table t = connection.getTable(INDEXED);
          Table l = connection.getTable(LOCAL)) {
        List<Put> puts = new ArrayList<>();
        int step = data.rows() / changed;
        for (int i = 0; i < changed; i++) {
          puts.add(
              new Put(Bytes.toBytes(String.format("u%08x", i * step * 0x9E3779B1)))
                  .addColumn(D, CITY, Bytes.toBytes("moved-" + i)));
        }
        t.put(puts);
        l.put(puts);
      }
      Thread.sleep(4000);
      long delta = IndexProbe.publishedBytes(util) - before;
      // Each rewritten value removes one index entry and adds one, in each of the two indexes.
      long changedEntries = 4L * changed;
      say(
          "  %d rows rewritten in both tables (%,d index entries changed): %,d bytes published,"
              + " %.1f B per changed entry (idle keep-alives included)",
          changed, changedEntries, delta, (double) delta / changedEntries);
      say(
          "  full snapshots of every changed bucket/region (the earlier protocol): %,d bytes",
          counting);

      say("%n(3) master calls per warm query, %d selective queries per mode", queries);
      for (TableName t : List.of(INDEXED, LOCAL)) {
        warmQueries(connection, t, cities, queries, Settings.DEFAULT_CLIENT_ROUTING_MAX_AGE_MS);
        Configuration perQuery = new Configuration(conf);
        perQuery.setLong(Settings.CLIENT_ROUTING_MAX_AGE_MS, 0);
        try (Connection c = ConnectionFactory.createConnection(perQuery)) {
          warmQueries(c, t, cities, queries, 0);
        }
      }

      say("%n(4) queries with the master down");
      Configuration fast = new Configuration(conf);
      fast.setInt("hbase.client.retries.number", 2);
      try (Connection c = ConnectionFactory.createConnection(fast);
          IndexedTable warm = new IndexedTable(c, INDEXED)) {
        String city = cities.get(0);
        int expected = warm.find(D, CITY, Bytes.toBytes(city)).size();
        util.getMiniHBaseCluster().stopMaster(0);
        util.getMiniHBaseCluster().waitOnMaster(0);
        Thread.sleep(1500);
        long q0 = System.nanoTime();
        int got = warm.find(D, CITY, Bytes.toBytes(city)).size();
        say(
            "  open table: %d of %d rows (trace: %s), %.0f ms",
            got, expected, warm.lastTrace().kind(), (System.nanoTime() - q0) / 1e6);
        q0 = System.nanoTime();
        try (IndexedTable fresh = new IndexedTable(c, INDEXED)) {
          got = fresh.find(D, CITY, Bytes.toBytes(city)).size();
          say(
              "  new IndexedTable opened and queried: %d of %d rows, %.0f ms",
              got, expected, (System.nanoTime() - q0) / 1e6);
        }
      }
    } finally {
      util.shutdownMiniCluster();
    }
  }

  static long bitmapBytes(Connection connection, TableName table) throws Exception {
    try (IndexedTable t = new IndexedTable(connection, table)) {
      return t.routingReport(D, CITY).filterBytes();
    }
  }

  static void warmQueries(
      Connection connection, TableName table, List<String> cities, int queries, long maxAgeMs)
      throws Exception {
    try (IndexedTable t = new IndexedTable(connection, table)) {
      t.findRowKeys(D, CITY, Bytes.toBytes(cities.get(0)));
      long calls = t.routingMasterCalls();
      long[] micros = new long[queries];
      for (int i = 0; i < queries; i++) {
        long q0 = System.nanoTime();
        t.findRowKeys(D, CITY, Bytes.toBytes(cities.get(i % cities.size())));
        micros[i] = (System.nanoTime() - q0) / 1000;
      }
      Arrays.sort(micros);
      say(
          "  %-15s %-28s master calls per query %.3f; median %d us, p99 %d us",
          table.getNameAsString(),
          maxAgeMs == 0 ? "per-query master route:" : "client routing copy:",
          (double) (t.routingMasterCalls() - calls) / queries,
          micros[queries / 2],
          micros[queries * 99 / 100]);
    }
  }

  private RoutingBenchmark() {}
}
