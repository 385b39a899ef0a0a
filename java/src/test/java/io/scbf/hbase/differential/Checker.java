package io.scbf.hbase.differential;

import io.scbf.hbase.ValueOrder;
import io.scbf.hbase.differential.Schema.Column;
import io.scbf.hbase.differential.Schema.Index;
import io.scbf.hbase.differential.Schema.Kind;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

/**
 * Asks queries of the index and of the oracle and compares. Queries that re-check the data rows
 * ({@code find}, {@code range}, streams) must equal the oracle at once. {@code findRowKeys}, {@code
 * findEntries}, {@code rangeRowKeys} and {@code rangeEntries} answer from the index alone, which
 * docs/design.md ("Consistency contract for readers") allows to be a superset while a replaced
 * value's background delete is in flight: they must hold every expected entry and come to equal the
 * oracle within {@link #STALE_MS} (a stale entry the docs do not explain fails).
 */
final class Checker {
  static final long STALE_MS = 5_000;

  private final Stats stats;

  Checker(Stats stats) {
    this.stats = stats;
  }

  /** The queries of one check, drawn from {@code random}: every index, every query kind in turn. */
  static List<Query> choose(Schema schema, Random random) {
    List<Query> out = new ArrayList<>();
    for (Index index : schema.indexes()) {
      Column c = schema.column(index.column());
      Query.PointKind[] kinds = Query.PointKind.values();
      out.add(
          new Query.Point(
              kinds[random.nextInt(kinds.length)],
              index.alias(),
              pick(c, random),
              1 + random.nextInt(3)));
      if (index.kind() == Kind.ORDERED) {
        Query.RangeKind[] rk = Query.RangeKind.values();
        out.add(
            new Query.Range(
                rk[random.nextInt(rk.length)],
                index.alias(),
                random.nextInt(4) == 0 ? null : pick(c, random),
                random.nextInt(4) == 0 ? null : pick(c, random),
                random.nextBoolean() ? ValueOrder.ASCENDING : ValueOrder.DESCENDING,
                1 + random.nextInt(4)));
      } else if (random.nextInt(3) == 0) {
        out.add(
            new Query.Range(
                random.nextBoolean() ? Query.RangeKind.RANGE : Query.RangeKind.RANGE_ROW_KEYS,
                index.alias(),
                random.nextInt(3) == 0 ? null : pick(c, random),
                random.nextInt(3) == 0 ? null : pick(c, random),
                ValueOrder.ASCENDING,
                0));
      }
    }
    if (random.nextInt(3) == 0) {
      Column a = schema.column("d:a");
      Column b = schema.column("d:b");
      out.add(
          new Query.And(
              a.name(), List.of(pick(a, random), pick(a, random)), b.name(), pick(b, random)));
    }
    return out;
  }

  private static String pick(Column c, Random random) {
    return c.domain().get(random.nextInt(c.domain().size()));
  }

  /** Null if the product answers as the oracle does; else what differs. */
  Failure check(
      int step, Op op, Query q, Query.Probe probe, Snapshot first, Supplier<Snapshot> reread)
      throws IOException, InterruptedException {
    stats.query(q);
    boolean expires = probe.schema().expires();
    long deadline =
        System.currentTimeMillis()
            + (q.indexOnly() ? STALE_MS + (expires ? 6_000 : 0) : expires ? 2_000 : 0);
    Snapshot data = first;
    boolean waited = false;
    while (true) {
      List<String> actual;
      try {
        actual = q.ask(probe);
      } catch (IOException | RuntimeException e) {
        return Failure.ofQuery(
            step, op, q, q.expect(data, probe.schema()), List.of(), "threw " + e);
      }
      List<String> expected = q.expect(data, probe.schema());
      if (matches(q, expected, actual)) {
        if (waited) stats.staleWaits++;
        return null;
      }
      if (System.currentTimeMillis() >= deadline) {
        String why =
            q.indexOnly() && new HashSet<>(actual).containsAll(expected)
                ? "stale extra entries did not go away within the wait"
                : null;
        return Failure.ofQuery(
            step, op, q, expected, actual, (why == null ? "" : why + "; ") + "HBase shows " + data);
      }
      waited = true;
      Thread.sleep(200);
      data = reread.get();
    }
  }

  static boolean matches(Query q, List<String> expected, List<String> actual) {
    if (q.subsetLimit() > 0) {
      List<String> sorted = new ArrayList<>(actual);
      sorted.sort(null);
      return sorted.equals(actual)
          && actual.size() == Math.min(q.subsetLimit(), expected.size())
          && new HashSet<>(expected).containsAll(actual);
    }
    if (q.ordered()) return expected.equals(actual);
    List<String> e = new ArrayList<>(expected);
    List<String> a = new ArrayList<>(actual);
    e.sort(null);
    a.sort(null);
    return e.equals(a);
  }
}
