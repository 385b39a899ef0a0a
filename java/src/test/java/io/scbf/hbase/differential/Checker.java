package io.scbf.hbase.differential;

import io.scbf.hbase.ValueOrder;
import io.scbf.hbase.differential.Schema.Column;
import io.scbf.hbase.differential.Schema.Index;
import io.scbf.hbase.differential.Schema.Kind;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.apache.hadoop.hbase.util.Bytes;

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
      if (index.composite()) {
        out.add(composite(schema, index, random));
        continue;
      }
      if (!index.byColumn()) {
        out.add(byAlias(schema, index, random));
        continue;
      }
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
    if (random.nextInt(3) == 0) out.add(where(schema, random));
    if (random.nextInt(3) == 0) out.add(explain(schema, random));
    return out;
  }

  /** The values an expression or partial index holds: its expression's of the column's values. */
  static List<String> indexValues(Schema schema, Index index) {
    Column c = schema.column(index.column());
    if (index.expression() == null) return c.domain();
    List<String> out = new ArrayList<>();
    for (String v : c.domain()) {
      byte[] e = index.expression().apply(Values.bytes(v));
      String token =
          index.expression().producesLong() ? "L:" + Bytes.toLong(e) : "S:" + Bytes.toString(e);
      if (!out.contains(token)) out.add(token);
    }
    out.add(index.expression().producesLong() ? "L:3" : "S:q"); // a value no row has
    return out;
  }

  /** An expression or partial index, asked by alias: a point, and ranges (ordered if ORDERED). */
  private static Query byAlias(Schema schema, Index index, Random random) {
    List<String> values = indexValues(schema, index);
    String v = values.get(random.nextInt(values.size()));
    String lo = random.nextInt(4) == 0 ? null : values.get(random.nextInt(values.size()));
    String hi = random.nextInt(4) == 0 ? null : values.get(random.nextInt(values.size()));
    ValueOrder order = random.nextBoolean() ? ValueOrder.ASCENDING : ValueOrder.DESCENDING;
    int p = random.nextInt(index.kind() == Kind.ORDERED ? 5 : 2);
    return switch (p) {
      case 0 -> new Query.Point(Query.PointKind.FIND_BY_ALIAS, index.alias(), v, 0);
      case 1 -> new Query.Range(Query.RangeKind.RANGE_BY_ALIAS, index.alias(), lo, hi, order, 0);
      case 2 ->
          new Query.Range(
              Query.RangeKind.RANGE_LIMIT, index.alias(), lo, hi, order, 1 + random.nextInt(4));
      case 3 ->
          new Query.Range(
              Query.RangeKind.RANGE_ENTRIES, index.alias(), lo, hi, order, 1 + random.nextInt(4));
      default -> new Query.Range(Query.RangeKind.STREAM_RANGE, index.alias(), lo, hi, order, 0);
    };
  }

  private static Query.Composite composite(Schema schema, Index index, Random random) {
    Column first = schema.column(index.column());
    Column second = schema.column(index.then().get(0));
    Query.CompositeKind[] kinds = Query.CompositeKind.values();
    Query.CompositeKind kind = kinds[random.nextInt(kinds.length)];
    if (kind == Query.CompositeKind.FIND) {
      return new Query.Composite(
          kind,
          index.alias(),
          random.nextBoolean()
              ? List.of(pick(first, random), pick(second, random))
              : List.of(pick(first, random)),
          null,
          null);
    }
    boolean leading = random.nextBoolean();
    Column next = leading ? second : first;
    return new Query.Composite(
        kind,
        index.alias(),
        leading ? List.of(pick(first, random)) : List.of(),
        random.nextInt(4) == 0 ? null : pick(next, random),
        random.nextInt(4) == 0 ? null : pick(next, random));
  }

  /**
   * find(Condition...): an IN on d:a or d:b and one or two more conditions (IN, a typed range,
   * present) on other columns; half the time, when the table has a partial index, an equality on
   * its column with its WHERE, which the planner may answer by it.
   */
  static Query.Where where(Schema schema, Random random) {
    List<Schema.Cond> conds = new ArrayList<>();
    Index partial =
        schema.indexes().stream().filter(i -> !i.where().isEmpty()).findFirst().orElse(null);
    if (partial != null && random.nextBoolean()) {
      Column c = schema.column(partial.column());
      conds.add(Schema.Cond.in(c.name(), pick(c, random)));
      conds.addAll(partial.where());
      return new Query.Where(conds);
    }
    String first = random.nextBoolean() ? "d:a" : "d:b";
    Column f = schema.column(first);
    conds.add(
        random.nextBoolean()
            ? Schema.Cond.in(first, pick(f, random))
            : Schema.Cond.in(first, pick(f, random), pick(f, random)));
    int more = 1 + random.nextInt(2);
    for (int i = 0; i < more; i++) {
      Schema.Cond c = SequenceGenerator.where(random, first, xColumn(schema), schema.columns());
      if (conds.stream().noneMatch(o -> o.column().equals(c.column()))) conds.add(c);
    }
    return new Query.Where(conds);
  }

  private static String xColumn(Schema schema) {
    return schema.columns().stream()
        .map(Column::name)
        .filter(n -> n.endsWith(":x"))
        .findFirst()
        .orElseThrow();
  }

  /** An explain of a point query by column, by alias, of a composite, or of conditions. */
  static Query.Explain explain(Schema schema, Random random) {
    boolean indexPlanner = random.nextBoolean();
    List<Index> plain = schema.indexes().stream().filter(Index::byColumn).toList();
    List<Index> composites = schema.indexes().stream().filter(Index::composite).toList();
    int p = random.nextInt(4);
    if (p == 0 && !composites.isEmpty()) {
      Index c = composites.get(0);
      Column first = schema.column(c.column());
      Column second = schema.column(c.then().get(0));
      return new Query.Explain(
          new Query.Composite(
              Query.CompositeKind.FIND,
              c.alias(),
              List.of(pick(first, random), pick(second, random)),
              null,
              null),
          indexPlanner);
    }
    if (p == 1) return new Query.Explain(where(schema, random), indexPlanner);
    Index index = plain.get(random.nextInt(plain.size()));
    Query.PointKind[] kinds = {
      Query.PointKind.FIND,
      Query.PointKind.FIND_BY_ALIAS,
      Query.PointKind.FIND_ROW_KEYS,
      Query.PointKind.FIND_ENTRIES
    };
    return new Query.Explain(
        new Query.Point(
            kinds[random.nextInt(kinds.length)],
            index.alias(),
            pick(schema.column(index.column()), random),
            0),
        indexPlanner);
  }

  private static String pick(Column c, Random random) {
    return c.domain().get(random.nextInt(c.domain().size()));
  }

  /** Null if the product answers as the oracle does; else what differs. */
  Failure check(
      int step, Op op, Query q, Query.Probe probe, Snapshot first, Supplier<Snapshot> reread)
      throws IOException, InterruptedException {
    stats.query(q);
    boolean expires = probe.expires();
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
        if (expires
            && q.indexOnly()
            && (keptByAFutureCell(expected, actual, data, q.orderedLimit())
                || coveredKeptByAFutureCell(q, expected, actual, data))) {
          stats.futureStampedKept++;
          return null;
        }
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

  /**
   * An index entry expires with the newest cell it reflects (docs/user-guide.md, "Data that
   * expires"): a covered column written at a client timestamp in the future keeps the entry after
   * the indexed cell expired, until that column expires too. So an index-only answer may keep rows
   * HBase no longer answers for, each showing a cell stamped after the read; nothing else. In an
   * ordered answer with a limit ({@code limit} > 0) such rows take their places in the order, and
   * the rows HBase answers fill the places left: the first of the expected (seed 1071).
   */
  static boolean keptByAFutureCell(
      List<String> expected, List<String> actual, Snapshot data, int limit) {
    List<String> kept = new ArrayList<>();
    List<String> answered = new ArrayList<>();
    for (String a : actual) {
      if (!expected.contains(a) && data.aheadOfClock().contains(rowOf(a))) kept.add(a);
      else answered.add(a);
    }
    if (kept.isEmpty()) return false;
    if (limit <= 0) return new HashSet<>(answered).equals(new HashSet<>(expected));
    return answered.equals(expected.subList(0, Math.min(expected.size(), limit - kept.size())));
  }

  /**
   * The same limit for covered values: an entry's covered column stamped before the newest cell it
   * reflects is answered until the entry expires, after HBase stopped showing it (user guide, "Data
   * that expires"; seed 1090: {@code d:c} expired while {@code d:b} was stamped an hour ahead). So
   * an index-only answer may show, in entries of rows with a cell stamped after the read, covered
   * columns HBase no longer shows; the same rows, in the same order, and every column HBase shows
   * with its value.
   */
  static boolean coveredKeptByAFutureCell(
      Query q, List<String> expected, List<String> actual, Snapshot data) {
    if (expected.size() != actual.size()) return false;
    List<String> e = new ArrayList<>(expected);
    List<String> a = new ArrayList<>(actual);
    if (!q.ordered()) {
      e.sort(Comparator.comparing(Checker::rowOf));
      a.sort(Comparator.comparing(Checker::rowOf));
    }
    boolean kept = false;
    for (int i = 0; i < e.size(); i++) {
      if (e.get(i).equals(a.get(i))) continue;
      String row = rowOf(a.get(i));
      if (!row.equals(rowOf(e.get(i))) || !data.aheadOfClock().contains(row)) return false;
      if (!a.get(i).startsWith(labelOf(e.get(i)) + "{")) return false;
      if (!columnsOf(a.get(i)).containsAll(columnsOf(e.get(i)))) return false;
      kept = true;
    }
    return kept;
  }

  /** An answer without its cells: {@code "r3 value=B:b1"} of {@code "r3 value=B:b1{d:c=c1}"}. */
  private static String labelOf(String answer) {
    int brace = answer.indexOf('{');
    return brace < 0 ? answer : answer.substring(0, brace);
  }

  /** The {@code column=value} items of an answer's cells. */
  private static List<String> columnsOf(String answer) {
    int brace = answer.indexOf('{');
    if (brace < 0 || !answer.endsWith("}")) return List.of();
    String inside = answer.substring(brace + 1, answer.length() - 1);
    return inside.isEmpty() ? List.of() : List.of(inside.split(", "));
  }

  /** The row key of an answer: a key, or an entry {@code "r3 value=...{d:c=...}"}. */
  private static String rowOf(String answer) {
    int end = answer.length();
    for (int i = 0; i < answer.length(); i++) {
      if (answer.charAt(i) == ' ' || answer.charAt(i) == '{') {
        end = i;
        break;
      }
    }
    return answer.substring(0, end);
  }

  static boolean matches(Query q, List<String> expected, List<String> actual) {
    if (q.subsetLimit() > 0) {
      List<String> sorted = new ArrayList<>(actual);
      sorted.sort(Comparator.comparing(Checker::rowOf));
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
