package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.regionserver.IndexProbe;
import io.scbf.hbase.shared.proto.IndexProtos.HeldBitmap;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRoutingService;
import io.scbf.hbase.shared.proto.IndexProtos.RouteRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateRequest;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import io.scbf.hbase.testing.StandaloneClient;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.master.HMaster;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Routing off the query path (issue 12): warm queries route from the client's copy of the routing
 * bitmaps, an idle region server publishes keep-alives only, and with the master down queries still
 * answer every row (asking every bucket) and a new {@link IndexedTable} opens; once a new master
 * runs, region servers resend their bitmaps and queries route again. Both index modes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RoutingClusterTest {
  static final TableName TABLE = TableName.valueOf("routed");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] ZIP = Bytes.toBytes("zip");
  static final int ROWS = 400;
  static final int BUCKETS = 4;

  HBaseTestingUtility util;
  Connection client; // few retries: a query must not wait long for a dead master

  @BeforeAll
  void start() throws Exception {
    util = MiniCluster.start(2);
    try (Admin admin = util.getConnection().getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          new byte[][] {Bytes.toBytes("row-0200")});
    }
    IndexAdmin indexes = new IndexAdmin(util.getConnection());
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, CITY)
            .alias("city")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(BUCKETS)
            .build());
    indexes.createIndex(TABLE, IndexSpec.builder(D, ZIP).alias("zip").local().build());
    try (Table t = util.getConnection().getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < ROWS; i++) {
        puts.add(
            new Put(row(i))
                .addColumn(D, CITY, Bytes.toBytes("c" + i % 40))
                .addColumn(D, ZIP, Bytes.toBytes("z" + i % 40)));
      }
      t.put(puts);
    }
    Configuration conf = new Configuration(util.getConfiguration());
    conf.setInt("hbase.client.retries.number", 2);
    conf.setLong("hbase.client.pause", 100);
    conf.setInt("hbase.rpc.timeout", 3000);
    client = ConnectionFactory.createConnection(conf);
    Thread.sleep(3000); // a few publications
  }

  @AfterAll
  void stop() throws Exception {
    if (client != null) client.close();
    if (util != null) util.shutdownMiniCluster();
  }

  static byte[] row(int i) {
    return Bytes.toBytes(String.format("row-%04d", i));
  }

  static List<String> expected(int value) {
    List<String> rows = new ArrayList<>();
    for (int i = value; i < ROWS; i += 40) rows.add(Bytes.toString(row(i)));
    return rows;
  }

  void assertAnswers(IndexedTable t, int value) throws Exception {
    assertEquals(
        expected(value),
        Oracle.resultRows(t.find(D, CITY, Bytes.toBytes("c" + value))),
        "global, value " + value);
    assertEquals(
        expected(value),
        Oracle.resultRows(t.find(D, ZIP, Bytes.toBytes("z" + value))),
        "local, value " + value);
  }

  @Test
  @Order(1)
  void warmQueriesRouteWithoutTheMaster() throws Exception {
    try (IndexedTable t = new IndexedTable(client, TABLE)) {
      assertAnswers(t, 0);
      long before = t.routingMasterCalls();
      int queries = 0;
      for (int round = 0; round < 5; round++) {
        for (int v = 0; v < 40; v++) {
          assertAnswers(t, v);
          queries += 2;
        }
      }
      long calls = t.routingMasterCalls() - before;
      assertTrue(calls <= queries / 10, calls + " master calls for " + queries + " queries");
      t.find(D, CITY, Bytes.toBytes("absent"));
      assertTrue(t.lastTrace().routing().routed(), t.lastTrace().toString());
      assertTrue(t.lastTrace().regions().asked() < BUCKETS, t.lastTrace().toString());
    }
  }

  @Test
  @Order(2)
  void malformedRoutingRequestsGetAClearErrorAndTheMasterKeepsServing() throws Exception {
    try (Admin admin = client.getAdmin()) {
      IndexRoutingService.BlockingInterface master =
          IndexRoutingService.newBlockingStub(admin.coprocessorService());
      ServiceException state =
          assertThrows(
              ServiceException.class,
              () ->
                  master.routingState(
                      null,
                      RoutingStateRequest.newBuilder()
                          .setIndexTable("no such:table:name")
                          .addHeld(HeldBitmap.newBuilder().setEncodedRegion("x").setVersion(-7))
                          .build()));
      assertTrue(causes(state).contains("not a table name"), causes(state));
      ServiceException route =
          assertThrows(
              ServiceException.class,
              () ->
                  master.route(
                      null,
                      RouteRequest.newBuilder()
                          .setIndexTable("t")
                          .setRegionsOf("bad name")
                          .setFilterKey(ByteString.EMPTY)
                          .build()));
      assertTrue(causes(route).contains("not a table name"), causes(route));
    }
    try (IndexedTable t = new IndexedTable(client, TABLE)) {
      assertAnswers(t, 5);
      assertTrue(t.lastTrace().routing().routed(), t.lastTrace().toString());
    }
  }

  static String causes(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) out.append(t).append(" <- ");
    return out.toString();
  }

  /**
   * Issue 52: a client application in a JVM of its own whose native library cannot load (the
   * library is all the client uses natively: the routing copy's bitmaps) answers every query right,
   * and still routes: each routed query asks the master, and a value no region holds asks fewer
   * buckets than all.
   */
  @Test
  @Order(3)
  void aClientWithoutTheNativeLibraryAnswersAndRoutesByTheMaster() throws Exception {
    List<String> jvmOptions = new ArrayList<>();
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (a.startsWith("--add-opens") || a.startsWith("--add-exports")) jvmOptions.add(a);
    }
    jvmOptions.add("-Dscbf.native.path=/nonexistent/libscbfjni.so");
    List<Integer> values = List.of(0, 7, 39);
    List<String> queries = new ArrayList<>();
    for (int v : values) {
      queries.add("d:city=c" + v);
      queries.add("d:zip=z" + v);
    }
    queries.add("d:city=absent");
    StandaloneClient.Run run =
        StandaloneClient.run(
            util.getConfiguration(),
            jvmOptions,
            System.getProperty("java.class.path"),
            TABLE,
            queries);
    List<String> out = run.output().lines().toList();
    String all = run.output();
    assertEquals(0, run.status(), all);
    assertTrue(out.contains("native-loaded false"), all);
    assertTrue(all.contains("no native library in this client"), "the fallback is logged");
    for (int v : values) {
      assertTrue(
          all.contains("Q d:city=c" + v + " " + expected(v) + " "), "global, value " + v + all);
      assertTrue(all.contains("Q d:zip=z" + v + " " + expected(v) + " "), "local, value " + v);
    }
    String absent =
        out.stream().filter(l -> l.startsWith("Q d:city=absent [] ")).findFirst().orElse(all);
    assertFalse(absent.contains("not routed") || absent.contains("routing failed"), absent);
    Matcher asked = Pattern.compile("index regions asked (\\d+)/(\\d+)").matcher(absent);
    assertTrue(asked.find(), absent);
    assertTrue(Integer.parseInt(asked.group(1)) < BUCKETS, absent);
    long masterCalls =
        out.stream()
            .filter(l -> l.startsWith("master-calls "))
            .mapToLong(l -> Long.parseLong(l.substring("master-calls ".length())))
            .findFirst()
            .orElse(-1);
    assertTrue(masterCalls >= values.size() * 2 + 1, all);
  }

  @Test
  @Order(4)
  void anIdleServerSendsNoBitmaps() throws Exception {
    Thread.sleep(2000); // let the last writes' publications go out
    long before = publishedBytes();
    Thread.sleep(4000);
    long idle = publishedBytes() - before;
    // Keep-alives only (a few dozen bytes each, one per ~1.2 s per server); one bucket's bitmap
    // alone is several KB.
    assertTrue(idle < 1500, idle + " bytes published in 4 idle seconds");
  }

  long publishedBytes() {
    return IndexProbe.publishedBytes(util);
  }

  @Test
  @Order(5)
  void withTheMasterDownQueriesAnswerAndTablesOpen() throws Exception {
    IndexedTable warm = new IndexedTable(client, TABLE);
    assertAnswers(warm, 1);
    util.getMiniHBaseCluster().stopMaster(0);
    util.getMiniHBaseCluster().waitOnMaster(0);
    try (Table t = client.getTable(TABLE)) {
      t.put(new Put(row(ROWS)).addColumn(D, CITY, Bytes.toBytes("c-new")));
    }
    Thread.sleep(1500); // the client's copy is now too old to trust
    long start = System.nanoTime();
    for (int v = 0; v < 5; v++) assertAnswers(warm, v);
    assertEquals(
        List.of(Bytes.toString(row(ROWS))),
        Oracle.resultRows(warm.find(D, CITY, Bytes.toBytes("c-new"))));
    try (IndexedTable fresh = new IndexedTable(client, TABLE)) {
      assertAnswers(fresh, 7);
      assertTrue(fresh.lastTrace().routing().failed() || !fresh.lastTrace().routing().routed());
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertTrue(ms < 60_000, "queries with the master down took " + ms + " ms");

    HMaster master = MiniCluster.startMaster(util).getMaster();
    long deadline = System.currentTimeMillis() + 120_000;
    while (!master.isInitialized() && System.currentTimeMillis() < deadline) Thread.sleep(200);
    boolean routed = false;
    while (!routed && System.currentTimeMillis() < deadline) {
      Thread.sleep(500);
      warm.find(D, CITY, Bytes.toBytes("absent"));
      routed = warm.lastTrace().routing().routed() && warm.lastTrace().regions().asked() < BUCKETS;
    }
    assertTrue(routed, "routing back after the new master: " + warm.lastTrace());
    assertAnswers(warm, 3);
    warm.close();
  }
}
