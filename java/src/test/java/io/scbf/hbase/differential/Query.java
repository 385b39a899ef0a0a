package io.scbf.hbase.differential;

import io.scbf.hbase.Condition;
import io.scbf.hbase.IndexEntry;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
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

  /** Answered from the index alone: the docs allow stale extra entries (a superset) for a while. */
  default boolean indexOnly() {
    return false;
  }

  /** An answer of at most {@code limit()} rows of the expected, sorted by row key. */
  default int subsetLimit() {
    return 0;
  }

  default boolean ordered() {
    return false;
  }

  /** The product's side: tables to ask (strict for BY_ROW indexes, whose routing lags). */
  record Probe(Schema schema, IndexedTable routed, IndexedTable strict) {
    IndexedTable table(String alias) {
      return schema.index(alias).kind() == Schema.Kind.BY_ROW ? strict : routed;
    }

    Column column(String alias) {
      return schema.column(schema.index(alias).column());
    }

    /** Strict if an index on any of the columns routes (BY_ROW): the planner may read it. */
    IndexedTable tableFor(String... columns) {
      for (String c : columns) {
        if (schema.indexOn(c).map(i -> i.kind() == Schema.Kind.BY_ROW).orElse(false)) {
          return strict;
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
      Column c = schema.column(schema.index(alias).column());
      byte[] v = Values.bytes(value);
      List<String> out = new ArrayList<>();
      data.rows()
          .forEach(
              (row, cells) -> {
                byte[] have = cells.get(c.name());
                if (have == null || Values.compare(c.type(), have, v) != 0) return;
                out.add(answer(kind, row, cells, null, schema.index(alias), data, c));
              });
      return out;
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
    STREAM_RANGE
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
        case RANGE_ENTRIES -> entries(t.rangeEntries(alias, l, h, order, limit), c.type());
        case STREAM_RANGE -> {
          try (ResultScanner s = t.streamRange(alias, l, h, order)) {
            yield rows(s);
          }
        }
      };
    }

    @Override
    public List<String> expect(Snapshot data, Schema schema) {
      Index index = schema.index(alias);
      Column c = schema.column(index.column());
      Comparator<byte[]> cmp = Values.comparator(c.type());
      byte[] l = lo == null ? null : Values.bytes(lo);
      byte[] h = hi == null ? null : Values.bytes(hi);
      List<Map.Entry<String, byte[]>> hits = new ArrayList<>();
      data.rows()
          .forEach(
              (row, cells) -> {
                byte[] have = cells.get(c.name());
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
        out.add(answer(as, e.getKey(), data.rows().get(e.getKey()), value, index, data, c));
      }
      return out;
    }

    @Override
    public boolean indexOnly() {
      return kind == RangeKind.RANGE_ROW_KEYS || kind == RangeKind.RANGE_ENTRIES;
    }

    @Override
    public boolean ordered() {
      return kind == RangeKind.RANGE_LIMIT
          || kind == RangeKind.RANGE_ENTRIES
          || kind == RangeKind.STREAM_RANGE;
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
          };
      String bounds = "\"" + alias + "\", " + q(lo) + ", " + q(hi);
      return switch (kind) {
        case RANGE, RANGE_ROW_KEYS -> name + "(" + bounds + ")";
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
    return switch (kind) {
      case FIND_ROW_KEYS -> row;
      case FIND_ENTRIES -> {
        TreeMap<String, byte[]> covered = new TreeMap<>();
        for (String col : index.covered()) {
          if (cells.containsKey(col)) covered.put(col, cells.get(col));
        }
        yield entry(row, value == null ? null : Values.canonical(c.type(), value), covered);
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
