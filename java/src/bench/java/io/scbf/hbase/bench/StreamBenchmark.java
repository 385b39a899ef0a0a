package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.HBaseBenchmark.say;
import static io.scbf.hbase.bench.HBaseBenchmark.seconds;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.shared.Settings;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Streamed answers (issue 12, part 6): one value held by {@code bench.rows} rows (80,000 by
 * default) of 1 KB each, indexed globally in one bucket with the 1 KB column covered (so one
 * bucket's answer is about 80 MiB) and locally. For each mode, {@code find} as one list and {@link
 * IndexedTable#stream} (index plan forced, pages of {@code scbf.client.page.rows} = 1000): whether
 * it answers, its time, the bytes of rows it returned, and the heap the reader holds midway: live
 * heap after a full GC, minus before the query, taken once the list is returned or halfway through
 * the stream (the region servers share this JVM, so anything they retain counts too; each query
 * runs once before it is measured, so that its blocks are already in the block cache).
 *
 * <p>{@code mvn -B -Pbench-hbase verify -Dbench.main=io.scbf.hbase.bench.StreamBenchmark
 * -Dbench.rows=80000}
 */
public final class StreamBenchmark {
  static final TableName TABLE = TableName.valueOf("streamed");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] ZIP = Bytes.toBytes("zip");
  static final byte[] BLOB = Bytes.toBytes("blob");
  static final byte[] BIG = Bytes.toBytes("big");

  public static void main(String[] args) throws Exception {
    int rows = Integer.getInteger("bench.rows", 80_000);
    long t0 = System.nanoTime();
    HBaseTestingUtility util = BenchCluster.start(2);
    say("mini cluster (2 region servers) up in %.1f s; %,d rows of 1 KB", seconds(t0), rows);
    try {
      run(util, rows);
    } finally {
      util.shutdownMiniCluster();
    }
    System.exit(0);
  }

  static void run(HBaseTestingUtility util, int rows) throws Exception {
    Connection connection = util.getConnection();
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          BenchData.splits(8));
    }
    IndexAdmin indexes = new IndexAdmin(connection);
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, CITY)
            .alias("city")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(1)
            .covered(D, BLOB)
            .build());
    indexes.createIndex(TABLE, IndexSpec.builder(D, ZIP).alias("zip").local().build());
    long t0 = System.nanoTime();
    Random random = new Random(42);
    try (Table t = connection.getTable(TABLE)) {
      List<Put> batch = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        byte[] blob = new byte[1024];
        random.nextBytes(blob);
        batch.add(
            new Put(Bytes.toBytes(String.format("u%08x", (int) (i * 0x9E3779B1L))))
                .addColumn(D, CITY, BIG)
                .addColumn(D, ZIP, BIG)
                .addColumn(D, BLOB, blob));
        if (batch.size() == 500) {
          t.put(batch);
          batch.clear();
        }
      }
      t.put(batch);
    }
    try (Admin admin = connection.getAdmin()) {
      for (TableName t : admin.listTableNames()) admin.flush(t);
    }
    say("loaded and flushed in %.1f s", seconds(t0));
    Thread.sleep(3000);

    Configuration indexConf = new Configuration(connection.getConfiguration());
    indexConf.set(Settings.PLANNER, "index");
    try (Connection c = ConnectionFactory.createConnection(indexConf);
        IndexedTable table = new IndexedTable(c, TABLE)) {
      say(
          "%n%-28s %-9s %10s %12s %10s %18s",
          "query", "answered", "rows", "MiB of rows", "time (s)", "held midway (MiB)");
      for (byte[] column : List.of(CITY, ZIP)) {
        String mode = column == CITY ? "global, 1 bucket, covered" : "local";
        measure(
            mode + ": find (list)",
            holding -> {
              long bytes = 0;
              List<Result> all = table.find(D, column, BIG);
              for (Result r : all) bytes += bytesOf(r);
              holding.run();
              return new long[] {all.size(), bytes};
            });
        measure(
            mode + ": stream",
            holding -> {
              long n = 0, bytes = 0;
              try (ResultScanner s = table.stream(D, column, BIG)) {
                for (Result r = s.next(); r != null; r = s.next()) {
                  if (++n == rows / 2) holding.run();
                  bytes += bytesOf(r);
                }
              }
              return new long[] {n, bytes};
            });
      }
    }
  }

  private interface Query {
    /** Runs the query; calls {@code holding} once while it holds what a reader holds midway. */
    long[] run(Runnable holding) throws Exception;
  }

  static long bytesOf(Result r) {
    long n = 0;
    for (Cell c : r.rawCells()) n += c.getRowLength() + c.getValueLength();
    return n;
  }

  /** Heap in use after a full GC. */
  static long liveHeap() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    System.gc();
    return memory.getHeapMemoryUsage().getUsed();
  }

  /**
   * Runs the query twice and reports the second run: the first fills the block cache, which lives
   * in this JVM's heap too and would count as held.
   */
  static void measure(String label, Query q) throws Exception {
    try {
      q.run(() -> {});
    } catch (Exception e) {
      // Reported by the measured run.
    }
    long base = liveHeap();
    AtomicLong held = new AtomicLong();
    long t0 = System.nanoTime();
    String answered;
    long[] result = {0, 0};
    try {
      result = q.run(() -> held.set(liveHeap() - base));
      answered = "yes";
    } catch (Exception e) {
      answered = "NO";
      say("  %s failed: %s", label, e.toString().lines().findFirst().orElse(""));
    }
    double secs = seconds(t0);
    say(
        "%-28s %-9s %10d %12.1f %10.2f %18.1f",
        label, answered, result[0], result[1] / 1048576.0, secs, held.get() / 1048576.0);
  }
}
