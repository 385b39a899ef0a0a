package io.scbf.hbase.regionserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.scbf.hbase.Coprocessors;
import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.proto.IndexProtos.LookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.MiniHBaseCluster;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.ipc.ServerRpcController;
import org.apache.hadoop.hbase.metrics.Gauge;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.JVMClusterUtil.RegionServerThread;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * A table attribute is input from any user with CREATE or ALTER. Before the fix, one malformed
 * {@code scbf.index.*} attribute, or a spec with an absurd capacity, made the coprocessors' start
 * throw and every region server that opened the table abort. The cluster first runs without the
 * master's {@code IndexDescriptorValidator} (a descriptor written before it was deployed), so bad
 * attributes reach the region servers; then the master restarts with it and must reject them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES) // an aborted server makes createTable wait forever
class BadIndexSpecClusterTest {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] NAME = Bytes.toBytes("name");
  static final String MASTER_COPROCESSORS = "hbase.coprocessor.master.classes";
  static final long PUBLISH_WAIT_MS = 2000; // 4 publish intervals of 500 ms

  /** A spec that decoded before the fix: 2^32 keys per bucket (tens of GiB of filter). */
  static final String HUGE_SPEC =
      IndexSpec.builder(D, NAME)
          .alias("huge")
          .layout(IndexSpec.Layout.BY_ROW)
          .buckets(1)
          .build()
          .encode()
          .replace("capacity=" + IndexSpec.DEFAULT_INITIAL_CAPACITY, "capacity=4294967296");

  HBaseTestingUtility util;
  Connection connection;

  @BeforeAll
  void startClusterWithoutTheValidator() throws Exception {
    util = MiniCluster.start(1, conf -> conf.set(MASTER_COPROCESSORS, routingEndpointOnly()));
    connection = util.getConnection();
  }

  private static String routingEndpointOnly() {
    return "io.scbf.hbase.master.RoutingMasterEndpoint";
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (util != null) util.shutdownMiniCluster();
  }

  @Test
  @Order(1)
  void badAttributesDisableTheirIndexAndTheServerKeepsServing() throws Exception {
    TableName table = TableName.valueOf("bad_attrs");
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(table)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .setValue(IndexCatalog.DATA_ATTR_PREFIX + "broken", "v1;not a spec")
              .setValue(IndexCatalog.DATA_ATTR_PREFIX + "huge", HUGE_SPEC)
              .build(),
          new byte[][] {Bytes.toBytes("m")});
      // An index table whose own spec asks for a filter no server can build.
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TableName.valueOf("evil__idx_huge"))
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(IndexCatalog.INDEX_FAMILY))
              .setValue(IndexCatalog.INDEX_SPEC_ATTR, HUGE_SPEC)
              .setValue(IndexCatalog.INDEX_DATA_TABLE_ATTR, "evil")
              .build());
    }
    // The valid index beside the bad attributes is created, maintained and queried as usual.
    new IndexAdmin(connection)
        .createIndex(
            table,
            IndexSpec.builder(D, CITY)
                .alias("city")
                .layout(IndexSpec.Layout.BY_ROW)
                .buckets(2)
                .build());
    List<byte[]> suzhou = new ArrayList<>();
    try (Table t = connection.getTable(table)) {
      for (int i = 0; i < 40; i++) {
        byte[] row = Bytes.toBytes(String.format("%c-%02d", i % 2 == 0 ? 'a' : 'z', i));
        String city = i % 4 == 0 ? "Suzhou" : "Hangzhou";
        t.put(new Put(row).addColumn(D, CITY, Bytes.toBytes(city)).addColumn(D, NAME, row));
        if (city.equals("Suzhou")) suzhou.add(row);
      }
    }
    Thread.sleep(PUBLISH_WAIT_MS); // routed queries see writes once their buckets publish
    try (IndexedTable indexed = new IndexedTable(connection, table)) {
      assertEquals(List.of("city"), indexed.indexes().stream().map(IndexSpec::alias).toList());
      assertEquals(
          Oracle.strings(suzhou),
          Oracle.strings(indexed.findRowKeys(D, CITY, Bytes.toBytes("Suzhou"))));
      IllegalArgumentException disabled =
          assertThrows(
              IllegalArgumentException.class,
              () -> indexed.findRowKeys(D, NAME, Bytes.toBytes("a-00")));
      assertTrue(
          disabled.getMessage().contains("scbf.index.huge")
              && disabled.getMessage().contains("initialCapacity must be in [1, 2^24]"),
          disabled.getMessage());
    }

    HRegionServer rs = onlyRegionServer();
    assertFalse(rs.isAborted() || rs.isStopped(), "the region server keeps serving");
    // Two data regions with two bad attributes each, and the index region that cannot build.
    assertEquals(5L, disabledIndexes());

    HRegion evil =
        util.getMiniHBaseCluster().getRegions(TableName.valueOf("evil__idx_huge")).get(0);
    IndexRegionCoprocessor cp =
        evil.getCoprocessorHost().findCoprocessor(IndexRegionCoprocessor.class);
    assertNull(cp.indexRegion(), "no filter was built");
    ServerRpcController controller = new ServerRpcController();
    AtomicReference<LookupResponse> answer = new AtomicReference<>();
    cp.lookup(
        controller,
        LookupRequest.newBuilder()
            .setAlias(ByteString.copyFromUtf8("huge"))
            .setValue(ByteString.copyFromUtf8("x"))
            .build(),
        answer::set);
    assertNull(answer.get());
    IOException failure = controller.getFailedOn();
    assertTrue(
        failure instanceof DoNotRetryIOException
            && failure.getMessage().contains("is disabled")
            && failure.getMessage().contains("initialCapacity"),
        String.valueOf(failure));

    // dropIndex removes an attribute that does not decode; the region reopens without it.
    new IndexAdmin(connection).dropIndex(table, "broken");
    try (Admin admin = connection.getAdmin()) {
      assertNull(admin.getDescriptor(table).getValue(IndexCatalog.DATA_ATTR_PREFIX + "broken"));
    }
    assertEquals(3L, disabledIndexes());
  }

  @Test
  @Order(2)
  void theValidatorRejectsBadDescriptorsWithTheAttributeNamed() throws Exception {
    MiniHBaseCluster cluster = util.getMiniHBaseCluster();
    cluster.getConf().set(MASTER_COPROCESSORS, routingEndpointOnly());
    Coprocessors.configure(cluster.getConf()); // adds the validator
    cluster.stopMaster(0);
    cluster.waitOnMaster(0);
    MiniCluster.startMaster(util);
    cluster.waitForActiveAndReadyMaster(120_000);

    TableName table = TableName.valueOf("validated");
    try (Admin admin = connection.getAdmin()) {
      TableDescriptor plain =
          TableDescriptorBuilder.newBuilder(table)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build();
      admin.createTable(plain);
      assertRejected(
          () ->
              admin.modifyTable(
                  TableDescriptorBuilder.newBuilder(plain)
                      .setValue(IndexCatalog.DATA_ATTR_PREFIX + "x", "v1;family=zz")
                      .build()),
          "attribute scbf.index.x is not a valid index spec");
      assertRejected(
          () ->
              admin.modifyTable(
                  TableDescriptorBuilder.newBuilder(plain)
                      .setValue(IndexCatalog.DATA_ATTR_PREFIX + "huge", HUGE_SPEC)
                      .build()),
          "initialCapacity must be in [1, 2^24]");
      assertRejected(
          () ->
              admin.modifyTable(
                  TableDescriptorBuilder.newBuilder(plain)
                      .setValue(
                          IndexCatalog.DATA_ATTR_PREFIX + "other",
                          IndexSpec.builder(D, CITY).alias("city").build().encode())
                      .build()),
          "holds the spec of index 'city'");
      assertRejected(
          () ->
              admin.createTable(
                  TableDescriptorBuilder.newBuilder(TableName.valueOf("validated_idx"))
                      .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
                      .setValue(IndexCatalog.INDEX_SPEC_ATTR, "v2")
                      .build()),
          "attribute scbf.index-table.spec is not a valid index spec");
      assertFalse(admin.tableExists(TableName.valueOf("validated_idx")));
      assertTrue(
          admin.getDescriptor(table).getValues().keySet().stream()
              .noneMatch(k -> Bytes.toString(k.get()).startsWith("scbf.")),
          "no scbf attribute was stored");

      // The valid path still works, and removing a family an index uses is refused.
      new IndexAdmin(connection)
          .createIndex(
              table,
              IndexSpec.builder(D, CITY)
                  .alias("city")
                  .layout(IndexSpec.Layout.BY_ROW)
                  .buckets(1)
                  .build());
      assertRejected(
          () ->
              admin.modifyTable(
                  TableDescriptorBuilder.newBuilder(admin.getDescriptor(table))
                      .removeColumnFamily(D)
                      .setColumnFamily(ColumnFamilyDescriptorBuilder.of(NAME))
                      .build()),
          "index 'city' uses column d:city, whose family is absent");
    }
    assertFalse(onlyRegionServer().isAborted(), "the region server keeps serving");
  }

  private static void assertRejected(Executable call, String expected) {
    DoNotRetryIOException e = assertThrows(DoNotRetryIOException.class, call);
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  private HRegionServer onlyRegionServer() {
    List<RegionServerThread> live = util.getMiniHBaseCluster().getLiveRegionServerThreads();
    assertEquals(1, live.size(), "live region servers");
    return live.get(0).getRegionServer();
  }

  private static long disabledIndexes() {
    for (MetricRegistry r : MetricRegistries.global().getMetricRegistries()) {
      var metric = r.get("scbfDisabledIndexes");
      if (metric.isPresent()) return ((Number) ((Gauge<?>) metric.get()).getValue()).longValue();
    }
    throw new AssertionError("no registry holds scbfDisabledIndexes");
  }
}
