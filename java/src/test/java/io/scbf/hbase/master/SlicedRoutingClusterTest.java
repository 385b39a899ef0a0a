package io.scbf.hbase.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.QueryTrace;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
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
 * The master's bit-sliced route on a real cluster: every index routed sliced ({@code
 * scbf.route.sliced.min.regions} 0) and every query routed by the master (the client keeps no
 * copy), through writes, a split of a data region and a move of a region to the other server: each
 * value's answer equals the rows written once the consistency contract's bound has passed, an
 * absent value asks no region, and the routes were the sliced ones.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SlicedRoutingClusterTest {
  static final TableName TABLE = TableName.valueOf("sliced");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city"); // local index
  static final byte[] ZIP = Bytes.toBytes("zip"); // global BY_ROW index

  HBaseTestingUtility util;
  int written;

  @BeforeAll
  void start() throws Exception {
    util =
        MiniCluster.start(
            2,
            conf -> {
              conf.setInt(Settings.ROUTE_SLICED_MIN_REGIONS, 0);
              conf.setLong(Settings.CLIENT_ROUTING_MAX_AGE_MS, 0);
            });
    try (Admin admin = util.getConnection().getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          new byte[][] {Bytes.toBytes("row-0250"), Bytes.toBytes("row-0500")});
    }
    IndexAdmin indexes = new IndexAdmin(util.getConnection());
    indexes.createIndex(TABLE, IndexSpec.builder(D, CITY).alias("city").local().build());
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, ZIP).alias("zip").layout(IndexSpec.Layout.BY_ROW).buckets(4).build());
  }

  @AfterAll
  void stop() throws Exception {
    if (util != null) util.shutdownMiniCluster();
  }

  void write(int rows) throws Exception {
    try (Table t = util.getConnection().getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = written; i < written + rows; i++) {
        puts.add(
            new Put(Bytes.toBytes(String.format("row-%04d", i)))
                .addColumn(D, CITY, Bytes.toBytes("c" + i % 40))
                .addColumn(D, ZIP, Bytes.toBytes("z" + i % 70)));
      }
      t.put(puts);
    }
    written += rows;
    MiniCluster.awaitRoutingBound(System.currentTimeMillis());
  }

  void everyValueAnswersAsWritten() throws Exception {
    try (IndexedTable t = new IndexedTable(util.getConnection(), TABLE)) {
      Oracle cities = new Oracle(util.getConnection(), TABLE, D, CITY);
      Oracle zips = new Oracle(util.getConnection(), TABLE, D, ZIP);
      for (int v = 0; v < 40; v++) {
        byte[] city = Bytes.toBytes("c" + v);
        assertEquals(cities.rows(city), Oracle.resultRows(t.find(D, CITY, city)), "c" + v);
      }
      for (int v = 0; v < 70; v++) {
        byte[] zip = Bytes.toBytes("z" + v);
        assertEquals(zips.rows(zip), Oracle.resultRows(t.find(D, ZIP, zip)), "z" + v);
      }
      for (byte[] column : new byte[][] {CITY, ZIP}) {
        assertTrue(t.find(D, column, Bytes.toBytes("absent")).isEmpty());
        QueryTrace trace = t.lastTrace();
        assertEquals(0, trace.regions().unsure(), trace.toString());
        assertTrue(trace.regions().asked() <= 1, trace.toString());
      }
    }
  }

  long slicedRoutes() {
    return util.getMiniHBaseCluster()
        .getMaster()
        .getMasterCoprocessorHost()
        .findCoprocessor(RoutingMasterEndpoint.class)
        .table()
        .slicedRoutesServed
        .get();
  }

  @Test
  void answersStayExactThroughWritesASplitAndAMove() throws Exception {
    long before = slicedRoutes();
    write(700);
    everyValueAnswersAsWritten();
    assertTrue(slicedRoutes() - before >= 110, "the routes were sliced");

    try (Admin admin = util.getConnection().getAdmin()) {
      admin.split(TABLE, Bytes.toBytes("row-0100"));
      util.waitFor(60_000, () -> admin.getRegions(TABLE).size() == 4);
    }
    write(300);
    everyValueAnswersAsWritten();

    try (Admin admin = util.getConnection().getAdmin()) {
      RegionInfo moved = admin.getRegions(TABLE).get(0);
      ServerName from =
          util.getMiniHBaseCluster().getServerHoldingRegion(TABLE, moved.getRegionName());
      ServerName to = null;
      for (ServerName s : admin.getRegionServers()) if (!s.equals(from)) to = s;
      admin.move(moved.getEncodedNameAsBytes(), to);
      ServerName target = to;
      util.waitFor(
          60_000,
          () ->
              target.equals(
                  util.getMiniHBaseCluster().getServerHoldingRegion(TABLE, moved.getRegionName())));
    }
    write(300);
    everyValueAnswersAsWritten();
  }
}
