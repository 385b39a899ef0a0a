package io.scbf.hbase.cli;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexEntry;
import io.scbf.hbase.IndexQuery;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.ValueOrder;
import io.scbf.hbase.cli.Command.Session;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;

/**
 * Queries from the command line: the rows of one value or of a range, and the plan that would find
 * them.
 */
final class QueryCommands {
  private QueryCommands() {}

  static final int DEFAULT_LIMIT = 100;

  static List<Command> all() {
    return List.of(
        new Command(
            "find",
            "TABLE FAMILY:QUALIFIER|INDEX VALUE [--limit N] [--strict] [--keys-only]",
            "print the rows whose column (or index) holds a value, through its index",
            "Prints one row per line (row key, then family:qualifier=value; binary bytes as"
                + " \\xNN) on stdout, and the plan and what it asked on stderr. VALUE is read as"
                + " the column's index type (-5, 1.50, NaN) if it has one, else as bytes (\\xNN"
                + " for a byte). An index named instead of a column is asked for its value: an"
                + " expression index for the expression's (find people email_lc alice@x.org), a"
                + " partial index for the rows of the value within its WHERE.\n"
                + "  --limit N            at most N rows (default "
                + DEFAULT_LIMIT
                + "); only the pages they need are read\n"
                + "  --strict             ask every index region, not only the routed ones\n"
                + "  --keys-only          row keys only\n"
                + Output.HELP,
            List.of("--strict", "--keys-only"),
            List.of("--limit", "--format"),
            QueryCommands::find),
        new Command(
            "explain",
            "TABLE FAMILY:QUALIFIER|INDEX VALUE",
            "the plan a find would use, with its estimates",
            "Routes the value and prints the plan (index or scan), the regions it would ask, and"
                + " the row estimates it chose by; reads no rows.",
            List.of(),
            List.of(),
            (s, a) -> {
              List<String> w = a.words("TABLE", "FAMILY:QUALIFIER|INDEX", "VALUE");
              try (IndexedTable t = new IndexedTable(s.connection(), Args.table(w.get(0)))) {
                IndexSpec named = named(t, w.get(1));
                if (named != null) {
                  s.out().println(t.explain(named.alias(), Args.value(named.type(), w.get(2))));
                } else {
                  byte[][] column = Args.column(w.get(1));
                  s.out().println(t.explain(column[0], column[1], value(t, column, w.get(2))));
                }
              }
              return ScbfAdmin.OK;
            }),
        new Command(
            "range",
            "TABLE INDEX LO HI [--desc] [--limit N] [--entries]",
            "print the rows with LO <= value < HI, through an index",
            "LO and HI are written as the index's column type reads them (-5, 2.5, a string;"
                + " bytes as \\xNN for an untyped index); - leaves a side unbounded. On an"
                + " ORDERED index the rows come in value order. Prints one row per line on"
                + " stdout, the plan and what it asked on stderr.\n"
                + "  --limit N            at most N rows (default "
                + DEFAULT_LIMIT
                + "); reads about N index entries plus at most a page per region asked\n"
                + "  --desc               descending value order (ORDERED indexes only; refused"
                + " on others)\n"
                + "  --entries            the index entries only (row, value, covered columns):"
                + " no data row read (ORDERED indexes only; refused on others)\n"
                + Output.HELP,
            List.of("--desc", "--entries"),
            List.of("--limit", "--format"),
            QueryCommands::range),
        new Command(
            "explain-range",
            "TABLE INDEX LO HI",
            "the plan a range would use: the entries its regions count, against a scan",
            "LO and HI as for range. An ORDERED index counts the range's entries in the regions"
                + " holding it, up to where a scan costs less; other layouts are not planned.",
            List.of(),
            List.of(),
            (s, a) -> {
              List<String> w = a.words("TABLE", "INDEX", "LO", "HI");
              TableName table = Args.table(w.get(0));
              IndexSpec spec = index(s, table, w.get(1));
              try (IndexedTable t = new IndexedTable(s.connection(), table)) {
                s.out()
                    .println(
                        t.explainRange(spec.alias(), bound(spec, w.get(2)), bound(spec, w.get(3))));
              }
              return ScbfAdmin.OK;
            }));
  }

  private static int range(Session s, Args a) throws IOException, UsageException {
    List<String> w = a.words("TABLE", "INDEX", "LO", "HI");
    TableName table = Args.table(w.get(0));
    IndexSpec spec = index(s, table, w.get(1));
    checkRange(spec, a);
    Output format = Output.of(a);
    int limit = a.intOption("--limit", DEFAULT_LIMIT);
    IndexQuery query =
        IndexQuery.onIndex(spec.alias())
            .withLower(bound(spec, w.get(2)), true)
            .withUpper(bound(spec, w.get(3)), false)
            .withLimit(limit);
    // Only an ORDERED index has a value order; other layouts stream their pages unordered, so the
    // limit bounds what is read either way.
    if (spec.layout() == IndexSpec.Layout.ORDERED) {
      query = query.withOrder(a.flag("--desc") ? ValueOrder.DESCENDING : ValueOrder.ASCENDING);
    }
    long start = System.nanoTime();
    int printed = 0;
    try (IndexedTable t = new IndexedTable(s.connection(), table)) {
      if (a.flag("--entries")) {
        for (IndexEntry e : t.entries(query)) {
          format.entry(s.out(), e, text(spec, e.value()));
          printed++;
        }
      } else {
        for (Result r : t.get(query)) {
          format.row(s.out(), r);
          printed++;
        }
      }
      printSummary(s, printed, limit, start, t);
    }
    return ScbfAdmin.OK;
  }

  private static void printSummary(Session s, int printed, int limit, long start, IndexedTable t) {
    s.err()
        .printf(
            "# %d row(s)%s in %.1f ms; %s%n",
            printed,
            printed == limit ? " (the limit)" : "",
            (System.nanoTime() - start) / 1e6,
            t.lastTrace());
  }

  /**
   * Refuses what only an ORDERED index can answer: value order and covered entries. Other layouts
   * hash values over their regions, so an order would be a promise the answer does not keep.
   */
  static void checkRange(IndexSpec spec, Args a) throws UsageException {
    if (spec.layout() == IndexSpec.Layout.ORDERED) return;
    for (String flag : List.of("--desc", "--entries")) {
      if (a.flag(flag)) {
        throw new UsageException(
            flag
                + " needs an ORDERED index; '"
                + spec.alias()
                + "' is "
                + (spec.isLocal() ? "local" : spec.layout())
                + ", whose range answers come in no value order");
      }
    }
  }

  /** The index named {@code alias} of {@code table}. */
  private static IndexSpec index(Session s, TableName table, String alias) throws IOException {
    for (IndexSpec spec : new IndexAdmin(s.connection()).listIndexes(table)) {
      if (spec.alias().equals(alias)) return spec;
    }
    throw new IllegalArgumentException("table " + table + " has no index '" + alias + "'");
  }

  /**
   * A range bound as its index's (first) column type writes it: {@code Bytes.toBytes(long)} of "-5"
   * for a LONG column; "-" is unbounded.
   */
  static byte[] bound(IndexSpec spec, String text) throws UsageException {
    return text.equals("-") ? null : Args.value(spec.type(), text);
  }

  /** A value as its column type reads, for output. */
  private static String text(IndexSpec spec, byte[] value) {
    if (value == null) return "";
    return (spec.isComposite() ? IndexSpec.ValueType.BYTES : spec.type()).format(value);
  }

  private static int find(Session s, Args a) throws IOException, UsageException {
    List<String> w = a.words("TABLE", "FAMILY:QUALIFIER|INDEX", "VALUE");
    TableName table = Args.table(w.get(0));
    Output format = Output.of(a);
    int limit = a.intOption("--limit", DEFAULT_LIMIT);
    long start = System.nanoTime();
    try (IndexedTable t = new IndexedTable(s.connection(), table)) {
      IndexSpec named = named(t, w.get(1));
      IndexQuery query;
      if (named != null) {
        query = IndexQuery.onIndex(named.alias()).withValue(Args.value(named.type(), w.get(2)));
      } else {
        byte[][] column = Args.column(w.get(1));
        query = IndexQuery.onColumn(column[0], column[1]).withValue(value(t, column, w.get(2)));
      }
      List<Result> rows = t.get(query.withLimit(limit).withStrict(a.flag("--strict")));
      for (Result r : rows) {
        if (a.flag("--keys-only")) {
          format.key(s.out(), r.getRow());
        } else {
          format.row(s.out(), r);
        }
      }
      printSummary(s, rows.size(), limit, start, t);
    }
    return ScbfAdmin.OK;
  }

  /**
   * VALUE as the index a query by column uses reads it ({@link Args#value}): typed if it declares a
   * type. That index is the column's one-column index of the oldest layout, the first by alias
   * among equals, as the client library chooses.
   */
  private static byte[] value(IndexedTable t, byte[][] column, String text) throws UsageException {
    IndexSpec used = null;
    for (IndexSpec s : t.indexes()) {
      if (!s.isComposite()
          && s.answersByColumn()
          && s.column().matches(column[0], column[1])
          && (used == null || s.layout().ordinal() < used.layout().ordinal())) {
        used = s;
      }
    }
    return Args.value(used == null ? IndexSpec.ValueType.BYTES : used.type(), text);
  }

  /**
   * The one-column index named {@code word}, or null if {@code word} names a column ({@code
   * FAMILY:QUALIFIER}: an alias holds no colon).
   */
  private static IndexSpec named(IndexedTable t, String word) throws UsageException {
    if (word.contains(":")) return null;
    for (IndexSpec s : t.indexes()) {
      if (s.alias().equals(word)) {
        if (s.isComposite()) {
          throw new UsageException("index " + word + " is composite: query it with the library");
        }
        return s;
      }
    }
    throw new UsageException("no index named " + word + " (or give FAMILY:QUALIFIER)");
  }
}
