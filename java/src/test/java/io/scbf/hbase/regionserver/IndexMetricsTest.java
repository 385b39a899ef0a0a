package io.scbf.hbase.regionserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.RoutingReport;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.testing.MiniCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.metrics.Gauge;
import org.apache.hadoop.hbase.metrics.Metric;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The coprocessor metrics read back from HBase's real metric registries (the ones {@code
 * getMetricRegistryForRegionServer()} / {@code getMetricRegistryForMaster()} hand out, held by
 * {@link MetricRegistries#global()}), checked against what the test did and against independent
 * views of the same state (the master's routing stats, the query traces). One region server, so the
 * JVM-wide gauges see exactly this cluster; counters that are JVM-global (index RPCs) are compared
 * as deltas.
 *
 * <p>Not asserted here: the JMX export of these registries (HBase's GlobalMetricRegistriesAdapter,
 * every 10 s). It works for the first mini cluster of a JVM (attributes then appear capitalized,
 * "ScbfIndexRegions"), but after an earlier test class's cluster has shut down in the same surefire
 * fork the adapter no longer exports anything, so such a test would depend on class order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class IndexMetricsTest {
  static final TableName TABLE = TableName.valueOf("metered");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] V = Bytes.toBytes("v");
  static final int BUCKETS = 6;
  static final int ROWS = 3000;
  static final int VALUES = 300;

  /** Small, so that 3000 rows fill the filters measurably (about a quarter of capacity). */
  static final long CAPACITY = 1000;

  static final double FPP = 0.01;
  static final long PUBLISH_INTERVAL_MS = 500; // MiniCluster's

  HBaseTestingUtility util;
  Connection connection;
  MetricRegistry rs;
  MetricRegistry master;
  long indexCallsAtStart;

  @BeforeAll
  void startCluster() throws Exception {
    util = MiniCluster.start(1);
    connection = util.getConnection();
    indexCallsAtStart = IndexProbe.indexCalls(util);
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          new byte[][] {Bytes.toBytes("row-1"), Bytes.toBytes("row-2")});
    }
    new IndexAdmin(connection)
        .createIndex(
            TABLE,
            IndexSpec.builder(D, V)
                .alias("v")
                .layout(IndexSpec.Layout.BY_ROW)
                .buckets(BUCKETS)
                .fpp(FPP)
                .initialCapacity(CAPACITY)
                .build());
    rs = registryWith("scbfFilterBytes");
    master = registryWith("scbfRoutesServed");
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (util != null) util.shutdownMiniCluster();
  }

  static byte[] value(int i) {
    return Bytes.toBytes(String.format("value-%03d", i));
  }

  /**
   * The one registry in HBase's global set that holds {@code metric} (fails if none or several).
   */
  private static MetricRegistry registryWith(String metric) {
    List<MetricRegistry> found = new ArrayList<>();
    for (MetricRegistry r : MetricRegistries.global().getMetricRegistries()) {
      if (r.get(metric).isPresent()) found.add(r);
    }
    assertEquals(
        1,
        found.size(),
        "registries holding "
            + metric
            + ": "
            + found.stream().map(r -> r.getMetricRegistryInfo().getMetricsJmxContext()).toList());
    return found.get(0);
  }

  private static Number gauge(MetricRegistry registry, String name) {
    Metric m =
        registry
            .get(name)
            .orElseThrow(
                () ->
                    new AssertionError(
                        "no metric "
                            + name
                            + " in "
                            + registry.getMetricRegistryInfo().getMetricsJmxContext()));
    return (Number) ((Gauge<?>) m).getValue();
  }

  private long rsLong(String name) {
    return gauge(rs, name).longValue();
  }

  private double rsDouble(String name) {
    return gauge(rs, name).doubleValue();
  }

  private static void waitFor(String what, long ms, BooleanSupplier condition)
      throws InterruptedException {
    long until = System.currentTimeMillis() + ms;
    while (!condition.getAsBoolean()) {
      assertTrue(System.currentTimeMillis() < until, "timed out waiting for " + what);
      Thread.sleep(100);
    }
  }

  @Test
  @Order(1)
  void filterAndRegionGaugesFollowWritesAndRebuilds() throws Exception {
    assertEquals(BUCKETS, rsLong("scbfIndexRegions"), "one index region per bucket");
    waitFor("empty buckets ready", 30_000, () -> rsLong("scbfIndexRegionsReady") == BUCKETS);
    long emptyBytes = rsLong("scbfFilterBytes");

    long putCalls = 0;
    try (Table t = connection.getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < ROWS; i++) {
        puts.add(
            new Put(Bytes.toBytes(String.format("row-%05d", i)))
                .addColumn(D, V, value(i % VALUES)));
        if (puts.size() == 100) {
          t.put(puts);
          puts.clear();
          putCalls++;
        }
      }
    }
    long indexCalls = IndexProbe.indexCalls(util) - indexCallsAtStart;
    assertEquals(
        indexCalls, rsLong("scbfIndexRpcCalls") - indexCallsAtStart, "gauge reads the counter");
    assertTrue(
        indexCalls >= putCalls,
        "each indexed batch made index RPCs on the index pool: "
            + indexCalls
            + " for "
            + putCalls
            + " batches");

    // Gauges against reality: ROWS index rows were counted into the filters.
    long bytes = rsLong("scbfFilterBytes");
    assertTrue(
        bytes > 0 && bytes >= emptyBytes, "filter bytes " + bytes + " (empty " + emptyBytes + ")");
    double fill = rsDouble("scbfFilterNewestFillMax");
    double fpr = rsDouble("scbfFilterEstimatedFprMax");
    // About 250 distinct keys per bucket filter of capacity 1000: filled, but well below the
    // design point, so the estimate is positive and below the design FPR.
    assertTrue(fill > 0 && fill < 0.5, "fill " + fill);
    assertTrue(fpr > 0 && fpr < FPP, "estimated FPR " + fpr);
    assertTrue(rsLong("scbfFilterResidue") >= 0);
    assertEquals(0, rsLong("scbfStaleIndexRows"), "no index delete failed");

    // The master received every region's routing bitmap: one bit per 4-bit counter, so a quarter
    // of the region server's counting filters (plus a small header per region).
    Thread.sleep(3 * PUBLISH_INTERVAL_MS);
    try (IndexedTable t = new IndexedTable(connection, TABLE)) {
      RoutingReport stats = t.routingReport(D, V);
      assertEquals(BUCKETS, stats.regions().size());
      long published = stats.filterBytes();
      long counting = rsLong("scbfFilterBytes");
      assertTrue(
          published > counting / 5 && published <= counting / 4 + 64 * BUCKETS,
          "bitmaps at the master " + published + " B, counting filters " + counting + " B");
    }
    long lag = rsLong("scbfPublishLagMs");
    assertTrue(lag >= 0 && lag <= 4 * PUBLISH_INTERVAL_MS, "publish lag " + lag + " ms");

    // Reopen every bucket: each rebuilds its filter by scanning its rows; not ready until then.
    TableName index = IndexCatalog.indexTableName(TABLE, "v");
    try (Admin admin = connection.getAdmin()) {
      admin.disableTable(index);
      assertEquals(0, rsLong("scbfIndexRegions"), "closed buckets are not counted");
      admin.enableTable(index);
    }
    waitFor("rebuilt buckets ready", 30_000, () -> rsLong("scbfIndexRegionsReady") == BUCKETS);
    assertEquals(BUCKETS, rsLong("scbfIndexRegions"));
    assertTrue(rsLong("scbfFilterBytes") > 0, "rebuilt filters hold the rows");
  }

  @Test
  @Order(2)
  void lookupCacheAndRoutingGaugesCountWhatQueriesDid() throws Exception {
    long lookups0 = rsLong("scbfLookups");
    long hits0 = rsLong("scbfLookupCacheHits");
    long routes0 = gauge(master, "scbfRoutesServed").longValue();
    long total0 = gauge(master, "scbfBucketsTotal").longValue();
    long asked0 = gauge(master, "scbfBucketsAsked").longValue();
    int values = 20, rounds = 5;
    long tracedHits = 0;
    try (IndexedTable t = new IndexedTable(connection, TABLE)) {
      // Strict: every bucket asked, so region lookups = queries x buckets, exactly.
      t.setStrict(true);
      for (int round = 0; round < rounds; round++) {
        for (int v = 0; v < values; v++) {
          assertEquals(ROWS / VALUES, t.findRowKeys(D, V, value(v)).size());
          assertEquals(BUCKETS, t.lastTrace().regions().asked());
          tracedHits += t.lastTrace().lookups().cacheHits();
        }
      }
      long lookups = rsLong("scbfLookups") - lookups0;
      long hits = rsLong("scbfLookupCacheHits") - hits0;
      assertEquals((long) values * rounds * BUCKETS, lookups, "region lookups");
      assertEquals(tracedHits, hits, "cache hits = hits the clients saw");
      assertTrue(hits > 0, "hot repeats are served from the cache");
      assertTrue(hits <= (long) values * (rounds - 1) * BUCKETS, "first round cannot hit: " + hits);
      // The native cache counts the same gets: its ratio is hits / lookups of this region server.
      double ratio = rsDouble("scbfCacheHitRatio");
      assertTrue(ratio > 0 && ratio <= 1, "hit ratio " + ratio);
      assertEquals(
          (double) rsLong("scbfLookupCacheHits") / rsLong("scbfLookups"),
          ratio,
          1e-9,
          "native hit ratio vs region counters");
      assertTrue(rsLong("scbfCacheBytesUsed") > 0, "cached answers occupy the cache");

      // Routed queries asking the master each time (no client routing copy): each is one route
      // served by the master, over all buckets of the index.
      Thread.sleep(3 * PUBLISH_INTERVAL_MS);
      Configuration perQuery = new Configuration(connection.getConfiguration());
      perQuery.setLong(Settings.CLIENT_ROUTING_MAX_AGE_MS, 0);
      long tracedAsked = 0;
      try (Connection c = ConnectionFactory.createConnection(perQuery);
          IndexedTable routed = new IndexedTable(c, TABLE)) {
        for (int v = 0; v < values; v++) {
          assertEquals(ROWS / VALUES, routed.findRowKeys(D, V, value(v)).size());
          assertTrue(routed.lastTrace().routing().routed(), routed.lastTrace().toString());
          tracedAsked += routed.lastTrace().regions().asked();
        }
      }
      assertEquals(
          values, gauge(master, "scbfRoutesServed").longValue() - routes0, "routes served");
      assertEquals((long) values * BUCKETS, gauge(master, "scbfBucketsTotal").longValue() - total0);
      assertEquals(
          tracedAsked,
          gauge(master, "scbfBucketsAsked").longValue() - asked0,
          "buckets asked = candidates the clients received");
      assertTrue(tracedAsked < (long) values * BUCKETS, "routing skipped buckets: " + tracedAsked);
    }
  }

  /**
   * Index deletes are applied blind and leave their counts (residue); once a bucket's residue
   * passes half its entries the filter compactor counts its rows again. Phase 1 moves a third of
   * the rows to new values (about 167 deletes per bucket of about 500 rows: below the limit): the
   * old values stay counted, so a route still asks about 5 of the 6 buckets for each. Phase 2 moves
   * another third, which takes every bucket past the limit: their compactions run after all of
   * phase 1's deletes, so phase 1's values then ask almost no bucket.
   */
  @Test
  @Order(3)
  void deletesLeaveResidueThatFilterCompactionsClear() throws Exception {
    long compactions = rsLong("scbfFilterCompactions");
    long compactionRows = rsLong("scbfFilterCompactionRows");
    move(0, 100);
    assertEquals(1000, rsLong("scbfFilterResidue"), "one count left per index row deleted");
    assertTrue(askedFor(0, 100) > 300, "old values still counted");
    move(100, 200);
    long until = System.currentTimeMillis() + 30_000;
    long asked;
    while ((asked = askedFor(0, 100)) > 30) { // fpp 0.01 per bucket: about 6 expected
      assertTrue(
          System.currentTimeMillis() < until,
          "buckets asked for 100 values no row holds, 30 s after the compactions were due: "
              + asked);
      Thread.sleep(PUBLISH_INTERVAL_MS);
    }
    assertTrue(rsLong("scbfFilterResidue") < 1000, "compactions cleared residue");
    // Every bucket compacted (one left out would still ask for most of the 100 values); its
    // compaction read all of its rows. Counted just after the compaction that publications follow.
    waitFor(
        "a compaction counted per bucket",
        5_000,
        () -> rsLong("scbfFilterCompactions") >= compactions + BUCKETS);
    assertTrue(rsLong("scbfFilterCompactionRows") >= compactionRows + ROWS);
  }

  /** Gives the rows of values [from, to) the values "moved-N"; returns once the index follows. */
  private void move(int from, int to) throws Exception {
    try (Table t = connection.getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < ROWS; i++) {
        if (i % VALUES < from || i % VALUES >= to) continue;
        puts.add(
            new Put(Bytes.toBytes(String.format("row-%05d", i)))
                .addColumn(D, V, Bytes.toBytes("moved-" + (i % VALUES))));
      }
      t.put(puts);
    }
    // The old values' index rows are deleted in the background after the data writes.
    try (Table index = connection.getTable(IndexCatalog.indexTableName(TABLE, "v"))) {
      waitFor("old index rows deleted", 30_000, () -> countRows(index) == ROWS);
    }
  }

  private static long countRows(Table table) {
    long n = 0;
    try (ResultScanner scanner = table.getScanner(new Scan().setFilter(new FirstKeyOnlyFilter()))) {
      while (scanner.next() != null) n++;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return n;
  }

  /**
   * Buckets the master's routes ask for values [from, to) (no client copy: each query is routed by
   * the master), checking each answer is empty and the moved rows are found.
   */
  private long askedFor(int from, int to) throws Exception {
    Thread.sleep(3 * PUBLISH_INTERVAL_MS); // the latest bitmaps reach the master
    Configuration perQuery = new Configuration(connection.getConfiguration());
    perQuery.setLong(Settings.CLIENT_ROUTING_MAX_AGE_MS, 0);
    long asked = 0;
    try (Connection c = ConnectionFactory.createConnection(perQuery);
        IndexedTable routed = new IndexedTable(c, TABLE)) {
      for (int v = from; v < to; v++) {
        assertEquals(0, routed.findRowKeys(D, V, value(v)).size());
        asked += routed.lastTrace().regions().asked();
        assertEquals(ROWS / VALUES, routed.findRowKeys(D, V, Bytes.toBytes("moved-" + v)).size());
      }
    }
    return asked;
  }
}
