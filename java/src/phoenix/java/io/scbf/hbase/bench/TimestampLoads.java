package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.HBaseBenchmark.say;
import static io.scbf.hbase.bench.RangeMeasure.num;
import static io.scbf.hbase.bench.RangeMeasure.ratio;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.ValueOrder;
import io.scbf.hbase.shared.IndexCatalog;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Section 5 of {@link RangeBenchmark}: loads of increasing timestamps into salted and unsalted
 * ORDERED indexes, each against random values into the same layout.
 */
final class TimestampLoads extends RangeRun {
  TimestampLoads(RangeRun run) {
    super(run);
  }

  // ---------------------------------------------------------------- section 5: timestamp loads

  void timestampLoads() throws Exception {
    long t0 = 1_700_000_000_000L;
    String[] names = {
      "ts_salted_increasing", "ts_salted_random", "ts_unsalted_increasing", "ts_unsalted_random"
    };
    int[] buckets = {TS_BUCKETS, TS_BUCKETS, 1, 1};
    boolean[] increasing = {true, false, true, false};
    // Random: the same values as the increasing load, in a shuffled order.
    int[] perm = new int[tsRows];
    for (int i = 0; i < tsRows; i++) perm[i] = i;
    Random r = new Random(5);
    for (int i = tsRows - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      int t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    IndexAdmin indexes = new IndexAdmin(hbase);
    List<TableName> tables = new ArrayList<>();
    List<TableName> all = new ArrayList<>();
    byte[][] splits = new byte[REGIONS - 1][];
    for (int k = 1; k < REGIONS; k++)
      splits[k - 1] = Bytes.toBytes(t0 + (long) tsRows * k / REGIONS);
    try (Admin admin = hbase.getAdmin()) {
      for (int k = 0; k < names.length; k++) {
        TableName t = TableName.valueOf(names[k]);
        admin.createTable(
            TableDescriptorBuilder.newBuilder(t)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
                .build(),
            dataSplits());
        indexes.createIndex(
            t,
            IndexSpec.builder(D, TS)
                .alias("ts")
                .type(IndexSpec.ValueType.LONG)
                .layout(IndexSpec.Layout.ORDERED)
                .buckets(buckets[k])
                .build());
        indexes.splitIndexAt(t, "ts", splits);
        tables.add(t);
        // The data tables were created split (their regions assigned in turn); the split index
        // regions stayed on their parent's server.
        all.add(IndexCatalog.indexTableName(t, "ts"));
      }
    }
    spread(all);
    int[] regions = new int[names.length];
    try (Admin admin = hbase.getAdmin()) {
      for (int k = 0; k < names.length; k++) {
        regions[k] = admin.getRegions(IndexCatalog.indexTableName(tables.get(k), "ts")).size();
      }
    }
    long[] nanos = new long[names.length];
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    try {
      int slices = 10;
      int slice = Math.max(BATCH * WRITERS, (tsRows + slices - 1) / slices);
      int turn = 0;
      for (int from = 0; from < tsRows; from += slice, turn++) {
        int to = Math.min(tsRows, from + slice);
        for (int j = 0; j < names.length; j++) {
          int k = (j + turn) % names.length; // who goes first rotates
          List<List<Put>> batches = new ArrayList<>();
          for (int b = from; b < to; b += BATCH) {
            List<Put> batch = new ArrayList<>(BATCH);
            for (int i = b; i < Math.min(to, b + BATCH); i++) {
              long ts = t0 + (increasing[k] ? i : perm[i]);
              batch.add(
                  new Put(Bytes.toBytes(key(i)))
                      .addColumn(D, TS, Bytes.toBytes(ts))
                      .addColumn(D, P, Bytes.toBytes(payload(i))));
            }
            batches.add(batch);
          }
          try (Table table = hbase.getTable(tables.get(k))) {
            nanos[k] += HBaseBenchmark.load(pool, table, batches, WRITERS);
          }
        }
      }
    } finally {
      pool.shutdown();
    }
    // A check of the loaded indexes: the last 10 timestamps, newest first, in each table.
    for (TableName t : tables) {
      try (IndexedTable it = new IndexedTable(hbase, t)) {
        List<Result> last = it.range("ts", null, null, ValueOrder.DESCENDING, 10);
        for (int i = 0; i < last.size(); i++) {
          long got = Bytes.toLong(last.get(i).getValue(D, TS));
          if (got != t0 + tsRows - 1 - i) {
            throw new IllegalStateException(t + ": newest #" + i + " is " + got);
          }
        }
        if (last.size() != 10) throw new IllegalStateException(t + ": " + last.size() + " newest");
      }
    }
    say(
        "%n## 5. Loads of increasing timestamps vs random values, %,d rows per table, %d writers,"
            + " batches of %d, the four tables taking turns in 10 slices%n",
        tsRows, WRITERS, BATCH);
    say("| table | index | index regions | rows/s | increasing / random (same layout) |");
    say("| --- | --- | ---: | ---: | ---: |");
    for (int k = 0; k < names.length; k++) {
      double rate = tsRows / (nanos[k] / 1e9);
      int base = increasing[k] ? k + 1 : k;
      double baseRate = tsRows / (nanos[base] / 1e9);
      say(
          "| %s | ORDERED LONG, %s | %d | %s | %s |",
          names[k],
          buckets[k] == 1 ? "unsalted" : buckets[k] + " buckets",
          regions[k],
          num(rate),
          increasing[k] ? ratio(rate / baseRate) : "1.00x");
      csv("load", names[k], buckets[k] + " buckets", "rows_per_s", rate);
      csv("load", names[k], buckets[k] + " buckets", "index_regions", regions[k]);
    }
  }
}
