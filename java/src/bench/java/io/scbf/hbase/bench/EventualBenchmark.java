package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.BenchData.CITY;
import static io.scbf.hbase.bench.BenchData.D;
import static io.scbf.hbase.bench.HBaseBenchmark.say;

import io.scbf.hbase.Coprocessors;
import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.StartMiniClusterOption;
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
 * client's query finds it, sampled every 20 ms during a second update pass of the EVENTUAL table
 * alone. Run with {@code mvn -B -Pbench-hbase verify
 * -Dbench.main=io.scbf.hbase.bench.EventualBenchmark -Dbench.rows=100000}.
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
    HBaseTestingUtility util = new HBaseTestingUtility();
    Configuration conf = util.getConfiguration();
    Coprocessors.configure(conf);
    Coprocessors.trustInProcessRegionServers(conf);
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    // The README's setting for EVENTUAL indexes (HBase's WAL reader backs off to seconds).
    conf.setLong("replication.source.sleepforretries", 20);
    conf.setInt("replication.source.maxretriesmultiplier", 5);
    util.startMiniCluster(
        StartMiniClusterOption.builder().numRegionServers(1).numDataNodes(1).build());
    say(
        "HBase (mini cluster, 1 region server): %,d rows, batches of %d puts, %d writer threads",
        data.rows(), batch, writers);
    try {
      Connection connection = util.getConnection();
      IndexAdmin admin = new IndexAdmin(connection);
      for (TableName t : List.of(PLAIN, STRONG, EVENTUAL)) {
        HBaseBenchmark.createDataTable(connection, t);
      }
      admin.createIndex(STRONG, IndexSpec.builder(D, CITY).alias("city").build());
      admin.createIndex(
          EVENTUAL,
          IndexSpec.builder(D, CITY)
              .alias("city")
              .consistency(IndexSpec.Consistency.EVENTUAL)
              .build());
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
      say("%nlag, acknowledgement to another client's find, during an update pass of %s", EVENTUAL);
      lagUnderLoad(util, connection, data, batch, writers);
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

  private static void lagUnderLoad(
      HBaseTestingUtility util, Connection connection, BenchData data, int batch, int writers)
      throws Exception {
    AtomicBoolean loading = new AtomicBoolean(true);
    List<Long> lagsMs = Collections.synchronizedList(new ArrayList<>());
    Thread probe =
        new Thread(
            () -> {
              // Another client: its own connection, as a reader elsewhere would have.
              try (Connection reader = ConnectionFactory.createConnection(util.getConfiguration());
                  Table t = connection.getTable(EVENTUAL);
                  IndexedTable it = new IndexedTable(reader, EVENTUAL)) {
                for (int i = 0; loading.get(); i++) {
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
      HBaseBenchmark.writes(
          connection, data, batch, writers, List.of(EVENTUAL), Durability.USE_DEFAULT, false, 1);
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
