package io.scbf.hbase.cli;

import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.cli.Command.Session;
import java.io.IOException;
import java.util.List;
import java.util.StringJoiner;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;

/** Queries from the command line: the rows of one value, and the plan that would find them. */
final class QueryCommands {
  private QueryCommands() {}

  static final int DEFAULT_LIMIT = 100;

  static List<Command> all() {
    return List.of(
        new Command(
            "find",
            "TABLE FAMILY:QUALIFIER VALUE [--limit N] [--strict] [--keys-only]",
            "print the rows whose column holds a value, through its index",
            "Prints one row per line (row key, then family:qualifier=value; binary bytes as"
                + " \\xNN) on stdout, and the plan and what it asked on stderr.\n"
                + "  --limit N            at most N rows (default "
                + DEFAULT_LIMIT
                + ")\n"
                + "  --strict             ask every index region, not only the routed ones\n"
                + "  --keys-only          row keys only",
            List.of("--strict", "--keys-only"),
            List.of("--limit"),
            QueryCommands::find),
        new Command(
            "explain",
            "TABLE FAMILY:QUALIFIER VALUE",
            "the plan a find would use, with its estimates",
            "Routes the value and prints the plan (index or scan), the regions it would ask, and"
                + " the row estimates it chose by; reads no rows.",
            List.of(),
            List.of(),
            (s, a) -> {
              List<String> w = a.words("TABLE", "FAMILY:QUALIFIER", "VALUE");
              byte[][] column = Args.column(w.get(1));
              try (IndexedTable t = new IndexedTable(s.connection(), Args.table(w.get(0)))) {
                s.out().println(t.explain(column[0], column[1], Bytes.toBytesBinary(w.get(2))));
              }
              return ScbfAdmin.OK;
            }));
  }

  private static int find(Session s, Args a) throws IOException, UsageException {
    List<String> w = a.words("TABLE", "FAMILY:QUALIFIER", "VALUE");
    TableName table = Args.table(w.get(0));
    byte[][] column = Args.column(w.get(1));
    byte[] value = Bytes.toBytesBinary(w.get(2));
    int limit = a.intOption("--limit", DEFAULT_LIMIT);
    long start = System.nanoTime();
    try (IndexedTable t = new IndexedTable(s.connection(), table)) {
      t.setStrict(a.flag("--strict"));
      List<Result> rows = t.find(column[0], column[1], value, limit);
      for (Result r : rows) {
        s.out().println(a.flag("--keys-only") ? Bytes.toStringBinary(r.getRow()) : line(r));
      }
      s.err()
          .printf(
              "# %d row(s)%s in %.1f ms; %s%n",
              rows.size(),
              rows.size() == limit ? " (the limit)" : "",
              (System.nanoTime() - start) / 1e6,
              t.lastTrace());
    }
    return ScbfAdmin.OK;
  }

  private static String line(Result r) {
    StringJoiner line = new StringJoiner("\t");
    line.add(Bytes.toStringBinary(r.getRow()));
    for (Cell c : r.rawCells()) {
      line.add(
          Bytes.toStringBinary(CellUtil.cloneFamily(c))
              + ":"
              + Bytes.toStringBinary(CellUtil.cloneQualifier(c))
              + "="
              + Bytes.toStringBinary(CellUtil.cloneValue(c)));
    }
    return line.toString();
  }
}
