package io.scbf.hbase.differential;

import io.scbf.hbase.Condition;
import io.scbf.hbase.IndexExpression;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexSpec.Layout;
import io.scbf.hbase.IndexSpec.ValueType;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.hbase.KeepDeletedCells;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/** A sequence's table: its families and their settings, its columns, its indexes and its rows. */
record Schema(
    List<Family> families,
    List<Column> columns,
    List<Index> indexes,
    List<String> rows,
    boolean immutable) {
  Schema(List<Family> families, List<Column> columns, List<Index> indexes, List<String> rows) {
    this(families, columns, indexes, rows, false);
  }

  record Family(
      String name,
      int versions,
      int ttlSeconds,
      int minVersions,
      boolean keepDeletedCells,
      boolean newVersionBehavior) {
    @Override
    public String toString() {
      return String.format(
          "%s{VERSIONS=%d, TTL=%s, MIN_VERSIONS=%d, KEEP_DELETED_CELLS=%s, NEW_VERSION_BEHAVIOR=%s}",
          name,
          versions,
          ttlSeconds == 0 ? "FOREVER" : ttlSeconds + "s",
          minVersions,
          keepDeletedCells,
          newVersionBehavior);
    }

    /** This family after {@link Op.AlterFamily}'s {@code setting} became {@code value}. */
    Family with(String setting, int value) {
      return switch (setting) {
        case "VERSIONS" ->
            new Family(name, value, ttlSeconds, minVersions, keepDeletedCells, newVersionBehavior);
        case "TTL" ->
            new Family(name, versions, value, minVersions, keepDeletedCells, newVersionBehavior);
        case "MIN_VERSIONS" ->
            new Family(name, versions, ttlSeconds, value, keepDeletedCells, newVersionBehavior);
        case "KEEP_DELETED_CELLS" ->
            new Family(name, versions, ttlSeconds, minVersions, value == 1, newVersionBehavior);
        case "NEW_VERSION_BEHAVIOR" ->
            new Family(name, versions, ttlSeconds, minVersions, keepDeletedCells, value == 1);
        default -> throw new IllegalArgumentException(setting);
      };
    }

    /**
     * Whether an alter of this family, were it indexed, is one the product refuses (user guide,
     * "How an index is kept" and "Data that expires"): raising the TTL or MIN_VERSIONS of a family
     * that has a TTL, which would show again expired cells that data and index regions drop at
     * different times; keeping deleted cells with NEW_VERSION_BEHAVIOR, with which HBase can show
     * again a cell a delete had hidden (seed 1268); changing NEW_VERSION_BEHAVIOR, which changes
     * what stored delete markers mask.
     */
    boolean alterRefused(String setting, int value) {
      if (setting.equals("KEEP_DELETED_CELLS")) return value == 1 && newVersionBehavior;
      if (setting.equals("NEW_VERSION_BEHAVIOR")) return (value == 1) != newVersionBehavior;
      if (ttlSeconds == 0) return false;
      return switch (setting) {
        case "TTL" -> value == 0 || value > ttlSeconds;
        case "MIN_VERSIONS" -> value > minVersions;
        default -> false;
      };
    }
  }

  /** A column and the few values the generator writes to it (few, so that values collide). */
  record Column(String name, ValueType type, List<String> domain) {
    byte[] family() {
      return Bytes.toBytes(name.substring(0, name.indexOf(':')));
    }

    byte[] qualifier() {
      return Bytes.toBytes(name.substring(name.indexOf(':') + 1));
    }

    String familyName() {
      return name.substring(0, name.indexOf(':'));
    }
  }

  enum Kind {
    BY_VALUE,
    BY_ROW,
    ORDERED,
    LOCAL
  }

  /**
   * An index: on {@code column}, then the {@code then} columns (composite), of {@code expression}'s
   * value of the column (an expression index), and only of the rows satisfying every {@code where}
   * condition (partial).
   */
  record Index(
      String alias,
      String column,
      Kind kind,
      int buckets,
      List<String> covered,
      boolean eventual,
      List<String> then,
      Expr expression,
      List<Cond> where) {
    Index(
        String alias,
        String column,
        Kind kind,
        int buckets,
        List<String> covered,
        boolean eventual) {
      this(alias, column, kind, buckets, covered, eventual, List.of(), null, List.of());
    }

    boolean global() {
      return kind != Kind.LOCAL;
    }

    boolean composite() {
      return !then.isEmpty();
    }

    /** Asked by column (find(f, q, v), range by column): a plain one-column index. */
    boolean byColumn() {
      return then.isEmpty() && expression == null && where.isEmpty();
    }

    /** The indexed columns, in index order. */
    List<String> columns() {
      List<String> out = new ArrayList<>();
      out.add(column);
      out.addAll(then);
      return out;
    }

    @Override
    public String toString() {
      return String.format(
          "%s on %s%s%s %s%s%s%s%s",
          alias,
          composite() ? columns() : column,
          expression == null ? "" : " expression " + expression,
          where.isEmpty() ? "" : " where " + where,
          kind,
          buckets > 1 ? " buckets=" + buckets : "",
          covered.isEmpty() ? "" : " covered=" + covered,
          eventual ? " EVENTUAL" : "",
          "");
    }
  }

  /**
   * An expression index's function, evaluated here by the oracle from its definition in {@link
   * io.scbf.hbase.IndexExpression}'s documentation (not by the product's code): {@code lower},
   * {@code upper}, {@code reverse}, {@code prefix(n)}, {@code reverse,prefix(n)}, {@code
   * truncate(n)}.
   */
  record Expr(String fn, long n) {
    boolean producesLong() {
      return fn.equals("truncate");
    }

    IndexExpression product() {
      return switch (fn) {
        case "lower" -> IndexExpression.lower();
        case "upper" -> IndexExpression.upper();
        case "reverse" -> IndexExpression.reverse();
        case "prefix" -> IndexExpression.prefix((int) n);
        case "reverse,prefix" -> IndexExpression.reverse().then(IndexExpression.prefix((int) n));
        case "truncate" -> IndexExpression.truncate(n);
        default -> throw new IllegalArgumentException(fn);
      };
    }

    /** The expression's value of a column value (raw, as Bytes.toBytes writes it), or null. */
    byte[] apply(byte[] raw) {
      if (raw == null) return null;
      if (producesLong()) {
        if (raw.length != Long.BYTES) return null;
        // Rounded down to a multiple of n, in exact arithmetic; the lowest bucket, whose multiple
        // lies below Long.MIN_VALUE, is cut short there (IndexExpression.truncate's contract).
        BigInteger v = BigInteger.valueOf(Bytes.toLong(raw));
        BigInteger unit = BigInteger.valueOf(n);
        BigInteger down = v.subtract(v.mod(unit));
        BigInteger min = BigInteger.valueOf(Long.MIN_VALUE);
        return Bytes.toBytes(down.max(min).longValueExact());
      }
      String s = Bytes.toString(raw); // the grammar writes valid UTF-8 only
      for (String step : fn.split(",")) {
        s =
            switch (step) {
              case "lower" -> s.toLowerCase(Locale.ROOT);
              case "upper" -> s.toUpperCase(Locale.ROOT);
              case "reverse" -> new StringBuilder(s).reverse().toString();
              case "prefix" ->
                  s.codePoints()
                      .limit(n)
                      .collect(
                          StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
                      .toString();
              default -> throw new IllegalArgumentException(step);
            };
      }
      return Bytes.toBytes(s);
    }

    @Override
    public String toString() {
      return fn.endsWith("prefix") || producesLong() ? fn + "(" + n + ")" : fn;
    }
  }

  /**
   * A condition of a partial index's WHERE or of a {@code find(Condition...)}: the column IN some
   * values (byte for byte), within {@code [lo, hi)} in the column's type (either null: open), or
   * present. The oracle tests it here ({@link #test}), from {@link Condition}'s documented rules.
   */
  record Cond(String column, Condition.Kind kind, List<String> values, String lo, String hi) {
    static Cond in(String column, String... values) {
      return new Cond(column, Condition.Kind.IN, List.of(values), null, null);
    }

    static Cond range(String column, String lo, String hi) {
      return new Cond(column, Condition.Kind.RANGE, List.of(), lo, hi);
    }

    static Cond present(String column) {
      return new Cond(column, Condition.Kind.PRESENT, List.of(), null, null);
    }

    Condition product(Schema schema) {
      Column c = schema.column(column);
      return switch (kind) {
        case IN ->
            Condition.in(
                c.family(),
                c.qualifier(),
                values.stream().map(Values::bytes).toArray(byte[][]::new));
        case RANGE ->
            Condition.range(
                c.family(),
                c.qualifier(),
                lo == null ? null : Values.bytes(lo),
                true,
                hi == null ? null : Values.bytes(hi),
                false,
                c.type());
        case PRESENT -> Condition.present(c.family(), c.qualifier());
      };
    }

    /** True if a row whose column holds {@code have} (null: absent) satisfies it. */
    boolean test(Schema schema, byte[] have) {
      if (have == null) return false;
      Column c = schema.column(column);
      return switch (kind) {
        case IN -> values.stream().anyMatch(v -> Bytes.equals(Values.bytes(v), have));
        case RANGE ->
            (lo == null || Values.compare(c.type(), have, Values.bytes(lo)) >= 0)
                && (hi == null || Values.compare(c.type(), have, Values.bytes(hi)) < 0);
        case PRESENT -> true;
      };
    }

    @Override
    public String toString() {
      return switch (kind) {
        case IN -> "in(" + q(column) + ", " + values.stream().map(Schema::q).toList() + ")";
        case RANGE -> "range(" + q(column) + ", " + q(lo) + ", " + q(hi) + ")";
        case PRESENT -> "present(" + q(column) + ")";
      };
    }
  }

  static String q(String s) {
    return s == null ? "null" : "\"" + s + "\"";
  }

  /**
   * The value {@code index} holds for a row with {@code cells}, as the oracle computes it: the
   * column's value (its expression's, for an expression index), null if the row lacks it or lies
   * outside the WHERE. One-column indexes only.
   */
  byte[] indexedValue(Index index, Map<String, byte[]> cells) {
    for (Cond w : index.where()) if (!w.test(this, cells.get(w.column()))) return null;
    byte[] v = cells.get(index.column());
    if (v == null || index.expression() == null) return v;
    return index.expression().apply(v);
  }

  /** The type of the values a one-column index holds: its column's, or its expression's result. */
  ValueType indexType(Index index) {
    if (index.expression() == null) return column(index.column()).type();
    return index.expression().producesLong() ? ValueType.LONG : ValueType.STRING;
  }

  Column column(String name) {
    return columns.stream().filter(c -> c.name.equals(name)).findFirst().orElseThrow();
  }

  Index index(String alias) {
    return indexes.stream().filter(i -> i.alias.equals(alias)).findFirst().orElseThrow();
  }

  Family family(String name) {
    return families.stream().filter(f -> f.name.equals(name)).findFirst().orElseThrow();
  }

  /** Columns an index reads: indexed or covered; the product refuses some writes of them. */
  boolean watched(String column) {
    return indexes.stream()
        .anyMatch(
            i ->
                i.columns().contains(column)
                    || i.covered.contains(column)
                    || i.where.stream().anyMatch(w -> w.column().equals(column)));
  }

  boolean watchesFamily(String family) {
    return columns.stream().anyMatch(c -> c.familyName().equals(family) && watched(c.name));
  }

  boolean expires() {
    return families.stream().anyMatch(f -> f.ttlSeconds > 0);
  }

  /** The plain (asked by column) index on {@code column}, if any. */
  Optional<Index> indexOn(String column) {
    return indexes.stream().filter(i -> i.byColumn() && i.column.equals(column)).findFirst();
  }

  IndexSpec spec(Index index, boolean eventual) {
    Column c = column(index.column);
    IndexSpec.Builder b =
        IndexSpec.builder(c.family(), c.qualifier()).alias(index.alias).type(indexType(index));
    for (String next : index.then) {
      Column n = column(next);
      b.thenColumn(n.family(), n.qualifier(), n.type());
    }
    if (index.expression != null) b.expression(index.expression.product());
    if (!index.where.isEmpty()) {
      b.where(index.where.stream().map(w -> w.product(this)).toArray(Condition[]::new));
    }
    switch (index.kind) {
      case LOCAL -> b.local();
      case BY_ROW -> b.layout(Layout.BY_ROW).buckets(index.buckets);
      case BY_VALUE -> b.layout(Layout.BY_VALUE).buckets(index.buckets);
      case ORDERED -> b.layout(Layout.ORDERED).buckets(index.buckets);
    }
    for (String cov : index.covered) b.covered(column(cov).family(), column(cov).qualifier());
    if (eventual) b.consistency(IndexSpec.Consistency.EVENTUAL);
    return b.build();
  }

  TableDescriptor descriptor(TableName name) {
    TableDescriptorBuilder t = TableDescriptorBuilder.newBuilder(name);
    for (Family f : families) {
      ColumnFamilyDescriptorBuilder b =
          ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes(f.name))
              .setMaxVersions(f.versions)
              .setMinVersions(f.minVersions)
              .setKeepDeletedCells(
                  f.keepDeletedCells ? KeepDeletedCells.TRUE : KeepDeletedCells.FALSE)
              .setNewVersionBehavior(f.newVersionBehavior);
      if (f.ttlSeconds > 0) b.setTimeToLive(f.ttlSeconds);
      t.setColumnFamily(b.build());
    }
    return t.build();
  }

  @Override
  public String toString() {
    List<String> lines = new ArrayList<>();
    lines.add("families " + families);
    lines.add("indexes " + indexes);
    lines.add("rows " + rows);
    if (immutable) lines.add("immutable rows");
    return String.join("; ", lines);
  }
}
