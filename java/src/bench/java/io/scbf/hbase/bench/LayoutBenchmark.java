package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.BenchData.CITY;
import static io.scbf.hbase.bench.BenchData.D;
import static io.scbf.hbase.bench.BenchData.NAME;
import static io.scbf.hbase.bench.HBaseBenchmark.say;
import static io.scbf.hbase.bench.HBaseBenchmark.seconds;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.QueryTrace;
import io.scbf.hbase.shared.IndexCatalog;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The two global index layouts side by side on one mini cluster (2 region servers), the same rows
 * in four tables: unindexed (the load baseline), a {@code BY_ROW} index (16 fixed buckets, routed
 * by the master's bitmaps), a local index and a {@code BY_VALUE} index that starts with one region
 * and splits as it grows (index regions split at {@code bench.split.mb}, 4 MiB by default, so that
 * a mini load crosses the split size several times). Prints index regions, regions asked per
 * selective covered query, covered queries per second (a filtered full scan as the unindexed
 * baseline), misses of a query sent by another client right after an acknowledged write, and
 * routing memory.
 *
 * <p>{@code mvn -B -Pbench-hbase verify -Dbench.main=io.scbf.hbase.bench.LayoutBenchmark
 * -Dbench.rows=200000}
 */
public final class LayoutBenchmark {
  static final TableName PLAIN = TableName.valueOf("layout_plain");
  static final TableName BY_ROW = TableName.valueOf("layout_by_row");
  static final TableName BY_VALUE = TableName.valueOf("layout_by_value");
  static final TableName LOCAL = TableName.valueOf("layout_local");

  public static void main(String[] args) throws Exception {
    BenchData data = new BenchData(Integer.getInteger("bench.rows", 200_000));
    long splitBytes = Long.getLong("bench.split.mb", 4) << 20;
    int threads = Integer.getInteger("bench.threads", 16);
    long queryMs = Long.getLong("bench.query.ms", 10_000);
    long t0 = System.nanoTime();
    HBaseTestingUtility util =
        BenchCluster.start(
            2,
            conf -> {
              // A mini load crosses the split size only if memstores flush (and so check it)
              // often enough.
              conf.setLong("hbase.hregion.memstore.flush.size", Math.max(1 << 20, splitBytes / 4));
              conf.setInt("hbase.hfile.compaction.discharger.interval", 5000);
              conf.setBoolean("hbase.table.sanity.checks", false);
            });
    Configuration conf = util.getConfiguration();
    say("mini cluster (2 region servers) up in %.1f s; %,d rows", seconds(t0), data.rows());
    try {
      Connection connection = util.getConnection();
      try (Admin admin = connection.getAdmin()) {
        for (TableName t : List.of(PLAIN, BY_ROW, BY_VALUE, LOCAL)) {
          admin.createTable(
              TableDescriptorBuilder.newBuilder(t)
                  .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
                  .setMaxFileSize(10L << 30)
                  .build(),
              BenchData.splits(HBaseBenchmark.REGIONS));
        }
      }
      IndexAdmin indexes = new IndexAdmin(connection);
      indexes.createIndex(
          BY_ROW,
          IndexSpec.builder(D, CITY)
              .alias("city")
              .layout(IndexSpec.Layout.BY_ROW)
              .buckets(16)
              .covered(D, NAME)
              .build());
      indexes.createIndex(
          BY_VALUE,
          IndexSpec.builder(D, CITY)
              .alias("city")
              .layout(IndexSpec.Layout.BY_VALUE)
              .buckets(1)
              .covered(D, NAME)
              .build());
      indexes.createIndex(
          LOCAL, IndexSpec.builder(D, CITY).alias("city").local().covered(D, NAME).build());
      TableName valueIndex = IndexCatalog.indexTableName(BY_VALUE, "city");
      try (Admin admin = connection.getAdmin()) {
        admin.modifyTable(
            TableDescriptorBuilder.newBuilder(admin.getDescriptor(valueIndex))
                .setMaxFileSize(splitBytes)
                .build());
      }

      say("%n(1) load: the same rows into each table, 2 writers, batches of 1000");
      HBaseBenchmark.writes(
          connection,
          data,
          1000,
          2,
          List.of(PLAIN, BY_ROW, BY_VALUE, LOCAL),
          Durability.USE_DEFAULT,
          true,
          HBaseBenchmark.LOAD);
      Thread.sleep(15_000); // splits in flight finish; every bucket publishes
      try (Admin admin = connection.getAdmin()) {
        say(
            "  index regions: BY_ROW %d (fixed), BY_VALUE %d (started with 1, splits at %d MiB)",
            admin.getRegions(IndexCatalog.indexTableName(BY_ROW, "city")).size(),
            admin.getRegions(valueIndex).size(),
            splitBytes >> 20);
      }

      List<String> selective = data.citiesWithRows(5, 20, 2000, 42);
      say("%n(2) regions asked per selective covered query (%d values of 5-20 rows)", 2000);
      try (IndexedTable row = new IndexedTable(connection, BY_ROW);
          IndexedTable value = new IndexedTable(connection, BY_VALUE);
          IndexedTable local = new IndexedTable(connection, LOCAL)) {
        Map<IndexedTable, String> names = new LinkedHashMap<>();
        names.put(row, "BY_ROW");
        names.put(value, "BY_VALUE");
        names.put(local, "local");
        for (IndexedTable t : names.keySet()) {
          long asked = 0, total = 0, entries = 0;
          for (String c : selective) {
            entries += t.findEntries(D, CITY, Bytes.toBytes(c)).size();
            QueryTrace.Regions r = t.lastTrace().regions();
            asked += r.asked();
            total = r.total();
          }
          say(
              "  %-16s %.2f of %d regions asked per query (%.1f rows per value)",
              names.get(t),
              (double) asked / selective.size(),
              total,
              (double) entries / selective.size());
        }

        say(
            "%n(3) covered selective queries per second, %d threads, %d s each",
            threads, queryMs / 1000);
        double scanQps = scanRate(connection, selective, Math.min(queryMs, 5000));
        say("  %-16s %,10.1f queries/s (filtered full scan, 2 threads)", "unindexed", scanQps);
        for (IndexedTable t : names.keySet()) {
          double qps = queryRate(t, selective, threads, queryMs);
          say("  %-16s %,10.0f queries/s  (%.0fx the scan)", names.get(t), qps, qps / scanQps);
        }
      }

      int writes = Integer.getInteger("bench.fresh.writes", 100);
      say("%n(4) a query from another client right after an acknowledged write, %d writes", writes);
      for (TableName t : List.of(BY_ROW, BY_VALUE, LOCAL)) freshness(conf, connection, t, writes);

      say("%n(5) routing memory");
      try (IndexedTable row = new IndexedTable(connection, BY_ROW)) {
        long bitmaps = row.routingReport(D, CITY).filterBytes();
        say(
            "  BY_ROW: %,d bytes of bitmaps at the master and in each client copy (%.1f bits per"
                + " entry); grows with the entries",
            bitmaps, 8.0 * bitmaps / data.rows());
      }
      say(
          "  BY_VALUE: no routing state (0 bytes at the master and in clients); a client locates"
              + " the value's region like any row key (HBase's region cache: one entry per region)");
    } finally {
      util.shutdownMiniCluster();
    }
  }

  /** Queries per second of {@code threads} threads asking covered entries of the values. */
  static double queryRate(IndexedTable table, List<String> values, int threads, long ms)
      throws Exception {
    return Throughput.perSecond(
        threads, ms, () -> v -> table.findEntries(D, CITY, Bytes.toBytes(v)), values);
  }

  /**
   * Filtered full scans per second of the unindexed table, 2 threads (a Table each: a Table from a
   * shared connection holds nothing to release).
   */
  static double scanRate(Connection connection, List<String> values, long ms) throws Exception {
    return Throughput.perSecond(
        2,
        ms,
        () -> {
          Table t = connection.getTable(PLAIN);
          return v -> {
            Scan scan =
                new Scan()
                    .setCaching(1000)
                    .setFilter(
                        new SingleColumnValueFilter(
                            D, CITY, CompareOperator.EQUAL, Bytes.toBytes(v)));
            try (ResultScanner s = t.getScanner(scan)) {
              for (Result r : s) r.getRow();
            }
          };
        },
        values);
  }

  /**
   * Writes {@code writes} rows of new values with one connection and queries each at once with
   * another client's connection; prints the misses and, for each miss, how long until it showed.
   */
  static void freshness(Configuration conf, Connection writer, TableName table, int writes)
      throws Exception {
    List<Long> delays = new ArrayList<>();
    int misses = 0;
    try (Connection other = ConnectionFactory.createConnection(conf);
        IndexedTable reader = new IndexedTable(other, table);
        Table t = writer.getTable(table)) {
      reader.findRowKeys(D, CITY, Bytes.toBytes("warm-up")); // routing copy and locations loaded
      for (int i = 0; i < writes; i++) {
        byte[] value = Bytes.toBytes("fresh-" + table.getQualifierAsString() + "-" + i);
        t.put(new Put(Bytes.toBytes(String.format("fresh%06d", i))).addColumn(D, CITY, value));
        long acked = System.nanoTime();
        if (reader.findRowKeys(D, CITY, value).size() == 1) continue;
        misses++;
        while (reader.findRowKeys(D, CITY, value).isEmpty() && seconds(acked) < 5) {
          Thread.sleep(10);
        }
        delays.add((System.nanoTime() - acked) / 1_000_000);
      }
    }
    long[] sorted = delays.stream().mapToLong(Long::longValue).sorted().toArray();
    say(
        "  %-16s %d of %d first queries missed the row%s",
        table.getQualifierAsString(),
        misses,
        writes,
        sorted.length == 0
            ? ""
            : String.format(
                "; visible after p50 %d ms, p99 %d ms, max %d ms",
                sorted[sorted.length / 2],
                sorted[Math.min(sorted.length - 1, (int) Math.ceil(0.99 * sorted.length) - 1)],
                sorted[sorted.length - 1]));
    if (sorted.length > 0 && sorted.length < 3) say("    delays %s", Arrays.toString(sorted));
  }
}
