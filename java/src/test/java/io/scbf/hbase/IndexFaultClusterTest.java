package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.MiniHBaseCluster;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Faults on a two-region-server mini cluster, for a global and a local index side by side: index
 * and data regions moved, a region server aborted while writers are writing, the master restarted.
 * Right after each fault (while the master is unsure) and after the filters publish again, routed
 * and strict answers equal a full-scan oracle: no false negatives, no acknowledged write lost.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IndexFaultClusterTest {
  static final TableName TABLE = TableName.valueOf("faults");
  static final TableName LOCAL = TableName.valueOf("faults_local");
  static final List<TableName> TABLES = List.of(TABLE, LOCAL);
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final int BUCKETS = 6;

  HBaseTestingUtility util;
  Connection connection;
  final Random rnd = new Random(7);
  int nextRow;

  @BeforeAll
  void startCluster() throws Exception {
    util = MiniCluster.start(2);
    connection = util.getConnection();
    try (Admin admin = connection.getAdmin()) {
      for (TableName t : TABLES) {
        admin.createTable(
            TableDescriptorBuilder.newBuilder(t)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
                .build(),
            new byte[][] {Bytes.toBytes("r-1"), Bytes.toBytes("r-2"), Bytes.toBytes("r-3")});
      }
    }
    new IndexAdmin(connection)
        .createIndex(
            TABLE,
            IndexSpec.builder(D, CITY)
                .alias("city")
                .layout(IndexSpec.Layout.BY_ROW)
                .buckets(BUCKETS)
                .fpp(0.001)
                .build());
    new IndexAdmin(connection)
        .createIndex(LOCAL, IndexSpec.builder(D, CITY).alias("city").local().fpp(0.001).build());
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (util != null) util.shutdownMiniCluster();
  }

  /** The same new rows into both tables. */
  private void write(int rows) throws Exception {
    List<Put> puts = new ArrayList<>();
    synchronized (rnd) {
      for (int i = 0; i < rows; i++) {
        byte[] row = Bytes.toBytes(String.format("r-%d%05d", rnd.nextInt(4), nextRow++));
        puts.add(new Put(row).addColumn(D, CITY, Bytes.toBytes("c" + rnd.nextInt(25))));
      }
    }
    for (TableName name : TABLES) {
      try (Table t = connection.getTable(name)) {
        t.put(puts);
      }
    }
  }

  /** Routed and strict answers for every value (and an absent one) equal the oracle. */
  private void assertMatchesOracle(String when) throws Exception {
    assertMatchesOracle(when, new boolean[] {false, true});
  }

  /**
   * Routed queries may lag writes acknowledged within the last publication interval (the
   * consistency contract); strict ones may not.
   */
  private void assertMatchesOracle(String when, boolean[] modes) throws Exception {
    for (TableName table : TABLES) assertMatchesOracle(table, when + " (" + table + ")", modes);
  }

  private void assertMatchesOracle(TableName table, String when, boolean[] modes) throws Exception {
    Oracle oracle = new Oracle(connection, table, D, CITY);
    List<byte[]> probes = new ArrayList<>(oracle.values());
    probes.add(Bytes.toBytes("absent"));
    try (IndexedTable indexed = new IndexedTable(connection, table)) {
      for (boolean strict : modes) {
        indexed.setStrict(strict);
        for (byte[] v : probes) {
          assertEquals(
              oracle.rows(v),
              Oracle.strings(indexed.findRowKeys(D, CITY, v)),
              when
                  + (strict ? " strict " : " routed ")
                  + Bytes.toString(v)
                  + ": "
                  + indexed.lastTrace());
        }
      }
    }
  }

  private QueryTrace absentTrace(TableName table) throws Exception {
    try (IndexedTable indexed = new IndexedTable(connection, table)) {
      indexed.findRowKeys(D, CITY, Bytes.toBytes("absent"));
      return indexed.lastTrace();
    }
  }

  @Test
  void answersStayExactThroughMovesRegionServerAbortAndMasterRestart() throws Exception {
    write(300);
    Thread.sleep(2000);
    assertMatchesOracle("baseline");
    for (TableName table : TABLES) {
      assertEquals(
          0, absentTrace(table).regions().asked(), "published: an absent value asks no region");
    }

    // 1. Move every index region (and every data region with local entries) to the other server,
    // then check at once and after publishing.
    TableName indexTable = IndexCatalog.indexTableName(TABLE, "city");
    try (Admin admin = connection.getAdmin()) {
      List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
      for (TableName moved : List.of(indexTable, LOCAL)) {
        for (RegionInfo r : admin.getRegions(moved)) {
          ServerName current =
              connection
                  .getRegionLocator(moved)
                  .getRegionLocation(r.getStartKey(), true)
                  .getServerName();
          admin.move(
              r.getEncodedNameAsBytes(),
              servers.get(0).equals(current) ? servers.get(1) : servers.get(0));
        }
      }
    }
    assertMatchesOracle("right after moves");
    write(100);
    Thread.sleep(2000); // writes are found by routed queries once their buckets published
    assertMatchesOracle("after moves and writes, published");

    // 2. Abort a region server while a writer writes: its regions reopen on the survivor (the
    // local entries replayed from the WAL with their rows). Failed writes were not acknowledged;
    // every acknowledged one is in the data tables, which the oracle reads.
    MiniHBaseCluster cluster = util.getMiniHBaseCluster();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService writer = Executors.newSingleThreadExecutor();
    Future<Integer> writes =
        writer.submit(
            () -> {
              int ok = 0;
              while (!stop.get()) {
                try {
                  write(20);
                  ok++;
                } catch (IOException e) {
                  // not acknowledged: the oracle decides what the tables hold
                }
              }
              return ok;
            });
    Thread.sleep(500);
    cluster.abortRegionServer(0);
    cluster.waitOnRegionServer(0);
    util.waitUntilNoRegionsInTransition(120_000);
    util.waitTableAvailable(indexTable, 60_000);
    for (TableName table : TABLES) util.waitTableAvailable(table, 60_000);
    Thread.sleep(500);
    stop.set(true);
    assertTrue(writes.get(5, TimeUnit.MINUTES) > 0, "the writer wrote");
    writer.shutdown();
    // The writer's last writes may be younger than one publication: strict at once, then routed.
    assertMatchesOracle("right after abort, strict", new boolean[] {true});
    Thread.sleep(2000);
    assertMatchesOracle("after abort, published");
    write(100);
    Thread.sleep(2000);
    assertMatchesOracle("after abort and writes, published");
    for (TableName table : TABLES) assertEquals(0, absentTrace(table).regions().asked());

    // 3. Restart the master: the new master knows no filter, so every bucket is unsure. (A
    // replacement region server first: a starting master waits for the configured 2 servers.)
    MiniCluster.startRegionServer(util);
    cluster.waitForActiveAndReadyMaster(60_000);
    cluster.stopMaster(0);
    cluster.waitOnMaster(0);
    MiniCluster.startMaster(util);
    cluster.waitForActiveAndReadyMaster(120_000);
    assertMatchesOracle("right after master restart");
    write(50);
    Thread.sleep(2000);
    assertMatchesOracle("after master restart and writes, published");
    for (TableName table : TABLES) {
      QueryTrace t = absentTrace(table);
      assertTrue(t.routing().routed(), t.toString());
      assertEquals(0, t.regions().asked(), "routing restored once the filters published: " + t);
    }
  }
}
