package io.scbf.hbase.differential;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 49: a differential tester with HBase itself as the oracle (docs/testing-differential.md).
 * Random sequences of writes, refused writes and cluster events run against a fresh table with
 * global, local and ordered indexes; after each step the index's answers must equal what a plain
 * scan of the data table gives for the same question.
 *
 * <p>{@code -Dscbf.differential.sequences=N} (default 3: the short form, about 3 minutes on 2
 * cores), {@code -Dscbf.differential.ops=N} (default 40), {@code -Dscbf.differential.seed=S}
 * (sequence i uses seed S+i; default 1), {@code -Dscbf.differential.parallel=N} (default 1). Long
 * form: {@code scripts/differential-test.sh}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DifferentialClusterTest {
  static final int SEQUENCES = Integer.getInteger("scbf.differential.sequences", 3);
  static final int OPS = Integer.getInteger("scbf.differential.ops", 40);
  static final long SEED = Long.getLong("scbf.differential.seed", 1);
  static final boolean STOP_AT_FIRST =
      Boolean.parseBoolean(System.getProperty("scbf.differential.stop-at-first", "true"));

  /**
   * Sequences run at once, each on its own table (most of a sequence's time is HBase waiting on
   * table and region procedures, not CPU). One by default: sequences at once share the servers'
   * EVENTUAL queue, and one table's disable, truncate or moving regions holds up the others' awaits
   * (docs/testing-differential.md, "Long form"); the long form runs several.
   */
  static final int PARALLEL = Integer.getInteger("scbf.differential.parallel", 1);

  /** Starts no sequence after this many minutes (0: no limit); the summary counts what ran. */
  static final long MINUTES = Long.getLong("scbf.differential.minutes", 0);

  static final long SHRINK_MS = Long.getLong("scbf.differential.shrink-ms", 300_000);

  TesterCluster cluster;

  @BeforeAll
  void startCluster() throws Exception {
    cluster = new TesterCluster();
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (cluster != null) cluster.close();
  }

  @Test
  void indexAnswersEqualWhatHBaseShows() throws Exception {
    List<Stats> perWorker = new ArrayList<>();
    String[] reports = new String[SEQUENCES];
    AtomicInteger next = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    long start = System.currentTimeMillis();
    ExecutorService workers = Executors.newFixedThreadPool(PARALLEL);
    List<Future<?>> running = new ArrayList<>();
    for (int w = 0; w < PARALLEL; w++) {
      Stats stats = new Stats();
      perWorker.add(stats);
      running.add(workers.submit(() -> work(stats, next, stop, reports, start)));
    }
    workers.shutdown();
    for (Future<?> f : running) f.get();
    Stats total = new Stats();
    perWorker.forEach(total::add);
    System.out.println(
        total.summary()
            + String.format(
                "; %d in parallel; %.0f s",
                PARALLEL, (System.currentTimeMillis() - start) / 1000.0));
    List<String> failures = Arrays.stream(reports).filter(Objects::nonNull).toList();
    if (!failures.isEmpty()) fail(String.join("\n\n", failures));
  }

  /** One worker: takes the next sequence index until none is left (or a failure stops all). */
  private Void work(
      Stats stats, AtomicInteger next, AtomicBoolean stop, String[] reports, long start)
      throws Exception {
    Runner runner = cluster.runner(stats);
    SequenceGenerator generator = new SequenceGenerator();
    long deadline = MINUTES == 0 ? Long.MAX_VALUE : start + MINUTES * 60_000;
    for (int i = next.getAndIncrement();
        i < SEQUENCES && !stop.get() && System.currentTimeMillis() < deadline;
        i = next.getAndIncrement()) {
      Sequence seq = generator.generate(SEED + i, OPS);
      stats.sequences++;
      long began = System.currentTimeMillis();
      Failure failure;
      try {
        failure = runner.run(seq, null);
      } catch (Exception e) {
        // The cluster, not an index, failed the tester (e.g. a client giving up on an overloaded
        // machine): a run error, reported with its seed; the other sequences go on.
        stats.errors++;
        if (STOP_AT_FIRST) stop.set(true);
        StringBuilder causes = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) causes.append("\n  ").append(t);
        reports[i] =
            String.format("differential error: seed %d (sequence %d)%s", seq.seed(), i, causes);
        System.out.println(reports[i]);
        continue;
      }
      System.out.printf(
          "differential sequence %d (seed %d, indexes %s): %s in %.0f s%n",
          i,
          seq.seed(),
          seq.schema().indexes().stream().map(Schema.Index::alias).toList(),
          failure == null ? "ok" : "FAILED",
          (System.currentTimeMillis() - began) / 1e3);
      if (failure == null) continue;
      System.out.printf(
          "differential sequence %d (seed %d) failed %s%n", i, seq.seed(), failure.describe());
      stats.failures++;
      if (STOP_AT_FIRST) stop.set(true);
      Shrinker shrinker = new Shrinker(runner, SHRINK_MS);
      Shrinker.Result shrunk = shrinker.shrink(seq, failure);
      reports[i] = report(i, seq, failure, shrunk, shrinker.attempts);
      System.out.println(reports[i]);
    }
    return null;
  }

  static String report(
      int index, Sequence seq, Failure original, Shrinker.Result shrunk, int attempts) {
    Failure f = shrunk.failure();
    return String.format(
        "differential failure: seed %d (sequence %d of base seed %d, %d ops)%n"
            + "schema: %s%n"
            + "first seen %s%n"
            + "minimal sequence (%d ops, %s after %d shrink runs):%n%s%n"
            + "fails %s",
        seq.seed(),
        index,
        SEED,
        seq.ops().size(),
        seq.schema(),
        original.describe(),
        shrunk.ops().size(),
        !shrunk.reproduced()
            ? "NOT reproduced on a fresh table, unshrunk"
            : shrunk.complete() ? "1-minimal" : "shrink time ran out",
        attempts,
        Op.render(shrunk.ops()),
        f.describe());
  }
}
