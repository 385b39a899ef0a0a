package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.shared.EventualRecords;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.proto.IndexProtos.IndexLookupService;
import io.scbf.hbase.shared.proto.IndexProtos.LocalIndexService;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryResponse;
import io.scbf.hbase.shared.proto.IndexProtos.LookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RangeLookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RegionLookup;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateResponse;
import io.scbf.hbase.shared.proto.IndexProtos.ServerLookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.ServerLookupResponse;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Index reads are authorized like data reads (issue 13, defect 3). With HBase's AccessController on
 * and its default of no EXEC checks on endpoints, anyone could call the index endpoints before the
 * fix and read row keys and covered values of a table they may not read. Now a caller needs READ on
 * the indexed and covered columns (on the whole table for whole-row answers).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IndexAuthorizationClusterTest {
  static final TableName TABLE = TableName.valueOf("secret");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] X = Bytes.toBytes("x");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] NAME = Bytes.toBytes("name");
  static final byte[] AGE = Bytes.toBytes("age");
  static final byte[] NANJING = Bytes.toBytes("Nanjing");

  HBaseTestingUtility util;
  Connection admin;
  Connection alice; // READ on the table
  Connection carol; // READ on family x only
  Connection bob; // nothing
  long writesAckedAt;

  @BeforeAll
  void startCluster() throws Throwable {
    util =
        MiniCluster.start(
            1,
            conf -> {
              conf.setBoolean("hbase.security.authorization", true);
              // Superusers are static per JVM: whichever in-process server initialises them
              // last decides who the "current user" is, so name this process's user too.
              try {
                conf.setStrings("hbase.superuser", User.getCurrent().getShortName(), "@supergroup");
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
              MiniCluster.withAccessController(conf);
            });
    admin = util.getConnection();
    try (Admin a = admin.getAdmin()) {
      a.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(X))
              .build(),
          new byte[][] {Bytes.toBytes("row-0050")});
    }
    IndexAdmin indexes = new IndexAdmin(admin);
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, CITY)
            .alias("city")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(4)
            .covered(D, NAME)
            .build());
    indexes.createIndex(TABLE, IndexSpec.builder(D, AGE).alias("age").local().build());
    try (Table t = admin.getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        puts.add(
            new Put(Bytes.toBytes(String.format("row-%04d", i)))
                .addColumn(D, CITY, i % 3 == 0 ? NANJING : Bytes.toBytes("Suzhou"))
                .addColumn(D, NAME, Bytes.toBytes("name-" + i))
                .addColumn(D, AGE, Bytes.toBytes(i % 7)));
      }
      t.put(puts);
    }
    writesAckedAt = System.currentTimeMillis();
    AccessControlClient.grant(admin, TABLE, "alice", null, null, Permission.Action.READ);
    AccessControlClient.grant(admin, TABLE, "carol", X, null, Permission.Action.READ);
    Configuration conf = util.getConfiguration();
    alice = connect(conf, "alice");
    carol = connect(conf, "carol");
    bob = connect(conf, "bob");
  }

  static Connection connect(Configuration conf, String name) throws Exception {
    return ConnectionFactory.createConnection(
        conf, User.createUserForTesting(conf, name, new String[0]));
  }

  @AfterAll
  void stopCluster() throws Exception {
    for (Connection c : new Connection[] {alice, carol, bob}) if (c != null) c.close();
    if (util != null) util.shutdownMiniCluster();
  }

  /** Every bucket's lookup of Nanjing, called on the index endpoint directly. */
  static List<LookupResponse> lookupEveryBucket(Connection c) throws Exception {
    LookupRequest request =
        LookupRequest.newBuilder()
            .setAlias(ByteString.copyFromUtf8("city"))
            .setValue(ByteString.copyFrom(NANJING))
            .build();
    List<LookupResponse> out = new ArrayList<>();
    try (Table index = c.getTable(IndexCatalog.indexTableName(TABLE, "city"))) {
      for (byte[] start : new byte[][] {{}, {1}, {2}, {3}}) {
        out.add(
            IndexLookupService.newBlockingStub(index.coprocessorService(start))
                .lookup(null, request));
      }
    }
    return out;
  }

  /** One lookupMany of every bucket, sent to the first: the regions hosted there answer. */
  static ServerLookupResponse lookupManyAtFirstBucket(Connection c) throws Exception {
    ServerLookupRequest.Builder request =
        ServerLookupRequest.newBuilder()
            .setLookup(
                LookupRequest.newBuilder()
                    .setAlias(ByteString.copyFromUtf8("city"))
                    .setValue(ByteString.copyFrom(NANJING)));
    TableName index = IndexCatalog.indexTableName(TABLE, "city");
    try (Table t = c.getTable(index);
        RegionLocator locator = c.getRegionLocator(index)) {
      for (HRegionLocation l : locator.getAllRegionLocations()) {
        request.addEncodedRegions(l.getRegion().getEncodedName());
      }
      return IndexLookupService.newBlockingStub(t.coprocessorService(new byte[0]))
          .lookupMany(null, request.build());
    }
  }

  static LookupResponse rangeOfFirstBucket(Connection c) throws Exception {
    try (Table index = c.getTable(IndexCatalog.indexTableName(TABLE, "city"))) {
      return IndexLookupService.newBlockingStub(index.coprocessorService(new byte[0]))
          .rangeLookup(
              null,
              RangeLookupRequest.newBuilder().setAlias(ByteString.copyFromUtf8("city")).build());
    }
  }

  static LocalQueryResponse localQuery(Connection c, LocalQueryRequest.Answer answer)
      throws Exception {
    try (Table t = c.getTable(TABLE)) {
      return LocalIndexService.newBlockingStub(t.coprocessorService(new byte[0]))
          .query(
              null,
              LocalQueryRequest.newBuilder()
                  .setAlias(ByteString.copyFromUtf8("age"))
                  .setValue(ByteString.copyFrom(Bytes.toBytes(3)))
                  .setAnswer(answer)
                  .build());
    }
  }

  static RoutingStateResponse relayedRoutingState(Connection c, RoutingStateRequest request)
      throws Exception {
    try (Table t = c.getTable(TABLE)) {
      return LocalIndexService.newBlockingStub(t.coprocessorService(new byte[0]))
          .routingState(null, request);
    }
  }

  static void assertDenied(Executable call) {
    ServiceException e = assertThrows(ServiceException.class, call::run);
    String text = String.valueOf(e.getMessage()) + " / " + e.getCause();
    assertTrue(text.contains("may not read index"), text);
  }

  interface Executable {
    void run() throws Exception;
  }

  /**
   * Even a user granted WRITE on an index table cannot change a built index: a delete would hide
   * rows from queries. Only region servers (superusers) write it, and backfills while building.
   */
  @Test
  void clientsCannotWriteABuiltIndexEvenWithWriteOnIt() throws Throwable {
    TableName index = IndexCatalog.indexTableName(TABLE, "city");
    AccessControlClient.grant(
        admin, index, "dave", null, null, Permission.Action.READ, Permission.Action.WRITE);
    byte[] row = Bytes.toBytes("row-0003"); // a Nanjing row
    byte[] key =
        IndexKeyCodec.rowKey(IndexKeyCodec.bucket(row, 4), Bytes.toBytes("city"), NANJING, row);
    try (Connection dave = connect(util.getConfiguration(), "dave");
        Table t = dave.getTable(index)) {
      for (Executable write :
          List.<Executable>of(
              () -> t.delete(new Delete(key)),
              () ->
                  t.put(
                      new Put(IndexKeyCodec.rowKey(0, Bytes.toBytes("city"), NANJING, row))
                          .addColumn(
                              IndexCatalog.INDEX_FAMILY,
                              IndexCatalog.INDEX_QUALIFIER,
                              new byte[0])))) {
        IOException e = assertThrows(IOException.class, write::run);
        String text = String.valueOf(e.getMessage()) + " / " + e.getCause();
        assertTrue(text.contains("only region servers (HBase superusers) may write"), text);
        assertTrue(text.contains("IndexAdmin.repair"), text);
      }
    }
    try (Table t = admin.getTable(index)) {
      assertTrue(t.exists(new Get(key)), "the index row is still there");
    }
  }

  /**
   * Issue 49: a writer with the grants the user guide names for EVENTUAL indexes (READ and WRITE on
   * the data table and on the record table) awaits its writes and finds them, without global ADMIN.
   */
  @Test
  void aWriterWithReadAndWriteAwaitsAnEventualIndex() throws Throwable {
    TableName table = TableName.valueOf("secret_eventual");
    try (Admin a = admin.getAdmin()) {
      a.createTable(
          TableDescriptorBuilder.newBuilder(table)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build());
    }
    new IndexAdmin(admin)
        .createIndex(
            table,
            IndexSpec.builder(D, CITY)
                .alias("city")
                .consistency(IndexSpec.Consistency.EVENTUAL)
                .build());
    for (TableName t : List.of(table, EventualRecords.TABLE)) {
      AccessControlClient.grant(
          admin, t, "dave", null, null, Permission.Action.READ, Permission.Action.WRITE);
    }
    try (Connection dave = connect(util.getConfiguration(), "dave");
        Table t = dave.getTable(table);
        IndexedTable it = new IndexedTable(dave, table)) {
      t.put(new Put(Bytes.toBytes("r1")).addColumn(D, CITY, NANJING));
      assertTrue(it.awaitIndexed(60_000));
      assertEquals(1, it.findRowKeys(D, CITY, NANJING).size());
    }
    // The relay answers readers of the table only.
    assertThrows(
        AccessDeniedException.class, () -> new IndexAdmin(bob).awaitIndexed(table, 10_000));
  }

  @Test
  void callersWithoutReadOnTheIndexedColumnsAreRefused() {
    for (Connection c : List.of(bob, carol)) {
      assertDenied(() -> lookupEveryBucket(c));
      assertDenied(() -> lookupManyAtFirstBucket(c));
      assertDenied(() -> rangeOfFirstBucket(c));
      assertDenied(() -> localQuery(c, LocalQueryRequest.Answer.KEYS));
      assertDenied(() -> localQuery(c, LocalQueryRequest.Answer.ROWS));
    }
  }

  @Test
  void readersOfTheTableGetFullAnswers() throws Exception {
    int hits = 0;
    for (LookupResponse r : lookupEveryBucket(alice)) hits += r.getHitsCount();
    Oracle oracle = new Oracle(admin, TABLE, D, CITY);
    assertEquals(oracle.rows(NANJING).size(), hits);
    assertTrue(rangeOfFirstBucket(alice).getHitsCount() > 0);
    int manyHits = 0;
    for (RegionLookup r : lookupManyAtFirstBucket(alice).getRegionsList()) {
      if (r.hasAnswer()) manyHits += r.getAnswer().getHitsCount();
    }
    assertTrue(manyHits > 0, "the regions hosted with the first bucket answered");
    assertTrue(localQuery(alice, LocalQueryRequest.Answer.ROWS).getRowsCount() > 0);
    // The table's own superuser, for comparison, sees the same.
    int adminHits = 0;
    for (LookupResponse r : lookupEveryBucket(admin)) adminHits += r.getHitsCount();
    assertEquals(hits, adminHits);
  }

  /**
   * Defect 9, first half: HBase gives a table's descriptor only to CREATE or ADMIN, so a reader
   * could not open IndexedTable. Routing is a master endpoint call, which HBase allows only to
   * global ADMIN: a reader's queries ask every bucket (complete, counted in routingFailures).
   */
  @Test
  void aReaderWithOnlyReadQueriesThroughIndexedTable() throws Exception {
    byte[] three = Bytes.toBytes(3);
    // Both indexes route by published bitmaps (BY_ROW, local): rows are promised to another
    // client's routed query once the contract's bound has passed, not at once.
    MiniCluster.awaitRoutingBound(writesAckedAt);
    try (IndexedTable t = new IndexedTable(alice, TABLE)) {
      assertEquals(
          new Oracle(admin, TABLE, D, CITY).rows(NANJING),
          Oracle.resultRows(t.find(D, CITY, NANJING)));
      assertEquals(
          new Oracle(admin, TABLE, D, AGE).rows(three), Oracle.resultRows(t.find(D, AGE, three)));
      // Routed, although the master refuses her its endpoint (no global ADMIN): a data region
      // relays the routing state, so an absent value asks no bucket and no region.
      for (byte[][] column : new byte[][][] {{D, CITY}, {D, AGE}}) {
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
          assertTrue(t.find(column[0], column[1], Bytes.toBytes("absent")).isEmpty());
          QueryTrace trace = t.lastTrace();
          if (trace.regions().unsure() == 0) {
            assertTrue(trace.regions().asked() <= 1, trace.toString());
            break;
          }
          assertTrue(System.currentTimeMillis() < deadline, "never routed: " + trace);
          Thread.sleep(200);
        }
      }
    }
    // The relay answers only about this table's indexes, and only to readers of their columns.
    RoutingStateRequest city =
        RoutingStateRequest.newBuilder()
            .setIndexTable(IndexCatalog.indexTableName(TABLE, "city").getNameAsString())
            .build();
    assertDenied(() -> relayedRoutingState(carol, city));
    ServiceException other =
        assertThrows(
            ServiceException.class,
            () ->
                relayedRoutingState(
                    alice, RoutingStateRequest.newBuilder().setIndexTable("hbase:meta").build()));
    String text = other.getMessage() + " / " + other.getCause();
    assertTrue(text.contains("has no index hbase:meta"), text);
    assertEquals(4, relayedRoutingState(alice, city).getRegionsCount());
    assertThrows(
        org.apache.hadoop.hbase.security.AccessDeniedException.class,
        () -> new IndexedTable(bob, TABLE).close());
  }
}
