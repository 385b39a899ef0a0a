package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.HBaseBenchmark.say;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexCatalog;
import java.math.BigDecimal;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.Size;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.phoenix.schema.types.PDecimal;

/**
 * {@link RangeBenchmark}'s tables, both products': the data tables and their load, the indexes and
 * their builds, the regions spread over both servers, and section 1 (the index tables, Phoenix's
 * plans).
 */
final class RangeSetup extends RangeRun {
  RangeSetup(RangeRun run) {
    super(run);
  }

  /** The value quantiles at which every index table is split (the values are uniform). */
  static long[] vSplits() {
    long[] s = new long[REGIONS - 1];
    for (int k = 1; k < REGIONS; k++) s[k - 1] = MIN_V + SPAN_V / REGIONS * k;
    return s;
  }

  static double[] xSplits() {
    double[] s = new double[REGIONS - 1];
    for (int k = 1; k < REGIONS; k++) s[k - 1] = -MAX_X + 2 * MAX_X * k / REGIONS;
    return s;
  }

  /** The data tables, empty: the rows go in before the indexes are built. */
  void setUp() throws Exception {
    try (Admin admin = hbase.getAdmin()) {
      for (TableName t : List.of(ORDERED, BY_VALUE)) {
        admin.createTable(
            TableDescriptorBuilder.newBuilder(t)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
                .build(),
            dataSplits());
      }
    }
    try (java.sql.Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE "
              + PHOENIX
              + " (PK VARCHAR PRIMARY KEY, V BIGINT, X DOUBLE, P VARCHAR) SPLIT ON ("
              + quoted(dataSplits())
              + ")");
    }
    spread(List.of(ORDERED, BY_VALUE, TableName.valueOf(PHOENIX)));
    say(
        "data tables %s, %s (scbf) and %s (Phoenix: PK VARCHAR, V BIGINT, X DOUBLE, P VARCHAR), %d"
            + " regions each",
        ORDERED, BY_VALUE, PHOENIX, REGIONS);
  }

  static String quoted(byte[][] keys) {
    StringBuilder out = new StringBuilder();
    for (byte[] s : keys) {
      if (out.length() > 0) out.append(',');
      out.append('\'').append(Bytes.toString(s)).append('\'');
    }
    return out.toString();
  }

  /**
   * The indexes, built from the loaded rows by each product's own build: scbf defines each index
   * (an empty index table), splits it at the value quantiles ({@code IndexAdmin.splitIndexAt}),
   * spreads its regions and backfills it ({@code rebuildIndex}); Phoenix creates each covered index
   * already split ({@code CREATE INDEX ... SPLIT ON}) and builds it on its servers.
   */
  void buildIndexes() throws Exception {
    IndexAdmin indexes = new IndexAdmin(hbase);
    IndexSpec v =
        IndexSpec.builder(D, V)
            .alias("v")
            .type(IndexSpec.ValueType.LONG)
            .layout(IndexSpec.Layout.ORDERED)
            .covered(D, P)
            .build();
    IndexSpec x =
        IndexSpec.builder(D, X)
            .alias("x")
            .type(IndexSpec.ValueType.DOUBLE)
            .layout(IndexSpec.Layout.ORDERED)
            .covered(D, P)
            .build();
    IndexSpec byValue =
        IndexSpec.builder(D, V)
            .alias("v")
            .type(IndexSpec.ValueType.LONG)
            .layout(IndexSpec.Layout.BY_VALUE)
            .buckets(REGIONS)
            .covered(D, P)
            .build();
    indexes.defineIndex(ORDERED, v);
    indexes.defineIndex(ORDERED, x);
    indexes.defineIndex(BY_VALUE, byValue);
    long[] vSplits = vSplits();
    byte[][] vAt = new byte[vSplits.length][];
    for (int k = 0; k < vSplits.length; k++) vAt[k] = Bytes.toBytes(vSplits[k]);
    indexes.splitIndexAt(ORDERED, "v", vAt);
    double[] xSplits = xSplits();
    byte[][] xAt = new byte[xSplits.length][];
    for (int k = 0; k < xSplits.length; k++) xAt[k] = Bytes.toBytes(xSplits[k]);
    indexes.splitIndexAt(ORDERED, "x", xAt);
    spread(
        List.of(
            IndexCatalog.indexTableName(ORDERED, "v"),
            IndexCatalog.indexTableName(ORDERED, "x"),
            IndexCatalog.indexTableName(BY_VALUE, "v")));
    for (Object[] build : new Object[][] {{ORDERED, "v"}, {ORDERED, "x"}, {BY_VALUE, "v"}}) {
      long t0 = System.nanoTime();
      indexes.rebuildIndex((TableName) build[0], (String) build[1]);
      double s = HBaseBenchmark.seconds(t0);
      say("scbf index '%s' of %s built in %.1f s (%,.0f rows/s)", build[1], build[0], s, rows / s);
    }
    say(
        "scbf: %s has ORDERED indexes 'v' (LONG) and 'x' (DOUBLE) covering d:p, each split at %d"
            + " value quantiles (IndexAdmin.splitIndexAt) before its build; %s has a BY_VALUE"
            + " index 'v' (LONG) covering d:p (%d regions to start)",
        ORDERED, REGIONS - 1, BY_VALUE, REGIONS);

    // A covered global index's row key starts with the indexed value, which Phoenix stores as a
    // DECIMAL in the index (a nullable fixed-width column becomes variable-width there): the
    // split points are the same quantiles in that encoding, given as bytes.
    List<byte[]> pv = new ArrayList<>();
    for (long q : vSplits) pv.add(PDecimal.INSTANCE.toBytes(BigDecimal.valueOf(q)));
    List<byte[]> px = new ArrayList<>();
    for (double q : xSplits) px.add(PDecimal.INSTANCE.toBytes(BigDecimal.valueOf(q)));
    try (java.sql.Connection c = DriverManager.getConnection(url)) {
      for (Object[] index : new Object[][] {{PHOENIX_V, "V", pv}, {PHOENIX_X, "X", px}}) {
        @SuppressWarnings("unchecked")
        List<byte[]> at = (List<byte[]>) index[2];
        String marks = String.join(", ", java.util.Collections.nCopies(at.size(), "?"));
        long t0 = System.nanoTime();
        try (PreparedStatement ps =
            c.prepareStatement(
                "CREATE INDEX "
                    + index[0]
                    + " ON "
                    + PHOENIX
                    + " ("
                    + index[1]
                    + ") INCLUDE (P) SPLIT ON ("
                    + marks
                    + ")")) {
          for (int k = 0; k < at.size(); k++) ps.setBytes(k + 1, at.get(k));
          ps.execute();
        }
        double s = HBaseBenchmark.seconds(t0);
        say("Phoenix index %s built in %.1f s (%,.0f rows/s)", index[0], s, rows / s);
      }
    }
    spread(List.of(TableName.valueOf(PHOENIX_V), TableName.valueOf(PHOENIX_X)));
    say(
        "Phoenix: covered global indexes %s (V) INCLUDE (P) and %s (X) INCLUDE (P), created with"
            + " SPLIT ON at the same quantiles (Phoenix's DECIMAL encoding of the index's leading"
            + " column)",
        PHOENIX_V, PHOENIX_X);
  }

  List<TableName> allTables() {
    return List.of(
        ORDERED,
        IndexCatalog.indexTableName(ORDERED, "v"),
        IndexCatalog.indexTableName(ORDERED, "x"),
        BY_VALUE,
        IndexCatalog.indexTableName(BY_VALUE, "v"),
        TableName.valueOf(PHOENIX),
        TableName.valueOf(PHOENIX_V),
        TableName.valueOf(PHOENIX_X));
  }

  /** Flushes the tables, then waits (at most 5 minutes) until no compaction runs on them. */
  void settle(List<TableName> tables) throws Exception {
    long t0 = System.nanoTime();
    try (Admin admin = hbase.getAdmin()) {
      for (TableName t : tables) admin.flush(t);
      Thread.sleep(2000);
      for (int wait = 0; wait < 300; wait++) {
        boolean busy = false;
        for (TableName t : tables) {
          if (admin.getCompactionState(t) != CompactionState.NONE) busy = true;
        }
        if (!busy) break;
        Thread.sleep(1000);
      }
    }
    // The regions publish their counts (the planner's row estimates) every few seconds.
    Thread.sleep(5000);
    say("flushed, compactions settled in %.1f s", HBaseBenchmark.seconds(t0));
  }

  // ---------------------------------------------------------------- the load

  void load() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    try {
      Map<String, Long> nanos = new LinkedHashMap<>();
      int chunk = Math.max(BATCH * WRITERS, rows / 10);
      for (int from = 0; from < rows; from += chunk) {
        int to = Math.min(rows, from + chunk);
        List<List<Put>> batches = new ArrayList<>();
        for (int b = from; b < to; b += BATCH) {
          List<Put> batch = new ArrayList<>(BATCH);
          for (int i = b; i < Math.min(to, b + BATCH); i++) {
            batch.add(
                new Put(Bytes.toBytes(key(i)))
                    .addColumn(D, V, Bytes.toBytes(vs[i]))
                    .addColumn(D, X, Bytes.toBytes(xs[i]))
                    .addColumn(D, P, Bytes.toBytes(payload(i))));
          }
          batches.add(batch);
        }
        for (TableName t : List.of(ORDERED, BY_VALUE)) {
          try (Table table = hbase.getTable(t)) {
            nanos.merge(
                t.getNameAsString(), HBaseBenchmark.load(pool, table, batches, WRITERS), Long::sum);
          }
        }
        nanos.merge(PHOENIX, phoenixLoad(pool, from, to), Long::sum);
      }
      say(
          "%nload of the data tables (setup; no index yet; the tables took turns chunk by chunk,"
              + " %d writers):",
          WRITERS);
      for (Map.Entry<String, Long> e : nanos.entrySet()) {
        say("  %-16s %,10.0f rows/s", e.getKey(), rows / (e.getValue() / 1e9));
      }
    } finally {
      pool.shutdown();
    }
  }

  long phoenixLoad(ExecutorService pool, int from, int to) throws Exception {
    String sql = "UPSERT INTO " + PHOENIX + " (PK, V, X, P) VALUES (?, ?, ?, ?)";
    long start = System.nanoTime();
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      int first = w;
      done.add(
          pool.submit(
              () -> {
                try (java.sql.Connection c = DriverManager.getConnection(url);
                    PreparedStatement ps = c.prepareStatement(sql)) {
                  c.setAutoCommit(false);
                  for (int b = from + first * BATCH; b < to; b += WRITERS * BATCH) {
                    for (int i = b; i < Math.min(to, b + BATCH); i++) {
                      ps.setString(1, key(i));
                      ps.setLong(2, vs[i]);
                      ps.setDouble(3, xs[i]);
                      ps.setString(4, payload(i));
                      ps.executeUpdate();
                    }
                    c.commit();
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : done) f.get();
    return System.nanoTime() - start;
  }

  // ---------------------------------------------------------------- section 1: regions

  void regionReport() throws Exception {
    say("%n## 1. Index tables (after the load and a flush)%n");
    say("| index | system | layout | regions | store files MB per region, min / max |");
    say("| --- | --- | --- | ---: | --- |");
    Object[][] rows = {
      {"v (LONG)", "scbf", "ORDERED", IndexCatalog.indexTableName(ORDERED, "v")},
      {"x (DOUBLE)", "scbf", "ORDERED", IndexCatalog.indexTableName(ORDERED, "x")},
      {"v (LONG)", "scbf", "BY_VALUE", IndexCatalog.indexTableName(BY_VALUE, "v")},
      {"V (BIGINT)", "Phoenix", "covered global", TableName.valueOf(PHOENIX_V)},
      {"X (DOUBLE)", "Phoenix", "covered global", TableName.valueOf(PHOENIX_X)},
      {"data", "scbf", "-", ORDERED},
      {"data", "Phoenix", "-", TableName.valueOf(PHOENIX)},
    };
    for (Object[] r : rows) {
      TableName t = (TableName) r[3];
      double[] mb = regionSizes(t);
      double min = Double.MAX_VALUE, max = 0;
      for (double m : mb) {
        min = Math.min(min, m);
        max = Math.max(max, m);
      }
      say("| %s | %s | %s | %d | %.0f / %.0f |", r[0], r[1], r[2], mb.length, min, max);
      csv.printf("regions,%s %s %s,%s,regions,%d%n", r[1], r[2], r[0], t, mb.length);
    }
  }

  /** Store file MB of each region of {@code table}, over every server. */
  double[] regionSizes(TableName table) throws Exception {
    List<Double> out = new ArrayList<>();
    try (Admin admin = hbase.getAdmin()) {
      for (ServerName s : admin.getRegionServers()) {
        for (RegionMetrics m : admin.getRegionMetrics(s, table)) {
          out.add(m.getStoreFileSize().get(Size.Unit.MEGABYTE));
        }
      }
    }
    double[] a = new double[out.size()];
    for (int i = 0; i < a.length; i++) a[i] = out.get(i);
    return a;
  }

  void explainPhoenix() throws Exception {
    long lo = MIN_V / 2, hi = lo + SPAN_V / 1000;
    String[] queries = {
      "SELECT PK, P FROM " + PHOENIX + " WHERE V >= " + lo + " AND V < " + hi,
      "SELECT PK, P, V FROM "
          + PHOENIX
          + " WHERE V >= "
          + lo
          + " AND V < "
          + hi
          + " ORDER BY V LIMIT 10",
      "SELECT PK, P, V FROM "
          + PHOENIX
          + " WHERE V >= "
          + lo
          + " AND V < "
          + hi
          + " ORDER BY V DESC LIMIT 10",
      "SELECT PK, P FROM " + PHOENIX + " WHERE X >= -1.5 AND X < 500.5",
      "SELECT PK, P FROM " + PHOENIX + " WHERE V = " + vs[0],
    };
    say("%nPhoenix plans (EXPLAIN):");
    try (java.sql.Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement()) {
      for (String q : queries) {
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = st.executeQuery("EXPLAIN " + q)) {
          while (rs.next()) plan.append("    ").append(rs.getString(1)).append('\n');
        }
        say("  %s%n%s", q, plan);
        String index = q.contains("WHERE X") ? PHOENIX_X : PHOENIX_V;
        if (!plan.toString().contains(index)) {
          throw new IllegalStateException("Phoenix does not use " + index + " for " + q);
        }
      }
    }
  }
}
