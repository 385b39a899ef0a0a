package io.scbf.hbase;

import io.scbf.hbase.shared.CompositeValue;
import io.scbf.hbase.shared.TypedValues;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Definition of one secondary index: the indexed column (or, for a composite index, columns), its
 * alias (part of every index row key and of the filter keys), its layout and {@link #buckets()}
 * (what a bucket is depends on the layout), the target false-positive rate of each filter, and the
 * columns copied into the index rows.
 *
 * <p>A composite index ({@link Builder#thenColumn}) indexes the tuple of its columns' values, in
 * their order, as one value ({@link CompositeValue}): a row is indexed once it holds every one of
 * them. It answers equality on all columns, equality on the leading ones, and equality on the
 * leading ones with a range on the next ({@link IndexedTable#find(String, byte[]...)}, {@link
 * IndexedTable#range(String, List, byte[], byte[])}).
 *
 * <p>An expression index ({@link Builder#expression}) indexes a function of its column's value; a
 * partial index ({@link Builder#where}) only the rows satisfying its conditions. Neither answers
 * queries by column: they are asked by alias, and a partial one also by {@link
 * IndexedTable#find(Condition...)} when the conditions imply its WHERE.
 *
 * <p>Immutable; built and validated by {@link Builder#build()}. Stored in the data table's
 * descriptor (attribute {@code scbf.index.<alias>}) in the text form of {@link #encode()}.
 */
@InterfaceAudience.Public
public final class IndexSpec {
  public static final int MIN_BUCKETS = 1;

  /** The bucket is the first byte of an index row key. */
  public static final int MAX_BUCKETS = 256;

  public static final int DEFAULT_BUCKETS = 16;
  public static final double DEFAULT_FPP = 0.001;

  /** Keys the first sub-filter of a bucket holds before the scalable filter grows. */
  public static final long DEFAULT_INITIAL_CAPACITY = 16_384;

  /**
   * Smallest target rate: each new sub-filter of a growing bucket halves its rate, and the native
   * filter allows at most 64 hash functions, so rates far below this cannot be honoured.
   */
  public static final double MIN_FPP = 1e-9;

  public static final long MAX_INITIAL_CAPACITY = 1L << 24;

  /**
   * Native memory of one bucket's first sub-filter, at most: every region server that opens a
   * bucket allocates it, so a careless capacity must fail at {@code createIndex}, not on servers.
   */
  public static final long MAX_INITIAL_FILTER_BYTES = 64L << 20;

  /** Columns of a composite index, at most. */
  public static final int MAX_COLUMNS = 8;

  private final List<Column> columns;
  private final List<ValueType> types;
  private final String alias;
  private final int buckets;
  private final double fpp;
  private final long initialCapacity;
  private final List<Column> covered;
  private final boolean local;
  private final Layout layout;
  private final IndexExpression expression;
  private final List<Condition> where;

  /** The columns of {@link #where}, in its order: made once, valueOf runs on every write. */
  private final List<Column> whereColumns;

  private final Consistency consistency;

  /** {@link #encode()}, made once: specs key maps on every indexed write. */
  private final String encoded;

  private IndexSpec(Builder b, List<Column> indexed, List<ValueType> types) {
    this.local = b.local;
    this.layout = b.resolvedLayout();
    this.consistency = b.consistency;
    this.columns = List.copyOf(indexed);
    this.types = List.copyOf(types);
    this.alias = b.alias;
    this.buckets = b.buckets;
    this.fpp = b.fpp;
    this.initialCapacity = b.initialCapacity;
    this.covered = Collections.unmodifiableList(new ArrayList<>(b.covered));
    this.expression = b.expression;
    this.where = List.copyOf(b.where);
    this.whereColumns = where.stream().map(c -> new Column(c.family(), c.qualifier())).toList();
    this.encoded = IndexSpecCodec.encode(this);
  }

  public static Builder builder(byte[] family, byte[] qualifier) {
    return new Builder(family, qualifier);
  }

  /** The indexed column; a composite index's first column. */
  public Column column() {
    return columns.get(0);
  }

  public byte[] family() {
    return column().family();
  }

  public byte[] qualifier() {
    return column().qualifier();
  }

  /** The indexed columns, in index order: one unless the index is composite. */
  public List<Column> columns() {
    return columns;
  }

  public boolean isComposite() {
    return columns.size() > 1;
  }

  /** The indexed columns as people read them: {@code f:q}, or {@code [f:q1, f:q2]}. */
  public String columnsText() {
    return isComposite() ? columns.toString() : column().toString();
  }

  /** The type of each indexed column, in index order ({@link ValueType#BYTES} unless declared). */
  public List<ValueType> types() {
    return types;
  }

  /** The type of the indexed column; a composite index's first column's. */
  public ValueType type() {
    return types.get(0);
  }

  /** True if any indexed column has a type other than {@link ValueType#BYTES}. */
  public boolean isTyped() {
    for (ValueType t : types) {
      if (t != ValueType.BYTES) return true;
    }
    return false;
  }

  /**
   * @deprecated internal; kept until a release whose notes list its removal.
   */
  @Deprecated
  public byte[] valueOf(Function<Column, byte[]> current) {
    return IndexValues.valueOf(this, current);
  }

  /**
   * @deprecated internal; kept until a release whose notes list its removal.
   */
  @Deprecated
  public String invalidValue(Column column, byte[] raw) {
    return IndexValues.invalidValue(this, column, raw);
  }

  /**
   * @deprecated internal; kept until a release whose notes list its removal.
   */
  @Deprecated
  public byte[] indexForm(byte[] raw) {
    return IndexValues.indexForm(this, raw);
  }

  /**
   * @deprecated internal; kept until a release whose notes list its removal.
   */
  @Deprecated
  public byte[] indexForm(int column, byte[] raw) {
    return IndexValues.indexForm(this, column, raw);
  }

  /**
   * @deprecated internal; kept until a release whose notes list its removal.
   */
  @Deprecated
  public byte[] rawForm(byte[] indexForm) {
    return IndexValues.rawForm(this, indexForm);
  }

  /**
   * @deprecated internal; kept until a release whose notes list its removal.
   */
  @Deprecated
  public byte[] valueOf(Result row) {
    return IndexValues.valueOf(this, row);
  }

  /**
   * @deprecated internal; kept until a release whose notes list its removal.
   */
  @Deprecated
  public byte[] valueOf(List<byte[]> values) {
    return IndexValues.valueOf(this, values);
  }

  public String alias() {
    return alias;
  }

  /**
   * {@link Layout#BY_ROW}: the number of salt buckets (= index regions, fixed). {@link
   * Layout#BY_VALUE}: the number of regions the index table starts with; it splits from there.
   * {@link Layout#ORDERED}: the number of salted streams (1: unsalted), each ordered by value.
   */
  public int buckets() {
    return buckets;
  }

  /**
   * True if queries find this index's regions by key ({@link Layout#BY_VALUE}, {@link
   * Layout#ORDERED}): its table splits like a data table's, each region answers absent values from
   * its own filter, and nothing is published to the master.
   */
  public boolean routedByKey() {
    return layout == Layout.BY_VALUE || layout == Layout.ORDERED;
  }

  /** When a global index reflects a write; {@link Consistency#STRONG} for a local index. */
  public Consistency consistency() {
    return consistency;
  }

  /**
   * This index with another {@link Consistency} (everything else equal): what {@code
   * IndexAdmin.setConsistency} records.
   *
   * @throws IllegalArgumentException if the index is local and {@code consistency} is EVENTUAL
   */
  public IndexSpec withConsistency(Consistency consistency) {
    return decode(IndexSpecCodec.encode(this, consistency));
  }

  /**
   * When a global index reflects a data write. The consistency can be changed on a live index
   * ({@code IndexAdmin.setConsistency}) without a rebuild.
   */
  public enum Consistency {
    /**
     * The write is acknowledged once its index rows are durable: a query started after the
     * acknowledgement finds it (the default, and every index before this setting existed).
     */
    STRONG,
    /**
     * The write is acknowledged without waiting for its index: the region servers apply it to the
     * index from HBase's replication of their write-ahead logs (a replication peer named {@code
     * scbf_eventual}), usually within milliseconds, at least once and never losing an acknowledged
     * write. Meanwhile {@code find} and {@code range} may miss the newest writes but never return a
     * row that does not match (they re-check the data rows); {@code IndexedTable.awaitIndexed}
     * waits until every write acknowledged before it is indexed. Global indexes only.
     */
    EVENTUAL
  }

  /** Where a global index's rows are placed; {@link Layout#BY_ROW} for a local index. */
  public Layout layout() {
    return layout;
  }

  /**
   * Where the rows of a global index live. The layout is fixed when the index is created; {@link
   * IndexAdmin#rebuildIndex} keeps it, and moving an index to another layout means creating it
   * again (under a new alias, then dropping the old one: see docs/user-guide.md, "Index kinds and
   * layouts").
   */
  public enum Layout {
    /**
     * Fixed buckets salted by a hash of the data row (the layout of releases before by-value became
     * the default; specs stored without a layout are this one): a value's rows spread over the
     * buckets, the master's routing bitmaps tell a query which buckets may hold it, and the bucket
     * regions never split. Routed queries see a write once its bucket has published (about a
     * second).
     */
    BY_ROW,
    /**
     * Placed by a hash of the value: all rows of one value sit together in one index region (two
     * only when a region boundary falls inside them), so a point query asks one region, which
     * answers absent values from its own filter. The index table splits, merges and moves like a
     * data table, so it grows with its data; no routing state is kept anywhere but in the regions,
     * and a query sees every write acknowledged before it started. Range queries ask every region.
     */
    BY_VALUE,
    /**
     * Ordered by (value, row) across the index table's regions, which split and move like a data
     * table's: a point query asks one region (two on a boundary) with read-after-ack as {@code
     * BY_VALUE} does, a range asks only the regions that overlap it and answers in value order, and
     * a first-N query stops after N entries. Increasing values (timestamps) all land on the last
     * region; {@link Builder#buckets} salts the index into that many ordered streams (hashed by
     * row, as Phoenix's SALT_BUCKETS), merged on read. Give ranged columns a {@link ValueType}.
     */
    ORDERED
  }

  /**
   * What an indexed column holds, as HBase's {@code Bytes.toBytes(...)} of a Java type writes it.
   * The index stores each value in a form whose byte order is the type's natural order (HBase's
   * {@code OrderedBytes}), so ranges and value order follow the type: {@code BYTES} compares
   * unsigned bytes (the default, and the only order before types existed), {@code STRING} UTF-8
   * (code point order), the numbers numerically, negatives included. Floating point follows {@link
   * Double#compare}: -0.0 sorts before 0.0 and is a different value, every NaN is one value above
   * +Infinity. {@code BIG_DECIMAL} compares by value: 1.0 and 1.00 are equal. Queries pass values
   * in the same {@code Bytes.toBytes} encoding; a write of a value that is not a valid encoding of
   * its column's type is refused.
   */
  public enum ValueType {
    BYTES,
    STRING,
    INT,
    LONG,
    FLOAT,
    DOUBLE,
    BIG_DECIMAL;

    /**
     * The index form of {@code raw}, a value of this type as {@code Bytes.toBytes} writes it.
     *
     * @throws IllegalArgumentException (saying what was expected) if it is not one
     */
    public byte[] indexForm(byte[] raw) {
      switch (this) {
        case BYTES:
          return raw;
        case STRING:
          return TypedValues.utf8(raw);
        case INT:
          return TypedValues.int32(raw);
        case LONG:
          return TypedValues.int64(raw);
        case FLOAT:
          return TypedValues.float32(raw);
        case DOUBLE:
          return TypedValues.float64(raw);
        default:
          return TypedValues.numeric(raw);
      }
    }

    /** The value of an index form as {@code Bytes.toBytes} writes it. */
    public byte[] rawForm(byte[] indexForm) {
      switch (this) {
        case BYTES:
        case STRING:
          return indexForm;
        case INT:
          return TypedValues.rawInt32(indexForm);
        case LONG:
          return TypedValues.rawInt64(indexForm);
        case FLOAT:
          return TypedValues.rawFloat32(indexForm);
        case DOUBLE:
          return TypedValues.rawFloat64(indexForm);
        default:
          return TypedValues.rawNumeric(indexForm);
      }
    }

    /**
     * {@code raw}, a value of this type, as text for people: {@code -5}, {@code 1.5}, {@code
     * a\x00}.
     */
    public String format(byte[] raw) {
      return switch (this) {
        case STRING -> Bytes.toString(raw);
        case INT -> Integer.toString(Bytes.toInt(raw));
        case LONG -> Long.toString(Bytes.toLong(raw));
        case FLOAT -> Float.toString(Bytes.toFloat(raw));
        case DOUBLE -> Double.toString(Bytes.toDouble(raw));
        case BIG_DECIMAL -> plain(Bytes.toBigDecimal(raw));
        case BYTES -> Bytes.toStringBinary(raw);
      };
    }

    /**
     * Plain digits for people, but an exponent where plain digits would run long: a scale up to
     * 2^31 is four bytes of a value anyone may write, and its plain form two billion characters.
     */
    private static String plain(java.math.BigDecimal value) {
      return Math.abs((long) value.scale()) <= 64 ? value.toPlainString() : value.toString();
    }

    /** The name in specs and on the command line: {@code long}, {@code big_decimal}. */
    public String text() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Inverse of {@link #text()} (any case). */
    public static ValueType ofText(String text) {
      for (ValueType t : values()) {
        if (t.name().equalsIgnoreCase(text)) return t;
      }
      throw new IllegalArgumentException(
          "unknown value type '"
              + text
              + "' (bytes, string, int, long, float, double or big_decimal)");
    }
  }

  public double fpp() {
    return fpp;
  }

  public long initialCapacity() {
    return initialCapacity;
  }

  public List<Column> covered() {
    return covered;
  }

  /**
   * True for a local index: its entries live in the data regions (one hidden column family per
   * index), are written in the data write's own mini-batch, and each data region keeps the filter
   * that routes queries to it. False (the default) for a global index table of salted buckets.
   */
  public boolean isLocal() {
    return local;
  }

  /**
   * @deprecated internal; kept until a release whose notes list its removal.
   */
  @Deprecated
  public List<Column> watchedColumns() {
    return IndexValues.watchedColumns(this);
  }

  /**
   * @deprecated internal; kept until a release whose notes list its removal.
   */
  @Deprecated
  public List<Column> decidingColumns() {
    return IndexValues.decidingColumns(this);
  }

  /** The columns of {@link #where()}, in its order. */
  List<Column> whereColumns() {
    return whereColumns;
  }

  /**
   * The function of the column's value the index holds ({@link Builder#expression}), or null for an
   * index of the column's own value.
   */
  public IndexExpression expression() {
    return expression;
  }

  /**
   * The conditions a row must satisfy to be indexed ({@link Builder#where}); empty unless the index
   * is partial.
   */
  public List<Condition> where() {
    return where;
  }

  /** True if only rows satisfying {@link #where()} are indexed. */
  public boolean isPartial() {
    return !where.isEmpty();
  }

  /**
   * True if queries by column ({@code find(family, qualifier, value)}, ranges by column) may use
   * this index: it holds every row's own value of its column(s). An expression index is asked by
   * its alias, a partial one by alias or by a {@link IndexedTable#find(Condition...)} whose
   * conditions imply its WHERE ({@link #isImpliedBy}).
   */
  public boolean answersByColumn() {
    return expression == null && where.isEmpty();
  }

  /**
   * True if every row satisfying all of {@code conditions} satisfies this index's {@link #where()}:
   * for each of its conditions, one of {@code conditions} on the same column allows only values it
   * allows. Always true for an index without a WHERE.
   */
  public boolean isImpliedBy(List<Condition> conditions) {
    return IndexValues.isImpliedBy(this, conditions);
  }

  /**
   * @deprecated internal; kept until a release whose notes list its removal.
   */
  @Deprecated
  public boolean isImpliedBy(
      List<Condition> conditions, Function<Condition, Set<ValueType>> comparedIn) {
    return IndexValues.isImpliedBy(this, conditions, comparedIn);
  }

  /**
   * Bytes of the first sub-filter of each bucket (4-bit counters; its rate is half the target, the
   * scalable filter's first share): capacity · ln(1/rate) / ln²2 counters.
   */
  public static long initialFilterBytes(long initialCapacity, double fpp) {
    double ln2 = Math.log(2);
    double counters = Math.ceil(initialCapacity * -Math.log(fpp / 2) / (ln2 * ln2));
    return (long) Math.ceil(counters / 2);
  }

  /** One-line text form, stable across versions ("v1;key=value;..."), for table descriptors. */
  public String encode() {
    return encoded;
  }

  /** Inverse of {@link #encode()}; validates like the builder. */
  public static IndexSpec decode(String text) {
    return IndexSpecCodec.decode(text);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IndexSpec s && encoded.equals(s.encoded);
  }

  @Override
  public int hashCode() {
    return encoded.hashCode(); // cached by String
  }

  @Override
  public String toString() {
    return "IndexSpec{"
        + alias
        + " on "
        + columnsText()
        + ", buckets="
        + buckets
        + ", fpp="
        + fpp
        + ", covered="
        + covered
        + (local ? ", local" : "")
        + (layout == Layout.BY_VALUE ? ", by value" : "")
        + (layout == Layout.ORDERED ? ", ordered" : "")
        + (isTyped() ? ", types=" + types : "")
        + (expression != null ? ", expression=" + expression : "")
        + (where.isEmpty() ? "" : ", where=" + where)
        + (consistency == Consistency.EVENTUAL ? ", eventual" : "")
        + "}";
  }

  /** A column (family, qualifier), comparable by content. */
  public record Column(byte[] family, byte[] qualifier) {
    public Column {
      family = family.clone();
      qualifier = qualifier.clone();
    }

    @Override
    public byte[] family() {
      return family.clone();
    }

    @Override
    public byte[] qualifier() {
      return qualifier.clone();
    }

    /** The family without a copy, for IndexValues' reads of every row (callers must not write). */
    byte[] familyArray() {
      return family;
    }

    /** The qualifier without a copy (callers must not write it). */
    byte[] qualifierArray() {
      return qualifier;
    }

    public boolean matches(byte[] f, byte[] q) {
      return Arrays.equals(family, f) && Arrays.equals(qualifier, q);
    }

    public boolean inFamily(byte[] f) {
      return Arrays.equals(family, f);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Column c
          && Arrays.equals(family, c.family)
          && Arrays.equals(qualifier, c.qualifier);
    }

    @Override
    public int hashCode() {
      return 31 * Arrays.hashCode(family) + Arrays.hashCode(qualifier);
    }

    @Override
    public String toString() {
      return org.apache.hadoop.hbase.util.Bytes.toStringBinary(family)
          + ":"
          + org.apache.hadoop.hbase.util.Bytes.toStringBinary(qualifier);
    }
  }

  public static final class Builder {
    private final byte[] family;
    private final byte[] qualifier;
    private final List<Column> further = new ArrayList<>();
    private ValueType type = ValueType.BYTES;
    private final List<ValueType> furtherTypes = new ArrayList<>();
    private String alias;
    private int buckets = DEFAULT_BUCKETS;
    private boolean bucketsSet;
    private double fpp = DEFAULT_FPP;
    private long initialCapacity = DEFAULT_INITIAL_CAPACITY;
    private final List<Column> covered = new ArrayList<>();
    private boolean local;
    private IndexExpression expression;
    private final List<Condition> where = new ArrayList<>();
    private Consistency consistency = Consistency.STRONG;

    /** Null until set: a global index then gets {@link Layout#BY_VALUE}, a local one BY_ROW. */
    private Layout layout;

    private Builder(byte[] family, byte[] qualifier) {
      this.family = family == null ? null : family.clone();
      this.qualifier = qualifier == null ? null : qualifier.clone();
    }

    /**
     * What the indexed column (a composite index's first) holds: see {@link ValueType} (default
     * {@link ValueType#BYTES}).
     */
    public Builder type(ValueType type) {
      if (type == null) throw new IllegalArgumentException("type must not be null");
      this.type = type;
      return this;
    }

    /** Short name of the index: [A-Za-z0-9_]{1,32}, unique per data table. Required. */
    public Builder alias(String alias) {
      this.alias = alias;
      return this;
    }

    /**
     * A local index (see {@link IndexSpec#isLocal()}): best for write-heavy tables and for values
     * that select rows in few regions. It has no buckets: {@link #buckets} must stay unset or 1.
     */
    public Builder local() {
      this.local = true;
      return this;
    }

    /**
     * Where a global index's rows live: {@link Layout#BY_VALUE} (the default for a global index)
     * splits as it grows and asks one region per selective value; {@link Layout#BY_ROW} keeps the
     * fixed buckets of earlier releases (the writes of a popular value spread over all buckets, an
     * absent value costs no RPC); {@link Layout#ORDERED} orders the index by value for ranges,
     * value order and first-N queries. A local index is always BY_ROW.
     */
    public Builder layout(Layout layout) {
      if (layout == null) throw new IllegalArgumentException("layout must not be null");
      this.layout = layout;
      return this;
    }

    /**
     * When the index reflects a write: {@link Consistency#STRONG} (the default) or {@link
     * Consistency#EVENTUAL}, global indexes only.
     */
    public Builder consistency(Consistency consistency) {
      if (consistency == null) throw new IllegalArgumentException("consistency must not be null");
      this.consistency = consistency;
      return this;
    }

    /**
     * {@link Layout#BY_ROW}: salt buckets = index regions, 1..256 (default 16). {@link
     * Layout#BY_VALUE}: the regions the index table starts with, 1..256 (default 16). {@link
     * Layout#ORDERED}: salted streams, 1..256 (default 1, unsalted). Global indexes only.
     */
    public Builder buckets(int buckets) {
      this.buckets = buckets;
      this.bucketsSet = true;
      return this;
    }

    /** Target false-positive rate of each bucket's filter, in [1e-9, 0.5] (default 0.001). */
    public Builder fpp(double fpp) {
      this.fpp = fpp;
      return this;
    }

    /**
     * Keys per bucket before the scalable filter adds a sub-filter, in [1, 2^24] and with a first
     * sub-filter of at most 64 MiB (default 16384).
     */
    public Builder initialCapacity(long keys) {
      this.initialCapacity = keys;
      return this;
    }

    /**
     * The next indexed column of a composite index (after the builder's column and any added
     * before): the index holds the tuple of their values, in this order.
     */
    public Builder thenColumn(byte[] family, byte[] qualifier) {
      return thenColumn(family, qualifier, ValueType.BYTES);
    }

    /** {@link #thenColumn(byte[], byte[])} of a column holding values of {@code type}. */
    public Builder thenColumn(byte[] family, byte[] qualifier, ValueType type) {
      if (family == null || family.length == 0 || qualifier == null) {
        throw new IllegalArgumentException(
            "indexed column family must be non-empty and qualifier non-null");
      }
      if (type == null) throw new IllegalArgumentException("type must not be null");
      further.add(new Column(family, qualifier));
      furtherTypes.add(type);
      return this;
    }

    /**
     * Index a function of the column's value instead of the value ({@link IndexExpression}): an
     * expression index, queried by its alias with the function's value ({@code find("email_lc",
     * Bytes.toBytes("alice@example.com"))}), never by column. One-column indexes only; the {@link
     * #type} is that of the function's result: {@code BYTES} or {@code STRING} for the text
     * functions, {@code BYTES} or {@code LONG} for {@link IndexExpression#truncate}.
     */
    public Builder expression(IndexExpression expression) {
      if (expression == null) throw new IllegalArgumentException("expression must not be null");
      this.expression = expression;
      return this;
    }

    /**
     * A partial index: only rows whose current values satisfy every one of {@code conditions}
     * ({@link Condition#test}: an IN compares bytes, a range in its type's order) have entries, and
     * a write that moves a row in or out of them adds or removes its entry. Queries by column never
     * use it; {@link IndexedTable#find(Condition...)} does when its conditions imply these, and a
     * query by the index's alias answers the rows of the value that satisfy them.
     */
    public Builder where(Condition... conditions) {
      if (conditions == null) throw new IllegalArgumentException("conditions must not be null");
      for (Condition c : conditions) {
        if (c == null) throw new IllegalArgumentException("conditions must not be null");
        where.add(c);
      }
      return this;
    }

    /** A column whose latest value is copied into each index row and returned by lookups. */
    public Builder covered(byte[] family, byte[] qualifier) {
      if (family == null || qualifier == null) {
        throw new IllegalArgumentException("covered column family and qualifier must not be null");
      }
      covered.add(new Column(family, qualifier));
      return this;
    }

    public IndexSpec build() {
      IndexSpecChecks.named(family, qualifier, alias);
      if (local) {
        IndexSpecChecks.local(bucketsSet, buckets, layout, consistency);
        buckets = 1;
      }
      if (resolvedLayout() == Layout.ORDERED && !bucketsSet) buckets = 1;
      IndexSpecChecks.sizes(buckets, fpp, initialCapacity);
      List<Column> indexed = new ArrayList<>(1 + further.size());
      indexed.add(new Column(family, qualifier));
      indexed.addAll(further);
      IndexSpecChecks.columns(indexed, covered);
      IndexSpecChecks.derivation(expression, type, where, indexed.size());
      List<ValueType> types = new ArrayList<>(indexed.size());
      types.add(type);
      types.addAll(furtherTypes);
      return new IndexSpec(this, indexed, types);
    }

    private Layout resolvedLayout() {
      if (layout != null) return layout;
      return local ? Layout.BY_ROW : Layout.BY_VALUE;
    }
  }
}
