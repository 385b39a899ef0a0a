package io.scbf.hbase.differential;

import static io.scbf.hbase.differential.Op.*;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Shrunk sequences the differential tester failed on, run as they were printed, on the schema their
 * seed generates: each passes once its defect is fixed (docs/testing-differential.md lists them).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DifferentialRegressionClusterTest {
  TesterCluster cluster;
  Runner runner;

  @BeforeAll
  void startCluster() throws Exception {
    cluster = new TesterCluster();
    runner = cluster.runner(new Stats());
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (cluster != null) cluster.close();
  }

  private void passes(long seed, Op... ops) throws Exception {
    runs(seed, null, ops);
  }

  /** As {@link #passes}, checking after every step only {@code query}, the one that failed. */
  private void answers(long seed, Query query, Op... ops) throws Exception {
    runs(seed, Failure.ofQuery(0, null, query, List.of(), List.of(), null), ops);
  }

  private void runs(long seed, Failure target, Op... ops) throws Exception {
    Sequence seq = new SequenceGenerator().generate(seed, 0).withOps(List.of(ops));
    Failure f = runner.run(seq, target);
    assertNull(f, () -> "seed " + seed + " failed " + f.describe());
  }

  /**
   * Seed 1097: a RowMutations of a Put at the server's timestamp and a delete of the whole row, on
   * NEW_VERSION_BEHAVIOR families; HBase shows the row deleted, a BY_ROW index kept it.
   */
  @Test
  void seed1097() throws Exception {
    passes(
        1097,
        alterFamily("d", "TTL", 4),
        deleteFamily("r0", "e", -3000L),
        deleteFamily("r1", "e", null),
        put("r3", null, "d:a", "B:a0", "d:n", "L:-1"),
        put("r1", null, "d:a", "B:a1", "d:c", "B:c1"),
        mutations(
            "r3",
            deleteRow("r3", -3000L),
            deleteColumns("r3", "d:c", 3600000L),
            put("r3", -4000L, "d:u", "B:u0")),
        put("r4", -4000L, "d:a", "B:a1"),
        put("r3", -5000L, "d:u", "B:u1"),
        mutations(
            "r3",
            put("r3", null, "d:n", "L:-9223372036854775808", "d:c", "B:c0", "d:a", "B:a1"),
            deleteRow("r3", null)));
  }

  /**
   * Found by reading seed 1097's fix: a covered column deleted at the server's clock stamps the
   * index row's rewrite there, above the indexed cell; the indexed value then changed at a client
   * timestamp two seconds in the past, and the old value's delete, stamped from the cells it read
   * back, sat below that row and missed it: {@code findEntries(a0)} answered the row for good.
   */
  @Test
  void aPastStampedChangeAfterACoveredDeleteRemovesTheOldEntry() throws Exception {
    Query oldValue = new Query.Point(Query.PointKind.FIND_ENTRIES, "ia", "B:a0", 3);
    answers(
        1097,
        oldValue,
        put("r1", -5000L, "d:a", "B:a0"),
        put("r1", null, "d:c", "B:c0"),
        deleteColumns("r1", "d:c", null),
        put("r1", -2000L, "d:a", "B:a1"));
  }

  /**
   * Seed 1183 (shrunk by hand from its 48 operations): a covered column deleted while the index was
   * STRONG lifted the index row to the delete's time; the switch to EVENTUAL recorded the row at
   * its data cells' older time, and the applier deleted it there when the row went: the entry
   * stayed for good.
   */
  @Test
  void seed1183() throws Exception {
    Query gone = new Query.Point(Query.PointKind.FIND_ENTRIES, "ia", "B:a1", 3);
    answers(
        1183,
        gone,
        put("r3", null, "d:c", "B:c0", "d:a", "B:a1"),
        deleteColumns("r3", "d:c", null),
        setConsistency("ia", true),
        deleteRow("r3", null));
  }

  /**
   * Seeds 1208 and 1232 (this is 1232's shrunk sequence): a switch to EVENTUAL after a truncate
   * scanned the data table through the writer's cached location of the table's old region, which
   * had moved, and HBase's client followed the servers' stale "moved to" records until its retries
   * ran out (68 s).
   */
  @Test
  void seed1232() throws Exception {
    passes(
        1232,
        append("r0", "d:a", "B:a1"),
        move("ix"),
        put("r4", -3000L, "d:b", "B:b1"),
        mutations("r2", put("r2", -1000L, "e:x", "D:0.0", "d:a", "B:a2"), deleteRow("r2", -1000L)),
        deleteRow("r3", null),
        putWithVisibility("r4", "d:n", "L:9223372036854775807"),
        splitIndex("ix"),
        put("r0", -5000L, "d:a", "B:a0", "d:b", "B:b2"),
        deleteFamily("r2", "d", null),
        put("r0", null, "d:b", "B:b1", "d:n", "L:-9223372036854775808"),
        put("r4", null, "d:c", "B:c1", "d:n", "L:-1", "d:u", "B:u0"),
        splitIndex("ia"),
        put("r0", 3601000L, "d:u", "B:u0"),
        put("r1", -1000L, "e:x", "D:-Infinity", "d:u", "B:u0"),
        deleteColumns("r3", "d:u", null),
        batch(
            put("r0", -1000L, "d:n", "L:-9223372036854775808", "d:b", "B:b1"),
            put("r0", null, "d:c", "B:c0", "d:a", "B:a1", "d:n", "L:-1"),
            put("r0", null, "d:a", "B:a2", "d:c", "B:c2"),
            put("r0", -3000L, "e:x", "D:NaN2")),
        deleteFamily("r2", "e", null),
        setConsistency("in", false),
        put("r4", -4000L, "d:a", "B:a0", "d:n", "L:9223372036854775807"),
        mutations(
            "r3",
            put("r3", null, "d:n", "L:-1", "d:c", "B:c0"),
            deleteColumns("r3", "d:n", null),
            put("r3", null, "d:a", "B:a0", "d:c", "B:c0", "e:x", "D:NaN")),
        setConsistency("in", false),
        setConsistency("ix", true),
        put("r2", null, "d:b", "B:b0", "d:n", "L:7"),
        deleteVersion("r2", "d:n", null),
        put("r3", -1000L, "d:u", "B:u1", "d:b", "B:b2"),
        append("r1", "d:a", "B:a0"),
        checkAndPut("r4", "d:n", "L:-1", put("r4", null, "d:c", "B:c0", "d:a", "B:a2")),
        deleteColumns("r3", "d:u", -3000L),
        put("r4", -5000L, "e:x", "D:-Infinity"),
        deleteColumns("r0", "e:x", null),
        move(null),
        put("r4", null, "d:b", "B:b2"),
        truncate(),
        splitIndex("ix"),
        setConsistency("in", true));
  }

  /**
   * Seed 1237: on a table declared insert-only, a Put stamped below a delete of its row was indexed
   * (HBase hides it): the insert-only path skipped the read of the row, and with it of the markers
   * that refuse a Put they mask.
   */
  @Test
  void seed1237() throws Exception {
    Query hidden = new Query.Point(Query.PointKind.FIND_ENTRIES, "in", "L:9223372036854775807", 3);
    answers(
        1237, hidden, deleteRow("r8", -1000L), put("r8", -1000L, "d:n", "L:9223372036854775807"));
  }

  /**
   * Seed 1270: a stream whose pages were read after its region moved away and back and then split
   * failed after the client's retries, following the servers' stale "moved to" records (seed 1142
   * fixed this for whole answers, not for a stream's later pages).
   */
  @Test
  void seed1270() throws Exception {
    Query stream = new Query.Point(Query.PointKind.STREAM, "ib", "B:b1", 0);
    answers(
        1270,
        stream,
        put("r2", -1000L, "d:a", "B:a1"),
        increment("r1", "d:a"),
        setConsistency("ic", false),
        move(null),
        move(null),
        put("r6", null, "d:b", "B:b1", "d:c", "B:c1", "e:x", "S:a"),
        move(null),
        mutations(
            "r6",
            put("r6", null, "d:n", "L:-1", "e:x", "S:ä"),
            put("r6", -1000L, "d:n", "L:9223372036854775807", "e:x", "S:ab"),
            deleteColumns("r6", "e:x", null)),
        deleteColumns("r2", "d:a", null),
        deleteColumns("r3", "d:u", null),
        putWithVisibility("r3", "e:x", "S:ab"),
        put("r4", -2000L, "e:x", "S:a", "d:c", "B:c0"),
        checkAndPut(
            "r5", "d:c", "B:c0", put("r5", null, "d:b", "B:b0", "d:a", "B:a2", "e:x", "S:a")),
        deleteRow("r5", null),
        deleteFamily("r2", "d", 3603000L),
        deleteFamily("r1", "e", null),
        deleteColumns("r1", "d:n", null),
        alterFamily("e", "MIN_VERSIONS", 1),
        splitIndex("ia"),
        splitData("r4"));
  }
}
