package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.HBaseBenchmark.say;
import static io.scbf.hbase.bench.HBaseBenchmark.seconds;

import io.scbf.hbase.Condition;
import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexExpression;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.VerifyReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Partial and expression indexes on one mini cluster (1 region server): (1) load rate of the same
 * rows into an unindexed table, a table with a partial index keeping 10% of its rows ({@code city}
 * where {@code status = ACTIVE}) and a table with a full index on the same column, global ({@code
 * BY_VALUE}, the partial one both STRONG and EVENTUAL) and local, in interleaved chunks so that the
 * machine's drift hits all three alike; the partial index's entries against the rows its WHERE
 * selects; (2) point lookups of single rows through a plain index on {@code email} and through a
 * {@code lower()} expression index on the same column and rows, alternated.
 *
 * <p>{@code mvn -B -Pbench-hbase verify -Dbench.main=io.scbf.hbase.bench.ExpressionBenchmark
 * -Dbench.rows=100000} (docs/benchmarks-hbase.md, "Expression and partial indexes").
 */
public final class ExpressionBenchmark {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] STATUS = Bytes.toBytes("status");
  static final byte[] EMAIL = Bytes.toBytes("email");
  static final TableName PLAIN = TableName.valueOf("expr_plain");
  static final TableName PARTIAL = TableName.valueOf("expr_partial");
  static final TableName PARTIAL_EVENTUAL = TableName.valueOf("expr_partial_eventual");
  static final TableName FULL = TableName.valueOf("expr_full");
  static final TableName LOCAL_PARTIAL = TableName.valueOf("expr_local_partial");
  static final TableName LOCAL_FULL = TableName.valueOf("expr_local_full");
  static final List<TableName> TABLES =
      List.of(PLAIN, PARTIAL, PARTIAL_EVENTUAL, FULL, LOCAL_PARTIAL, LOCAL_FULL);

  /** The global partial index: city where status = ACTIVE (every tenth row). */
  private static IndexSpec.Builder activeCity() {
    return IndexSpec.builder(D, CITY)
        .alias("city_active")
        .buckets(4)
        .where(Condition.eq(D, STATUS, Bytes.toBytes("ACTIVE")));
  }

  static final int CHUNK = 5_000;

  public static void main(String[] args) throws Exception {
    int rows = Integer.getInteger("bench.rows", 100_000);
    int threads = Integer.getInteger("bench.threads", 8);
    long queryMs = Long.getLong("bench.query.ms", 10_000);
    long t0 = System.nanoTime();
    HBaseTestingUtility util = BenchCluster.start(1, BenchCluster::eventualSettings);
    say("mini cluster (1 region server) up in %.1f s; %,d rows", seconds(t0), rows);
    try {
      Connection connection = util.getConnection();
      try (Admin admin = connection.getAdmin()) {
        for (TableName t : TABLES) {
          admin.createTable(
              TableDescriptorBuilder.newBuilder(t)
                  .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
                  .build(),
              new byte[][] {row(rows / 4), row(rows / 2), row(3 * rows / 4)});
        }
      }
      IndexAdmin indexes = new IndexAdmin(connection);
      indexes.createIndex(PARTIAL, activeCity().build());
      indexes.createIndex(
          PARTIAL_EVENTUAL, activeCity().consistency(IndexSpec.Consistency.EVENTUAL).build());
      indexes.createIndex(FULL, IndexSpec.builder(D, CITY).alias("city").buckets(4).build());
      indexes.createIndex(
          LOCAL_PARTIAL,
          IndexSpec.builder(D, CITY)
              .alias("city_active")
              .local()
              .where(Condition.eq(D, STATUS, Bytes.toBytes("ACTIVE")))
              .build());
      indexes.createIndex(LOCAL_FULL, IndexSpec.builder(D, CITY).alias("city").local().build());

      say("%n(1) load, chunks of %,d rows in batches of 1000, tables in turn", CHUNK);
      Map<TableName, Long> nanos = new LinkedHashMap<>();
      for (TableName t : TABLES) nanos.put(t, 0L);
      List<TableName> order = new ArrayList<>(nanos.keySet());
      for (int from = 0; from < rows; from += CHUNK) {
        for (TableName t : order) {
          long start = System.nanoTime();
          load(connection, t, from, Math.min(rows, from + CHUNK));
          nanos.merge(t, System.nanoTime() - start, Long::sum);
        }
        order.add(order.remove(0));
      }
      double plainRate = rows / (nanos.get(PLAIN) / 1e9);
      for (Map.Entry<TableName, Long> e : nanos.entrySet()) {
        double rate = rows / (e.getValue() / 1e9);
        say(
            "  %-14s %,9.0f rows/s  (%.2fx unindexed)",
            e.getKey().getNameAsString(), rate, rate / plainRate);
      }
      long caughtUp = System.nanoTime();
      if (!indexes.awaitIndexed(PARTIAL_EVENTUAL, 120_000)) say("  EVENTUAL: not caught up");
      say("  %s caught up %.2f s after the load", PARTIAL_EVENTUAL, seconds(caughtUp));
      long active = (rows + 9) / 10;
      for (TableName t : List.of(PARTIAL, PARTIAL_EVENTUAL)) {
        VerifyReport partial = indexes.verify(t, "city_active");
        say(
            "  %s: %,d entries for %,d rows in its WHERE (%.3fx); verify %s",
            t,
            partial.indexRows(),
            active,
            (double) partial.indexRows() / active,
            partial.isConsistent() ? "consistent" : partial.toString());
      }

      say("%n(2) single-row lookups, %d threads, %d s each, alternated", threads, queryMs / 1000);
      indexes.createIndex(FULL, IndexSpec.builder(D, EMAIL).alias("email").buckets(4).build());
      indexes.createIndex(
          FULL,
          IndexSpec.builder(D, EMAIL)
              .alias("email_lc")
              .buckets(4)
              .expression(IndexExpression.lower())
              .build());
      List<String> sample = new ArrayList<>();
      Random random = new Random(42);
      for (int i = 0; i < 5000; i++) sample.add(email(random.nextInt(rows)));
      try (IndexedTable t = new IndexedTable(connection, FULL)) {
        Throughput.QueryFactory plain = () -> v -> one(t.find(D, EMAIL, Bytes.toBytes(v)));
        Throughput.QueryFactory lower =
            () -> v -> one(t.find("email_lc", Bytes.toBytes(v.toLowerCase(Locale.ROOT))));
        double plainSum = 0, lowerSum = 0;
        // Each first in one of two rounds: the first runs of a JVM and a cache pay for both.
        for (int round = 0; round < 2; round++) {
          double p, l;
          if (round == 0) {
            p = Throughput.perSecond(threads, queryMs, plain, sample);
            l = Throughput.perSecond(threads, queryMs, lower, sample);
          } else {
            l = Throughput.perSecond(threads, queryMs, lower, sample);
            p = Throughput.perSecond(threads, queryMs, plain, sample);
          }
          say("  round %d: plain index %,9.0f lookups/s, lower() index %,9.0f", round + 1, p, l);
          plainSum += p;
          lowerSum += l;
        }
        say(
            "  lower() index / plain index: %.2fx (%,.0f vs %,.0f lookups/s)",
            lowerSum / plainSum, lowerSum / 2, plainSum / 2);
      }
    } finally {
      util.shutdownMiniCluster();
    }
  }

  static byte[] row(int i) {
    return Bytes.toBytes(String.format("r%09d", Integer.reverse(i) >>> 1));
  }

  /** Unique per row, in mixed case. */
  static String email(int i) {
    String e = "User" + i + "@Example.COM";
    return i % 2 == 0 ? e : e.toUpperCase(Locale.ROOT);
  }

  static void load(Connection connection, TableName table, int from, int to) throws Exception {
    try (Table t = connection.getTable(table)) {
      List<Put> batch = new ArrayList<>(1000);
      for (int i = from; i < to; i++) {
        batch.add(
            new Put(row(i))
                .addColumn(D, CITY, Bytes.toBytes("c" + i % 1000))
                .addColumn(D, STATUS, Bytes.toBytes(i % 10 == 0 ? "ACTIVE" : "IDLE"))
                .addColumn(D, EMAIL, Bytes.toBytes(email(i))));
        if (batch.size() == 1000) {
          t.put(batch);
          batch.clear();
        }
      }
      if (!batch.isEmpty()) t.put(batch);
    }
  }

  /** A lookup that found other than its one row is a wrong answer: the benchmark stops. */
  static void one(List<?> found) {
    if (found.size() != 1) throw new IllegalStateException("expected 1 row, got " + found.size());
  }

  private ExpressionBenchmark() {}
}
