package io.scbf.hbase.cli;

import io.scbf.hbase.IndexEntry;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.StringJoiner;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.stream.JsonWriter;

/**
 * How the query commands print an answer, one line per row, key or entry: {@code tsv} (fields
 * separated by tabs, for people and {@code cut}) or {@code json} (one JSON object per line, for
 * scripts). Bytes print as {@link Bytes#toStringBinary} in both, so a line never breaks on a byte.
 */
enum Output {
  TSV,
  JSON;

  static final String HELP =
      "  --format tsv|json    one row per line as tab-separated fields (default) or as a JSON"
          + " object ({\"row\": ..., \"cells\": {\"family:qualifier\": ...}}; entries:"
          + " {\"row\", \"value\", \"covered\"}); bytes as \\xNN in both";

  static Output of(Args a) throws UsageException {
    String name = a.option("--format", "tsv");
    return switch (name) {
      case "tsv" -> TSV;
      case "json" -> JSON;
      default -> throw new UsageException("--format is tsv or json, not '" + name + "'");
    };
  }

  void key(PrintStream out, byte[] row) {
    out.println(this == TSV ? Bytes.toStringBinary(row) : json(w -> field(w, "row", row)));
  }

  void row(PrintStream out, Result r) {
    if (this == TSV) {
      StringJoiner line = new StringJoiner("\t");
      line.add(Bytes.toStringBinary(r.getRow()));
      for (Cell c : r.rawCells()) line.add(column(c) + "=" + Bytes.toStringBinary(value(c)));
      out.println(line);
      return;
    }
    out.println(
        json(
            w -> {
              field(w, "row", r.getRow());
              w.name("cells").beginObject();
              for (Cell c : r.rawCells()) w.name(column(c)).value(Bytes.toStringBinary(value(c)));
              w.endObject();
            }));
  }

  /** An index entry: its row, its value as the index's type prints it, its covered columns. */
  void entry(PrintStream out, IndexEntry e, String value) {
    if (this == TSV) {
      StringJoiner line = new StringJoiner("\t");
      line.add(Bytes.toStringBinary(e.row()));
      line.add("value=" + value);
      e.covered().forEach((c, v) -> line.add(c + "=" + Bytes.toStringBinary(v)));
      out.println(line);
      return;
    }
    out.println(
        json(
            w -> {
              field(w, "row", e.row());
              w.name("value").value(value);
              w.name("covered").beginObject();
              for (var c : e.covered().entrySet()) {
                w.name(c.getKey().toString()).value(Bytes.toStringBinary(c.getValue()));
              }
              w.endObject();
            }));
  }

  private static String column(Cell c) {
    return Bytes.toStringBinary(CellUtil.cloneFamily(c))
        + ":"
        + Bytes.toStringBinary(CellUtil.cloneQualifier(c));
  }

  private static byte[] value(Cell c) {
    return CellUtil.cloneValue(c);
  }

  private static void field(JsonWriter w, String name, byte[] bytes) throws IOException {
    w.name(name).value(Bytes.toStringBinary(bytes));
  }

  private interface Fields {
    void write(JsonWriter w) throws IOException;
  }

  private static String json(Fields fields) {
    StringWriter text = new StringWriter();
    try (JsonWriter w = new JsonWriter(text)) {
      w.beginObject();
      fields.write(w);
      w.endObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return text.toString();
  }
}
