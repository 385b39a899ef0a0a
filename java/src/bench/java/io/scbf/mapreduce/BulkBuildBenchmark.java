package io.scbf.mapreduce;

import io.scbf.hbase.BuildProgress;
import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.regionserver.IndexProbe;
import io.scbf.hbase.shared.Settings;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.util.ToolRunner;

/**
 * Rows per second of indexing existing rows with {@link BuildIndexTool} (HFiles, then puts) against
 * indexing the same rows through streaming writes (the index defined before the rows are written),
 * on one embedded cluster in one run; unindexed writes give the streaming baseline, and {@code
 * IndexAdmin.createIndex}'s client backfill (one data region at a time, then {@code
 * scbf.client.build.threads} at once) the other way to index existing rows. Not a test: run it as
 * docs/benchmarks-bulk-build.md shows. Argument: rows (default 200000).
 */
public final class BulkBuildBenchmark {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] NAME = Bytes.toBytes("name");
  static final int REGIONS = 8;
  static final int BATCH = 1000;
  static final int LOCAL_TASKS = Math.max(1, Runtime.getRuntime().availableProcessors());

  private final HBaseTestingUtility util;
  private final Connection connection;
  private final int rows;

  private BulkBuildBenchmark(HBaseTestingUtility util, int rows) throws IOException {
    this.util = util;
    this.connection = util.getConnection();
    this.rows = rows;
  }

  public static void main(String[] args) throws Exception {
    int rows =
        args.length > 0 ? Integer.parseInt(args[0]) : Integer.getInteger("bench.rows", 200_000);
    HBaseTestingUtility util = IndexProbe.startCluster(1);
    try {
      new BulkBuildBenchmark(util, rows).run();
    } finally {
      util.shutdownMiniCluster();
    }
  }

  static IndexSpec spec() {
    return IndexSpec.builder(D, CITY)
        .alias("city")
        .layout(IndexSpec.Layout.BY_ROW)
        .buckets(16)
        .covered(D, NAME)
        .build();
  }

  private void run() throws Exception {
    IndexAdmin indexes = new IndexAdmin(connection);
    TableName plain = create("plain");
    TableName streamed = create("streamed");
    TableName bulk = create("bulk");
    indexes.createIndex(streamed, spec()); // empty: nothing to backfill

    double plainSeconds = write(plain);
    double streamedSeconds = write(streamed);
    write(bulk);
    indexes.defineIndex(bulk, spec());
    double hfileSeconds = build(bulk, "hfiles");
    indexes.dropIndex(bulk, "city");
    indexes.defineIndex(bulk, spec());
    double putSeconds = build(bulk, "puts");
    indexes.dropIndex(bulk, "city");
    // The client-side backfill, the other way to index old rows: one region at a time (as the
    // backfill was before it went parallel), then the default number of regions at once.
    double serialSeconds = backfill(bulk, 1);
    indexes.dropIndex(bulk, "city");
    double parallelSeconds = backfill(bulk, Settings.DEFAULT_CLIENT_BUILD_THREADS);

    System.out.printf(
        "%n=== bulk build benchmark: %d rows, %d data regions, 16 index buckets,"
            + " %d local tasks ===%n",
        rows, REGIONS, LOCAL_TASKS);
    System.out.printf(
        "unindexed writes            %8.1f s %10.0f rows/s%n", plainSeconds, rows / plainSeconds);
    System.out.printf(
        "streaming indexed writes    %8.1f s %10.0f rows/s%n",
        streamedSeconds, rows / streamedSeconds);
    System.out.printf(
        "bulk build, hfiles          %8.1f s %10.0f rows/s  (%.1fx streaming)%n",
        hfileSeconds, rows / hfileSeconds, streamedSeconds / hfileSeconds);
    System.out.printf(
        "bulk build, puts            %8.1f s %10.0f rows/s  (%.1fx streaming)%n",
        putSeconds, rows / putSeconds, streamedSeconds / putSeconds);
    System.out.printf(
        "createIndex, 1 region/time  %8.1f s %10.0f rows/s  (%.1fx streaming)%n",
        serialSeconds, rows / serialSeconds, streamedSeconds / serialSeconds);
    System.out.printf(
        "createIndex, %d regions/time %7.1f s %10.0f rows/s  (%.1fx streaming, %.2fx 1 region)%n",
        Settings.DEFAULT_CLIENT_BUILD_THREADS,
        parallelSeconds,
        rows / parallelSeconds,
        streamedSeconds / parallelSeconds,
        serialSeconds / parallelSeconds);
  }

  /** createIndex with {@code threads} backfill threads, progress on stdout; returns seconds. */
  private double backfill(TableName table, int threads) throws IOException {
    Configuration conf = new Configuration(util.getConfiguration());
    conf.setInt(Settings.CLIENT_BUILD_THREADS, threads);
    try (Connection client = ConnectionFactory.createConnection(conf)) {
      BuildProgress done =
          new IndexAdmin(client).createIndex(table, spec(), p -> System.out.println("  " + p));
      System.out.println("  " + done);
      return done.elapsedMs() / 1e3;
    }
  }

  private TableName create(String name) throws IOException {
    TableName table = TableName.valueOf(name);
    byte[][] splits = new byte[REGIONS - 1][];
    for (int r = 1; r < REGIONS; r++) splits[r - 1] = row((long) rows * r / REGIONS);
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(table)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          splits);
    }
    return table;
  }

  private static byte[] row(long i) {
    return Bytes.toBytes(String.format("r%09d", i));
  }

  /** Writes the rows in batches from one client thread; returns seconds. */
  private double write(TableName table) throws IOException {
    long start = System.nanoTime();
    try (Table t = connection.getTable(table)) {
      List<Put> batch = new ArrayList<>(BATCH);
      for (int i = 0; i < rows; i++) {
        batch.add(
            new Put(row(i))
                .addColumn(D, CITY, Bytes.toBytes("city-" + (i % 5000)))
                .addColumn(D, NAME, Bytes.toBytes("name-" + i)));
        if (batch.size() == BATCH) {
          t.put(batch);
          batch.clear();
        }
      }
      t.put(batch);
    }
    return (System.nanoTime() - start) / 1e9;
  }

  /** Runs the tool end to end (job, load, routing confirmed); returns seconds. */
  private double build(TableName table, String mode) throws Exception {
    Configuration conf = new Configuration(util.getConfiguration());
    // The local job runner runs one task at a time by default; the machine has LOCAL_TASKS cores.
    conf.setInt("mapreduce.local.map.tasks.maximum", LOCAL_TASKS);
    conf.setInt("mapreduce.local.reduce.tasks.maximum", LOCAL_TASKS);
    long start = System.nanoTime();
    int status =
        ToolRunner.run(
            conf, new BuildIndexTool(), new String[] {table.getNameAsString(), "--mode", mode});
    if (status != 0) throw new IllegalStateException("bulk build (" + mode + ") exited " + status);
    return (System.nanoTime() - start) / 1e9;
  }
}
