package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.regionserver.IndexProbe;
import io.scbf.hbase.regionserver.region.RowBatchReader;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.hbase.ByteBufferExtendedCell;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.function.Executable;

/**
 * Local indexes end to end on a two-server mini cluster: built on existing data, concurrent writes
 * against a brute-force oracle (strict and routed), routing to few regions, splits, merges and
 * moves during writes, the hidden family, and drop. The tests share the cluster and run in order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LocalIndexClusterTest {
  static final TableName TABLE = TableName.valueOf("local_people");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] NAME = Bytes.toBytes("name");
  static final byte[] LOCAL_FAMILY = IndexCatalog.localFamily("city");
  static final int ROWS = 2000;
  static final long PUBLISH_WAIT_MS = 2000;

  HBaseTestingUtility util;
  Connection connection;
  IndexedTable people;

  @BeforeAll
  void startCluster() throws Exception {
    util = MiniCluster.start(2, MiniCluster::readBlocksOffHeap);
    connection = util.getConnection();
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          new byte[][] {row(500), row(1000), row(1500)});
    }
    try (Table t = connection.getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < ROWS; i++) {
        puts.add(
            new Put(row(i))
                .addColumn(D, CITY, Bytes.toBytes(city(i % 50)))
                .addColumn(D, NAME, Bytes.toBytes("n" + i)));
      }
      t.put(puts);
    }
  }

  /** No region server aborted (an abort is the one outcome no input may cause). */
  @AfterEach
  void everyServerAlive() {
    for (var rs : util.getMiniHBaseCluster().getRegionServerThreads()) {
      assertFalse(
          rs.getRegionServer().isAborted(), rs.getRegionServer().getServerName() + " aborted");
    }
    assertEquals(2, util.getMiniHBaseCluster().getLiveRegionServerThreads().size());
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (people != null) people.close();
    if (util != null) util.shutdownMiniCluster();
  }

  static String city(int i) {
    return "city-" + i;
  }

  static byte[] row(int i) {
    return Bytes.toBytes(String.format("r-%05d", i));
  }

  @Test
  @Order(1)
  void createIndexBuildsEntriesForExistingRowsInEveryRegion() throws Exception {
    new IndexAdmin(connection)
        .createIndex(
            TABLE, IndexSpec.builder(D, CITY).alias("city").local().covered(D, NAME).build());
    people = new IndexedTable(connection, TABLE);
    assertTrue(people.indexes().get(0).isLocal());
    Oracle oracle = new Oracle(connection, TABLE, D, CITY);
    for (int c = 0; c < 50; c++) {
      byte[] v = Bytes.toBytes(city(c));
      List<Result> found = people.find(D, CITY, v);
      assertEquals(oracle.rows(v), Oracle.resultRows(found), "routed " + city(c));
      assertEquals(4, people.lastTrace().regions().total());
      assertEquals(0, people.lastTrace().regions().unsure(), people.lastTrace().toString());
      // Whole rows from the region, with every data column and no index family.
      Result first = found.get(0);
      assertTrue(first.containsColumn(D, NAME));
      assertFalse(
          first.getFamilyMap(LOCAL_FAMILY) != null && !first.getFamilyMap(LOCAL_FAMILY).isEmpty());
    }
    List<IndexEntry> entries = people.findEntries(D, CITY, Bytes.toBytes(city(7)));
    assertEquals(ROWS / 50, entries.size());
    assertEquals("n7", Bytes.toString(entries.get(0).covered().get(new IndexSpec.Column(D, NAME))));
  }

  @Test
  @Order(2)
  void clientsNeverSeeOrWriteTheIndexFamily() throws Exception {
    try (Table t = connection.getTable(TABLE)) {
      int rows = 0;
      try (ResultScanner scanner = t.getScanner(new Scan())) {
        for (Result r : scanner) {
          rows++;
          assertTrue(
              r.getFamilyMap(LOCAL_FAMILY) == null || r.getFamilyMap(LOCAL_FAMILY).isEmpty());
        }
      }
      assertEquals(ROWS, rows, "a full scan returns the data rows only");
      // The row key of an entry (first region: empty start key) read and deleted as a user row.
      byte[] entryRow =
          IndexKeyCodec.rowKey(0, Bytes.toBytes("city"), Bytes.toBytes(city(3)), row(3));
      assertTrue(t.get(new Get(entryRow)).isEmpty(), "a Get of an entry's key shows nothing");
      t.delete(new Delete(entryRow));
      people.setStrict(true);
      assertTrue(
          Oracle.strings(people.findRowKeys(D, CITY, Bytes.toBytes(city(3))))
              .contains(Bytes.toStringBinary(row(3))),
          "a row Delete of an entry's key leaves the entry");
      people.setStrict(false);
      RetriesExhaustedWithDetailsException refused =
          assertThrows(
              RetriesExhaustedWithDetailsException.class,
              () ->
                  t.put(
                      List.of(
                          new Put(row(1))
                              .addColumn(LOCAL_FAMILY, Bytes.toBytes("c"), new byte[0]))));
      assertTrue(refused.getMessage().contains("written by the index only"), refused.getMessage());
      // In a RowMutations (HBase's mutateRow ignores a coprocessor's per-mutation status) the
      // refusal fails the call, and the row's other mutation is not applied either.
      RowMutations atomic =
          new RowMutations(row(1))
              .add(
                  List.of(
                      new Put(row(1)).addColumn(D, Bytes.toBytes("atomic"), Bytes.toBytes("x")),
                      new Put(row(1)).addColumn(LOCAL_FAMILY, Bytes.toBytes("c"), new byte[0])));
      IOException atomicRefused = assertThrows(IOException.class, () -> t.mutateRow(atomic));
      assertTrue(
          atomicRefused.getMessage().contains("written by the index only"),
          atomicRefused.getMessage());
      assertFalse(
          t.get(new Get(row(1))).containsColumn(D, Bytes.toBytes("atomic")),
          "a refused RowMutations applied none of its mutations");
    }
  }

  @Test
  @Order(3)
  void routingAsksAboutOneRegionForAValueOfOneRegion() throws Exception {
    int values = 200;
    // Rows no write has seen: their old values are not read (the regions' watched-rows filters).
    long skipped = IndexProbe.oldRowReadsSkipped(util);
    try (Table t = connection.getTable(TABLE)) {
      List<Put> fresh = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        fresh.add(new Put(Bytes.toBytes("fresh-" + i)).addColumn(D, CITY, Bytes.toBytes("fresh")));
      }
      t.put(fresh);
    }
    assertTrue(
        IndexProbe.oldRowReadsSkipped(util) - skipped > 50,
        "new rows skip the read: " + (IndexProbe.oldRowReadsSkipped(util) - skipped));
    try (Table t = connection.getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < values; i++) {
        puts.add(new Put(row(i * 10)).addColumn(D, CITY, Bytes.toBytes("unique-" + i)));
      }
      t.put(puts);
    }
    Thread.sleep(PUBLISH_WAIT_MS);
    long asked = 0, absentAsked = 0;
    for (int i = 0; i < values; i++) {
      List<Result> found = people.find(D, CITY, Bytes.toBytes("unique-" + i));
      assertEquals(List.of(Bytes.toStringBinary(row(i * 10))), Oracle.resultRows(found));
      asked += people.lastTrace().regions().asked();
      assertTrue(people.find(D, CITY, Bytes.toBytes("absent-" + i)).isEmpty());
      absentAsked += people.lastTrace().regions().asked();
    }
    double mean = (double) asked / values;
    System.out.printf(
        "local routing: %.3f regions asked per single-region value, %.3f per absent value%n",
        mean, (double) absentAsked / values);
    assertTrue(mean < 1.2, "mean regions asked " + mean);
    assertTrue(absentAsked < values * 0.2, "absent values asked " + absentAsked);
  }

  /**
   * The descriptor names no class of the jar, yet the servers split the table at data rows only:
   * the site's default split policy is scbf's (Coprocessors.configure).
   */
  @Test
  @Order(3)
  void splitPointsAreDataRowsWithoutAPolicyInTheDescriptor() throws Exception {
    try (Admin admin = connection.getAdmin()) {
      assertEquals(null, admin.getDescriptor(TABLE).getRegionSplitPolicyClassName());
      admin.flush(TABLE);
    }
    // HRegion keeps its policy package-private: read it as HBase's own tests would.
    var policyOf =
        org.apache.hadoop.hbase.regionserver.HRegion.class.getDeclaredMethod("getSplitPolicy");
    policyOf.setAccessible(true);
    int regions = 0;
    try (Table t = connection.getTable(TABLE)) {
      for (var server : util.getMiniHBaseCluster().getLiveRegionServerThreads()) {
        for (var region : server.getRegionServer().getRegions(TABLE)) {
          regions++;
          assertEquals("LocalIndexSplitPolicy", policyOf.invoke(region).getClass().getSimpleName());
          var point = region.checkSplit(true); // none while a region's rows fit in one block
          if (point.isPresent()) {
            assertTrue(
                t.exists(new Get(point.get()).addFamily(D)),
                "split point " + Bytes.toStringBinary(point.get()) + " is a data row");
          }
        }
      }
    }
    assertTrue(regions > 0);
  }

  @Test
  @Order(4)
  void concurrentWritesThroughSplitsMergesAndMovesMatchTheOracle() throws Exception {
    int writers = 3;
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    List<Future<Integer>> done = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      long seed = 7 + w;
      done.add(pool.submit(() -> randomWrites(new Random(seed), stop)));
    }
    try (Admin admin = connection.getAdmin()) {
      Thread.sleep(1000);
      admin.split(TABLE, row(250));
      waitForRegions(admin, 5);
      Thread.sleep(1000);
      admin.split(TABLE, row(1750));
      waitForRegions(admin, 6);
      List<RegionInfo> regions = sortedRegions(admin);
      admin
          .mergeRegionsAsync(
              new byte[][] {
                regions.get(2).getEncodedNameAsBytes(), regions.get(3).getEncodedNameAsBytes()
              },
              false)
          .get(2, TimeUnit.MINUTES);
      waitForRegions(admin, 5);
      moveOneRegion(admin);
      Thread.sleep(1000);
    }
    stop.set(true);
    int ops = 0;
    for (Future<Integer> f : done) ops += f.get(5, TimeUnit.MINUTES);
    pool.shutdown();
    assertTrue(ops > 100, "writers made progress: " + ops);

    Oracle oracle = new Oracle(connection, TABLE, D, CITY);
    List<byte[]> probes = new ArrayList<>(oracle.values());
    probes.add(Bytes.toBytes("no-such-city"));
    // Local indexes read their writes: routed queries agree at once, before any publication.
    for (byte[] v : probes) {
      assertEquals(
          oracle.rows(v),
          Oracle.resultRows(people.find(D, CITY, v)),
          "routed at once " + Bytes.toString(v) + " " + people.lastTrace());
    }
    people.setStrict(true);
    for (byte[] v : probes) {
      assertEquals(
          oracle.rows(v),
          Oracle.resultRows(people.find(D, CITY, v)),
          "strict " + Bytes.toString(v));
      assertTrue(Oracle.strings(people.findRowKeys(D, CITY, v)).containsAll(oracle.rows(v)));
    }
    people.setStrict(false);
    awaitAllReady();
    for (byte[] v : probes) {
      assertEquals(
          oracle.rows(v),
          Oracle.resultRows(people.find(D, CITY, v)),
          "routed " + Bytes.toString(v) + " " + people.lastTrace());
    }
    byte[][][] ranges = {{Bytes.toBytes("city-1"), Bytes.toBytes("city-2")}, {null, null}};
    for (byte[][] r : ranges) {
      assertEquals(oracle.range(r[0], r[1]), Oracle.resultRows(people.range(D, CITY, r[0], r[1])));
      assertTrue(
          Oracle.strings(people.rangeRowKeys(D, CITY, r[0], r[1]))
              .containsAll(oracle.range(r[0], r[1])));
    }
  }

  @Test
  @Order(6)
  void dropIndexRemovesTheFamilyAndTheIndex() throws Exception {
    new IndexAdmin(connection).dropIndex(TABLE, "city");
    try (Admin admin = connection.getAdmin()) {
      assertFalse(admin.getDescriptor(TABLE).hasColumnFamily(LOCAL_FAMILY));
      assertEquals(null, admin.getDescriptor(TABLE).getRegionSplitPolicyClassName());
    }
    try (IndexedTable after = new IndexedTable(connection, TABLE)) {
      assertTrue(after.indexes().isEmpty());
      assertThrows(
          IllegalArgumentException.class, () -> after.find(D, CITY, Bytes.toBytes(city(1))));
    }
    try (Table t = connection.getTable(TABLE)) {
      t.put(new Put(row(1)).addColumn(D, CITY, Bytes.toBytes("after-drop")));
    }
  }

  /** Value changes, deletes of the column and of rows, batched and single, until told to stop. */
  private int randomWrites(Random rnd, AtomicBoolean stop) throws IOException {
    int ops = 0;
    try (Table t = connection.getTable(TABLE)) {
      List<Mutation> batch = new ArrayList<>();
      while (!stop.get()) {
        byte[] row = row(rnd.nextInt(ROWS));
        int kind = rnd.nextInt(10);
        Mutation m;
        if (kind < 6) {
          m = new Put(row).addColumn(D, CITY, Bytes.toBytes(city(rnd.nextInt(60))));
        } else if (kind == 6) {
          m = new Delete(row).addColumns(D, CITY);
        } else if (kind == 7) {
          m = new Delete(row);
        } else {
          m = new Put(row).addColumn(D, NAME, Bytes.toBytes("n" + rnd.nextInt(1000)));
        }
        batch.add(m);
        if (batch.size() >= 1 + rnd.nextInt(30)) {
          try {
            t.batch(batch, new Object[batch.size()]);
          } catch (InterruptedException e) {
            throw new IOException(e);
          }
          ops += batch.size();
          batch.clear();
        }
      }
    }
    return ops;
  }

  private List<RegionInfo> sortedRegions(Admin admin) throws IOException {
    List<RegionInfo> regions = new ArrayList<>(admin.getRegions(TABLE));
    regions.removeIf(r -> r.isSplit() || r.isOffline());
    regions.sort((a, b) -> Bytes.compareTo(a.getStartKey(), b.getStartKey()));
    return regions;
  }

  @Test
  @Order(5)
  void hugeValuesAreRefusedByTheClientAndAClosedTableSaysSo() throws Exception {
    byte[] huge = new byte[40_000];
    Arrays.fill(huge, (byte) 'x');
    List<Executable> queries =
        List.of(
            () -> people.find(D, CITY, huge),
            () -> people.findRowKeys(D, CITY, huge),
            () -> people.stream(D, CITY, huge),
            () -> people.range(D, CITY, huge, null),
            () -> people.streamRange(D, CITY, null, huge));
    for (Executable query : queries) {
      String m = assertThrows(IllegalArgumentException.class, query).getMessage();
      assertTrue(m.contains("HBase allows 32767"), m);
    }
    IndexedTable closed = new IndexedTable(connection, TABLE);
    closed.close();
    String m =
        assertThrows(IllegalStateException.class, () -> closed.find(D, CITY, Bytes.toBytes("x")))
            .getMessage();
    assertTrue(m.contains("is closed"), m);
    assertThrows(IllegalStateException.class, closed::lastTrace);
    assertThrows(IllegalStateException.class, () -> closed.range(D, CITY, null, null));
  }

  private void waitForRegions(Admin admin, int n) throws Exception {
    long deadline = System.currentTimeMillis() + 120_000;
    while (sortedRegions(admin).size() != n) {
      if (System.currentTimeMillis() > deadline)
        throw new AssertionError("regions: " + sortedRegions(admin));
      Thread.sleep(200);
    }
    util.waitUntilNoRegionsInTransition(120_000);
  }

  private void moveOneRegion(Admin admin) throws Exception {
    try (RegionLocator locator = connection.getRegionLocator(TABLE)) {
      HRegionLocation l = locator.getAllRegionLocations().get(0);
      ServerName other =
          admin.getRegionServers().stream()
              .filter(s -> !s.equals(l.getServerName()))
              .findFirst()
              .orElseThrow();
      admin.move(l.getRegion().getEncodedNameAsBytes(), other);
    }
    util.waitUntilNoRegionsInTransition(120_000);
  }

  /** Every current region has published a ready filter: routed queries ask no unsure region. */
  private void awaitAllReady() throws Exception {
    long deadline = System.currentTimeMillis() + 120_000;
    while (true) {
      people.find(D, CITY, Bytes.toBytes("probe"));
      if (people.lastTrace().regions().unsure() == 0) return;
      if (System.currentTimeMillis() > deadline)
        throw new AssertionError("still unsure: " + people.lastTrace());
      Thread.sleep(250);
    }
  }

  /**
   * The indexer reads the replaced values of a write's rows, and local answers their rows, through
   * RowBatchReader, then uses the cells after its scanner closed. Read from off-heap blocks (this
   * class's cluster), those cells pointed into buffers the close handed back to the pool.
   */
  @Test
  @Order(8)
  void cellsReadForIndexingOutliveTheirScanner() throws Exception {
    try (Admin admin = connection.getAdmin()) {
      admin.flush(TABLE); // the rows in HFile blocks, not the memstore
    }
    HRegion region = util.getMiniHBaseCluster().getRegions(TABLE).get(0);
    List<byte[]> rows = new ArrayList<>();
    Map<String, String> expected = new TreeMap<>();
    try (Table t = connection.getTable(TABLE);
        ResultScanner s =
            t.getScanner(
                new Scan()
                    .withStartRow(region.getRegionInfo().getStartKey())
                    .withStopRow(region.getRegionInfo().getEndKey())
                    .addFamily(D))) {
      for (Result r : s) {
        rows.add(r.getRow());
        expected.put(Bytes.toString(r.getRow()), Bytes.toString(r.getValue(D, CITY)));
      }
    }
    assertFalse(rows.isEmpty());
    Map<byte[], List<Cell>> read = RowBatchReader.read(region, rows, new Scan().addFamily(D));
    for (List<Cell> cells : read.values()) {
      for (Cell c : cells) {
        assertFalse(
            c instanceof ByteBufferExtendedCell b && b.getValueByteBuffer().isDirect(),
            "a cell in an off-heap block its scanner released: " + c);
      }
    }
    // Other reads take the released buffers meanwhile.
    try (Table t = connection.getTable(TABLE);
        ResultScanner s = t.getScanner(new Scan())) {
      s.forEach(r -> {});
    }
    Map<String, String> seen = new TreeMap<>();
    read.forEach(
        (row, cells) ->
            seen.put(Bytes.toString(row), Bytes.toString(Result.create(cells).getValue(D, CITY))));
    assertEquals(expected, seen);
  }
}
