package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.testing.MiniCluster;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 49: a row rewritten without pause changes under the EVENTUAL applier in every round. The
 * applier used to fail the whole batch after its last round, so the server's replication queue
 * resent that batch for as long as the writer ran and shipped nothing behind it: no other table on
 * that WAL reached its index. One region server, so both tables share its WAL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EventualHotRowClusterTest {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final TableName HOT = TableName.valueOf("hot");
  static final TableName CALM = TableName.valueOf("calm");
  static final byte[] HOT_ROW = Bytes.toBytes("h");
  static final int CITIES = 5;

  HBaseTestingUtility util;
  Connection connection;
  IndexAdmin indexAdmin;

  @BeforeAll
  void startCluster() throws Exception {
    util = MiniCluster.start(1);
    connection = util.getConnection();
    indexAdmin = new IndexAdmin(connection);
    for (TableName t : List.of(HOT, CALM)) {
      try (Admin admin = connection.getAdmin()) {
        admin.createTable(
            TableDescriptorBuilder.newBuilder(t)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
                .build());
      }
      indexAdmin.createIndex(
          t,
          IndexSpec.builder(D, CITY)
              .alias("city")
              .consistency(IndexSpec.Consistency.EVENTUAL)
              .buckets(2)
              .build());
    }
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (util != null) util.shutdownMiniCluster();
  }

  private static String city(long i) {
    return "c" + (i % CITIES);
  }

  private TreeSet<String> found(TableName table, String city) throws IOException {
    try (IndexedTable t = new IndexedTable(connection, table).setStrict(true)) {
      TreeSet<String> out = new TreeSet<>();
      for (byte[] r : t.findRowKeys(D, CITY, Bytes.toBytes(city))) out.add(Bytes.toString(r));
      return out;
    }
  }

  @Test
  void aRowRewrittenWithoutPauseHoldsUpNoOtherTableAndEndsIndexedAsLastWritten() throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong writes = new AtomicLong();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread writer =
        new Thread(
            () -> {
              try (Table t = connection.getTable(HOT)) {
                while (!stop.get()) {
                  long i = writes.get();
                  t.put(new Put(HOT_ROW).addColumn(D, CITY, Bytes.toBytes(city(i))));
                  writes.set(i + 1);
                }
              } catch (Throwable e) {
                failed.set(e);
              }
            },
            "hot-row-writer");
    writer.start();
    try {
      Thread.sleep(2000); // the applier is now working on batches holding the hot row
      List<String> calmRows = new ArrayList<>();
      try (Table t = connection.getTable(CALM)) {
        for (int i = 0; i < 20; i++) {
          String r = String.format("r%02d", i);
          calmRows.add(r);
          t.put(new Put(Bytes.toBytes(r)).addColumn(D, CITY, Bytes.toBytes(city(i))));
        }
      }
      long before = writes.get();
      assertTrue(
          indexAdmin.awaitIndexed(CALM, 20_000),
          "the calm table's writes reached its index while the hot row was rewritten");
      assertTrue(writes.get() > before + 100, "the hot row was rewritten meanwhile");
      for (int c = 0; c < CITIES; c++) {
        TreeSet<String> expected = new TreeSet<>();
        for (int i = 0; i < calmRows.size(); i++) {
          if (city(i).equals("c" + c)) expected.add(calmRows.get(i));
        }
        assertEquals(expected, found(CALM, "c" + c), "calm rows of c" + c);
      }
    } finally {
      stop.set(true);
      writer.join();
    }
    if (failed.get() != null) throw new AssertionError("the writer failed", failed.get());
    String last = city(writes.get() - 1);
    assertTrue(
        indexAdmin.awaitIndexed(HOT, 30_000), "the hot row is indexed once its writer stops");
    for (int c = 0; c < CITIES; c++) {
      String value = "c" + c;
      assertEquals(
          value.equals(last) ? new TreeSet<>(List.of("h")) : new TreeSet<>(),
          found(HOT, value),
          "the hot row under " + value + " (last written " + last + ")");
    }
    // Queries re-check rows, so only verify sees a stale entry the applier left behind.
    for (TableName t : List.of(HOT, CALM)) {
      VerifyReport report = indexAdmin.verify(t, "city");
      assertTrue(report.isConsistent(), t + ": " + report);
    }
  }
}
