package io.scbf.hbase.differential;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.client.EventualMode;
import io.scbf.hbase.differential.Schema.Index;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Runs one sequence on a fresh table of the shared cluster: creates it and its indexes, applies the
 * ops, checks after each, and drops it. A run with a target query asks only that query after each
 * step (the shrinker's runs: cheap, and the same question whatever ops were removed).
 */
final class Runner {
  static final long AWAIT_MS = 30_000;
  static final String MASKED_PUT_REFUSAL = "is masked by a delete marker the region holds";

  /** Family deletes at two timestamps in one batch of a NEW_VERSION_BEHAVIOR family (seed 1030). */
  static final String TWO_FAMILY_DELETES_REFUSAL =
      "in one batch of one row: on a NEW_VERSION_BEHAVIOR";

  private static final AtomicInteger TABLES = new AtomicInteger();

  private final HBaseTestingUtility util;
  private final Connection reader;

  /** A reading connection whose planner always takes the index ({@code scbf.planner=index}). */
  private final Connection indexPlanned;

  /**
   * The oracle's reads: a connection that gives up within seconds, where HBase's default retries
   * for about a minute (a location cache looping on a region that moved and then split is read
   * again through a new connection at once).
   */
  private final Connection oracle;

  private final Stats stats;

  Runner(
      HBaseTestingUtility util,
      Connection reader,
      Connection indexPlanned,
      Connection oracle,
      Stats stats) {
    this.util = util;
    this.reader = reader;
    this.indexPlanned = indexPlanned;
    this.oracle = oracle;
    this.stats = stats;
  }

  /** The first failure, or null. {@code target}: a signature to look for alone (shrinking). */
  Failure run(Sequence seq, Failure target) throws Exception {
    Connection writer = util.getConnection();
    TableName name = TableName.valueOf("diff_" + seq.seed() + "_" + TABLES.incrementAndGet());
    Schema schema = seq.schema();
    Map<String, Boolean> eventual = new HashMap<>();
    long setup = System.currentTimeMillis();
    try (Admin admin = writer.getAdmin()) {
      admin.createTable(schema.descriptor(name));
      IndexAdmin indexAdmin = new IndexAdmin(writer);
      for (Index i : schema.indexes()) {
        indexAdmin.createIndex(name, schema.spec(i, i.eventual()));
        eventual.put(i.alias(), i.eventual());
      }
      if (schema.immutable()) indexAdmin.setImmutableRows(name, true);
    }
    if (target == null) stats.setupMillis += System.currentTimeMillis() - setup;
    Applier applier = new Applier(util, writer, name, schema, System.currentTimeMillis(), eventual);
    Checker checker = new Checker(target == null ? stats : new Stats());
    // A TTL set by an alter allows stale index answers as a TTL at creation does.
    boolean expires =
        schema.expires()
            || seq.ops().stream()
                .anyMatch(
                    o ->
                        o instanceof Op.AlterFamily a
                            && a.setting().equals("TTL")
                            && a.value() > 0);
    try (IndexedTable routed = new IndexedTable(reader, name);
        IndexedTable strict = new IndexedTable(reader, name).setStrict(true);
        IndexedTable planned = new IndexedTable(indexPlanned, name)) {
      Query.Probe probe = new Query.Probe(schema, routed, strict, planned, expires);
      List<Op> ops = seq.ops();
      for (int step = 0; step < ops.size(); step++) {
        Op op = ops.get(step);
        if (target == null) stats.op(op);
        long started = System.currentTimeMillis();
        Failure f = apply(step, op, applier, writer, name, schema, target == null);
        if (f != null) return f;
        if (eventual.containsValue(true) && !routed.awaitIndexed(AWAIT_MS)) {
          return Failure.ofOp(step, op, "awaitIndexed timed out after", backlog(writer));
        }
        if (target == null) stats.took(op.kind(), started);
        started = System.currentTimeMillis();
        List<Query> queries =
            target == null
                ? Checker.choose(schema, new Random(seq.seed() * 1_000_003L + step))
                : target.query() == null ? List.of() : List.of(target.query());
        try {
          f = check(step, op, queries, checker, probe, oracle, name, schema);
        } catch (IOException | UncheckedIOException e) {
          // The shared connection's location cache can loop on RegionMovedException for a region
          // that moved and then split (HBase's client: a new connection reads the table). The
          // step is checked again through a new connection; if that fails too, it is a failure.
          try (Connection fresh =
              org.apache.hadoop.hbase.client.ConnectionFactory.createConnection(
                  util.getConfiguration())) {
            f = check(step, op, queries, checker, probe, fresh, name, schema);
            if (target == null) stats.clientCacheLoops++;
          } catch (IOException | UncheckedIOException again) {
            f =
                Failure.ofOp(
                    step,
                    op,
                    "reading the data table failed after",
                    causes(e) + "\n  and through a new connection: " + causes(again));
          }
        }
        if (f != null) return f;
        if (target == null) stats.checkMillis += System.currentTimeMillis() - started;
      }
      return null;
    } finally {
      long dropping = System.currentTimeMillis();
      drop(writer, name);
      if (target == null) stats.setupMillis += System.currentTimeMillis() - dropping;
    }
  }

  private Failure check(
      int step,
      Op op,
      List<Query> queries,
      Checker checker,
      Query.Probe probe,
      Connection writer,
      TableName name,
      Schema schema)
      throws IOException, InterruptedException {
    Snapshot data = Snapshot.read(writer, name);
    Snapshot byGets = Snapshot.readByGets(writer, name, schema.rows());
    // Expiry between the two reads is no disagreement: a second scan must match the first.
    if (!data.equals(byGets) && data.equals(Snapshot.read(writer, name))) {
      return Failure.ofOp(
          step, op, "HBase's Scan and Get disagree after", "scan " + data + "\n  gets " + byGets);
    }
    for (Query q : queries) {
      Failure f = checker.check(step, op, q, probe, data, () -> reread(writer, name));
      if (f != null) return f;
    }
    return null;
  }

  private Failure apply(
      int step,
      Op op,
      Applier applier,
      Connection writer,
      TableName name,
      Schema schema,
      boolean count)
      throws Exception {
    if (op instanceof Op.Refusable r) {
      return checkRefused(
          step, op, count, "the row", () -> row(writer, name, r.row()), () -> applier.write(r));
    }
    if (op instanceof Op.Concurrent c) return concurrently(step, c, applier, writer, name, schema);
    if (op instanceof Op.AlterFamily a && applier.refuses(a)) {
      return checkRefused(
          step,
          op,
          count,
          "the family",
          () -> family(writer, name, a.family()),
          () -> applier.event(a));
    }
    try {
      if (op instanceof Op.Write w) writeOnce(w, applier, writer, name, count);
      else if (!applier.event(op) && count) stats.eventsSkipped++;
      return null;
    } catch (Exception e) {
      // A Put only a stored delete marker masks is refused (a major compaction could show it
      // later), and so are family deletes at two timestamps in one batch of a NEW_VERSION_BEHAVIOR
      // family (HBase applies only the oldest): the docs' refusals, not failures; the checks
      // after this step see what was written.
      String why = causes(e);
      if (op instanceof Op.Write
          && (why.contains(MASKED_PUT_REFUSAL) || why.contains(TWO_FAMILY_DELETES_REFUSAL))) {
        if (count) stats.refusalsChecked++;
        return null;
      }
      return Failure.ofOp(step, op, "failed:", causes(e));
    }
  }

  /** Each write from its own thread, all started together; the first failure, if any. */
  private Failure concurrently(
      int step, Op.Concurrent c, Applier applier, Connection writer, TableName name, Schema schema)
      throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(c.writes().size());
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Failure>> done = new ArrayList<>();
      for (Op.Write w : c.writes()) {
        done.add(
            threads.submit(
                () -> {
                  start.await();
                  Failure f = apply(step, w, applier, writer, name, schema, false);
                  return f == null
                      ? null
                      : Failure.ofOp(step, c, f.signature() + " in", f.detail());
                }));
      }
      start.countDown();
      Failure first = null;
      for (Future<Failure> f : done) {
        Failure one = f.get();
        if (first == null) first = one;
      }
      return first;
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * Applies a write; if HBase's client gave up following two servers' stale "moved to" records of a
   * region that has since split or closed (seeds 1142, 1161: each server names the other for two
   * minutes, and the client never reads meta), the write reached no region through the loop: it is
   * sent again with the table's cached locations dropped. HBase's client, not the product, failed
   * there; what the index must show is what HBase then holds, so the checks are unaffected.
   */
  private void writeOnce(
      Op.Write w, Applier applier, Connection writer, TableName name, boolean count)
      throws Exception {
    try {
      applier.write(w);
    } catch (IOException e) {
      String why = causes(e);
      if (!why.contains("RegionMovedException") || why.contains("scbf")) throw e;
      try (RegionLocator locator = writer.getRegionLocator(name)) {
        locator.clearRegionLocationCache();
      }
      if (count) stats.writesSentAgain++;
      applier.write(w);
    }
  }

  private interface Attempt {
    void run() throws Exception;
  }

  /**
   * An operation the docs say the product refuses: it must fail with an scbf error and leave {@code
   * what} ({@code state} before and after) unchanged.
   */
  private Failure checkRefused(
      int step, Op op, boolean count, String what, Callable<String> state, Attempt attempt)
      throws Exception {
    String before = state.call();
    try {
      attempt.run();
      return Failure.ofOp(step, op, "not refused:", "the docs say the product refuses it");
    } catch (IOException e) {
      if (!causes(e).contains("scbf")) {
        return Failure.ofOp(step, op, "refused for another reason:", causes(e));
      }
    }
    if (count) stats.refusalsChecked++;
    String after = state.call();
    if (!before.equals(after)) {
      return Failure.ofOp(step, op, "refused but changed " + what + ":", before + " -> " + after);
    }
    return null;
  }

  private static String causes(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) b.append(t).append(" / ");
    return b.toString();
  }

  private static String row(Connection c, TableName name, String row) throws IOException {
    try (Table t = c.getTable(name)) {
      return Snapshot.describe(row, Snapshot.cells(t.get(new Get(Bytes.toBytes(row)))));
    }
  }

  private static String family(Connection c, TableName name, String family) throws IOException {
    try (Admin admin = c.getAdmin()) {
      return admin.getDescriptor(name).getColumnFamily(Bytes.toBytes(family)).toString();
    }
  }

  private static Snapshot reread(Connection c, TableName name) {
    try {
      return Snapshot.read(c, name);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void drop(Connection c, TableName name) throws IOException {
    try (Admin admin = c.getAdmin()) {
      if (!admin.tableExists(name)) return;
      if (admin.isTableEnabled(name)) admin.disableTable(name);
      admin.deleteTable(name);
    }
  }

  /** What the EVENTUAL peer reports, so that a timeout says whether the queue was moving. */
  private static String backlog(Connection connection) {
    try (Admin admin = connection.getAdmin()) {
      return "backlog after the wait: " + EventualMode.backlog(admin);
    } catch (IOException e) {
      return "backlog unknown: " + e;
    }
  }
}
