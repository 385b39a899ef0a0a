package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.regionserver.IndexProbe;
import io.scbf.hbase.testing.Oracle;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.StartMiniClusterOption;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.ipc.DelegatingRpcScheduler;
import org.apache.hadoop.hbase.ipc.PhoenixRpcScheduler;
import org.apache.hadoop.hbase.ipc.RpcScheduler;
import org.apache.hadoop.hbase.regionserver.RSRpcServices;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Apache Phoenix 5.2.1 and scbf on one cluster, configured as an operator would: Phoenix's
 * hbase-site settings first (its RPC scheduler, controller factory and WAL codec), then {@link
 * Coprocessors#configure}, which keeps Phoenix's scheduler behind the index pool. One region server
 * with few general handlers holds both products' data and index regions (every index write comes
 * back to the server that waits for it, the deadlock-prone case both index pools exist for), and
 * writers of both products run at once, more of them than handlers. Both must finish without a
 * stall, and both indexes must then answer exactly as a full scan does.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PhoenixCoexistenceTest {
  static final int HANDLERS = 6;
  static final int WRITERS = 8; // per product
  static final int ROWS_PER_WRITER = 200;
  static final int BATCH = 20;
  static final int VALUES = 10;
  static final long DEADLINE_S = 180;
  static final TableName SCBF = TableName.valueOf("coexist_scbf");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");

  HBaseTestingUtility util;
  String url;

  @BeforeAll
  void start() throws Exception {
    util = new HBaseTestingUtility();
    Configuration conf = util.getConfiguration();
    // Phoenix's region-server settings, as its install guide puts them in hbase-site.xml.
    conf.set(
        RSRpcServices.REGION_SERVER_RPC_SCHEDULER_FACTORY_CLASS,
        "org.apache.hadoop.hbase.ipc.PhoenixRpcSchedulerFactory");
    conf.set(
        "hbase.rpc.controllerfactory.class",
        "org.apache.hadoop.hbase.ipc.controller.ServerRpcControllerFactory");
    conf.set(
        "hbase.regionserver.wal.codec",
        "org.apache.hadoop.hbase.regionserver.wal.IndexedWALEditCodec");
    Coprocessors.configure(conf);
    Coprocessors.trustInProcessRegionServers(conf);
    conf.setLong(Coprocessors.PUBLISH_INTERVAL_MS, 500);
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    conf.setInt("hbase.regionserver.handler.count", HANDLERS);
    util.startMiniCluster(
        StartMiniClusterOption.builder().numRegionServers(1).numDataNodes(1).build());
    url = "jdbc:phoenix:localhost:" + util.getZkCluster().getClientPort() + ":/hbase";
    try (java.sql.Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE P (K VARCHAR PRIMARY KEY, CITY VARCHAR, NAME VARCHAR)");
      st.execute("CREATE INDEX P_CITY ON P (CITY) INCLUDE (NAME)");
    }
    Connection hbase = util.getConnection();
    try (Admin admin = hbase.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(SCBF)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build());
    }
    new IndexAdmin(hbase)
        .createIndex(
            SCBF,
            IndexSpec.builder(D, CITY)
                .alias("city")
                .layout(IndexSpec.Layout.BY_ROW)
                .buckets(4)
                .build());
  }

  @AfterAll
  void stop() throws Exception {
    if (util != null) util.shutdownMiniCluster();
  }

  static String city(int writer, int i) {
    return "city-" + ((writer * 31 + i) % VALUES);
  }

  @Test
  void bothIndexesAnswerExactlyUnderConcurrentLoad() throws Exception {
    RpcScheduler scheduler =
        util.getMiniHBaseCluster().getRegionServer(0).getRpcServer().getScheduler();
    assertInstanceOf(DelegatingRpcScheduler.class, scheduler, "scbf's index pool in front");
    assertInstanceOf(
        PhoenixRpcScheduler.class,
        IndexProbe.behindIndexPool(scheduler),
        "Phoenix's scheduler kept behind it");
    long scbfIndexCallsBefore = IndexProbe.indexCalls(util);

    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    ExecutorService pool = Executors.newFixedThreadPool(2 * WRITERS);
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      pool.execute(
          () -> {
            try (java.sql.Connection c = DriverManager.getConnection(url);
                PreparedStatement upsert =
                    c.prepareStatement("UPSERT INTO P (K, CITY, NAME) VALUES (?, ?, ?)")) {
              c.setAutoCommit(false);
              for (int i = 0; i < ROWS_PER_WRITER; i++) {
                upsert.setString(1, String.format("p-%02d-%04d", writer, i));
                upsert.setString(2, city(writer, i));
                upsert.setString(3, "name-" + i);
                upsert.executeUpdate();
                if ((i + 1) % BATCH == 0) c.commit();
              }
              c.commit();
            } catch (Throwable e) {
              failures.add("phoenix writer " + writer + ": " + e);
            }
          });
      pool.execute(
          () -> {
            try (Table t = util.getConnection().getTable(SCBF)) {
              List<Put> batch = new ArrayList<>();
              for (int i = 0; i < ROWS_PER_WRITER; i++) {
                batch.add(
                    new Put(Bytes.toBytes(String.format("s-%02d-%04d", writer, i)))
                        .addColumn(D, CITY, Bytes.toBytes(city(writer, i))));
                if (batch.size() == BATCH) {
                  t.put(batch);
                  batch = new ArrayList<>();
                }
              }
              t.put(batch);
            } catch (Throwable e) {
              failures.add("scbf writer " + writer + ": " + e);
            }
          });
    }
    pool.shutdown();
    assertTrue(
        pool.awaitTermination(DEADLINE_S, TimeUnit.SECONDS),
        "writers stalled for " + DEADLINE_S + " s");
    assertEquals(List.of(), List.copyOf(failures));
    assertTrue(IndexProbe.indexCalls(util) > scbfIndexCallsBefore, "scbf's pool took its writes");

    // Phoenix: the covered index answers what a full scan of the data table answers.
    try (java.sql.Connection c = DriverManager.getConnection(url)) {
      for (int v = 0; v < VALUES; v++) {
        String value = "city-" + v;
        assertEquals(
            phoenixKeys(c, "SELECT /*+ NO_INDEX */ K FROM P WHERE CITY = ?", value),
            phoenixKeys(c, "SELECT /*+ INDEX(P P_CITY) */ K, NAME FROM P WHERE CITY = ?", value),
            value);
      }
      assertEquals(
          WRITERS * ROWS_PER_WRITER,
          phoenixKeys(c, "SELECT K FROM P WHERE CITY LIKE ?", "city-%").size());
    }
    // scbf: the index answers what a full scan answers, for every value.
    Oracle oracle = new Oracle(util.getConnection(), SCBF, D, CITY);
    assertEquals(
        WRITERS * ROWS_PER_WRITER,
        oracle.values().stream().mapToInt(v -> oracle.rows(v).size()).sum());
    try (IndexedTable t = new IndexedTable(util.getConnection(), SCBF).setStrict(true)) {
      for (byte[] v : oracle.values()) {
        assertEquals(oracle.rows(v), Oracle.strings(t.findRowKeys(D, CITY, v)));
      }
    }
  }

  static TreeSet<String> phoenixKeys(java.sql.Connection c, String sql, String value)
      throws Exception {
    TreeSet<String> keys = new TreeSet<>();
    try (PreparedStatement q = c.prepareStatement(sql)) {
      q.setString(1, value);
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) keys.add(rs.getString(1));
      }
    }
    return keys;
  }
}
