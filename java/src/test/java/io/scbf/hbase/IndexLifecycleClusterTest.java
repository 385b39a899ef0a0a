package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexPlacement;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotEnabledException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.tool.BulkLoadHFiles;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A global index follows its data table through the master's table operations (issue 13, defects 4
 * and 5): before the fix, bulk-loaded HFiles, a restored snapshot and a createIndex on a disabled
 * table left indexes that missed rows; deleteTable left the index table behind for the next table
 * of that name; truncateTable left stale index rows; a cloned table could not be written. Every
 * answer is checked against a full scan of the data table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class IndexLifecycleClusterTest {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] X = Bytes.toBytes("x");
  static final byte[] CITY = Bytes.toBytes("city");
  static final long PUBLISH_WAIT_MS = 2000; // 4 publish intervals of 500 ms

  HBaseTestingUtility util;
  Connection connection;
  IndexAdmin indexes;

  @BeforeAll
  void startCluster() throws Exception {
    // These tests check which path answers (the index, or the scan of a building index); the
    // planner would scan their small, skewed tables anyway.
    util = MiniCluster.start(1, conf -> conf.set(Settings.PLANNER, "index"));
    connection = util.getConnection();
    indexes = new IndexAdmin(connection);
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (util != null) util.shutdownMiniCluster();
  }

  static byte[] row(int i) {
    return Bytes.toBytes(String.format("row-%04d", i));
  }

  static byte[] city(String name) {
    return Bytes.toBytes("city-" + name);
  }

  TableName createTable(String name) throws IOException {
    TableName t = TableName.valueOf(name);
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(t)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(X))
              .build(),
          new byte[][] {Bytes.toBytes("row-0010"), Bytes.toBytes("row-0020")});
    }
    return t;
  }

  static IndexSpec citySpec() {
    return IndexSpec.builder(D, CITY)
        .alias("city")
        .layout(IndexSpec.Layout.BY_ROW)
        .buckets(4)
        .build();
  }

  void write(TableName t, int from, int to, String cityName) throws IOException {
    try (Table table = connection.getTable(t)) {
      List<Put> puts = new ArrayList<>();
      for (int i = from; i < to; i++) puts.add(new Put(row(i)).addColumn(D, CITY, city(cityName)));
      table.put(puts);
    }
  }

  /** Every value's rows, by find, findRowKeys and an unbounded range, against the scan oracle. */
  void assertQueriesMatchTheScan(TableName t, String... cityNames) throws IOException {
    Oracle oracle = new Oracle(connection, t, D, CITY);
    try (IndexedTable indexed = new IndexedTable(connection, t)) {
      for (String name : cityNames) {
        byte[] v = city(name);
        assertEquals(oracle.rows(v), Oracle.resultRows(indexed.find(D, CITY, v)), name);
        List<String> keys = Oracle.strings(indexed.findRowKeys(D, CITY, v));
        assertTrue(keys.containsAll(oracle.rows(v)), name + ": index keys miss rows");
        assertEquals(
            oracle.rows(v), Oracle.resultRows(indexed.setStrict(true).find(D, CITY, v)), name);
        indexed.setStrict(false);
      }
      assertEquals(oracle.range(null, null), Oracle.resultRows(indexed.range(D, CITY, null, null)));
    }
  }

  String lastQueryKind(TableName t, String cityName) throws IOException {
    try (IndexedTable indexed = new IndexedTable(connection, t)) {
      indexed.find(D, CITY, city(cityName));
      return indexed.lastTrace().kind();
    }
  }

  long indexRows(TableName t) throws IOException {
    long n = 0;
    try (Table index = connection.getTable(IndexCatalog.indexTableName(t, "city"));
        ResultScanner s = index.getScanner(new Scan())) {
      while (s.next() != null) n++;
    }
    return n;
  }

  void awaitBuilt(TableName t) throws Exception {
    long deadline = System.currentTimeMillis() + 60_000;
    while (indexes.isBuilding(t, "city")) {
      assertTrue(System.currentTimeMillis() < deadline, "index of " + t + " still building");
      Thread.sleep(200);
    }
  }

  @Test
  @Order(1)
  void createIndexOnADisabledTableIsRefusedAndDefinesNothing() throws Exception {
    TableName t = createTable("lc_disabled");
    write(t, 0, 30, "a");
    try (Admin admin = connection.getAdmin()) {
      admin.disableTable(t);
      TableNotEnabledException e =
          assertThrows(TableNotEnabledException.class, () -> indexes.createIndex(t, citySpec()));
      assertTrue(e.getMessage().contains("enable it first"), e.getMessage());
      assertTrue(indexes.listIndexes(t).isEmpty());
      assertFalse(admin.tableExists(IndexCatalog.indexTableName(t, "city")));
      admin.enableTable(t);
    }
    indexes.createIndex(t, citySpec());
    assertFalse(indexes.isBuilding(t, "city"));
    Thread.sleep(PUBLISH_WAIT_MS);
    assertQueriesMatchTheScan(t, "a", "b");
  }

  @Test
  @Order(2)
  void anIndexLeftBuildingIsAnsweredByScansUntilRebuilt() throws Exception {
    TableName t = createTable("lc_defined");
    write(t, 0, 30, "a");
    indexes.defineIndex(t, citySpec()); // what a createIndex that failed in its backfill leaves
    assertTrue(indexes.isBuilding(t, "city"));
    write(t, 30, 35, "b");
    Thread.sleep(PUBLISH_WAIT_MS);
    assertQueriesMatchTheScan(t, "a", "b");
    assertTrue(lastQueryKind(t, "a").contains("scan"), lastQueryKind(t, "a"));
    indexes.rebuildIndex(t, "city");
    assertFalse(indexes.isBuilding(t, "city"));
    Thread.sleep(PUBLISH_WAIT_MS);
    assertQueriesMatchTheScan(t, "a", "b");
    assertEquals("point", lastQueryKind(t, "a"));
  }

  @Test
  @Order(3)
  void bulkLoadsIntoAWatchedFamilyAreRefusedAndOthersLoad() throws Exception {
    TableName t = createTable("lc_bulk");
    indexes.createIndex(t, citySpec());
    Configuration conf = util.getConfiguration();
    FileSystem fs = FileSystem.get(conf);
    Path dir = util.getDataTestDirOnTestFS("lc_bulk_hfiles");

    Map<byte[], List<Path>> watched = new TreeMap<>(Bytes.BYTES_COMPARATOR);
    watched.put(D, List.of(hfile(fs, new Path(dir, "d1"), D, CITY, city("bulk"))));
    IOException e =
        assertThrows(IOException.class, () -> BulkLoadHFiles.create(conf).bulkLoad(t, watched));
    assertTrue(messages(e).contains("bulk load into lc_bulk refused"), messages(e));
    try (Table table = connection.getTable(t)) {
      assertTrue(table.get(new Get(row(5))).isEmpty(), "nothing of the refused load is visible");
    }

    Map<byte[], List<Path>> unwatched = new TreeMap<>(Bytes.BYTES_COMPARATOR);
    unwatched.put(X, List.of(hfile(fs, new Path(dir, "x1"), X, CITY, city("bulk"))));
    BulkLoadHFiles.create(conf).bulkLoad(t, unwatched);
    try (Table table = connection.getTable(t)) {
      assertNotNull(table.get(new Get(row(5))).getValue(X, CITY));
    }
    Thread.sleep(PUBLISH_WAIT_MS);
    assertQueriesMatchTheScan(t, "bulk");
  }

  /** One HFile with rows 0..9 holding {@code family:qualifier = value}. */
  static Path hfile(FileSystem fs, Path path, byte[] family, byte[] qualifier, byte[] value)
      throws IOException {
    try (HFile.Writer w =
        HFile.getWriterFactory(fs.getConf(), CacheConfig.DISABLED)
            .withPath(fs, path)
            .withFileContext(new HFileContextBuilder().build())
            .create()) {
      for (int i = 0; i < 10; i++) {
        w.append(new KeyValue(row(i), family, qualifier, 1L, value));
      }
    }
    return path;
  }

  static String messages(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = e; c != null; c = c.getCause()) b.append(c.getMessage()).append(" | ");
    return b.toString();
  }

  @Test
  @Order(4)
  void deleteTableDeletesItsIndexAndACopiedDescriptorGetsAnEmptyOne() throws Exception {
    TableName t = createTable("lc_delete");
    indexes.createIndex(t, citySpec());
    write(t, 0, 30, "old");
    TableName index = IndexCatalog.indexTableName(t, "city");
    TableDescriptor copied;
    try (Admin admin = connection.getAdmin()) {
      copied = admin.getDescriptor(t);
      admin.disableTable(t);
      admin.deleteTable(t);
      assertFalse(admin.tableExists(index), "index table deleted with its data table");
      // The next table of that name, created from the copied descriptor, has its own index.
      admin.createTable(copied);
      assertTrue(admin.tableExists(index));
    }
    assertFalse(indexes.isBuilding(t, "city"));
    assertEquals(0, indexRows(t), "no index row of the deleted table");
    write(t, 0, 12, "new");
    Thread.sleep(PUBLISH_WAIT_MS);
    assertQueriesMatchTheScan(t, "new", "old");
    assertEquals(12, indexRows(t));
  }

  @Test
  @Order(5)
  void truncateEmptiesTheIndexAndLaterWritesAreFound() throws Exception {
    TableName t = createTable("lc_truncate");
    indexes.createIndex(t, citySpec());
    write(t, 0, 30, "old");
    try (Admin admin = connection.getAdmin()) {
      admin.disableTable(t);
      admin.truncateTable(t, true);
      assertTrue(admin.isTableEnabled(IndexCatalog.indexTableName(t, "city")));
    }
    assertEquals(0, indexRows(t), "no stale index rows");
    awaitBuilt(t);
    write(t, 3, 9, "new");
    Thread.sleep(PUBLISH_WAIT_MS);
    assertQueriesMatchTheScan(t, "new", "old");
    assertEquals(6, indexRows(t));
  }

  @Test
  @Order(6)
  void restoreAndCloneOfASnapshotAreAnsweredCompletelyThenRebuilt() throws Exception {
    TableName t = createTable("lc_snap");
    indexes.createIndex(t, citySpec());
    write(t, 0, 30, "a");
    write(t, 30, 40, "b");
    try (Admin admin = connection.getAdmin()) {
      admin.snapshot("lc_snap_1", t);
    }
    // After the snapshot: values change, rows go, rows come.
    write(t, 0, 10, "c");
    try (Table table = connection.getTable(t)) {
      for (int i = 30; i < 35; i++) table.delete(new Delete(row(i)));
    }
    write(t, 40, 45, "a");

    TableName clone = TableName.valueOf("lc_snap_clone");
    try (Admin admin = connection.getAdmin()) {
      admin.disableTable(t);
      admin.restoreSnapshot("lc_snap_1");
      admin.enableTable(t);
      admin.cloneSnapshot("lc_snap_1", clone);
    }
    for (TableName restored : List.of(t, clone)) {
      assertQueriesMatchTheScan(restored, "a", "b", "c");
      assertTrue(indexes.isBuilding(restored, "city"), restored + " building");
      write(restored, 50, 55, "d"); // writable, and indexed while building
      assertQueriesMatchTheScan(restored, "a", "d");
      indexes.rebuildIndex(restored, "city");
      Thread.sleep(PUBLISH_WAIT_MS);
      assertQueriesMatchTheScan(restored, "a", "b", "c", "d");
      assertEquals("point", lastQueryKind(restored, "a"), restored + " routed again");
    }
  }

  /**
   * A repaired index row must be removable by the data's next change, as a row the write path put
   * is: that change's delete of the old index row is stamped at the change's data timestamp, which
   * a client may set before the time of the repair.
   */
  @Test
  @Order(7)
  void aRepairedIndexRowGoesWhenALaterWriteWithAnOlderClientTimestampReplacesIt() throws Exception {
    TableName t = createTable("lc_repair_ts");
    indexes.createIndex(t, citySpec());
    long then = System.currentTimeMillis() - 3_600_000;
    byte[] r = row(5);
    try (Table table = connection.getTable(t)) {
      table.put(new Put(r, then).addColumn(D, CITY, city("a")));
    }
    byte[] alias = Bytes.toBytes("city");
    byte[] key =
        IndexKeyCodec.rowKey(
            IndexPlacement.salt(citySpec(), alias, city("a"), r), alias, city("a"), r);
    // Damaged by a superuser: index tables refuse every other client's writes.
    try (Connection hbase = MiniCluster.superuser(util);
        Table index = hbase.getTable(IndexCatalog.indexTableName(t, "city"))) {
      assertTrue(index.exists(new Get(key)), "the index row of row-0005");
      index.delete(new Delete(key));
    }
    assertEquals(1, indexes.verify(t, "city").missing());
    assertEquals(1, indexes.repair(t, "city").written());
    VerifyReport repaired = indexes.verify(t, "city");
    assertTrue(repaired.isConsistent(), "after the repair: " + repaired);
    try (Table table = connection.getTable(t)) {
      table.put(new Put(r, then + 1).addColumn(D, CITY, city("b")));
    }
    // The old index row's delete goes out after the write returns.
    VerifyReport report = indexes.verify(t, "city");
    for (long deadline = System.currentTimeMillis() + 10_000;
        !report.isConsistent() && System.currentTimeMillis() < deadline; ) {
      Thread.sleep(200);
      report = indexes.verify(t, "city");
    }
    assertTrue(report.isConsistent(), report.toString());
    Thread.sleep(PUBLISH_WAIT_MS);
    assertQueriesMatchTheScan(t, "a", "b");
  }
}
