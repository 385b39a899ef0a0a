package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.BenchData.AGE;
import static io.scbf.hbase.bench.BenchData.CITY;
import static io.scbf.hbase.bench.BenchData.D;
import static io.scbf.hbase.bench.BenchData.NAME;
import static io.scbf.hbase.bench.HBaseBenchmark.say;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.shared.Settings;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Issue 39's figures in one run on an in-process HBase (1 region server): batched-put load and one
 * update pass (a new indexed value for every fourth row) into an unindexed table, one with a STRONG
 * global index and one with an EVENTUAL one (both {@code BY_VALUE} on the city column), the
 * EVENTUAL table's catch-up after each, and the lag from a write's acknowledgement until another
 * client's query finds it (a probe row written, then queried until found, every 20 ms), during
 * update passes of the EVENTUAL table alone at full speed ({@code bench.lagPasses}, 4) and during
 * 10 s of updates at a fixed rate ({@code bench.lagRate} rows/s, 2000); first, the lag of one
 * writer alone (a row every ~25 ms for 10 s). {@code bench.polling}: {@code product} (default: the
 * product's own polling of its peer's WAL, no replication setting changed), {@code readme} (0.3's
 * recommended region-server-wide {@code replication.source.*} settings) or {@code hbase} ({@code
 * scbf.eventual.poll.ms=0}: HBase's defaults for the peer too). Run with {@code mvn -B
 * -Pbench-hbase verify -Dbench.main=io.scbf.hbase.bench.EventualBenchmark -Dbench.rows=100000}.
 */
public final class EventualBenchmark {
  static final TableName PLAIN = TableName.valueOf("ev_bench_plain");
  static final TableName STRONG = TableName.valueOf("ev_bench_strong");
  static final TableName EVENTUAL = TableName.valueOf("ev_bench_eventual");

  private EventualBenchmark() {}

  public static void main(String[] args) throws Exception {
    BenchData data = new BenchData(Integer.getInteger("bench.rows", 100_000));
    int batch = Integer.getInteger("bench.batch", 2000);
    int writers = Integer.getInteger("bench.writers", 2);
    int indexes = Integer.getInteger("bench.indexes", 1);
    if (indexes < 1 || indexes > 3) throw new IllegalArgumentException("bench.indexes: 1 to 3");
    String polling = System.getProperty("bench.polling", "product");
    HBaseTestingUtility util =
        BenchCluster.start(
            1,
            conf -> {
              switch (polling) {
                case "product" -> {}
                case "readme" -> BenchCluster.eventualSettings(conf);
                case "hbase" -> conf.setLong(Settings.EVENTUAL_POLL_MS, 0);
                default -> throw new IllegalArgumentException("bench.polling: " + polling);
              }
            });
    say("WAL polling of the EVENTUAL peer: %s", polling);
    say(
        "HBase (mini cluster, 1 region server): %,d rows, batches of %d puts, %d writer threads,"
            + " %d global index(es) per indexed table",
        data.rows(), batch, writers, indexes);
    try {
      Connection connection = util.getConnection();
      IndexAdmin admin = new IndexAdmin(connection);
      for (TableName t : List.of(PLAIN, STRONG, EVENTUAL)) {
        HBaseBenchmark.createDataTable(connection, t);
      }
      // -Dbench.indexes=3: city, age and name indexed on both indexed tables.
      List<byte[]> indexed = List.of(CITY, AGE, NAME).subList(0, indexes);
      for (byte[] column : indexed) {
        String alias = Bytes.toString(column);
        admin.createIndex(STRONG, IndexSpec.builder(D, column).alias(alias).build());
        admin.createIndex(
            EVENTUAL,
            IndexSpec.builder(D, column)
                .alias(alias)
                .consistency(IndexSpec.Consistency.EVENTUAL)
                .build());
      }
      List<TableName> tables = List.of(PLAIN, STRONG, EVENTUAL);
      say("%nload (new rows)");
      HBaseBenchmark.writes(
          connection,
          data,
          batch,
          writers,
          tables,
          Durability.USE_DEFAULT,
          true,
          HBaseBenchmark.LOAD);
      catchUp(admin);
      say("%nupdate pass (every fourth row gets a new city)");
      HBaseBenchmark.writes(
          connection, data, batch, writers, tables, Durability.USE_DEFAULT, false, 0);
      catchUp(admin);
      say("%nlag, one writer alone (a row every ~25 ms, 10 s)");
      lag(util, connection, () -> Thread.sleep(10_000));
      int passes = Integer.getInteger("bench.lagPasses", 4);
      say(
          "%nlag, acknowledgement to another client's find, during %d update passes of %s at full"
              + " speed",
          passes, EVENTUAL);
      lag(
          util,
          connection,
          () -> {
            for (int p = 1; p <= passes; p++) {
              HBaseBenchmark.writes(
                  connection,
                  data,
                  batch,
                  writers,
                  List.of(EVENTUAL),
                  Durability.USE_DEFAULT,
                  false,
                  p);
            }
          });
      catchUp(admin);
      int rate = Integer.getInteger("bench.lagRate", 2000);
      say(
          "%nlag during 10 s of updates at %,d rows/s (batches of %d every 50 ms)",
          rate, rate / 20);
      lag(util, connection, () -> paced(connection, data, rate, 10));
      // Verified once caught up: before, the last updates' entries may still be on their way.
      catchUp(admin);
      say("%nverify %s: %s", EVENTUAL, admin.verify(EVENTUAL, "city"));
    } finally {
      util.shutdownMiniCluster();
    }
  }

  private static void catchUp(IndexAdmin admin) throws Exception {
    long t0 = System.nanoTime();
    boolean done = admin.awaitIndexed(EVENTUAL, 600_000);
    say(
        "  %s caught up %s %.2f s after the pass",
        EVENTUAL, done ? "" : "NOT (timeout)", (System.nanoTime() - t0) / 1e9);
  }

  interface Load {
    void run() throws Exception;
  }

  /** Updates of random rows' city at {@code rate} rows/s for {@code seconds}. */
  private static void paced(Connection connection, BenchData data, int rate, int seconds)
      throws Exception {
    java.util.Random random = new java.util.Random(39);
    int perTick = Math.max(1, rate / 20);
    long start = System.nanoTime();
    try (Table t = connection.getTable(EVENTUAL)) {
      for (int tick = 0; tick < seconds * 20; tick++) {
        List<Put> puts = new ArrayList<>(perTick);
        for (int k = 0; k < perTick; k++) {
          int i = random.nextInt(data.rows());
          puts.add(
              new Put(Bytes.toBytes(String.format("u%08x", i * 0x9E3779B1)))
                  .addColumn(D, CITY, Bytes.toBytes("paced-" + random.nextInt(data.rows() / 10))));
        }
        t.put(puts);
        long next = start + (tick + 1) * 50_000_000L;
        long sleep = (next - System.nanoTime()) / 1_000_000;
        if (sleep > 0) Thread.sleep(sleep);
      }
    }
  }

  private static void lag(HBaseTestingUtility util, Connection connection, Load load)
      throws Exception {
    AtomicBoolean loading = new AtomicBoolean(true);
    List<Long> lagsMs = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger probes = new AtomicInteger();
    Thread probe =
        new Thread(
            () -> {
              // Another client: its own connection, as a reader elsewhere would have.
              try (Connection reader = ConnectionFactory.createConnection(util.getConfiguration());
                  Table t = connection.getTable(EVENTUAL);
                  IndexedTable it = new IndexedTable(reader, EVENTUAL)) {
                while (loading.get()) {
                  int i = probes.getAndIncrement();
                  byte[] value = Bytes.toBytes("probe-" + i);
                  t.put(new Put(Bytes.toBytes("zprobe-" + i)).addColumn(D, CITY, value));
                  long acked = System.nanoTime();
                  while (it.findRowKeys(D, CITY, value).isEmpty()) Thread.sleep(1);
                  lagsMs.add((System.nanoTime() - acked) / 1_000_000);
                  Thread.sleep(20);
                }
              } catch (Exception e) {
                say("  probe failed: %s", e);
              }
            },
            "lag-probe");
    probe.start();
    try {
      load.run();
    } finally {
      loading.set(false);
      probe.join();
    }
    List<Long> sorted = new ArrayList<>(lagsMs);
    Collections.sort(sorted);
    if (sorted.isEmpty()) {
      say("  no lag sample");
      return;
    }
    say(
        "  %d samples: p50 %d ms, p99 %d ms, max %d ms",
        sorted.size(),
        sorted.get(sorted.size() / 2),
        sorted.get(Math.min(sorted.size() - 1, (int) (sorted.size() * 0.99))),
        sorted.get(sorted.size() - 1));
  }
}
