package io.scbf.hbase.ycsb;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.regionserver.IndexProbe;
import io.scbf.hbase.testing.MiniCluster;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import site.ycsb.DB;
import site.ycsb.Workload;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

/**
 * YCSB 0.17's CoreWorkload against one mini cluster (2 region servers): the load phase and workload
 * A (50% reads, 50% updates of one field, zipfian) on an unindexed table and on tables indexed on
 * {@code field0}: here by each kind of index (global {@code BY_ROW} and {@code BY_VALUE}, local),
 * through one HBase binding ({@link HBaseDB}; the coprocessors keep the indexes), and, when Phoenix
 * 5.2.1 is on the class path ({@code -Pphoenix,bench-ycsb}), by Phoenix's global and local indexes
 * through a JDBC binding ({@link JdbcDB}). The tables take turns: each phase runs in slices, every
 * table's first slice, then every table's second, so that all see the same phases of the machine;
 * each table's ratios are to its own system's unindexed table (after a warm-up run of each system,
 * not reported). After the phases, 500 rows of each indexed table are looked up by their current
 * {@code field0} through the index (misses counted).
 *
 * <p>{@code mvn -B -Pbench-ycsb verify} with -Dycsb.records (100,000), -Dycsb.ops (100,000),
 * -Dycsb.threads (16), -Dycsb.rounds (4 slices per phase); docs/benchmarks-ycsb.md.
 */
public final class YcsbBenchmark {
  static final byte[] FAMILY = Bytes.toBytes("family");
  static final byte[] FIELD0 = Bytes.toBytes("field0");
  static final String PHOENIX_DRIVER = "org.apache.phoenix.jdbc.PhoenixDriver";

  private YcsbBenchmark() {}

  /** One table as YCSB sees it, and the same table through its index. */
  interface Target {
    String name();

    /** The unindexed table of the same system, whose runs the ratios divide by. */
    String system();

    boolean indexed();

    void create() throws Exception;

    DB client(AtomicLong errors);

    /** The current field0 of the row, read directly; null if the row is absent. */
    String field0(String key) throws Exception;

    /** The keys of the rows whose field0 is {@code value}, through the index. */
    Set<String> byField0(String value) throws Exception;

    /** Waits until the index has every write made so far (an EVENTUAL index's applier). */
    default void awaitIndexed() throws Exception {}
  }

  record Run(
      Target target, double loadRowsPerSecond, double opsPerSecond, long errors, long misses) {}

  /** A target's totals over its slices. */
  private static final class Totals {
    final AtomicLong errors = new AtomicLong();
    double loadSeconds;
    double opsSeconds;
    long loadIndexCalls;
    long opsIndexCalls;
  }

  public static void main(String[] args) throws Exception {
    int records = Integer.getInteger("ycsb.records", 100_000);
    int ops = Integer.getInteger("ycsb.ops", 100_000);
    int threads = Integer.getInteger("ycsb.threads", 16);
    int rounds = Integer.getInteger("ycsb.rounds", 4);
    // -Dycsb.targets=REGEX: only the targets whose name matches (their unindexed baseline too).
    String only = System.getProperty("ycsb.targets", "");
    boolean phoenix = onClassPath(PHOENIX_DRIVER);
    HBaseTestingUtility util =
        MiniCluster.start(
            2,
            conf -> {
              // Phoenix's mutable indexes need its WAL codec (it reads plain cells as the
              // default codec does: the scbf tables are unaffected).
              // The user guide's settings for EVENTUAL indexes (HBase's WAL reader backs off to
              // seconds while idle).
              conf.setLong("replication.source.sleepforretries", 20);
              conf.setInt("replication.source.maxretriesmultiplier", 5);
              // -Dscbf.<setting>=<value> (through -Dbench.heap): one setting's A/B across runs.
              for (String key : System.getProperties().stringPropertyNames()) {
                if (key.startsWith("scbf.") && !key.startsWith("scbf.log.")) {
                  conf.set(key, System.getProperty(key));
                }
              }
              if (phoenix) {
                conf.set(
                    "hbase.regionserver.wal.codec",
                    "org.apache.hadoop.hbase.regionserver.wal.IndexedWALEditCodec");
              }
            });
    // Calls the region servers' index pools served (scbf's global index writes and lookups;
    // Phoenix's go through HBase's ordinary pools): what an indexed write cost in index calls.
    LongSupplier indexCalls = () -> IndexProbe.indexCalls(util);
    try {
      Connection hbase = util.getConnection();
      String url = "jdbc:phoenix:localhost:" + util.getZkCluster().getClientPort() + ":/hbase";
      System.out.printf(
          "YCSB 0.17 CoreWorkload: %,d records x 10 fields of 100 B, workload A %,d operations,"
              + " %d client threads, each phase in %d slices the tables take in turn; one mini"
              + " cluster (2 region servers)%s%n",
          records, ops, threads, rounds, phoenix ? "; Phoenix 5.2.1 beside scbf" : "");
      List<Target> targets = new ArrayList<>();
      targets.add(new HBaseTarget(hbase, "scbf unindexed", null));
      targets.add(
          new HBaseTarget(
              hbase,
              "scbf global BY_ROW",
              IndexSpec.builder(FAMILY, FIELD0)
                  .alias("f0")
                  .layout(IndexSpec.Layout.BY_ROW)
                  .build()));
      targets.add(
          new HBaseTarget(
              hbase,
              "scbf global BY_VALUE",
              IndexSpec.builder(FAMILY, FIELD0)
                  .alias("f0")
                  .layout(IndexSpec.Layout.BY_VALUE)
                  .build()));
      targets.add(
          new HBaseTarget(
              hbase,
              "scbf global BY_VALUE EVENTUAL",
              IndexSpec.builder(FAMILY, FIELD0)
                  .alias("f0")
                  .layout(IndexSpec.Layout.BY_VALUE)
                  .consistency(IndexSpec.Consistency.EVENTUAL)
                  .build()));
      targets.add(
          new HBaseTarget(
              hbase, "scbf local", IndexSpec.builder(FAMILY, FIELD0).alias("f0").local().build()));
      if (phoenix) {
        targets.add(new PhoenixTarget(url, "Phoenix unindexed", null));
        targets.add(new PhoenixTarget(url, "Phoenix global", "INDEX"));
        targets.add(new PhoenixTarget(url, "Phoenix local", "LOCAL INDEX"));
      }
      if (!only.isEmpty()) {
        targets.removeIf(t -> t.indexed() && !t.name().matches(only));
      }
      // Warm-up (not reported): the JIT and the clients' caches would favour later runs.
      List<Target> warmUps = new ArrayList<>();
      warmUps.add(new HBaseTarget(hbase, "warm-up", null));
      if (phoenix) warmUps.add(new PhoenixTarget(url, "warm-up", null));
      run(warmUps, records / 4, ops / 4, threads, 1, indexCalls);
      List<Run> runs = run(targets, records, ops, threads, rounds, indexCalls);
      System.out.printf(
          "%n| table | load rows/s | vs unindexed | workload A ops/s | vs unindexed | errors |"
              + " index misses of 500 |%n| --- | --- | --- | --- | --- | --- | --- |%n");
      for (Run r : runs) {
        Run base =
            runs.stream()
                .filter(b -> !b.target().indexed())
                .filter(b -> b.target().system().equals(r.target().system()))
                .findFirst()
                .orElseThrow();
        System.out.printf(
            "| %s | %,.0f | %.2fx | %,.0f | %.2fx | %d | %s |%n",
            r.target().name(),
            r.loadRowsPerSecond(),
            r.loadRowsPerSecond() / base.loadRowsPerSecond(),
            r.opsPerSecond(),
            r.opsPerSecond() / base.opsPerSecond(),
            r.errors(),
            r.target().indexed() ? Long.toString(r.misses()) : "-");
      }
    } finally {
      util.shutdownMiniCluster();
    }
  }

  static boolean onClassPath(String className) {
    try {
      Class.forName(className);
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /** CoreWorkload's key of record n (its own hashing and prefix). */
  static final class Keys extends CoreWorkload {
    String key(long n) {
      return buildKeyName(n);
    }
  }

  /**
   * Creates the targets, loads {@code records} rows into each, runs workload A's {@code ops}
   * operations on each, both phases in {@code rounds} slices taken in turn (every target's first
   * slice, then every target's second, ...), then looks up 500 rows of each indexed target through
   * its index.
   */
  static List<Run> run(
      List<Target> targets, int records, int ops, int threads, int rounds, LongSupplier indexCalls)
      throws Exception {
    Properties p = new Properties();
    p.setProperty(CoreWorkload.TABLENAME_PROPERTY, "usertable");
    p.setProperty("recordcount", Integer.toString(records));
    p.setProperty("operationcount", Integer.toString(ops));
    p.setProperty("readproportion", "0.5");
    p.setProperty("updateproportion", "0.5");
    p.setProperty("scanproportion", "0");
    p.setProperty("insertproportion", "0");
    p.setProperty("requestdistribution", "zipfian");
    // -Dycsb.writeallfields=true: every update writes field0 too (YCSB's default: 1 field of 10).
    p.setProperty("writeallfields", System.getProperty("ycsb.writeallfields", "false"));
    // CoreWorkload reads YCSB's measurement settings from this process-wide holder.
    Measurements.setProperties(p);
    List<Totals> totals = new ArrayList<>();
    for (Target t : targets) {
      t.create();
      totals.add(new Totals());
    }
    for (int r = 0; r < rounds; r++) {
      // Slice r inserts records [from, to): CoreWorkload's insertstart and insertcount.
      int from = sliceStart(records, r, rounds);
      int to = sliceStart(records, r + 1, rounds);
      Properties slice = new Properties();
      slice.putAll(p);
      slice.setProperty(CoreWorkload.INSERT_START_PROPERTY, Integer.toString(from));
      slice.setProperty(CoreWorkload.INSERT_COUNT_PROPERTY, Integer.toString(to - from));
      for (int i = 0; i < targets.size(); i++) {
        CoreWorkload load = new CoreWorkload();
        load.init(slice);
        Totals t = totals.get(i);
        long calls = indexCalls.getAsLong();
        t.loadSeconds += phase(load, targets.get(i), t.errors, slice, threads, to - from, true);
        t.loadIndexCalls += indexCalls.getAsLong() - calls;
      }
    }
    for (int r = 0; r < rounds; r++) {
      int count = sliceStart(ops, r + 1, rounds) - sliceStart(ops, r, rounds);
      for (int i = 0; i < targets.size(); i++) {
        CoreWorkload a = new CoreWorkload(); // keys chosen over all records (no insertstart)
        a.init(p);
        Totals t = totals.get(i);
        long calls = indexCalls.getAsLong();
        t.opsSeconds += phase(a, targets.get(i), t.errors, p, threads, count, false);
        t.opsIndexCalls += indexCalls.getAsLong() - calls;
      }
    }
    // Routed queries of BY_ROW and local indexes are promised rows after publication and the
    // client's refresh (docs/design.md, "Consistency contract for readers").
    Thread.sleep(3_000);
    List<Run> runs = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      Target target = targets.get(i);
      Totals t = totals.get(i);
      long misses = target.indexed() ? misses(target, p, records) : 0;
      Run run =
          new Run(target, records / t.loadSeconds, ops / t.opsSeconds, t.errors.get(), misses);
      System.out.printf(
          "%s: load %,.0f rows/s, workload A %,.0f ops/s, %d errors, index calls served %.2f per"
              + " loaded row and %.2f per workload A operation%s%n",
          target.name(),
          run.loadRowsPerSecond(),
          run.opsPerSecond(),
          run.errors(),
          (double) t.loadIndexCalls / records,
          (double) t.opsIndexCalls / ops,
          target.indexed() ? ", " + misses + " misses of 500 rows looked up by field0" : "");
      runs.add(run);
    }
    return runs;
  }

  /** Where slice {@code r} of {@code rounds} starts among {@code total} records or operations. */
  private static int sliceStart(int total, int r, int rounds) {
    return (int) ((long) total * r / rounds);
  }

  /** Of 500 random records, those the index does not return for their current field0. */
  private static long misses(Target target, Properties p, int records) throws Exception {
    target.awaitIndexed();
    Keys keys = new Keys();
    keys.init(p);
    Random rnd = new Random(1);
    long misses = 0;
    for (int i = 0; i < 500; i++) {
      String key = keys.key(rnd.nextInt(records));
      String value = target.field0(key);
      if (value == null || !target.byField0(value).contains(key)) misses++;
    }
    return misses;
  }

  /** Runs {@code count} inserts (load) or transactions over {@code threads}; seconds taken. */
  private static double phase(
      Workload workload,
      Target target,
      AtomicLong errors,
      Properties p,
      int threads,
      int count,
      boolean insert)
      throws Exception {
    List<Thread> workers = new ArrayList<>();
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    long start = System.nanoTime();
    for (int i = 0; i < threads; i++) {
      int mine = count / threads + (i < count % threads ? 1 : 0);
      int id = i;
      Thread w =
          new Thread(
              () -> {
                DB db = target.client(errors);
                try {
                  db.setProperties(p);
                  db.init();
                  Object state = workload.initThread(p, id, threads);
                  for (int n = 0; n < mine; n++) {
                    if (insert) workload.doInsert(db, state);
                    else workload.doTransaction(db, state);
                  }
                  db.cleanup();
                } catch (Throwable e) {
                  failures.add(e);
                }
              },
              "ycsb-" + i);
      workers.add(w);
      w.start();
    }
    for (Thread w : workers) w.join();
    if (!failures.isEmpty()) {
      throw new IllegalStateException("a client thread failed", failures.get(0));
    }
    return (System.nanoTime() - start) / 1e9;
  }

  /** Ten regions split where CoreWorkload's hashed keys spread ("user" + a decimal number). */
  static byte[][] splits() {
    byte[][] splits = new byte[9][];
    for (int i = 1; i <= 9; i++) splits[i - 1] = Bytes.toBytes("user" + i);
    return splits;
  }

  /** An HBase table, indexed by scbf or not. */
  record HBaseTarget(Connection connection, String name, IndexSpec index) implements Target {
    TableName table() {
      return TableName.valueOf("ycsb_" + name.replaceAll("[^A-Za-z]+", "_"));
    }

    @Override
    public String system() {
      return "scbf";
    }

    @Override
    public boolean indexed() {
      return index != null;
    }

    @Override
    public void create() throws Exception {
      try (Admin admin = connection.getAdmin()) {
        admin.createTable(
            TableDescriptorBuilder.newBuilder(table())
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY))
                .build(),
            splits());
      }
      if (index != null) new IndexAdmin(connection).createIndex(table(), index);
    }

    @Override
    public DB client(AtomicLong errors) {
      return new HBaseDB(connection, table(), FAMILY, errors);
    }

    @Override
    public String field0(String key) throws Exception {
      try (Table t = connection.getTable(table())) {
        Result r = t.get(new Get(Bytes.toBytes(key)).addColumn(FAMILY, FIELD0));
        return r.isEmpty() ? null : Bytes.toString(r.getValue(FAMILY, FIELD0));
      }
    }

    @Override
    public void awaitIndexed() throws Exception {
      if (!new IndexAdmin(connection).awaitIndexed(table(), 120_000)) {
        throw new IllegalStateException(name + ": the EVENTUAL index did not catch up in 120 s");
      }
    }

    @Override
    public Set<String> byField0(String value) throws Exception {
      Set<String> keys = new HashSet<>();
      try (IndexedTable t = new IndexedTable(connection, table())) {
        for (Result r : t.find(FAMILY, FIELD0, Bytes.toBytes(value))) {
          keys.add(Bytes.toString(r.getRow()));
        }
      }
      return keys;
    }
  }

  /**
   * A Phoenix table, with a Phoenix index on FIELD0 ({@code kind}: "INDEX", "LOCAL INDEX") or not.
   */
  record PhoenixTarget(String url, String name, String kind) implements Target {
    String table() {
      return "YCSB_" + name.replaceAll("[^A-Za-z]+", "_").toUpperCase(java.util.Locale.ROOT);
    }

    @Override
    public String system() {
      return "Phoenix";
    }

    @Override
    public boolean indexed() {
      return kind != null;
    }

    @Override
    public void create() throws Exception {
      StringBuilder columns = new StringBuilder("YCSB_KEY VARCHAR PRIMARY KEY");
      for (int i = 0; i < 10; i++) columns.append(", FIELD").append(i).append(" VARCHAR");
      List<String> splits = new ArrayList<>();
      for (int i = 1; i <= 9; i++) splits.add("'user" + i + "'");
      try (java.sql.Connection c = DriverManager.getConnection(url);
          Statement st = c.createStatement()) {
        st.execute(
            "CREATE TABLE "
                + table()
                + " ("
                + columns
                + ") SPLIT ON ("
                + String.join(",", splits)
                + ")");
        if (kind != null) {
          st.execute("CREATE " + kind + " " + table() + "_F0 ON " + table() + " (FIELD0)");
        }
      }
    }

    @Override
    public DB client(AtomicLong errors) {
      return new JdbcDB(url, table(), errors);
    }

    @Override
    public String field0(String key) throws Exception {
      return one("SELECT /*+ NO_INDEX */ FIELD0 FROM " + table() + " WHERE YCSB_KEY = ?", key);
    }

    @Override
    public Set<String> byField0(String value) throws Exception {
      Set<String> keys = new HashSet<>();
      try (java.sql.Connection c = DriverManager.getConnection(url);
          PreparedStatement q =
              c.prepareStatement("SELECT YCSB_KEY FROM " + table() + " WHERE FIELD0 = ?")) {
        q.setString(1, value);
        try (ResultSet rs = q.executeQuery()) {
          while (rs.next()) keys.add(rs.getString(1));
        }
      }
      return keys;
    }

    private String one(String sql, String arg) throws Exception {
      try (java.sql.Connection c = DriverManager.getConnection(url);
          PreparedStatement q = c.prepareStatement(sql)) {
        q.setString(1, arg);
        try (ResultSet rs = q.executeQuery()) {
          return rs.next() ? rs.getString(1) : null;
        }
      }
    }
  }
}
