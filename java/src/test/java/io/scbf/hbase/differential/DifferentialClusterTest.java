package io.scbf.hbase.differential;

import static org.junit.jupiter.api.Assertions.fail;

import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.testing.MiniCluster;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
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
 * <p>{@code -Dscbf.differential.sequences=N} (default 5: the short form, about 4 minutes on 2
 * cores), {@code -Dscbf.differential.ops=N} (default 40), {@code -Dscbf.differential.seed=S}
 * (sequence i uses seed S+i; default 1). Long form: {@code scripts/differential-test.sh}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DifferentialClusterTest {
  static final int SEQUENCES = Integer.getInteger("scbf.differential.sequences", 5);
  static final int OPS = Integer.getInteger("scbf.differential.ops", 40);
  static final long SEED = Long.getLong("scbf.differential.seed", 1);
  static final boolean STOP_AT_FIRST =
      Boolean.parseBoolean(System.getProperty("scbf.differential.stop-at-first", "true"));
  static final long SHRINK_MS = Long.getLong("scbf.differential.shrink-ms", 300_000);

  HBaseTestingUtility util;
  Connection reader;

  @BeforeAll
  void startCluster() throws Exception {
    util = MiniCluster.start(2, MiniCluster::eventualReplication);
    Configuration conf = new Configuration(util.getConfiguration());
    conf.setInt(Settings.CLIENT_PAGE_ROWS, 2); // streams and limits cross pages
    reader = ConnectionFactory.createConnection(conf);
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (reader != null) reader.close();
    if (util != null) util.shutdownMiniCluster();
  }

  @Test
  void indexAnswersEqualWhatHBaseShows() throws Exception {
    Stats stats = new Stats();
    Runner runner = new Runner(util, reader, stats);
    SequenceGenerator generator = new SequenceGenerator();
    List<String> reports = new ArrayList<>();
    long start = System.currentTimeMillis();
    for (int i = 0; i < SEQUENCES; i++) {
      Sequence seq = generator.generate(SEED + i, OPS);
      stats.sequences++;
      Failure failure = runner.run(seq, null);
      if (failure == null) continue;
      stats.failures++;
      Shrinker shrinker = new Shrinker(runner, SHRINK_MS);
      Shrinker.Result shrunk = shrinker.shrink(seq, failure);
      String report = report(i, seq, failure, shrunk, shrinker.attempts);
      System.out.println(report);
      reports.add(report);
      if (STOP_AT_FIRST) break;
    }
    System.out.println(
        stats.summary() + String.format("; %.0f s", (System.currentTimeMillis() - start) / 1000.0));
    if (!reports.isEmpty()) fail(String.join("\n\n", reports));
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
