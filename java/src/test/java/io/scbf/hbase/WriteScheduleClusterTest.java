package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import io.scbf.hbase.testing.ScheduleDelays;
import io.scbf.hbase.testing.ScheduleDelays.Point;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.ServerName;
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
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Explores schedules of the write path: in each, two writers flip three rows between two values
 * (and delete them) while {@link ScheduleDelays} holds index puts, index deletes (some past the
 * index operation timeout, so the writer gives up on a delete that still lands later), data writes
 * and data region closes, drawn from the schedule's seed; some schedules move the data region
 * meanwhile. Once every delayed operation has landed, every row must be found under the value HBase
 * shows for it, through a global and a local index.
 *
 * <p>{@code -Dscbf.schedules=N} (default 120, the short form the test command runs; {@code
 * scripts/schedule-test.sh} runs the long form), {@code -Dscbf.schedules.seed=S} to rerun from S.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WriteScheduleClusterTest {
  static final TableName TABLE = TableName.valueOf("schedules");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] V = Bytes.toBytes("v"); // global BY_VALUE index
  static final byte[] W = Bytes.toBytes("w"); // local index
  static final int ROWS = 3;
  static final int OPS_PER_WRITER = 5;
  static final int OPS_PER_WRITER_DURING_MOVES = 25;
  static final int MOVE_EVERY = Integer.getInteger("scbf.schedules.move-every", 10);
  static final long INDEX_OPERATION_TIMEOUT_MS = 1_000;
  static final long INDEX_RPC_TIMEOUT_MS = 500;
  static final int LONG_CLEANUP_EVERY = Integer.getInteger("scbf.schedules.long-every", 25);

  HBaseTestingUtility util;
  Connection writer;
  Connection readerConnection;

  @BeforeAll
  void startCluster() throws Exception {
    util =
        MiniCluster.start(
            2,
            conf -> {
              conf.setLong(Settings.INDEX_OPERATION_TIMEOUT_MS, INDEX_OPERATION_TIMEOUT_MS);
              conf.setLong(Settings.INDEX_RPC_TIMEOUT_MS, INDEX_RPC_TIMEOUT_MS);
            });
    writer = util.getConnection();
    readerConnection = ConnectionFactory.createConnection(util.getConfiguration());
    try (Admin admin = writer.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build());
      IndexAdmin indexes = new IndexAdmin(writer);
      indexes.createIndex(TABLE, IndexSpec.builder(D, V).alias("v").build());
      indexes.createIndex(TABLE, IndexSpec.builder(D, W).alias("w").local().build());
      for (TableName t : List.of(TABLE, IndexCatalog.indexTableName(TABLE, "v"))) {
        admin.modifyTable(
            TableDescriptorBuilder.newBuilder(admin.getDescriptor(t))
                .setCoprocessor(ScheduleDelays.class.getName())
                .build());
      }
    }
  }

  @AfterAll
  void stopCluster() throws Exception {
    ScheduleDelays.follow(null);
    if (readerConnection != null) readerConnection.close();
    if (util != null) util.shutdownMiniCluster();
  }

  /** What one schedule found: rows checked, and a description of each miss. */
  record Outcome(int rowsChecked, List<String> misses) {}

  @Test
  void everyScheduleLeavesEveryRowFoundUnderItsValue() throws Exception {
    int schedules = Integer.getInteger("scbf.schedules", 120);
    long firstSeed = Long.getLong("scbf.schedules.seed", 1);
    List<String> misses = new ArrayList<>();
    long rowsChecked = 0, moves = 0, longCleanups = 0;
    long[] delayedBefore = delayed();
    long start = System.currentTimeMillis();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try (IndexedTable reader = new IndexedTable(readerConnection, TABLE)) {
      for (long seed = firstSeed; seed < firstSeed + schedules; seed++) {
        boolean longCleanup = seed % LONG_CLEANUP_EVERY == 0;
        boolean move = seed % MOVE_EVERY == 7 % MOVE_EVERY;
        if (longCleanup) longCleanups++;
        if (move) moves++;
        Outcome o = run(seed, longCleanup, move, pool, reader);
        rowsChecked += o.rowsChecked();
        misses.addAll(o.misses());
      }
    } finally {
      ScheduleDelays.follow(null);
      pool.shutdownNow();
    }
    System.out.printf(
        "schedules: %d run (seeds %d..%d; %d with index deletes held past the index operation"
            + " timeout, %d with a move of the data region), operations delayed %s, %d rows"
            + " checked, %d missed, %.1f s%n",
        schedules,
        firstSeed,
        firstSeed + schedules - 1,
        longCleanups,
        moves,
        delayedSince(delayedBefore),
        rowsChecked,
        misses.size(),
        (System.currentTimeMillis() - start) / 1000.0);
    assertEquals(List.of(), misses, "rows missed under their current value");
  }

  static long[] delayed() {
    long[] out = new long[Point.values().length];
    for (Point p : Point.values()) out[p.ordinal()] = ScheduleDelays.delayed(p);
    return out;
  }

  static String delayedSince(long[] before) {
    List<String> out = new ArrayList<>();
    for (Point p : Point.values()) {
      out.add(p + " " + (ScheduleDelays.delayed(p) - before[p.ordinal()]));
    }
    return String.join(", ", out);
  }

  Outcome run(
      long seed, boolean longCleanup, boolean move, ExecutorService pool, IndexedTable reader)
      throws Exception {
    String prefix = "s" + seed + "-";
    byte[][] values = {Bytes.toBytes(prefix + "a"), Bytes.toBytes(prefix + "b")};
    ScheduleDelays.follow(
        new ScheduleDelays.Schedule(seed)
            .delay(Point.INDEX_PUT, 0.3, 20)
            // Past the index RPC timeout HBase drops a held delete (its row lock honours the
            // call's deadline); under it, a held delete lands late, and moves make that matter.
            .delay(
                Point.INDEX_DELETE,
                0.5,
                longCleanup
                    ? INDEX_OPERATION_TIMEOUT_MS * 2
                    : move ? INDEX_RPC_TIMEOUT_MS - 50 : 30)
            .delay(Point.DATA_WRITE, 0.3, 10)
            .delay(Point.DATA_CLOSE, 1.0, 300));
    AtomicLong failedWrites = new AtomicLong();
    List<Future<?>> running = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      Random random = new Random(seed * 31 + w);
      running.add(
          pool.submit(
              () -> {
                try (Table t = writer.getTable(TABLE)) {
                  int ops = move ? OPS_PER_WRITER_DURING_MOVES : OPS_PER_WRITER;
                  for (int op = 0; op < ops; op++) {
                    byte[] row = Bytes.toBytes(prefix + "r" + random.nextInt(ROWS));
                    try {
                      if (random.nextInt(8) == 0) {
                        t.delete(new Delete(row));
                      } else {
                        byte[] value = values[random.nextInt(values.length)];
                        t.put(new Put(row).addColumn(D, V, value).addColumn(D, W, value));
                      }
                    } catch (java.io.IOException e) {
                      failedWrites.incrementAndGet(); // not acknowledged: the check reads HBase
                    }
                    Thread.sleep(random.nextInt(move ? 40 : 6));
                  }
                }
                return null;
              }));
    }
    if (move) {
      Random random = new Random(seed * 31 + 7);
      running.add(
          pool.submit(
              () -> {
                Thread.sleep(random.nextInt(200));
                moveDataRegion();
                return null;
              }));
    }
    for (Future<?> f : running) f.get();
    assertTrue(ScheduleDelays.awaitNoneWaiting(30_000), "delayed operations never landed");
    Thread.sleep(20); // undelayed cleanups just sent
    ScheduleDelays.follow(null);
    return check(prefix, values, reader);
  }

  void moveDataRegion() throws Exception {
    try (Admin admin = writer.getAdmin()) {
      RegionInfo region = admin.getRegions(TABLE).get(0);
      ServerName from =
          writer
              .getRegionLocator(TABLE)
              .getRegionLocation(region.getStartKey(), true)
              .getServerName();
      for (ServerName to : admin.getRegionServers()) {
        if (!to.equals(from)) {
          admin.move(region.getEncodedNameAsBytes(), to);
          return;
        }
      }
    }
  }

  Outcome check(String prefix, byte[][] values, IndexedTable reader) throws Exception {
    List<String> misses = new ArrayList<>();
    List<List<String>> byV = new ArrayList<>(), byW = new ArrayList<>();
    for (int v = 0; v < values.length; v++) {
      byV.add(new ArrayList<>());
      byW.add(new ArrayList<>());
    }
    try (Table t = writer.getTable(TABLE)) {
      for (int r = 0; r < ROWS; r++) {
        byte[] row = Bytes.toBytes(prefix + "r" + r);
        Result now = t.get(new Get(row));
        for (int v = 0; v < values.length; v++) {
          if (Bytes.equals(values[v], now.getValue(D, V))) byV.get(v).add(Bytes.toString(row));
          if (Bytes.equals(values[v], now.getValue(D, W))) byW.get(v).add(Bytes.toString(row));
        }
      }
    }
    for (int v = 0; v < values.length; v++) {
      String value = Bytes.toString(values[v]);
      List<String> found = Oracle.resultRows(reader.find(D, V, values[v]));
      if (!found.equals(byV.get(v))) {
        misses.add(value + " global find: " + found + ", HBase shows " + byV.get(v));
      }
      TreeSet<String> keys = new TreeSet<>(Oracle.strings(reader.findRowKeys(D, V, values[v])));
      if (!keys.containsAll(byV.get(v))) {
        misses.add(value + " global findRowKeys: " + keys + ", HBase shows " + byV.get(v));
      }
      List<String> local = Oracle.resultRows(reader.find(D, W, values[v])); // routed
      if (!local.equals(byW.get(v))) {
        misses.add(value + " local find: " + local + ", HBase shows " + byW.get(v));
      }
    }
    return new Outcome(ROWS, misses);
  }
}
