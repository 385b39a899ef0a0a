package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.regionserver.IndexProbe;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.visibility.CellVisibility;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Sequences that once lost an acknowledged row from a query's answer (issue 37), each on its own
 * table of one cluster: a value whose index rows a region boundary cuts, a filter compaction racing
 * the writes it must count, and writes whose effect the index cannot follow (cell TTLs, visibility
 * labels) or could not see (an insert-only row written in two Puts).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AcknowledgedRowsClusterTest {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] V = Bytes.toBytes("v");
  static final byte[] W = Bytes.toBytes("w");
  static final byte[] OTHER = Bytes.toBytes("other");

  HBaseTestingUtility util;
  Connection writer;
  Connection readerConnection;

  @BeforeAll
  void startCluster() throws Exception {
    util = MiniCluster.start(1);
    writer = util.getConnection();
    readerConnection = ConnectionFactory.createConnection(util.getConfiguration());
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (readerConnection != null) readerConnection.close();
    if (util != null) util.shutdownMiniCluster();
  }

  void createTable(TableName table, IndexSpec... specs) throws IOException {
    try (Admin admin = writer.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(table)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build());
    }
    for (IndexSpec spec : specs) new IndexAdmin(writer).createIndex(table, spec);
  }

  static byte[] row(int i) {
    return Bytes.toBytes(String.format("row-%05d", i));
  }

  /**
   * The rows of one heavy value sit in one index region until a split cuts them: the first region
   * holds 4, under the planner's scan threshold, the second 396, over it. The second answers only
   * its estimate, and the query must then scan, not return the first region's 4 rows.
   */
  @Test
  void aValueSplitAcrossIndexRegionsReturnsEveryRow() throws Exception {
    TableName table = TableName.valueOf("heavy");
    TableName index = IndexCatalog.indexTableName(table, "v");
    createTable(
        table,
        IndexSpec.builder(D, V).alias("v").layout(IndexSpec.Layout.BY_VALUE).buckets(1).build());
    byte[] heavy = Bytes.toBytes("heavy");
    try (Table t = writer.getTable(table)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 2_000; i++) {
        byte[] value = i % 5 == 0 ? heavy : Bytes.toBytes("v-" + (i % 160));
        puts.add(new Put(row(i)).addColumn(D, V, value));
      }
      t.put(puts);
    }
    byte[] alias = "v".getBytes(StandardCharsets.UTF_8);
    List<byte[]> heavyKeys = new ArrayList<>();
    byte[] prefix = IndexKeyCodec.slotPrefix(alias, heavy);
    try (Table t = writer.getTable(index);
        ResultScanner s =
            t.getScanner(
                new Scan()
                    .withStartRow(prefix)
                    .withStopRow(IndexKeyCodec.prefixSuccessor(prefix)))) {
      for (Result r : s) heavyKeys.add(r.getRow());
    }
    assertEquals(400, heavyKeys.size());
    try (Admin admin = writer.getAdmin()) {
      admin.flush(index);
      RegionInfo parent = admin.getRegions(index).get(0);
      admin.splitRegionAsync(parent.getRegionName(), heavyKeys.get(4)).get(60, TimeUnit.SECONDS);
    }
    IndexProbe.awaitIndexRegionsReady(util, index, 2);
    try (IndexedTable reader = new IndexedTable(readerConnection, table)) {
      // Warm the planner: it learns the table's size from the regions' answers.
      reader.find(D, V, Bytes.toBytes("v-1"));
      reader.find(D, V, Bytes.toBytes("v-2"));
      List<Result> found = reader.find(D, V, heavy);
      assertEquals(400, found.size(), () -> "find: " + reader.lastTrace());
      assertEquals(400, reader.findRowKeys(D, V, heavy).size(), () -> "" + reader.lastTrace());
      assertEquals(400, reader.findEntries(D, V, heavy).size(), () -> "" + reader.lastTrace());
      assertEquals(
          400,
          reader.find(Condition.in(D, V, heavy, Bytes.toBytes("absent"))).size(),
          () -> "IN: " + reader.lastTrace());
    }
  }

  /**
   * Rows flip between two values (each flip a blind index delete: residue that sets the index
   * region's filter compacting again and again) while new rows with values of their own are
   * written, each queried by another client right after its acknowledgement: a compaction must
   * never leave the filter answering "absent" for a row that is there.
   */
  @Test
  void filterCompactionsRacingWritesMissNoAcknowledgedRow() throws Exception {
    TableName table = TableName.valueOf("flips");
    createTable(
        table,
        IndexSpec.builder(D, V)
            .alias("v")
            .layout(IndexSpec.Layout.BY_VALUE)
            .buckets(1)
            .initialCapacity(64) // compacts once the residue passes 8 rows and half the entries
            .build());
    long compactionsBefore = IndexProbe.filterCompactions(util);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> flipperFailed = new AtomicReference<>();
    AtomicLong flips = new AtomicLong();
    Thread flipper =
        new Thread(
            () -> {
              try (Table t = writer.getTable(table)) {
                for (int round = 0; !stop.get(); round++) {
                  List<Put> puts = new ArrayList<>();
                  byte[] value = Bytes.toBytes(round % 2 == 0 ? "x" : "y");
                  for (int i = 0; i < 50; i++) {
                    puts.add(new Put(Bytes.toBytes("flip-" + i)).addColumn(D, V, value));
                  }
                  t.put(puts);
                  flips.addAndGet(puts.size());
                }
              } catch (Throwable e) {
                flipperFailed.set(e);
              }
            });
    flipper.start();
    List<String> missed = new ArrayList<>();
    int inserted = 0;
    long until = System.currentTimeMillis() + 20_000;
    try (Table t = writer.getTable(table);
        IndexedTable reader = new IndexedTable(readerConnection, table)) {
      while (System.currentTimeMillis() < until
          || IndexProbe.filterCompactions(util) < compactionsBefore + 3) {
        assertTrue(System.currentTimeMillis() < until + 60_000, "too few filter compactions ran");
        byte[] value = Bytes.toBytes("unique-" + inserted);
        t.put(new Put(Bytes.toBytes("new-" + inserted)).addColumn(D, V, value));
        if (reader.findRowKeys(D, V, value).size() != 1) {
          missed.add("unique-" + inserted + " " + reader.lastTrace());
        }
        inserted++;
      }
    } finally {
      stop.set(true);
      flipper.join(60_000);
    }
    assertEquals(null, flipperFailed.get());
    long compactions = IndexProbe.filterCompactions(util) - compactionsBefore;
    System.out.printf(
        "compaction race: %d rows inserted and queried, %d flips, %d filter compactions,"
            + " %d missed%n",
        inserted, flips.get(), compactions, missed.size());
    assertEquals(List.of(), missed, "acknowledged rows the query missed");
    try (IndexedTable reader = new IndexedTable(readerConnection, table)) {
      Oracle oracle = new Oracle(writer, table, D, V);
      for (String value : List.of("x", "y")) {
        assertEquals(
            oracle.rows(Bytes.toBytes(value)),
            Oracle.strings(reader.findRowKeys(D, V, Bytes.toBytes(value))),
            value);
      }
    }
  }

  /**
   * Writes of one row within one millisecond share their timestamp, and a delete marker masks the
   * versions up to its own: a value written back (a, b, a) must not have its index entry masked by
   * the delete of the entry it had before (index families mask only earlier writes,
   * NEW_VERSION_BEHAVIOR). A clock of one-second granularity makes the test's writes share ticks.
   */
  @Test
  void aValueWrittenBackWithinOneClockTickStaysFound() throws Exception {
    TableName table = TableName.valueOf("tick");
    createTable(
        table,
        IndexSpec.builder(D, V).alias("v").build(),
        IndexSpec.builder(D, W).alias("w").local().build());
    byte[] a = Bytes.toBytes("a"), b = Bytes.toBytes("b");
    List<String> missed = new ArrayList<>();
    EnvironmentEdgeManager.injectEdge(() -> System.currentTimeMillis() / 1_000 * 1_000);
    try (Table t = writer.getTable(table);
        IndexedTable reader = new IndexedTable(readerConnection, table)) {
      for (int i = 0; i < 5; i++) {
        byte[] r = row(i);
        for (byte[] value : List.of(a, b, a)) {
          t.put(new Put(r).addColumn(D, V, value).addColumn(D, W, value));
        }
        if (!Oracle.strings(reader.findRowKeys(D, V, a)).contains(Bytes.toString(r))) {
          missed.add(Bytes.toString(r) + " global " + reader.lastTrace());
        }
        if (!Oracle.resultRows(reader.find(D, W, a)).contains(Bytes.toString(r))) {
          missed.add(Bytes.toString(r) + " local " + reader.lastTrace());
        }
      }
    } finally {
      EnvironmentEdgeManager.reset();
    }
    assertEquals(List.of(), missed, "rows missed under the value written back");
  }

  /**
   * A Put with a TTL over an older value: when it expires HBase shows the older value again, whose
   * index row the Put replaced. Such writes are refused, nothing of them applied, the row still
   * found by its value; a TTL on a write of no indexed or covered column is allowed.
   */
  @Test
  void aCellTtlOnAnIndexedColumnIsRefusedAndTheRowStaysFound() throws Exception {
    TableName table = TableName.valueOf("ttl");
    createTable(table, IndexSpec.builder(D, V).alias("v").build());
    byte[] r = row(1);
    try (Table t = writer.getTable(table);
        IndexedTable reader = new IndexedTable(readerConnection, table)) {
      t.put(new Put(r).addColumn(D, V, Bytes.toBytes("b")));
      Put expiring = new Put(r).addColumn(D, V, Bytes.toBytes("a"));
      expiring.setTTL(2_000);
      IOException refused = assertThrows(IOException.class, () -> t.put(expiring));
      assertTrue(refused.getMessage().contains("TTL"), refused.getMessage());
      assertEquals("b", Bytes.toString(t.get(new Get(r)).getValue(D, V)), "nothing applied");
      assertEquals(1, reader.find(D, V, Bytes.toBytes("b")).size());
      assertEquals(0, reader.find(D, V, Bytes.toBytes("a")).size());

      Put unindexed = new Put(r).addColumn(D, OTHER, Bytes.toBytes("temporary"));
      unindexed.setTTL(60_000);
      t.put(unindexed);
      assertEquals("temporary", Bytes.toString(t.get(new Get(r)).getValue(D, OTHER)));
    }
  }

  /** Index answers carry no labels: labelled writes of indexed or covered columns are refused. */
  @Test
  void visibilityLabelsOnIndexedOrCoveredColumnsAreRefused() throws Exception {
    TableName table = TableName.valueOf("labels");
    createTable(table, IndexSpec.builder(D, V).alias("v").covered(D, W).build());
    byte[] r = row(1);
    try (Table t = writer.getTable(table);
        IndexedTable reader = new IndexedTable(readerConnection, table)) {
      t.put(new Put(r).addColumn(D, V, Bytes.toBytes("plain")));
      for (byte[] column : List.of(V, W)) {
        Put labelled = new Put(r).addColumn(D, column, Bytes.toBytes("secret"));
        labelled.setCellVisibility(new CellVisibility("confidential"));
        IOException refused = assertThrows(IOException.class, () -> t.put(labelled));
        assertTrue(refused.getMessage().contains("visibility"), refused.getMessage());
      }
      Delete labelledDelete = new Delete(r).addColumns(D, V);
      labelledDelete.setCellVisibility(new CellVisibility("confidential"));
      assertThrows(IOException.class, () -> t.delete(labelledDelete));
      assertEquals(1, reader.find(D, V, Bytes.toBytes("plain")).size());
      assertEquals(0, reader.find(D, V, Bytes.toBytes("secret")).size());
    }
  }

  /**
   * An insert-only table skips the read of a row's current values, but a Put of one column of a
   * composite index completes a tuple whose other column an earlier Put wrote.
   */
  @Test
  void anInsertOnlyRowWrittenInTwoPutsIsFoundByItsCompositeIndex() throws Exception {
    TableName table = TableName.valueOf("immutable");
    createTable(table, IndexSpec.builder(D, V).alias("vw").thenColumn(D, W).build());
    new IndexAdmin(writer).setImmutableRows(table, true);
    try (Table t = writer.getTable(table);
        IndexedTable reader = new IndexedTable(readerConnection, table)) {
      for (int i = 0; i < 20; i++) {
        t.put(new Put(row(i)).addColumn(D, V, Bytes.toBytes("city")));
        t.put(new Put(row(i)).addColumn(D, W, Bytes.toBytes("street-" + (i % 2))));
      }
      t.put(
          new Put(row(100))
              .addColumn(D, V, Bytes.toBytes("city"))
              .addColumn(D, W, Bytes.toBytes("street-0")));
      List<Result> found = reader.find("vw", Bytes.toBytes("city"), Bytes.toBytes("street-0"));
      assertEquals(11, found.size(), () -> "" + reader.lastTrace());
    }
  }
}
