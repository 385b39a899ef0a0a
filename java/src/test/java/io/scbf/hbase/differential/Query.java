package io.scbf.hbase.differential;

import io.scbf.hbase.Condition;
import io.scbf.hbase.IndexEntry;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.QueryTrace;
import io.scbf.hbase.ValueOrder;
import io.scbf.hbase.differential.Schema.Column;
import io.scbf.hbase.differential.Schema.Index;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * One question asked of the index and of the oracle. Answers are lists of text: a row as {@link
 * Snapshot#describe} shows it, or an entry as {@code row value=v {covered}}; ordered answers keep
 * their order, the others are sorted before comparing.
 */
sealed interface Query {
  /** The answer through the product. */
  List<String> ask(Probe probe) throws IOException;

  /** The answer from HBase's rows, evaluated here. */
  List<String> expect(Snapshot data, Schema schema);

  /** The plan the product would run for this question, or null if it has no explain. */
  default QueryPlan explain(Probe probe) {
    return null;
  }

  /** What the question returns, as a plan names it. */
  default QueryPlan.Answer answerKind() {
    return QueryPlan.Answer.ROWS;
  }

  /** The table {@link #ask} asks (its last trace is this query's). */
  default IndexedTable table(Probe probe) {
    return probe.routed();
  }

  /** Answered from the index alone: the docs allow stale extra entries (a superset) for a while. */
  default boolean indexOnly() {
    return false;
  }

  /** The limit of an answer in value order (its first rows), 0 if none. */
  default int orderedLimit() {
    return 0;
  }

  /** An answer of at most {@code limit()} rows of the expected, sorted by row key. */
  default int subsetLimit() {
    return 0;
  }

  default boolean ordered() {
    return false;
  }

  /**
   * The product's side: tables to ask (strict for BY_ROW indexes, whose routing lags); {@code
   * planned} is one whose planner always takes the index ({@code scbf.planner=index}: the cost
   * planner scans tables this small once value counts are published), {@code expires} if a family
   * has or may get a TTL.
   */
  record Probe(
      Schema schema,
      IndexedTable routed,
      IndexedTable strict,
      IndexedTable planned,
      boolean expires) {
    IndexedTable table(String alias) {
      return schema.index(alias).kind() == Schema.Kind.BY_ROW ? strict : routed;
    }

    /** This probe with the index-planned table as its routed one. */
    Probe indexPlanned() {
      return new Probe(schema, planned, strict, planned, expires);
    }

    Column column(String alias) {
      return schema.column(schema.index(alias).column());
    }

    /**
     * Strict if an index on any of the columns (plain, composite or partial) routes (BY_ROW): the
     * planner may read it.
     */
    IndexedTable tableFor(String... columns) {
      for (String c : columns) {
        for (Index i : schema.indexes()) {
          if (i.kind() == Schema.Kind.BY_ROW && i.column().equals(c)) return strict;
        }
      }
      return routed;
    }
  }

  enum PointKind {
    FIND,
    FIND_BY_ALIAS,
    FIND_LIMIT,
    FIND_ROW_KEYS,
    FIND_ENTRIES,
    STREAM
  }

  record Point(PointKind kind, String alias, String value, int limit) implements Query {
    @Override
    public List<String> ask(Probe p) throws IOException {
      IndexedTable t = p.table(alias);
      Column c = p.column(alias);
      byte[] v = Values.bytes(value);
      return switch (kind) {
        case FIND -> rows(t.find(c.family(), c.qualifier(), v));
        case FIND_BY_ALIAS -> rows(t.find(alias, v));
        case FIND_LIMIT -> rows(t.find(c.family(), c.qualifier(), v, limit));
        case FIND_ROW_KEYS -> keys(t.findRowKeys(c.family(), c.qualifier(), v));
        case FIND_ENTRIES -> entries(t.findEntries(c.family(), c.qualifier(), v), c.type());
        case STREAM -> {
          try (ResultScanner s = t.stream(c.family(), c.qualifier(), v)) {
            yield rows(s);
          }
        }
      };
    }

    @Override
    public List<String> expect(Snapshot data, Schema schema) {
      Index index = schema.index(alias);
      Column c = schema.column(index.column());
      IndexSpec.ValueType type = schema.indexType(index);
      byte[] v = Values.bytes(value);
      List<String> out = new ArrayList<>();
      data.rows()
          .forEach(
              (row, cells) -> {
                byte[] have = schema.indexedValue(index, cells);
                if (have == null || Values.compare(type, have, v) != 0) return;
                out.add(answer(kind, row, cells, null, index, data, c));
              });
      return out;
    }

    @Override
    public QueryPlan explain(Probe p) {
      IndexedTable t = p.table(alias);
      Column c = p.column(alias);
      byte[] v = Values.bytes(value);
      return switch (kind) {
        case FIND -> t.explain(c.family(), c.qualifier(), v);
        case FIND_BY_ALIAS -> t.explain(alias, v);
        case FIND_ROW_KEYS -> t.explain(c.family(), c.qualifier(), v, QueryPlan.Answer.ROW_KEYS);
        case FIND_ENTRIES -> t.explain(c.family(), c.qualifier(), v, QueryPlan.Answer.ENTRIES);
        default -> null;
      };
    }

    @Override
    public QueryPlan.Answer answerKind() {
      return switch (kind) {
        case FIND_ROW_KEYS -> QueryPlan.Answer.ROW_KEYS;
        case FIND_ENTRIES -> QueryPlan.Answer.ENTRIES;
        default -> QueryPlan.Answer.ROWS;
      };
    }

    @Override
    public IndexedTable table(Probe p) {
      return p.table(alias);
    }

    @Override
    public boolean indexOnly() {
      return kind == PointKind.FIND_ROW_KEYS || kind == PointKind.FIND_ENTRIES;
    }

    @Override
    public int subsetLimit() {
      return kind == PointKind.FIND_LIMIT ? limit : 0;
    }

    @Override
    public String toString() {
      String name =
          switch (kind) {
            case FIND, FIND_LIMIT -> "find";
            case FIND_BY_ALIAS -> "findByAlias";
            case FIND_ROW_KEYS -> "findRowKeys";
            case FIND_ENTRIES -> "findEntries";
            case STREAM -> "stream";
          };
      return name
          + "(\""
          + alias
          + "\", \""
          + value
          + "\""
          + (kind == PointKind.FIND_LIMIT ? ", " + limit : "")
          + ")";
    }
  }

  enum RangeKind {
    RANGE,
    RANGE_ROW_KEYS,
    RANGE_LIMIT,
    RANGE_ENTRIES,
    STREAM_RANGE,
    /** range(alias, [], lo, hi): any one-column index by its alias, unordered. */
    RANGE_BY_ALIAS
  }

  record Range(RangeKind kind, String alias, String lo, String hi, ValueOrder order, int limit)
      implements Query {
    @Override
    public List<String> ask(Probe p) throws IOException {
      IndexedTable t = p.table(alias);
      Column c = p.column(alias);
      byte[] l = lo == null ? null : Values.bytes(lo);
      byte[] h = hi == null ? null : Values.bytes(hi);
      return switch (kind) {
        case RANGE -> rows(t.range(c.family(), c.qualifier(), l, h));
        case RANGE_ROW_KEYS -> keys(t.rangeRowKeys(c.family(), c.qualifier(), l, h));
        case RANGE_LIMIT -> rows(t.range(alias, l, h, order, limit));
        case RANGE_ENTRIES ->
            entries(
                t.rangeEntries(alias, l, h, order, limit),
                p.schema().indexType(p.schema().index(alias)));
        case STREAM_RANGE -> {
          try (ResultScanner s = t.streamRange(alias, l, h, order)) {
            yield rows(s);
          }
        }
        case RANGE_BY_ALIAS -> rows(t.range(alias, List.of(), l, h));
      };
    }

    @Override
    public List<String> expect(Snapshot data, Schema schema) {
      Index index = schema.index(alias);
      Column c = schema.column(index.column());
      IndexSpec.ValueType type = schema.indexType(index);
      Comparator<byte[]> cmp = Values.comparator(type);
      byte[] l = lo == null ? null : Values.bytes(lo);
      byte[] h = hi == null ? null : Values.bytes(hi);
      List<Map.Entry<String, byte[]>> hits = new ArrayList<>();
      data.rows()
          .forEach(
              (row, cells) -> {
                byte[] have = schema.indexedValue(index, cells);
                if (have == null) return;
                if (l != null && cmp.compare(have, l) < 0) return;
                if (h != null && cmp.compare(have, h) >= 0) return;
                hits.add(Map.entry(row, have));
              });
      if (ordered()) {
        Comparator<Map.Entry<String, byte[]>> byValue =
            Comparator.<Map.Entry<String, byte[]>, byte[]>comparing(Map.Entry::getValue, cmp)
                .thenComparing(Map.Entry::getKey);
        hits.sort(order == ValueOrder.ASCENDING ? byValue : byValue.reversed());
      }
      List<String> out = new ArrayList<>();
      PointKind as =
          switch (kind) {
            case RANGE_ROW_KEYS -> PointKind.FIND_ROW_KEYS;
            case RANGE_ENTRIES -> PointKind.FIND_ENTRIES;
            default -> PointKind.FIND;
          };
      for (Map.Entry<String, byte[]> e : hits) {
        boolean limited = kind == RangeKind.RANGE_LIMIT || kind == RangeKind.RANGE_ENTRIES;
        if (limited && out.size() == limit) break;
        byte[] value = kind == RangeKind.RANGE_ENTRIES ? e.getValue() : null;
        out.add(answer(as, e.getKey(), data.rows().get(e.getKey()), value, index, data, type));
      }
      return out;
    }

    @Override
    public boolean indexOnly() {
      return kind == RangeKind.RANGE_ROW_KEYS || kind == RangeKind.RANGE_ENTRIES;
    }

    @Override
    public IndexedTable table(Probe p) {
      return p.table(alias);
    }

    @Override
    public boolean ordered() {
      return kind == RangeKind.RANGE_LIMIT
          || kind == RangeKind.RANGE_ENTRIES
          || kind == RangeKind.STREAM_RANGE;
    }

    @Override
    public int orderedLimit() {
      return kind == RangeKind.RANGE_LIMIT || kind == RangeKind.RANGE_ENTRIES ? limit : 0;
    }

    @Override
    public String toString() {
      String name =
          switch (kind) {
            case RANGE -> "range";
            case RANGE_ROW_KEYS -> "rangeRowKeys";
            case RANGE_LIMIT -> "rangeFirst";
            case RANGE_ENTRIES -> "rangeEntries";
            case STREAM_RANGE -> "streamRange";
            case RANGE_BY_ALIAS -> "rangeByAlias";
          };
      String bounds = "\"" + alias + "\", " + q(lo) + ", " + q(hi);
      return switch (kind) {
        case RANGE, RANGE_ROW_KEYS, RANGE_BY_ALIAS -> name + "(" + bounds + ")";
        case STREAM_RANGE -> name + "(" + bounds + ", " + order + ")";
        default -> name + "(" + bounds + ", " + order + ", " + limit + ")";
      };
    }
  }

  /** find(Condition...): an IN on one indexed column AND an equality on another. */
  record And(String inColumn, List<String> in, String eqColumn, String eq) implements Query {
    @Override
    public List<String> ask(Probe p) throws IOException {
      Column a = p.schema().column(inColumn);
      Column b = p.schema().column(eqColumn);
      byte[][] values = in.stream().map(Values::bytes).toArray(byte[][]::new);
      return rows(
          p.tableFor(inColumn, eqColumn)
              .find(
                  Condition.in(a.family(), a.qualifier(), values),
                  Condition.eq(b.family(), b.qualifier(), Values.bytes(eq))));
    }

    @Override
    public List<String> expect(Snapshot data, Schema schema) {
      Column a = schema.column(inColumn);
      Column b = schema.column(eqColumn);
      List<String> out = new ArrayList<>();
      data.rows()
          .forEach(
              (row, cells) -> {
                byte[] va = cells.get(a.name());
                byte[] vb = cells.get(b.name());
                if (va == null || vb == null) return;
                // Conditions compare bytes as HBase does (user guide, "Expression and partial
                // indexes").
                if (in.stream().noneMatch(x -> Bytes.equals(Values.bytes(x), va))) return;
                if (!Bytes.equals(Values.bytes(eq), vb)) return;
                out.add(Snapshot.describe(row, cells));
              });
      return out;
    }

    @Override
    public QueryPlan explain(Probe p) {
      Column a = p.schema().column(inColumn);
      Column b = p.schema().column(eqColumn);
      byte[][] values = in.stream().map(Values::bytes).toArray(byte[][]::new);
      return table(p)
          .explain(
              Condition.in(a.family(), a.qualifier(), values),
              Condition.eq(b.family(), b.qualifier(), Values.bytes(eq)));
    }

    @Override
    public IndexedTable table(Probe p) {
      return p.tableFor(inColumn, eqColumn);
    }

    @Override
    public String toString() {
      return "findAnd(in("
          + q(inColumn)
          + ", "
          + in.stream().map(Query::q).toList()
          + "), eq("
          + q(eqColumn)
          + ", "
          + q(eq)
          + "))";
    }
  }

  enum CompositeKind {
    FIND,
    RANGE,
    STREAM_RANGE
  }

  /**
   * A composite index by alias: {@code find(alias, v1[, v2])} (every column equal, or the leading
   * one), {@code range(alias, equal, lo, hi)} and {@code streamRange(alias, equal, lo, hi)} (the
   * leading columns equal, the next in [lo, hi) in its type's order). The README: a row is indexed
   * once it holds every column; values compare in each column's type.
   */
  record Composite(CompositeKind kind, String alias, List<String> equal, String lo, String hi)
      implements Query {
    @Override
    public List<String> ask(Probe p) throws IOException {
      IndexedTable t = table(p);
      List<byte[]> eq = equal.stream().map(Values::bytes).toList();
      byte[] l = lo == null ? null : Values.bytes(lo);
      byte[] h = hi == null ? null : Values.bytes(hi);
      return switch (kind) {
        case FIND -> rows(t.find(alias, eq.toArray(byte[][]::new)));
        case RANGE -> rows(t.range(alias, eq, l, h));
        case STREAM_RANGE -> {
          try (ResultScanner s = t.streamRange(alias, eq, l, h)) {
            yield rows(s);
          }
        }
      };
    }

    @Override
    public List<String> expect(Snapshot data, Schema schema) {
      Index index = schema.index(alias);
      List<Column> columns = index.columns().stream().map(schema::column).toList();
      List<String> out = new ArrayList<>();
      data.rows()
          .forEach(
              (row, cells) -> {
                for (Column c : columns) if (cells.get(c.name()) == null) return;
                for (int i = 0; i < equal.size(); i++) {
                  Column c = columns.get(i);
                  if (Values.compare(c.type(), cells.get(c.name()), Values.bytes(equal.get(i)))
                      != 0) return;
                }
                if (kind != CompositeKind.FIND) {
                  Column c = columns.get(equal.size());
                  byte[] have = cells.get(c.name());
                  if (lo != null && Values.compare(c.type(), have, Values.bytes(lo)) < 0) return;
                  if (hi != null && Values.compare(c.type(), have, Values.bytes(hi)) >= 0) return;
                }
                out.add(data.describe(row));
              });
      return out;
    }

    @Override
    public QueryPlan explain(Probe p) {
      return kind == CompositeKind.FIND
          ? table(p).explain(alias, equal.stream().map(Values::bytes).toArray(byte[][]::new))
          : null;
    }

    @Override
    public IndexedTable table(Probe p) {
      return p.table(alias);
    }

    @Override
    public String toString() {
      String eq = equal.stream().map(Query::q).collect(java.util.stream.Collectors.joining(", "));
      return switch (kind) {
        case FIND -> "findComposite(" + q(alias) + ", " + eq + ")";
        case RANGE ->
            "rangeComposite(" + q(alias) + ", [" + eq + "], " + q(lo) + ", " + q(hi) + ")";
        case STREAM_RANGE ->
            "streamRangeComposite(" + q(alias) + ", [" + eq + "], " + q(lo) + ", " + q(hi) + ")";
      };
    }
  }

  /**
   * find(Condition...) of INs, ranges (in the column's type) and "present" on distinct columns,
   * tested here by {@link Schema.Cond#test}.
   */
  record Where(List<Schema.Cond> conditions) implements Query {
    @Override
    public List<String> ask(Probe p) throws IOException {
      return rows(table(p).find(product(p.schema())));
    }

    private Condition[] product(Schema schema) {
      return conditions.stream().map(c -> c.product(schema)).toArray(Condition[]::new);
    }

    @Override
    public List<String> expect(Snapshot data, Schema schema) {
      List<String> out = new ArrayList<>();
      data.rows()
          .forEach(
              (row, cells) -> {
                for (Schema.Cond c : conditions) {
                  if (!c.test(schema, cells.get(c.column()))) return;
                }
                out.add(Snapshot.describe(row, cells));
              });
      return out;
    }

    @Override
    public QueryPlan explain(Probe p) {
      return table(p).explain(product(p.schema()));
    }

    @Override
    public IndexedTable table(Probe p) {
      return p.tableFor(conditions.stream().map(Schema.Cond::column).toArray(String[]::new));
    }

    @Override
    public String toString() {
      return "findWhere(" + conditions + ")";
    }
  }

  /**
   * {@code explain} of a point query, then the query, then {@code explain} again: the plan must
   * name the query's answer (ROWS, ROW_KEYS or ENTRIES) with a kind that returns it (INDEX_LOOKUP
   * or DATA_SCAN for rows, INDEX_ONLY or DATA_SCAN for keys and entries), and, when both explains
   * agree (no estimate moved in between), be the plan the query ran ({@code lastTrace().plan()});
   * the answer itself must equal the oracle's. With {@code indexPlanner} the table's planner always
   * takes the index ({@code scbf.planner=index}), so a point query's plan must not be a scan.
   */
  record Explain(Query inner, boolean indexPlanner) implements Query {
    static final String CONSISTENT = "plan: consistent";

    @Override
    public List<String> ask(Probe probe) throws IOException {
      Probe p = indexPlanner ? probe.indexPlanned() : probe;
      QueryPlan before = inner.explain(p);
      List<String> answer = new ArrayList<>(inner.ask(p));
      QueryTrace trace = inner.table(p).lastTrace();
      QueryPlan after = inner.explain(p);
      List<String> problems = new ArrayList<>();
      QueryPlan.Answer wanted = inner.answerKind();
      if (before.answer() != wanted) problems.add("plan answers " + before.answer());
      QueryPlan.Kind index =
          wanted == QueryPlan.Answer.ROWS ? QueryPlan.Kind.INDEX_LOOKUP : QueryPlan.Kind.INDEX_ONLY;
      if (before.kind() != index && before.kind() != QueryPlan.Kind.DATA_SCAN) {
        problems.add("a " + before.kind() + " plan returns no " + wanted);
      }
      if (indexPlanner
          && !(inner instanceof Where)
          && !(inner instanceof And)
          && before.kind() == QueryPlan.Kind.DATA_SCAN
          && !before.reason().contains("build")) {
        problems.add("scbf.planner=index planned a scan");
      }
      if (before.kind() == after.kind()
          && trace != null
          && trace.plan() != null
          && trace.plan().kind() != before.kind()) {
        problems.add("the query ran " + trace.plan().kind());
      }
      if (!problems.isEmpty()) problems.add("explain said " + before);
      answer.add(problems.isEmpty() ? CONSISTENT : "plan: " + problems);
      return answer;
    }

    @Override
    public List<String> expect(Snapshot data, Schema schema) {
      List<String> out = new ArrayList<>(inner.expect(data, schema));
      out.add(CONSISTENT);
      return out;
    }

    @Override
    public boolean indexOnly() {
      return inner.indexOnly();
    }

    @Override
    public String toString() {
      return "explain(" + inner + (indexPlanner ? ", planner=index" : "") + ")";
    }
  }

  private static String q(String s) {
    return s == null ? "null" : "\"" + s + "\"";
  }

  private static String answer(
      PointKind kind,
      String row,
      TreeMap<String, byte[]> cells,
      byte[] value,
      Index index,
      Snapshot data,
      Column c) {
    return answer(kind, row, cells, value, index, data, c.type());
  }

  private static String answer(
      PointKind kind,
      String row,
      TreeMap<String, byte[]> cells,
      byte[] value,
      Index index,
      Snapshot data,
      IndexSpec.ValueType type) {
    return switch (kind) {
      case FIND_ROW_KEYS -> row;
      case FIND_ENTRIES -> {
        TreeMap<String, byte[]> covered = new TreeMap<>();
        for (String col : index.covered()) {
          if (cells.containsKey(col)) covered.put(col, cells.get(col));
        }
        yield entry(row, value == null ? null : Values.canonical(type, value), covered);
      }
      default -> data.describe(row);
    };
  }

  private static String entry(String row, String value, Map<String, byte[]> covered) {
    return Snapshot.describe(row + (value == null ? "" : " value=" + value), covered);
  }

  private static List<String> rows(Iterable<Result> results) {
    List<String> out = new ArrayList<>();
    for (Result r : results)
      out.add(Snapshot.describe(Bytes.toString(r.getRow()), Snapshot.cells(r)));
    return out;
  }

  private static List<String> keys(List<byte[]> keys) {
    return keys.stream().map(Bytes::toString).toList();
  }

  private static List<String> entries(List<IndexEntry> entries, IndexSpec.ValueType type) {
    List<String> out = new ArrayList<>();
    for (IndexEntry e : entries) {
      TreeMap<String, byte[]> covered = new TreeMap<>();
      e.covered()
          .forEach(
              (col, v) ->
                  covered.put(
                      Bytes.toString(col.family()) + ":" + Bytes.toString(col.qualifier()), v));
      String value = e.value() == null ? null : Values.canonical(type, e.value());
      out.add(entry(Bytes.toString(e.row()), value, covered));
    }
    return out;
  }
}
