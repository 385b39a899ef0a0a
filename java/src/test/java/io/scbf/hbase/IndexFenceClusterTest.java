package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.regionserver.index.IndexVersionTracker;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.testing.MiniCluster;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeepDeletedCells;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.regionserver.querymatcher.NewVersionBehaviorTracker;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 37, items 3 and 5, on a two-server mini cluster.
 *
 * <p>The fence: an index delete that arrives late (here: sent again by the test after the value was
 * written back, as a paused server's cleanup thread or a resend after a move would) must not remove
 * the index row a later write of the same value put back. Index rows carry their data cell's
 * timestamp and deletes the replaced cell's, so a late delete masks only the old row.
 *
 * <p>Expiry: index entries (global and local) expire with the data family's TTL, and index
 * compactions drop them.
 *
 * <p>Issue 49: index answers follow what HBase shows where delete markers and MIN_VERSIONS decide
 * it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IndexFenceClusterTest {
  static final TableName FENCE = TableName.valueOf("fence");
  static final TableName TTL = TableName.valueOf("fence_ttl");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] NAME = Bytes.toBytes("name");
  static final byte[] ZIP = Bytes.toBytes("zip");
  static final int TTL_SECONDS = 10;

  HBaseTestingUtility util;
  Connection connection;

  /**
   * Records the first index Delete after {@link #arm} as it arrives in the index region (before
   * HBase stamps it), so the test can send it again later: the late delete of a cleanup thread that
   * resumes after a pause, a resend after the region moved, a repair retrying. (Holding the call in
   * the region instead does not reproduce it: HBase fails a call past its deadline when it takes
   * the row locks.)
   */
  public static final class RecordIndexDeletes implements RegionCoprocessor, RegionObserver {
    static final AtomicBoolean armed = new AtomicBoolean();
    static volatile Delete recorded;

    static void arm() {
      recorded = null;
      armed.set(true);
    }

    @Override
    public Optional<RegionObserver> getRegionObserver() {
      return Optional.of(this);
    }

    @Override
    public void preDelete(
        ObserverContext<RegionCoprocessorEnvironment> c, Delete delete, WALEdit edit) {
      String table = c.getEnvironment().getRegion().getRegionInfo().getTable().getNameAsString();
      if (!table.contains("__idx_") || !armed.compareAndSet(true, false)) return;
      // A copy of the cells' timestamps as sent: the region stamps the cells in place afterwards.
      Delete copy = new Delete(delete.getRow(), delete.getTimestamp());
      for (Map.Entry<byte[], List<Cell>> e : delete.getFamilyCellMap().entrySet()) {
        for (Cell cell : e.getValue()) {
          if (cell.getType() != Cell.Type.DeleteFamily) throw new IllegalStateException();
          copy.addFamily(e.getKey(), cell.getTimestamp());
        }
      }
      recorded = copy;
    }
  }

  @BeforeAll
  void startCluster() throws Exception {
    util =
        MiniCluster.start(
            2,
            conf -> {
              List<String> classes =
                  new ArrayList<>(
                      Arrays.asList(conf.getStrings("hbase.coprocessor.region.classes", "")));
              classes.removeIf(String::isEmpty);
              classes.add(RecordIndexDeletes.class.getName());
              conf.setStrings("hbase.coprocessor.region.classes", classes.toArray(new String[0]));
            });
    connection = util.getConnection();
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(FENCE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build());
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TTL)
              .setColumnFamily(
                  ColumnFamilyDescriptorBuilder.newBuilder(D).setTimeToLive(TTL_SECONDS).build())
              .build());
    }
    IndexAdmin indexAdmin = new IndexAdmin(connection);
    indexAdmin.createIndex(FENCE, IndexSpec.builder(D, CITY).alias("city").buckets(2).build());
    indexAdmin.createIndex(
        TTL, IndexSpec.builder(D, CITY).alias("city").covered(D, NAME).buckets(2).build());
    indexAdmin.createIndex(TTL, IndexSpec.builder(D, ZIP).alias("zip").local().build());
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (util != null) util.shutdownMiniCluster();
  }

  private void put(TableName table, String row, byte[] qualifier, String value) throws IOException {
    try (Table t = connection.getTable(table)) {
      t.put(new Put(Bytes.toBytes(row)).addColumn(D, qualifier, Bytes.toBytes(value)));
    }
  }

  private List<String> rowsOf(TableName table, byte[] qualifier, String value) throws IOException {
    try (IndexedTable t = new IndexedTable(connection, table)) {
      return t.findRowKeys(D, qualifier, Bytes.toBytes(value)).stream()
          .map(Bytes::toString)
          .sorted()
          .toList();
    }
  }

  /**
   * a, then b (whose cleanup deletes a's index row), then a again; then the cleanup's delete
   * arrives once more, late. The row must still be found under a: before the fence, the late delete
   * (stamped when it arrived) removed the re-put index row.
   */
  @Test
  void lateIndexDeleteDoesNotRemoveANewerPutOfTheSameRow() throws Exception {
    lateDelete("late", false);
  }

  /** As above, with the data region moved to the other server before the value is written back. */
  @Test
  void lateIndexDeleteAcrossARegionMove() throws Exception {
    lateDelete("moved", true);
  }

  private void lateDelete(String row, boolean move) throws Exception {
    put(FENCE, row, CITY, "a-" + row);
    assertEquals(List.of(row), rowsOf(FENCE, CITY, "a-" + row));

    RecordIndexDeletes.arm();
    put(FENCE, row, CITY, "b-" + row); // its cleanup deletes a's index row
    long deadline = System.currentTimeMillis() + 60_000;
    while (RecordIndexDeletes.recorded == null && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
    }
    Delete late = RecordIndexDeletes.recorded;
    assertTrue(late != null, "the cleanup reached the index");
    if (move) moveDataRegion();
    // A value written back in the same millisecond as the replacement is guarded by the cleanup
    // wait alone (docs/design.md); a real late delete comes much later.
    Thread.sleep(2);
    put(FENCE, row, CITY, "a-" + row);
    assertEquals(List.of(row), rowsOf(FENCE, CITY, "a-" + row));

    // The same delete again, after the write that put the row back (as the region server would).
    try (Connection hbase = MiniCluster.superuser(util);
        Table index = hbase.getTable(IndexCatalog.indexTableName(FENCE, "city"))) {
      index.delete(late);
    }

    assertEquals(List.of(row), rowsOf(FENCE, CITY, "a-" + row), "the late delete hid the row");
    assertEquals(List.of(), rowsOf(FENCE, CITY, "b-" + row));
    try (IndexedTable t = new IndexedTable(connection, FENCE)) {
      assertEquals(1, t.find(D, CITY, Bytes.toBytes("a-" + row)).size());
    }
  }

  /**
   * Index regions read their family's delete markers through scbf's tracker (the fence's semantics
   * at less cost, {@code IndexVersionTracker}; data regions keep HBase's but for local index
   * families): an index row deleted and put again at the same timestamp stays visible, from the
   * memstore, a store file and after a major compaction, as HBase's NEW_VERSION_BEHAVIOR tracker
   * shows it.
   */
  @Test
  void indexRegionsReadTheFenceThroughScbfsTracker() throws Exception {
    TableName indexTable = IndexCatalog.indexTableName(FENCE, "city");
    NewVersionBehaviorTracker stock =
        new NewVersionBehaviorTracker(null, CellComparator.getInstance(), 0, 1, 1, 0);
    for (HRegion region : util.getMiniHBaseCluster().getRegions(indexTable)) {
      assertInstanceOf(
          IndexVersionTracker.class,
          region.getCoprocessorHost().postInstantiateDeleteTracker(stock),
          region.toString());
    }
    for (HRegion region : util.getMiniHBaseCluster().getRegions(FENCE)) {
      assertSame(stock, region.getCoprocessorHost().postInstantiateDeleteTracker(stock));
    }
    // TTL's data regions hold the local index zip: its family reads through the same tracker.
    for (HRegion region : util.getMiniHBaseCluster().getRegions(TTL)) {
      assertInstanceOf(
          IndexVersionTracker.class,
          region.getCoprocessorHost().postInstantiateDeleteTracker(stock),
          region.toString());
    }

    put(FENCE, "same-ts", CITY, "a-same-ts");
    try (Connection hbase = MiniCluster.superuser(util);
        Table index = hbase.getTable(indexTable);
        Admin admin = hbase.getAdmin()) {
      Result entry = null;
      try (ResultScanner scanner = index.getScanner(new Scan())) {
        for (Result r : scanner) {
          if (Bytes.toString(r.getRow()).contains("same-ts")) entry = r;
        }
      }
      assertTrue(entry != null, "the index row of same-ts");
      long ts = entry.rawCells()[0].getTimestamp();
      index.delete(new Delete(entry.getRow()).addFamily(IndexCatalog.INDEX_FAMILY, ts));
      assertTrue(index.get(new Get(entry.getRow())).isEmpty(), "the delete hides the row");
      Put again = new Put(entry.getRow());
      for (Cell cell : entry.rawCells()) again.add(cell);
      index.put(again);
      assertFalse(index.get(new Get(entry.getRow())).isEmpty(), "put again at the delete's ts");
      assertEquals(List.of("same-ts"), rowsOf(FENCE, CITY, "a-same-ts"));
      admin.flush(indexTable);
      assertFalse(index.get(new Get(entry.getRow())).isEmpty(), "from a store file");
      admin.majorCompact(indexTable);
      util.waitFor(60_000, () -> admin.getCompactionState(indexTable) == CompactionState.NONE);
      assertFalse(index.get(new Get(entry.getRow())).isEmpty(), "after a major compaction");
      assertEquals(List.of("same-ts"), rowsOf(FENCE, CITY, "a-same-ts"));
    }
  }

  private void moveDataRegion() throws Exception {
    try (Admin admin = connection.getAdmin()) {
      RegionInfo region = admin.getRegions(FENCE).get(0);
      ServerName from =
          util.getMiniHBaseCluster().getServerHoldingRegion(FENCE, region.getRegionName());
      ServerName to =
          admin.getRegionServers().stream().filter(s -> !s.equals(from)).findFirst().orElseThrow();
      admin.move(region.getEncodedNameAsBytes(), to);
      util.waitUntilAllRegionsAssigned(FENCE);
    }
  }

  /**
   * Rows of a table whose family has a TTL: once they expire, neither the global index (row keys,
   * covered entries) nor the local one answers them, and a major compaction of the index table
   * leaves no rows; rows written afterwards are found.
   */
  @Test
  void indexEntriesExpireWithTheirData() throws Exception {
    try (Table t = connection.getTable(TTL)) {
      for (int i = 0; i < 5; i++) {
        t.put(
            new Put(Bytes.toBytes("old-" + i))
                .addColumn(D, CITY, Bytes.toBytes("Nanjing"))
                .addColumn(D, NAME, Bytes.toBytes("n" + i))
                .addColumn(D, ZIP, Bytes.toBytes("210000")));
      }
    }
    long written = System.currentTimeMillis();
    try (IndexedTable t = new IndexedTable(connection, TTL)) {
      assertEquals(5, t.findRowKeys(D, CITY, Bytes.toBytes("Nanjing")).size());
      assertEquals(5, t.findEntries(D, CITY, Bytes.toBytes("Nanjing")).size());
      // A local index answers routed queries once its region has published (not read-after-ack).
      MiniCluster.awaitRoutingBound(written);
      assertEquals(5, t.findRowKeys(D, ZIP, Bytes.toBytes("210000")).size());
    }
    TableName index = IndexCatalog.indexTableName(TTL, "city");
    try (Admin admin = connection.getAdmin()) {
      TableDescriptor td = admin.getDescriptor(index);
      assertEquals(TTL_SECONDS, td.getColumnFamily(IndexCatalog.INDEX_FAMILY).getTimeToLive());
      assertEquals(
          TTL_SECONDS,
          admin
              .getDescriptor(TTL)
              .getColumnFamily(IndexCatalog.localFamily("zip"))
              .getTimeToLive());
      admin.flush(index); // the expired rows are in a store file, which the compaction rewrites
    }
    assertTrue(storedIndexCells(index) >= 5);
    long left = written + TTL_SECONDS * 1000L + 1_000 - System.currentTimeMillis();
    if (left > 0) Thread.sleep(left);
    try (Table t = connection.getTable(TTL)) {
      assertTrue(t.get(new org.apache.hadoop.hbase.client.Get(Bytes.toBytes("old-0"))).isEmpty());
    }
    try (IndexedTable t = new IndexedTable(connection, TTL)) {
      assertEquals(List.of(), t.findRowKeys(D, CITY, Bytes.toBytes("Nanjing")));
      assertEquals(List.of(), t.findEntries(D, CITY, Bytes.toBytes("Nanjing")));
      assertEquals(List.of(), t.find(D, CITY, Bytes.toBytes("Nanjing")));
      assertEquals(List.of(), t.findRowKeys(D, ZIP, Bytes.toBytes("210000")));
      assertEquals(List.of(), t.find(D, ZIP, Bytes.toBytes("210000")));
    }
    try (Admin admin = connection.getAdmin()) {
      admin.majorCompact(index);
    }
    assertEquals(0, storedIndexCellsAfterCompaction(index));

    try (Table t = connection.getTable(TTL)) {
      t.put(
          new Put(Bytes.toBytes("new-0"))
              .addColumn(D, CITY, Bytes.toBytes("Nanjing"))
              .addColumn(D, NAME, Bytes.toBytes("m"))
              .addColumn(D, ZIP, Bytes.toBytes("210000")));
    }
    long rewritten = System.currentTimeMillis();
    try (IndexedTable t = new IndexedTable(connection, TTL)) {
      assertEquals(1, t.findRowKeys(D, CITY, Bytes.toBytes("Nanjing")).size());
      List<IndexEntry> entries = t.findEntries(D, CITY, Bytes.toBytes("Nanjing"));
      assertEquals(1, entries.size());
      MiniCluster.awaitRoutingBound(rewritten);
      assertEquals(1, t.findRowKeys(D, ZIP, Bytes.toBytes("210000")).size());
    }
  }

  /**
   * A data family's shorter TTL is carried to its indexes: local index families in the same modify,
   * index tables after it (never an index row expiring before its data). A longer one is refused
   * ({@link #raisingTheTtlOrMinVersionsOfAnIndexedFamilyIsRefused}).
   */
  @Test
  void indexTtlFollowsTheDataFamily() throws Exception {
    TableName table = TableName.valueOf("fence_ttl_change");
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(table)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build());
    }
    IndexAdmin indexAdmin = new IndexAdmin(connection);
    indexAdmin.createIndex(table, IndexSpec.builder(D, CITY).alias("city").buckets(1).build());
    indexAdmin.createIndex(table, IndexSpec.builder(D, ZIP).alias("zip").local().build());
    TableName index = IndexCatalog.indexTableName(table, "city");
    try (Admin admin = connection.getAdmin()) {
      assertEquals(HConstants.FOREVER, ttl(admin, index, IndexCatalog.INDEX_FAMILY));
      assertEquals(HConstants.FOREVER, ttl(admin, table, IndexCatalog.localFamily("zip")));
      for (int next : new int[] {120, 30}) {
        admin.modifyTable(withTtl(admin.getDescriptor(table), next));
        assertEquals(next, ttl(admin, table, IndexCatalog.localFamily("zip")));
        long deadline = System.currentTimeMillis() + 60_000; // a shorter TTL follows the modify
        while (ttl(admin, index, IndexCatalog.INDEX_FAMILY) != next
            && System.currentTimeMillis() < deadline) {
          Thread.sleep(200);
        }
        assertEquals(next, ttl(admin, index, IndexCatalog.INDEX_FAMILY));
      }
      TableDescriptor data = admin.getDescriptor(table);
      IOException refused =
          assertThrows(IOException.class, () -> admin.modifyTable(withTtl(data, 60)));
      assertTrue(refused.getMessage().contains("TTL (30 s to 60 s)"), refused.getMessage());
      assertEquals(30, ttl(admin, table, D));
      assertEquals(30, ttl(admin, index, IndexCatalog.INDEX_FAMILY));
    }
  }

  private static TableDescriptor withTtl(TableDescriptor data, int ttlSeconds) {
    return TableDescriptorBuilder.newBuilder(data)
        .modifyColumnFamily(
            ColumnFamilyDescriptorBuilder.newBuilder(data.getColumnFamily(D))
                .setTimeToLive(ttlSeconds)
                .build())
        .build();
  }

  /**
   * Issue 49: a family with a TTL and MIN_VERSIONS 1 keeps each column's newest cell past the TTL
   * (HBase still shows the row), so its index rows must not expire either.
   */
  @Test
  void indexRowsOfAFamilyWithMinVersionsOutliveItsTtl() throws Exception {
    TableName table = TableName.valueOf("fence_min_versions");
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(table)
              .setColumnFamily(
                  ColumnFamilyDescriptorBuilder.newBuilder(D)
                      .setTimeToLive(4)
                      .setMinVersions(1)
                      .build())
              .build());
    }
    IndexAdmin indexAdmin = new IndexAdmin(connection);
    indexAdmin.createIndex(
        table, IndexSpec.builder(D, CITY).alias("city").covered(D, NAME).build());
    indexAdmin.createIndex(
        table, IndexSpec.builder(D, ZIP).alias("zip").layout(IndexSpec.Layout.ORDERED).build());
    indexAdmin.createIndex(table, IndexSpec.builder(D, NAME).alias("name").local().build());
    try (Table t = connection.getTable(table)) {
      t.put(
          new Put(Bytes.toBytes("r1"))
              .addColumn(D, CITY, Bytes.toBytes("Oslo"))
              .addColumn(D, NAME, Bytes.toBytes("Ann"))
              .addColumn(D, ZIP, Bytes.toBytes("0150")));
    }
    Thread.sleep(6_000);
    try (Table t = connection.getTable(table);
        IndexedTable it = new IndexedTable(connection, table)) {
      assertFalse(t.get(new Get(Bytes.toBytes("r1"))).isEmpty(), "HBase keeps the newest cells");
      assertEquals(List.of("r1"), strings(it.findRowKeys(D, CITY, Bytes.toBytes("Oslo"))));
      assertEquals(1, it.findEntries(D, CITY, Bytes.toBytes("Oslo")).size());
      assertEquals(List.of("r1"), strings(it.findRowKeys(D, ZIP, Bytes.toBytes("0150"))));
      assertEquals(List.of("r1"), strings(it.findRowKeys(D, NAME, Bytes.toBytes("Ann"))));
    }
  }

  /**
   * Issue 49, differential seed 1050: raising a TTL or MIN_VERSIONS shows again the cells past the
   * old TTL that a region still holds, and data and index regions drop such cells at different
   * flushes and compactions. Here the data's store file still holds r1 while its index entries were
   * compacted away: before the refusal the raise made HBase show r1 and every index miss it ({@code
   * expected [r1] but was []}). Such alters are refused (the guide says to drop the indexes, alter,
   * and create them again), and index answers still match HBase.
   */
  @Test
  void raisingTheTtlOrMinVersionsOfAnIndexedFamilyIsRefused() throws Exception {
    String[][] alters = {{"MIN_VERSIONS", "1"}, {"TTL", "3600"}};
    for (String[] alter : alters) {
      TableName table = TableName.valueOf("fence_raise_" + alter[0]);
      try (Admin admin = connection.getAdmin()) {
        admin.createTable(
            TableDescriptorBuilder.newBuilder(table)
                .setColumnFamily(
                    ColumnFamilyDescriptorBuilder.newBuilder(D).setTimeToLive(4).build())
                .build());
      }
      createCityZipNameIndexes(table);
      try (Table t = connection.getTable(table);
          Admin admin = connection.getAdmin()) {
        t.put(cityZipName("r1", "Bergen", "5003", "Bo", System.currentTimeMillis()));
        admin.flush(table); // r1's data cells in a store file, not yet expired
        Thread.sleep(6_000);
        // The index entries, expired now, compacted away.
        List<TableName> indexTables =
            List.of(
                IndexCatalog.indexTableName(table, "city"),
                IndexCatalog.indexTableName(table, "zip"));
        for (TableName index : indexTables) {
          admin.flush(index);
          admin.majorCompact(index);
        }
        admin.majorCompact(table, IndexCatalog.localFamily("name"));
        for (TableName compacted : List.of(indexTables.get(0), indexTables.get(1), table)) {
          util.waitFor(60_000, () -> admin.getCompactionState(compacted) == CompactionState.NONE);
        }
        TableDescriptor before = admin.getDescriptor(table);
        int value = Integer.parseInt(alter[1]);
        IOException refused = null;
        try {
          alterFamily(
              admin,
              table,
              D,
              f -> alter[0].equals("TTL") ? f.setTimeToLive(value) : f.setMinVersions(value));
        } catch (IOException e) {
          refused = e;
        }
        assertIndexesShowWhatHBaseShows(table);
        assertNotNull(refused, alter[0] + " raised on an indexed family with a TTL");
        assertTrue(refused.getMessage().contains("scbf"), refused.getMessage());
        assertTrue(refused.getMessage().contains(alter[0]), refused.getMessage());
        assertEquals(before.getColumnFamily(D), admin.getDescriptor(table).getColumnFamily(D));
      }
    }
  }

  /**
   * Issue 49, differential seed 1268: on a family with NEW_VERSION_BEHAVIOR and KEEP_DELETED_CELLS,
   * HBase 2.6.1 itself (no product installed) shows again, after a region reopens and compacts, a
   * Put that a row delete had hidden, with no write to the row; the index had followed the delete
   * and missed the row. No index can follow an answer that changes without a write, so an index
   * over such a family is refused, at its creation and at an alter into that combination; a family
   * no index reads may have it.
   */
  @Test
  void indexingAFamilyWhoseDeletesHBaseCanUndoIsRefused() throws Exception {
    TableName created = TableName.valueOf("fence_kdc_created");
    TableName altered = TableName.valueOf("fence_kdc_altered");
    byte[] e = Bytes.toBytes("e");
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(created)
              .setColumnFamily(
                  ColumnFamilyDescriptorBuilder.newBuilder(D)
                      .setNewVersionBehavior(true)
                      .setKeepDeletedCells(KeepDeletedCells.TRUE)
                      .build())
              .build());
      IndexAdmin indexAdmin = new IndexAdmin(connection);
      for (IndexSpec spec :
          List.of(
              IndexSpec.builder(D, CITY).alias("city").build(),
              IndexSpec.builder(D, NAME).alias("name").local().build())) {
        IllegalArgumentException refused =
            assertThrows(
                IllegalArgumentException.class, () -> indexAdmin.createIndex(created, spec));
        assertTrue(refused.getMessage().contains("KEEP_DELETED_CELLS"), refused.getMessage());
        assertTrue(refused.getMessage().contains("NEW_VERSION_BEHAVIOR"), refused.getMessage());
      }
      assertEquals(List.of(), indexAdmin.listIndexes(created));
      assertFalse(admin.tableExists(IndexCatalog.indexTableName(created, "city")));

      admin.createTable(
          TableDescriptorBuilder.newBuilder(altered)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(e))
              .build());
      createCityZipNameIndexes(altered);
      try (Table t = connection.getTable(altered)) {
        t.put(cityZipName("r1", "Bergen", "5003", "Bo", System.currentTimeMillis()));
      }
      for (KeepDeletedCells keep : List.of(KeepDeletedCells.TRUE, KeepDeletedCells.TTL)) {
        TableDescriptor before = admin.getDescriptor(altered);
        IOException refused =
            assertThrows(
                IOException.class,
                () ->
                    alterFamily(
                        admin,
                        altered,
                        D,
                        f -> f.setNewVersionBehavior(true).setKeepDeletedCells(keep)));
        assertTrue(refused.getMessage().contains("scbf"), refused.getMessage());
        assertTrue(refused.getMessage().contains("KEEP_DELETED_CELLS"), refused.getMessage());
        assertEquals(before.getColumnFamily(D), admin.getDescriptor(altered).getColumnFamily(D));
      }
      // Either setting alone goes through; the other one then does not.
      alterFamily(admin, altered, D, f -> f.setKeepDeletedCells(KeepDeletedCells.TRUE));
      assertEquals(
          KeepDeletedCells.TRUE,
          admin.getDescriptor(altered).getColumnFamily(D).getKeepDeletedCells());
      IOException refused =
          assertThrows(
              IOException.class,
              () -> alterFamily(admin, altered, D, f -> f.setNewVersionBehavior(true)));
      assertTrue(refused.getMessage().contains("NEW_VERSION_BEHAVIOR"), refused.getMessage());
      assertFalse(admin.getDescriptor(altered).getColumnFamily(D).isNewVersionBehavior());
      // A family no index reads may take both.
      alterFamily(
          admin,
          altered,
          e,
          f -> f.setNewVersionBehavior(true).setKeepDeletedCells(KeepDeletedCells.TRUE));
      assertEquals(
          KeepDeletedCells.TRUE,
          admin.getDescriptor(altered).getColumnFamily(e).getKeepDeletedCells());
      assertIndexesShowWhatHBaseShows(altered);
    }
  }

  /**
   * Issue 49: on a NEW_VERSION_BEHAVIOR family a row delete masks only the writes before it, so a
   * Put stamped below it but written after is shown and indexed. Turning the flag off makes HBase
   * read the same cells by timestamp: the marker then masks the Put, with no write to the row, and
   * before the refusal every index still answered it ({@code fence_nvb_off city=Bergen ==>
   * expected: <[]> but was: <[r1]>}). So a change of the flag on an indexed family is refused
   * either way (turning it on changes what the stored markers mask too).
   */
  @Test
  void changingNewVersionBehaviorOfAnIndexedFamilyIsRefused() throws Exception {
    TableName table = TableName.valueOf("fence_nvb_off");
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(table)
              .setColumnFamily(
                  ColumnFamilyDescriptorBuilder.newBuilder(D).setNewVersionBehavior(true).build())
              .build());
      createCityZipNameIndexes(table);
      try (Table t = connection.getTable(table)) {
        long now = System.currentTimeMillis();
        t.put(cityZipName("r1", "Oslo", "0150", "Al", now - 5000));
        t.delete(new Delete(Bytes.toBytes("r1")));
        t.put(cityZipName("r1", "Bergen", "5003", "Bo", now - 1000));
      }
      assertIndexesShowWhatHBaseShows(table);
      IOException refused =
          assertThrows(
              IOException.class,
              () -> alterFamily(admin, table, D, f -> f.setNewVersionBehavior(false)));
      assertTrue(refused.getMessage().contains("NEW_VERSION_BEHAVIOR"), refused.getMessage());
      assertTrue(admin.getDescriptor(table).getColumnFamily(D).isNewVersionBehavior());
      try (Table t = connection.getTable(table)) {
        assertEquals("Bergen", cityOf(t, "r1"));
      }
      assertIndexesShowWhatHBaseShows(table);
    }
  }

  /**
   * Issue 49: a Put that a delete marker the region holds masks (stamped at or below a row delete,
   * or below a delete stamped in the future) is invisible in HBase, but only until a major
   * compaction purges the marker while the Put is in the memstore: HBase shows it then, and no
   * write reaches the index (the long differential run, seed 1008: an ORDERED index missed such a
   * row after a major compaction; this test, before the refusal: {@code expected [r1, r2] but was
   * []} after it). So such a Put of an indexed or covered column is refused. On a family with
   * NEW_VERSION_BEHAVIOR the marker masks only earlier writes, and the Put is indexed.
   */
  @Test
  void aPutMaskedByADeleteMarkerIsNotIndexed() throws Exception {
    for (boolean newVersionBehavior : new boolean[] {false, true}) {
      TableName table = TableName.valueOf("fence_masked_" + newVersionBehavior);
      try (Admin admin = connection.getAdmin()) {
        admin.createTable(
            TableDescriptorBuilder.newBuilder(table)
                .setColumnFamily(
                    ColumnFamilyDescriptorBuilder.newBuilder(D)
                        .setNewVersionBehavior(newVersionBehavior)
                        .build())
                .build());
      }
      createCityZipNameIndexes(table);
      long now = System.currentTimeMillis();
      try (Table t = connection.getTable(table)) {
        t.put(cityZipName("r1", "Oslo", "0150", "Ann", HConstants.LATEST_TIMESTAMP));
        t.delete(new Delete(Bytes.toBytes("r1")));
        // A marker from the future masks even a server-stamped Put, until a Put stamped above it.
        t.delete(new Delete(Bytes.toBytes("r2"), now + 60_000));
        t.put(cityZipName("r3", "Bergen", "5003", "Bo", HConstants.LATEST_TIMESTAMP));
        t.delete(new Delete(Bytes.toBytes("r3")).addFamily(D, now + 60_000));
        t.put(cityZipName("r4", "Molde", "6400", "Cy", HConstants.LATEST_TIMESTAMP));
        t.delete(new Delete(Bytes.toBytes("r4")).addColumns(D, CITY, now + 60_000));
        util.flush(table); // the markers in a file, the puts below them in the memstore
        List<Put> masked =
            List.of(
                cityZipName("r1", "Bergen", "5003", "Bo", now - 1_000),
                cityZipName("r2", "Bergen", "5003", "Bo", HConstants.LATEST_TIMESTAMP),
                cityZipName("r3", "Molde", "6400", "Cy", now + 60_000),
                new Put(Bytes.toBytes("r4"))
                    .addColumn(D, CITY, now + 30_000, Bytes.toBytes("Oslo")));
        for (Put p : masked) {
          if (newVersionBehavior) {
            t.put(p);
          } else {
            IOException e = assertThrows(IOException.class, () -> t.put(p), p.toString());
            assertTrue(e.getMessage().contains("masked by a delete marker"), e.getMessage());
          }
        }
        List<String> visible = new ArrayList<>();
        for (String row : List.of("r1", "r2", "r3", "r4")) {
          if (!t.get(new Get(Bytes.toBytes(row)).addColumn(D, CITY)).isEmpty()) visible.add(row);
        }
        assertEquals(newVersionBehavior ? List.of("r1", "r2", "r3", "r4") : List.of(), visible);
      }
      assertIndexesShowWhatHBaseShows(table);
      // A major compaction purges the markers in files; a Put still in the memstore shows again.
      try (Admin admin = connection.getAdmin()) {
        admin.majorCompact(table);
      }
      util.waitFor(
          60_000, () -> util.getAdmin().getCompactionState(table).toString().equals("NONE"));
      assertIndexesShowWhatHBaseShows(table);
    }
  }

  /**
   * Plain HBase (a table without indexes), issue 49, seed 1030: on a NEW_VERSION_BEHAVIOR family,
   * NewVersionBehaviorTracker keeps one "all versions" marker per sequence id, and every cell of a
   * mini-batch shares one. Of a row delete now and another 4 s in the past in one RowMutations it
   * keeps the last it reads, the older: a cell written between the two stays visible, through a
   * flush and a major compaction. The same deletes in two calls hide it. A column marker at the
   * older timestamp beside the row delete does not bring the column back: the column's newer cell
   * is read (and masked by the family's marker) before that marker.
   */
  @Test
  void newVersionBehaviorKeepsOneDeleteMarkerOfABatch() throws Exception {
    TableName table = TableName.valueOf("fence_nvb_plain");
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(table)
              .setColumnFamily(
                  ColumnFamilyDescriptorBuilder.newBuilder(D).setNewVersionBehavior(true).build())
              .build());
    }
    try (Table t = connection.getTable(table)) {
      long now = System.currentTimeMillis();
      for (String row : List.of("one_batch", "two_calls", "column")) {
        t.put(cityZipName(row, "Oslo", "0150", "Ann", now - 2_000));
      }
      t.mutateRow(twoRowDeletes("one_batch", now - 4_000));
      t.delete(new Delete(Bytes.toBytes("two_calls")));
      t.delete(new Delete(Bytes.toBytes("two_calls"), now - 4_000));
      RowMutations column = new RowMutations(Bytes.toBytes("column"));
      column.add(new Delete(Bytes.toBytes("column")));
      column.add(new Delete(Bytes.toBytes("column")).addColumns(D, CITY, now - 4_000));
      t.mutateRow(column);
      for (int pass = 0; pass < 3; pass++) {
        assertEquals("Oslo", cityOf(t, "one_batch"), "pass " + pass);
        assertEquals(null, cityOf(t, "two_calls"), "pass " + pass);
        assertTrue(t.get(new Get(Bytes.toBytes("column"))).isEmpty(), "pass " + pass);
        if (pass == 0) util.flush(table);
        if (pass == 1) {
          util.getAdmin().majorCompact(table);
          util.waitFor(
              60_000, () -> util.getAdmin().getCompactionState(table).toString().equals("NONE"));
        }
      }
    }
  }

  /**
   * Seed 1030 with indexes: the product followed the newer marker (the row deleted) while HBase
   * shows the row (above): a false negative (this test, before the refusal: no exception, and the
   * indexes missed r1). Such a batch is refused and changes nothing; family markers at one
   * timestamp, and column markers beside a family's, are applied as HBase applies them.
   */
  @Test
  void deleteMarkersHBaseKeepsOnlyOneOfAreRefusedOnNewVersionBehavior() throws Exception {
    TableName table = TableName.valueOf("fence_nvb_markers");
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(table)
              .setColumnFamily(
                  ColumnFamilyDescriptorBuilder.newBuilder(D).setNewVersionBehavior(true).build())
              .build());
    }
    createCityZipNameIndexes(table);
    try (Table t = connection.getTable(table)) {
      long now = System.currentTimeMillis();
      for (String row : List.of("r1", "r2", "r3", "r4")) {
        t.put(cityZipName(row, "Bergen", "5003", "Bo", now - 2_000));
      }
      IOException e =
          assertThrows(IOException.class, () -> t.mutateRow(twoRowDeletes("r1", now - 4_000)));
      assertTrue(e.getMessage().contains("NEW_VERSION_BEHAVIOR"), e.getMessage());
      RowMutations column = new RowMutations(Bytes.toBytes("r2"));
      column.add(new Delete(Bytes.toBytes("r2")));
      column.add(new Delete(Bytes.toBytes("r2")).addColumns(D, CITY, now - 4_000));
      t.mutateRow(column);
      t.mutateRow(twoRowDeletes("r3", HConstants.LATEST_TIMESTAMP));
      RowMutations newerColumn = new RowMutations(Bytes.toBytes("r4"));
      newerColumn.add(new Delete(Bytes.toBytes("r4"), now - 4_000));
      newerColumn.add(new Delete(Bytes.toBytes("r4")).addColumns(D, CITY));
      t.mutateRow(newerColumn);
      assertEquals("Bergen", cityOf(t, "r1"));
      assertTrue(t.get(new Get(Bytes.toBytes("r2"))).isEmpty());
      assertTrue(t.get(new Get(Bytes.toBytes("r3"))).isEmpty());
      assertEquals(null, cityOf(t, "r4"));
      assertEquals("Bo", Bytes.toString(t.get(new Get(Bytes.toBytes("r4"))).getValue(D, NAME)));
    }
    assertIndexesShowWhatHBaseShows(table);
  }

  private static RowMutations twoRowDeletes(String row, long olderTimestamp) throws IOException {
    RowMutations rm = new RowMutations(Bytes.toBytes(row));
    rm.add(new Delete(Bytes.toBytes(row)));
    rm.add(new Delete(Bytes.toBytes(row), olderTimestamp));
    return rm;
  }

  /** A global index on city, an ORDERED one on zip and a local one on name. */
  /** The table's {@code family} as it is now, changed by {@code change}. */
  private static void alterFamily(
      Admin admin,
      TableName table,
      byte[] family,
      UnaryOperator<ColumnFamilyDescriptorBuilder> change)
      throws IOException {
    TableDescriptor current = admin.getDescriptor(table);
    admin.modifyTable(
        TableDescriptorBuilder.newBuilder(current)
            .modifyColumnFamily(
                change
                    .apply(
                        ColumnFamilyDescriptorBuilder.newBuilder(current.getColumnFamily(family)))
                    .build())
            .build());
  }

  private void createCityZipNameIndexes(TableName table) throws IOException {
    IndexAdmin indexAdmin = new IndexAdmin(connection);
    indexAdmin.createIndex(table, IndexSpec.builder(D, CITY).alias("city").build());
    indexAdmin.createIndex(
        table, IndexSpec.builder(D, ZIP).alias("zip").layout(IndexSpec.Layout.ORDERED).build());
    indexAdmin.createIndex(table, IndexSpec.builder(D, NAME).alias("name").local().build());
  }

  private static String cityOf(Table t, String row) throws IOException {
    return Bytes.toString(t.get(new Get(Bytes.toBytes(row)).addColumn(D, CITY)).getValue(D, CITY));
  }

  private void assertIndexesShowWhatHBaseShows(TableName table) throws Exception {
    {
      try (IndexedTable it = new IndexedTable(connection, table)) {
        for (byte[][] q :
            new byte[][][] {
              {CITY, Bytes.toBytes("Bergen")},
              {ZIP, Bytes.toBytes("5003")},
              {NAME, Bytes.toBytes("Bo")},
              {CITY, Bytes.toBytes("Molde")},
              {CITY, Bytes.toBytes("Oslo")}
            }) {
          List<String> expected = new ArrayList<>();
          try (Table t = connection.getTable(table)) {
            for (String row : List.of("r1", "r2", "r3", "r4")) {
              byte[] v = t.get(new Get(Bytes.toBytes(row))).getValue(D, q[0]);
              if (Arrays.equals(v, q[1])) expected.add(row);
            }
          }
          String what = table + " " + Bytes.toString(q[0]) + "=" + Bytes.toString(q[1]);
          assertEquals(expected, strings(it.findRowKeys(D, q[0], q[1])), what);
          assertEquals(expected, strings(it.find(D, q[0], q[1])), what);
          if (!Arrays.equals(q[0], NAME)) {
            assertEquals(
                expected,
                it.findEntries(D, q[0], q[1]).stream()
                    .map(e -> Bytes.toString(e.row()))
                    .sorted()
                    .toList(),
                what);
          }
        }
      }
    }
  }

  private static Put cityZipName(String row, String city, String zip, String name, long ts) {
    return new Put(Bytes.toBytes(row), ts)
        .addColumn(D, CITY, Bytes.toBytes(city))
        .addColumn(D, ZIP, Bytes.toBytes(zip))
        .addColumn(D, NAME, Bytes.toBytes(name));
  }

  private static List<String> strings(List<?> rowsOrResults) {
    List<String> out = new ArrayList<>();
    for (Object o : rowsOrResults) {
      out.add(
          Bytes.toString(
              o instanceof org.apache.hadoop.hbase.client.Result r ? r.getRow() : (byte[]) o));
    }
    out.sort(null);
    return out;
  }

  private static int ttl(Admin admin, TableName table, byte[] family) throws IOException {
    return admin.getDescriptor(table).getColumnFamily(family).getTimeToLive();
  }

  /** Cells in the index table's store files. */
  private long storedIndexCells(TableName index) throws IOException {
    long cells = 0;
    for (HRegion r : util.getMiniHBaseCluster().getRegions(index)) {
      for (HStore s : r.getStores()) {
        for (HStoreFile f : s.getStorefiles()) {
          f.initReader();
          cells += f.getReader().getEntries();
        }
      }
    }
    return cells;
  }

  /** Waits until the major compaction has left the index table's store files without cells. */
  private long storedIndexCellsAfterCompaction(TableName index) throws Exception {
    long deadline = System.currentTimeMillis() + 60_000;
    long cells = -1;
    while (System.currentTimeMillis() < deadline) {
      cells = storedIndexCells(index);
      if (cells == 0) return 0;
      Thread.sleep(500);
    }
    return cells;
  }

  /**
   * Found by reading differential seed 1183's fix: a covered column deleted stamps the rewritten
   * index entry at the delete's time (it must top the entry it replaces), above the row's cells;
   * another covered column then written at a client timestamp in between rewrote the entry below
   * that version, and the entry kept answering the old covered values. r1: the global index's entry
   * (its covered zip changes); r2: the local index's (its covered city changes), which answered
   * right before the fix too, as local answers take covered values from the rows they read.
   */
  @Test
  void aCoveredValueWrittenInThePastAfterACoveredDeleteIsShown() throws Exception {
    TableName table = TableName.valueOf("fence_covered_past");
    IndexAdmin indexAdmin = cityCoveringNameAndZip(table);
    indexAdmin.createIndex(
        table,
        IndexSpec.builder(D, ZIP).alias("zip").local().covered(D, NAME).covered(D, CITY).build());
    long now = System.currentTimeMillis();
    byte[] r1 = Bytes.toBytes("r1");
    byte[] r2 = Bytes.toBytes("r2");
    try (Table t = connection.getTable(table);
        IndexedTable indexed = new IndexedTable(connection, table)) {
      t.put(cityZipName("r1", "Oslo", "0150", "Ann", now - 10_000));
      t.put(cityZipName("r2", "Oslo", "0150", "Bo", now - 10_000));
      t.delete(new Delete(r1).addColumns(D, NAME)); // at the server's clock
      t.delete(new Delete(r2).addColumns(D, NAME));
      t.put(new Put(r1).addColumn(D, ZIP, now - 5_000, Bytes.toBytes("0151")));
      t.put(new Put(r2).addColumn(D, CITY, now - 5_000, Bytes.toBytes("Bergen")));
      // Replaced entries go in the background (r2's under Oslo): what stays is what is checked.
      assertEquals(
          List.of("r1 zip=0151"),
          settled(() -> shown(indexed.findEntries(D, CITY, Bytes.toBytes("Oslo")))));
      assertEquals(
          List.of("r2 city=Bergen"),
          settled(() -> shown(indexed.findEntries(D, ZIP, Bytes.toBytes("0150")))));
    }
  }

  /**
   * Seed 1183's other half: the switch to EVENTUAL recorded an entry the STRONG path had lifted (a
   * covered column's delete) at its cells' older time, and the applier stamps a rewrite at least at
   * the record's: a covered column then written in the past rewrote it below the lifted version,
   * and the entry kept its old covered values.
   */
  @Test
  void anEventualRewriteInThePastAfterACoveredDeleteIsShown() throws Exception {
    TableName table = TableName.valueOf("fence_covered_eventual");
    IndexAdmin indexAdmin = cityCoveringNameAndZip(table);
    long now = System.currentTimeMillis();
    byte[] r1 = Bytes.toBytes("r1");
    try (Table t = connection.getTable(table);
        IndexedTable indexed = new IndexedTable(connection, table)) {
      t.put(cityZipName("r1", "Oslo", "0150", "Ann", now - 10_000));
      t.delete(new Delete(r1).addColumns(D, NAME)); // at the server's clock: lifts the entry
      indexAdmin.setConsistency(table, "city", IndexSpec.Consistency.EVENTUAL);
      t.put(new Put(r1).addColumn(D, ZIP, now - 5_000, Bytes.toBytes("0151")));
      assertTrue(indexed.awaitIndexed(60_000));
      assertEquals(
          List.of("r1 zip=0151"), shown(indexed.findEntries(D, CITY, Bytes.toBytes("Oslo"))));
    }
  }

  /** A new table with a global index on city covering name and zip. */
  private IndexAdmin cityCoveringNameAndZip(TableName table) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(table)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build());
    }
    IndexAdmin indexAdmin = new IndexAdmin(connection);
    indexAdmin.createIndex(
        table, IndexSpec.builder(D, CITY).alias("city").covered(D, NAME).covered(D, ZIP).build());
    return indexAdmin;
  }

  /** Each entry as its row and its covered values that are present, by qualifier. */
  private static List<String> shown(List<IndexEntry> entries) {
    List<String> out = new ArrayList<>();
    for (IndexEntry e : entries) {
      List<String> covered = new ArrayList<>();
      e.covered()
          .forEach(
              (c, v) -> {
                if (v != null) covered.add(Bytes.toString(c.qualifier()) + "=" + Bytes.toString(v));
              });
      covered.sort(null);
      covered.add(0, Bytes.toString(e.row()));
      out.add(String.join(" ", covered));
    }
    return out;
  }

  /** The answer once it has not changed for a second (at most 10 s). */
  private static List<String> settled(Callable<List<String>> answer) throws Exception {
    List<String> last = answer.call();
    long stableSince = System.currentTimeMillis();
    long deadline = stableSince + 10_000;
    while (System.currentTimeMillis() - stableSince < 1_000
        && System.currentTimeMillis() < deadline) {
      Thread.sleep(100);
      List<String> now = answer.call();
      if (!now.equals(last)) {
        last = now;
        stableSince = System.currentTimeMillis();
      }
    }
    return last;
  }
}
