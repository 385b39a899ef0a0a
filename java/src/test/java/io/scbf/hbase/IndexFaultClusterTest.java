package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
 * Faults on a two-region-server mini cluster: index regions moved, a region server aborted, the
 * master restarted. Right after each fault (while the master is unsure) and after the buckets
 * publish again, routed and strict answers equal a full-scan oracle: no false negatives.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IndexFaultClusterTest {
  static final TableName TABLE = TableName.valueOf("faults");
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
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          new byte[][] {Bytes.toBytes("r-1"), Bytes.toBytes("r-2"), Bytes.toBytes("r-3")});
    }
    new IndexAdmin(connection)
        .createIndex(
            TABLE, IndexSpec.builder(D, CITY).alias("city").buckets(BUCKETS).fpp(0.001).build());
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (util != null) util.shutdownMiniCluster();
  }

  private void write(int rows) throws Exception {
    try (Table t = connection.getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        byte[] row = Bytes.toBytes(String.format("r-%d%04d", rnd.nextInt(4), nextRow++));
        puts.add(new Put(row).addColumn(D, CITY, Bytes.toBytes("c" + rnd.nextInt(25))));
      }
      t.put(puts);
    }
  }

  /** Routed and strict answers for every value (and an absent one) equal the oracle. */
  private void assertMatchesOracle(String when) throws Exception {
    Oracle oracle = new Oracle(connection, TABLE, D, CITY);
    List<byte[]> probes = new ArrayList<>(oracle.values());
    probes.add(Bytes.toBytes("absent"));
    try (IndexedTable indexed = new IndexedTable(connection, TABLE)) {
      for (boolean strict : new boolean[] {false, true}) {
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

  private QueryTrace absentTrace() throws Exception {
    try (IndexedTable indexed = new IndexedTable(connection, TABLE)) {
      indexed.findRowKeys(D, CITY, Bytes.toBytes("absent"));
      return indexed.lastTrace();
    }
  }

  @Test
  void answersStayExactThroughMovesRegionServerAbortAndMasterRestart() throws Exception {
    write(300);
    Thread.sleep(2000);
    assertMatchesOracle("baseline");
    assertEquals(0, absentTrace().bucketsAsked(), "published: an absent value asks no bucket");

    // 1. Move every index region to the other server, then check at once and after publishing.
    TableName indexTable = IndexCatalog.indexTableName(TABLE, "city");
    try (Admin admin = connection.getAdmin()) {
      List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
      for (RegionInfo r : admin.getRegions(indexTable)) {
        ServerName current =
            connection
                .getRegionLocator(indexTable)
                .getRegionLocation(r.getStartKey(), true)
                .getServerName();
        admin.move(
            r.getEncodedNameAsBytes(),
            servers.get(0).equals(current) ? servers.get(1) : servers.get(0));
      }
    }
    assertMatchesOracle("right after moves");
    write(100);
    Thread.sleep(2000); // writes are found by routed queries once their buckets published
    assertMatchesOracle("after moves and writes, published");

    // 2. Abort a region server: its regions reopen on the survivor.
    MiniHBaseCluster cluster = util.getMiniHBaseCluster();
    cluster.abortRegionServer(0);
    cluster.waitOnRegionServer(0);
    util.waitUntilNoRegionsInTransition(120_000);
    util.waitTableAvailable(indexTable, 60_000);
    util.waitTableAvailable(TABLE, 60_000);
    assertMatchesOracle("right after abort");
    write(100);
    Thread.sleep(2000);
    assertMatchesOracle("after abort and writes, published");
    assertEquals(0, absentTrace().bucketsAsked());

    // 3. Restart the master: the new master knows no filter, so every bucket is unsure. (A
    // replacement region server first: a starting master waits for the configured 2 servers.)
    cluster.startRegionServer();
    cluster.waitForActiveAndReadyMaster(60_000);
    cluster.stopMaster(0);
    cluster.waitOnMaster(0);
    cluster.startMaster();
    cluster.waitForActiveAndReadyMaster(120_000);
    assertMatchesOracle("right after master restart");
    write(50);
    Thread.sleep(2000);
    assertMatchesOracle("after master restart and writes, published");
    QueryTrace t = absentTrace();
    assertTrue(t.routed(), t.toString());
    assertEquals(0, t.bucketsAsked(), "routing restored once the buckets published: " + t);
  }
}
