package io.scbf.hbase;

import io.scbf.hbase.IndexSpec.Column;
import io.scbf.hbase.IndexSpec.Consistency;
import io.scbf.hbase.IndexSpec.Layout;
import io.scbf.hbase.IndexSpec.ValueType;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The text form of an {@link IndexSpec} ("v1;key=value;..." to "v5;..."), which table descriptors
 * hold: a rolling upgrade or rollback reads the text another release wrote, so every field and
 * version is fixed once released. In the spec's package because the spec's equality is this text.
 */
@InterfaceAudience.Private
final class IndexSpecCodec {
  private static final HexFormat HEX = HexFormat.of();

  private IndexSpecCodec() {}

  static String encode(IndexSpec spec) {
    return encode(spec, spec.consistency());
  }

  /** {@code spec}'s text with another consistency: what {@link IndexSpec#withConsistency} reads. */
  static String encode(IndexSpec spec, Consistency consistency) {
    StringBuilder sb = new StringBuilder(version(spec, consistency));
    sb.append(";family=").append(HEX.formatHex(spec.family()));
    sb.append(";qualifier=").append(HEX.formatHex(spec.qualifier()));
    sb.append(";alias=").append(spec.alias());
    sb.append(";buckets=").append(spec.buckets());
    sb.append(";fpp=").append(spec.fpp());
    sb.append(";capacity=").append(spec.initialCapacity());
    if (spec.isLocal()) sb.append(";local=true");
    if (spec.layout() == Layout.BY_VALUE) sb.append(";layout=by-value");
    if (spec.layout() == Layout.ORDERED) sb.append(";layout=ordered");
    List<Column> columns = spec.columns();
    if (spec.isComposite()) appendColumns(sb.append(";then="), columns.subList(1, columns.size()));
    if (spec.isTyped()) {
      sb.append(";types=");
      List<ValueType> types = spec.types();
      for (int i = 0; i < types.size(); i++)
        sb.append(i > 0 ? "," : "").append(types.get(i).text());
    }
    appendColumns(sb.append(";covered="), spec.covered());
    if (spec.expression() != null) sb.append(";expr=").append(spec.expression().text());
    List<Condition> where = spec.where();
    if (!where.isEmpty()) {
      sb.append(";where=");
      for (int i = 0; i < where.size(); i++)
        sb.append(i > 0 ? "," : "").append(where.get(i).text());
    }
    if (consistency == Consistency.EVENTUAL) sb.append(";consistency=eventual");
    return sb.toString();
  }

  /**
   * The spec version: each layout or feature an older jar would misread (writing and looking up
   * rows where they are not) gets a version that jar refuses: "v2" for {@code BY_VALUE}, "v3" for
   * {@code ORDERED} or typed columns, "v4" for an expression, a WHERE or {@link
   * Consistency#EVENTUAL} (an older jar would keep writing the index synchronously beside the
   * replication), "v5" for a WHERE with a range or "present" condition (0.3.0 reads a WHERE as INs
   * only: it would fail on the condition's text with a bare hex error, not say why).
   */
  private static String version(IndexSpec spec, Consistency consistency) {
    List<Condition> where = spec.where();
    if (where.stream().anyMatch(c -> c.kind() != Condition.Kind.IN)) return "v5";
    if (consistency == Consistency.EVENTUAL || spec.expression() != null || !where.isEmpty()) {
      return "v4";
    }
    if (spec.layout() == Layout.ORDERED || spec.isTyped()) return "v3";
    return spec.layout() == Layout.BY_VALUE ? "v2" : "v1";
  }

  /** Inverse of the {@code where} field of {@link #encode}. */
  private static Condition[] parseWhere(String text) {
    String[] conditions = text.split(",", -1);
    Condition[] out = new Condition[conditions.length];
    for (int i = 0; i < conditions.length; i++) out[i] = Condition.parse(conditions[i]);
    return out;
  }

  private static void appendColumns(StringBuilder sb, List<Column> list) {
    for (int i = 0; i < list.size(); i++) {
      if (i > 0) sb.append(',');
      sb.append(HEX.formatHex(list.get(i).family()))
          .append(':')
          .append(HEX.formatHex(list.get(i).qualifier()));
    }
  }

  private static List<Column> parseColumns(String field, String text) {
    List<Column> out = new ArrayList<>();
    if (text.isEmpty()) return out;
    for (String c : text.split(",", -1)) {
      int colon = c.indexOf(':');
      if (colon < 0) {
        throw new IllegalArgumentException("malformed " + field + " column '" + c + "'");
      }
      out.add(
          new Column(HEX.parseHex(c.substring(0, colon)), HEX.parseHex(c.substring(colon + 1))));
    }
    return out;
  }

  /** Inverse of {@link #encode}; validates like the builder. */
  static IndexSpec decode(String text) {
    Map<String, String> fields = new LinkedHashMap<>();
    String[] parts = text.split(";", -1);
    if (parts.length == 0
        || !(parts[0].equals("v1")
            || parts[0].equals("v2")
            || parts[0].equals("v3")
            || parts[0].equals("v4")
            || parts[0].equals("v5"))) {
      throw new IllegalArgumentException(
          "not an scbf index spec (expected 'v1;...' to 'v5;...'): " + text);
    }
    for (int i = 1; i < parts.length; i++) {
      int eq = parts[i].indexOf('=');
      if (eq < 0)
        throw new IllegalArgumentException("malformed index spec field '" + parts[i] + "'");
      fields.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
    }
    try {
      IndexSpec.Builder b =
          IndexSpec.builder(
                  HEX.parseHex(required(fields, "family")),
                  HEX.parseHex(required(fields, "qualifier")))
              .alias(required(fields, "alias"))
              .buckets(Integer.parseInt(required(fields, "buckets")))
              .fpp(Double.parseDouble(required(fields, "fpp")))
              .initialCapacity(Long.parseLong(required(fields, "capacity")));
      String local = fields.getOrDefault("local", "false");
      if (local.equals("true")) {
        b.local();
      } else if (!local.equals("false")) {
        throw new IllegalArgumentException(
            "index spec field local must be true or false: " + local);
      }
      // A spec written before the layout existed (or by a jar whose default was BY_ROW) names no
      // layout: it is a bucket index, whatever the builder's default is now.
      String layout = fields.getOrDefault("layout", "by-row");
      if (layout.equals("by-value")) {
        b.layout(Layout.BY_VALUE);
      } else if (layout.equals("by-row")) {
        b.layout(Layout.BY_ROW);
      } else if (layout.equals("ordered")) {
        b.layout(Layout.ORDERED);
      } else {
        throw new IllegalArgumentException(
            "index spec field layout must be by-row, by-value or ordered: " + layout);
      }
      List<Column> then = parseColumns("then", fields.getOrDefault("then", ""));
      String typesText = fields.get("types");
      List<ValueType> types = new ArrayList<>();
      if (typesText != null) {
        for (String t : typesText.split(",", -1)) types.add(ValueType.ofText(t));
        if (types.size() != then.size() + 1) {
          throw new IllegalArgumentException(
              "index spec names " + types.size() + " types for " + (then.size() + 1) + " columns");
        }
        b.type(types.get(0));
      }
      for (int i = 0; i < then.size(); i++) {
        Column c = then.get(i);
        b.thenColumn(
            c.family(), c.qualifier(), types.isEmpty() ? ValueType.BYTES : types.get(i + 1));
      }
      for (Column c : parseColumns("covered", fields.getOrDefault("covered", ""))) {
        b.covered(c.family(), c.qualifier());
      }
      String expr = fields.get("expr");
      if (expr != null) b.expression(IndexExpression.parse(expr));
      String whereText = fields.get("where");
      if (whereText != null) b.where(parseWhere(whereText));
      String consistency = fields.getOrDefault("consistency", "strong");
      if (consistency.equals("eventual")) {
        b.consistency(Consistency.EVENTUAL);
      } else if (!consistency.equals("strong")) {
        throw new IllegalArgumentException(
            "index spec field consistency must be strong or eventual: " + consistency);
      }
      IndexSpec spec = b.build();
      if (!version(spec, spec.consistency()).equals(parts[0])) {
        throw new IllegalArgumentException(
            "index spec version " + parts[0] + " does not match its fields (" + spec + ")");
      }
      return spec;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "malformed index spec '" + text + "': " + e.getMessage(), e);
    }
  }

  private static String required(Map<String, String> fields, String key) {
    String v = fields.get(key);
    if (v == null) throw new IllegalArgumentException("index spec lacks field '" + key + "'");
    return v;
  }
}
