package io.scbf.hbase.regionserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.testing.MiniCluster;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The region server's scbf metrics as an operator reads them: over JMX, from the bean HBase's
 * metrics system exports for the region-server coprocessor (the same attributes {@code /jmx}
 * serves). Runs in a JVM of its own (a surefire execution of its own): HBase's exporter serves only
 * the first mini cluster of a JVM.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MetricsJmxTest {
  static final TableName TABLE = TableName.valueOf("jmx");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] ZIP = Bytes.toBytes("zip");
  static final int BUCKETS = 4;
  static final int ROWS = 400;
  static final String GLOBAL = "jmx__idx_city";
  static final String LOCAL = "jmx__idx_zip";

  HBaseTestingUtility util;
  Connection connection;

  @BeforeAll
  void start() throws Exception {
    util = MiniCluster.start(1);
    connection = util.getConnection();
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          new byte[][] {Bytes.toBytes("row-0200")});
    }
    IndexAdmin indexes = new IndexAdmin(connection);
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, CITY)
            .alias("city")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(BUCKETS)
            .build());
    indexes.createIndex(TABLE, IndexSpec.builder(D, ZIP).alias("zip").local().build());
  }

  @AfterAll
  void stop() throws Exception {
    if (util != null) util.shutdownMiniCluster();
  }

  /** The scbf region-server bean's attributes, by lower-cased name (Hadoop capitalizes them). */
  static Map<String, Object> scbfAttributes() throws Exception {
    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    Map<String, Object> out = new HashMap<>();
    for (ObjectName name :
        jmx.queryNames(new ObjectName("Hadoop:service=HBase,name=RegionServer,*"), null)) {
      if (!name.toString().contains("IndexRegionServerCoprocessor")) continue;
      for (MBeanAttributeInfo a : jmx.getMBeanInfo(name).getAttributes()) {
        out.put(
            a.getName().toLowerCase(java.util.Locale.ROOT), jmx.getAttribute(name, a.getName()));
      }
    }
    return out;
  }

  static double number(Map<String, Object> attributes, String name) {
    Object v = attributes.get(name.toLowerCase(java.util.Locale.ROOT));
    assertTrue(v instanceof Number, name + " on JMX: " + v + "; have " + attributes.keySet());
    return ((Number) v).doubleValue();
  }

  @Test
  void latencyHistogramsEmptyLookupsAndGaugesReachJmx() throws Exception {
    try (Table t = connection.getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < ROWS; i++) {
        puts.add(
            new Put(Bytes.toBytes(String.format("row-%04d", i)))
                .addColumn(D, CITY, Bytes.toBytes("city-" + (i % 40)))
                .addColumn(D, ZIP, Bytes.toBytes("zip-" + (i % 40))));
        if (puts.size() == 50) {
          t.put(puts);
          puts = new ArrayList<>();
        }
      }
    }
    int queries = 20;
    ObjectName clientStats = new ObjectName("io.scbf.hbase:type=IndexedTable,*");
    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    try (IndexedTable t = new IndexedTable(connection, TABLE).setStrict(true)) {
      for (int q = 0; q < queries; q++) {
        // Strict: every bucket is asked, and the ones without the value answer empty.
        assertEquals(10, t.findRowKeys(D, CITY, Bytes.toBytes("city-" + q)).size());
        assertEquals(10, t.findRowKeys(D, ZIP, Bytes.toBytes("zip-" + q)).size());
      }
      // The client's own counts, on the same JMX, while the table is open.
      ObjectName stats = jmx.queryNames(clientStats, null).iterator().next();
      assertEquals(2L * queries, jmx.getAttribute(stats, "Queries"));
      assertEquals(2L * queries, jmx.getAttribute(stats, "IndexPlans"));
      assertEquals(0L, jmx.getAttribute(stats, "ScanPlans"));
      // Strict: every bucket of the global index, both regions for the local one.
      assertEquals(queries * (BUCKETS + 2L), jmx.getAttribute(stats, "RegionsAsked"));
      // Latencies per query kind (a map on JMX: rows of key and value), all point queries here.
      javax.management.openmbean.TabularData latency =
          (javax.management.openmbean.TabularData) jmx.getAttribute(stats, "LatencyMicros");
      assertEquals(2L * queries, latency.get(new Object[] {"point.count"}).get("value"));
      long p50 = (Long) latency.get(new Object[] {"point.p50"}).get("value");
      long p99 = (Long) latency.get(new Object[] {"point.p99"}).get("value");
      assertTrue(p50 > 0 && p50 <= p99, "p50 " + p50 + " µs, p99 " + p99 + " µs");
    }
    assertTrue(jmx.queryNames(clientStats, null).isEmpty(), "unregistered at close");
    // HBase's adapter copies the registries to JMX every 10 s.
    long deadline = System.currentTimeMillis() + 60_000;
    Map<String, Object> a = scbfAttributes();
    while (!a.containsKey(
            ("scbfLookupUs_" + GLOBAL + "_num_ops").toLowerCase(java.util.Locale.ROOT))
        || number(a, "scbfLookupCalls_" + GLOBAL) < queries * BUCKETS) {
      assertTrue(System.currentTimeMillis() < deadline, "not on JMX: " + a.keySet());
      Thread.sleep(500);
      a = scbfAttributes();
    }
    assertTrue(number(a, "scbfLookupUs_" + GLOBAL + "_num_ops") >= queries * BUCKETS);
    // Percentiles and max are of the last export interval (HBase resets a histogram's bins at
    // each export): present, but zero when the interval saw no query.
    assertTrue(number(a, "scbfLookupUs_" + GLOBAL + "_99th_percentile") >= 0);
    // 10 rows per value over 4 buckets by row hash: some buckets lack some values.
    double emptyRatio = number(a, "scbfLookupEmptyRatio_" + GLOBAL);
    assertTrue(emptyRatio > 0 && emptyRatio < 1, "empty ratio " + emptyRatio);
    assertTrue(number(a, "scbfLookupCalls_" + LOCAL) >= queries); // 2 regions asked per query
    assertTrue(number(a, "scbfLookupUs_" + LOCAL + "_num_ops") >= queries);
    assertTrue(number(a, "scbfIndexWriteUs_jmx_num_ops") >= ROWS / 50);
    assertTrue(number(a, "scbfIndexWriteUs_jmx_max") >= 0);
    // Per global index: what the data writes waited for its rows (the local index has no call).
    assertTrue(number(a, "scbfIndexWaitCalls_" + GLOBAL) >= ROWS / 50);
    assertTrue(number(a, "scbfIndexWaitUs_" + GLOBAL + "_num_ops") >= ROWS / 50);
    assertFalse(a.containsKey(("scbfIndexWaitCalls_" + LOCAL).toLowerCase(java.util.Locale.ROOT)));
    for (String gauge :
        List.of("scbfCacheHitRatio", "scbfPublishLagMs", "scbfStaleIndexRowsRemoved")) {
      number(a, gauge);
    }
  }
}
