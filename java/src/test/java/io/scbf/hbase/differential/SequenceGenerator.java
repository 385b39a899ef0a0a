package io.scbf.hbase.differential;

import io.scbf.hbase.IndexSpec.ValueType;
import io.scbf.hbase.differential.Schema.Column;
import io.scbf.hbase.differential.Schema.Cond;
import io.scbf.hbase.differential.Schema.Family;
import io.scbf.hbase.differential.Schema.Index;
import io.scbf.hbase.differential.Schema.Kind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Random sequences from a seed ({@code new Random(seed)}: the same seed gives the same schema and
 * ops). Timestamps collide on purpose: client stamps reuse earlier ones, sit in the past (below
 * every server stamp) or in the future (above every one).
 */
final class SequenceGenerator {
  Sequence generate(long seed, int opCount) {
    Random random = new Random(seed);
    Schema schema = schema(random);
    return new Sequence(seed, schema, new Ops(random, schema).generate(opCount));
  }

  Schema schema(Random r) {
    boolean twoFamilies = r.nextBoolean();
    boolean ttl = r.nextInt(5) == 0;
    List<Family> families = new ArrayList<>();
    families.add(family(r, "d", ttl));
    if (twoFamilies) families.add(family(r, "e", false));
    String x = (twoFamilies ? "e" : "d") + ":x";
    ValueType xType =
        List.of(ValueType.DOUBLE, ValueType.BIG_DECIMAL, ValueType.STRING).get(r.nextInt(3));
    List<Column> columns =
        List.of(
            new Column("d:a", ValueType.BYTES, List.of("B:a0", "B:a1", "B:a2")),
            new Column("d:b", ValueType.BYTES, List.of("B:b0", "B:b1", "B:b2")),
            new Column("d:c", ValueType.BYTES, List.of("B:c0", "B:c1", "B:c2")),
            new Column("d:u", ValueType.BYTES, List.of("B:u0", "B:u1")),
            new Column("d:n", ValueType.LONG, pick(r, 4, longs())),
            new Column(x, xType, pick(r, 4, domain(xType))));
    // At most one EVENTUAL index per sequence: each costs an await after every write.
    int eventual = r.nextInt(5) == 0 ? 1 + r.nextInt(2) : 0;
    // Each index costs table setup time (about 4 s): ia and ib always, the others now and then.
    List<Index> indexes = new ArrayList<>();
    indexes.add(
        new Index(
            "ia",
            "d:a",
            r.nextInt(3) == 0 ? Kind.BY_ROW : Kind.BY_VALUE,
            1 + r.nextInt(3),
            r.nextBoolean() ? List.of("d:c") : List.of(),
            eventual == 1));
    indexes.add(new Index("ib", "d:b", Kind.LOCAL, 1, List.of("d:c"), false));
    boolean in = r.nextInt(5) != 0;
    boolean ix = r.nextInt(5) != 0;
    int in3 = r.nextBoolean() ? 1 : 3;
    if (in) {
      indexes.add(new Index("in", "d:n", Kind.ORDERED, in3, List.of("d:c"), eventual == 2));
    }
    if (ix) indexes.add(new Index("ix", x, Kind.ORDERED, 1, List.of(), false));
    // Composite, expression and partial indexes: each in about a third of the sequences.
    if (r.nextInt(3) == 0) indexes.add(composite(r, x));
    if (r.nextInt(3) == 0) indexes.add(expression(r, x, xType));
    if (r.nextInt(3) == 0) indexes.add(partial(r, x, columns));
    boolean immutable = r.nextInt(6) == 0;
    List<String> rows = new ArrayList<>();
    // Insert-only rows are written once each: more of them.
    int rowCount = immutable ? 12 + r.nextInt(5) : 4 + r.nextInt(5);
    for (int i = 0; i < rowCount; i++) rows.add("r" + i);
    return new Schema(families, columns, List.copyOf(indexes), rows, immutable);
  }

  private static Kind anyKind(Random r) {
    return Kind.values()[r.nextInt(Kind.values().length)];
  }

  private static int buckets(Random r, Kind k) {
    return k == Kind.LOCAL ? 1 : 1 + r.nextInt(3);
  }

  /** {@code ic}: d:a then d:n (LONG) or the typed x: equality on both, the first, and ranges. */
  private Index composite(Random r, String x) {
    Kind k = anyKind(r);
    return new Index(
        "ic",
        "d:a",
        k,
        buckets(r, k),
        List.of(),
        false,
        List.of(r.nextBoolean() ? "d:n" : x),
        null,
        List.of());
  }

  /** {@code ie}: a text function of d:a or of a STRING x, or d:n truncated. */
  private Index expression(Random r, String x, ValueType xType) {
    Kind k = anyKind(r);
    int p = r.nextInt(xType == ValueType.STRING ? 3 : 2);
    String column;
    Schema.Expr e;
    if (p == 0) {
      column = "d:n";
      e = new Schema.Expr("truncate", List.of(5L, 10L, 1L << 62).get(r.nextInt(3)));
    } else {
      column = p == 1 ? "d:a" : x;
      List<Schema.Expr> text =
          List.of(
              new Schema.Expr("lower", 0),
              new Schema.Expr("upper", 0),
              new Schema.Expr("reverse", 0),
              new Schema.Expr("prefix", 1),
              new Schema.Expr("reverse,prefix", 1));
      e = text.get(r.nextInt(text.size()));
    }
    return new Index(
        "ie",
        column,
        k,
        buckets(r, k),
        r.nextBoolean() ? List.of("d:c") : List.of(),
        false,
        List.of(),
        e,
        List.of());
  }

  /** {@code ip}: d:a or d:b where an IN, a range or "present" (now and then two of them) holds. */
  private Index partial(Random r, String x, List<Column> columns) {
    Kind k = anyKind(r);
    String column = r.nextBoolean() ? "d:a" : "d:b";
    List<Cond> where = new ArrayList<>();
    where.add(where(r, column, x, columns));
    if (r.nextInt(3) == 0) {
      Cond second = where(r, column, x, columns);
      if (!second.column().equals(where.get(0).column())) where.add(second);
    }
    return new Index(
        "ip",
        column,
        k,
        buckets(r, k),
        r.nextBoolean() ? List.of("d:c") : List.of(),
        false,
        List.of(),
        null,
        List.copyOf(where));
  }

  /** A WHERE condition on a column other than {@code indexed}. */
  static Cond where(Random r, String indexed, String x, List<Column> columns) {
    String other = indexed.equals("d:a") ? "d:b" : "d:a";
    return switch (r.nextInt(6)) {
      case 0 -> Cond.in("d:u", "B:u0");
      case 1 ->
          Cond.in(
              other, other.equals("d:a") ? "B:a0" : "B:b0", other.equals("d:a") ? "B:a1" : "B:b1");
      case 2 -> Cond.present("d:c");
      case 3 -> bounded(r, "d:n", columns);
      case 4 -> bounded(r, x, columns);
      default -> Cond.present("d:u");
    };
  }

  /** A range on a column between two of its values, or open on one side. */
  static Cond bounded(Random r, String column, List<Column> columns) {
    Column c = columns.stream().filter(o -> o.name().equals(column)).findFirst().orElseThrow();
    List<String> domain = c.domain();
    String lo = domain.get(r.nextInt(domain.size()));
    String hi = domain.get(r.nextInt(domain.size()));
    int order = Values.compare(c.type(), Values.bytes(lo), Values.bytes(hi));
    if (order > 0) { // Condition refuses an empty range
      String t = lo;
      lo = hi;
      hi = t;
    }
    return switch (order == 0 ? 0 : r.nextInt(3)) {
      case 0 -> Cond.range(column, lo, null);
      case 1 -> Cond.range(column, null, hi);
      default -> Cond.range(column, lo, hi);
    };
  }

  private Family family(Random r, String name, boolean ttl) {
    int minVersions = r.nextInt(3) == 0 ? 1 : 0;
    int versions = r.nextBoolean() ? 1 : 3;
    int ttlSeconds = ttl ? 3 + r.nextInt(3) : 0;
    boolean keepDeletedCells = r.nextInt(5) == 0;
    boolean newVersionBehavior = r.nextInt(5) == 0;
    // The product refuses indexes over a family with both (seed 1268); an alter into it is tried.
    return new Family(
        name,
        versions,
        ttlSeconds,
        minVersions,
        keepDeletedCells && !newVersionBehavior,
        newVersionBehavior);
  }

  private static List<String> longs() {
    return List.of("L:" + Long.MIN_VALUE, "L:-1", "L:0", "L:7", "L:" + Long.MAX_VALUE);
  }

  private static List<String> domain(ValueType t) {
    return switch (t) {
      case DOUBLE -> List.of("D:-0.0", "D:0.0", "D:NaN", "D:NaN2", "D:1.5", "D:-Infinity");
      case BIG_DECIMAL -> List.of("BD:1.0", "BD:1.00", "BD:-2", "BD:0.5", "BD:1");
      default -> List.of("S:a", "S:ab", "S:ä", "S:z");
    };
  }

  private static List<String> pick(Random r, int n, List<String> from) {
    List<String> copy = new ArrayList<>(from);
    java.util.Collections.shuffle(copy, r);
    return List.copyOf(copy.subList(0, Math.min(n, copy.size())));
  }

  /** The generator's view of one sequence while it draws its ops. */
  private final class Ops {
    final Random r;
    final Schema schema;
    final List<Long> stamps = new ArrayList<>();
    final Map<String, Boolean> eventualNow = new HashMap<>();

    /** Each family's settings now (alters change them). */
    final Map<String, Family> familiesNow = new HashMap<>();

    /** True once a family has a TTL: the grammar then has sleeps. */
    boolean expiring;

    /** Insert-only tables: the next row never written. */
    int fresh;

    Ops(Random r, Schema schema) {
      this.r = r;
      this.schema = schema;
      for (Family f : schema.families()) familiesNow.put(f.name(), f);
      expiring = schema.expires();
      for (Index i : schema.indexes()) {
        eventualNow.put(i.alias(), i.eventual());
      }
    }

    List<Op> generate(int count) {
      List<Op> ops = new ArrayList<>();
      while (ops.size() < count) {
        Op op = next();
        if (op != null) ops.add(op);
      }
      return ops;
    }

    Op next() {
      if (schema.immutable()) return insertOnly();
      int p = r.nextInt(100);
      if (p < 34) return put(row());
      if (p < 40) return deleteRow(row());
      if (p < 45) return deleteFamily();
      if (p < 52) return deleteColumns(row());
      if (p < 59) return refused();
      if (p < 64) return batch();
      if (p < 68) return mutations();
      if (p < 73) return checkAndPut();
      if (p < 77 && expiring) return new Op.Sleep(1000 + 500L * r.nextInt(5));
      if (p < 80) return concurrent();
      return event();
    }

    /** 2-4 writes at once; on one row half of the time, so that they meet in its row lock. */
    Op concurrent() {
      return new Op.Concurrent(mixed(r.nextBoolean() ? row() : null, 2 + r.nextInt(3)));
    }

    /**
     * An insert-only table ({@code IndexAdmin.setImmutableRows}): each row is put once, in one
     * write (of 1-3 columns); rows and columns are deleted; no value is replaced, as the contract
     * asks.
     */
    Op insertOnly() {
      int p = r.nextInt(100);
      if (p < 40) return fresh(1).isEmpty() ? deleteRow(row()) : put(take());
      if (p < 48) return deleteRow(row());
      if (p < 54) return deleteColumns(row());
      if (p < 61) return refused();
      if (p < 67) {
        List<String> rows = fresh(2 + r.nextInt(2));
        if (rows.size() < 2) return null;
        List<Op.Write> puts = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) puts.add(put(take()));
        return new Op.Batch(puts);
      }
      if (p < 71) {
        if (fresh(1).isEmpty()) return null;
        String row = take();
        Column c = column();
        return new Op.CheckAndPut(row, c.name(), null, put(row));
      }
      if (p < 75 && expiring) return new Op.Sleep(1000 + 500L * r.nextInt(5));
      return event();
    }

    /** Up to n rows never written (not taken). */
    List<String> fresh(int n) {
      List<String> rows = schema.rows();
      return rows.subList(fresh, Math.min(rows.size(), fresh + n));
    }

    String take() {
      return schema.rows().get(fresh++);
    }

    String row() {
      return schema.rows().get(r.nextInt(schema.rows().size()));
    }

    Column column() {
      return schema.columns().get(r.nextInt(schema.columns().size()));
    }

    String value(Column c) {
      return c.domain().get(r.nextInt(c.domain().size()));
    }

    /** A client stamp: past, one used before, or future; null for the server's. */
    Long stamp(int serverPercent) {
      int p = r.nextInt(100);
      if (p < serverPercent) return null;
      if (p < serverPercent + (100 - serverPercent) / 3 && !stamps.isEmpty()) {
        return stamps.get(r.nextInt(stamps.size()));
      }
      long ts = r.nextInt(4) == 0 ? Op.FUTURE + 1000L * r.nextInt(4) : -1000L * (1 + r.nextInt(5));
      stamps.add(ts);
      return ts;
    }

    Op.Put put(String row) {
      Long ts = stamp(50);
      int n = 1 + r.nextInt(3);
      List<String> cells = new ArrayList<>();
      Set<String> used = new HashSet<>();
      for (int i = 0; i < n; i++) {
        Column c = column();
        if (!used.add(c.name())) continue;
        cells.add(c.name());
        cells.add(value(c));
      }
      return new Op.Put(row, ts, List.copyOf(cells));
    }

    Op.Write deleteRow(String row) {
      Long ts = stamp(70);
      return new Op.DeleteRow(row, ts);
    }

    Op deleteFamily() {
      String row = row();
      String family = schema.families().get(r.nextInt(schema.families().size())).name();
      Long ts = stamp(70);
      return new Op.DeleteFamily(row, family, ts);
    }

    Op.Write deleteColumns(String row) {
      String column = column().name();
      Long ts = stamp(70);
      return new Op.DeleteColumns(row, column, ts);
    }

    Op refused() {
      List<Column> watched =
          schema.columns().stream().filter(c -> schema.watched(c.name())).toList();
      Column c = watched.get(r.nextInt(watched.size()));
      String row = row();
      return switch (r.nextInt(6)) {
        case 0 -> new Op.DeleteVersion(row, c.name(), r.nextBoolean() ? null : stamp(0));
        case 1 -> new Op.DeleteFamilyVersion(row, c.name(), -1000L * (1 + r.nextInt(5)));
        case 2 -> new Op.Increment(row, c.name());
        case 3 -> new Op.Append(row, c.name(), value(c));
        case 4 -> new Op.PutWithTtl(row, c.name(), value(c));
        default -> new Op.PutWithVisibility(row, c.name(), value(c));
      };
    }

    /** Puts and deletes; on one row half of the time, so that they meet in one mini-batch. */
    List<Op.Write> mixed(String row, int n) {
      List<Op.Write> writes = new ArrayList<>();
      List<String> rows = new ArrayList<>();
      for (int i = 0; i < n; i++) rows.add(row != null ? row : row());
      // Deletes first: the puts of one batch share the server's stamp with them.
      List<Integer> kinds = new ArrayList<>();
      for (int i = 0; i < n; i++) kinds.add(r.nextInt(4));
      Op.Write[] out = new Op.Write[n];
      for (int i = 0; i < n; i++) {
        if (kinds.get(i) == 0) out[i] = deleteColumns(rows.get(i));
        if (kinds.get(i) == 1) out[i] = deleteRow(rows.get(i));
      }
      for (int i = 0; i < n; i++) if (out[i] == null) out[i] = put(rows.get(i));
      writes.addAll(List.of(out));
      return writes;
    }

    Op batch() {
      return new Op.Batch(mixed(r.nextBoolean() ? row() : null, 2 + r.nextInt(3)));
    }

    Op mutations() {
      String row = row();
      return new Op.Mutations(row, mixed(row, 2 + r.nextInt(2)));
    }

    Op checkAndPut() {
      String row = row();
      Column c = column();
      String expected = r.nextInt(3) == 0 ? null : value(c);
      return new Op.CheckAndPut(row, c.name(), expected, put(row));
    }

    Op event() {
      List<Index> global = schema.indexes().stream().filter(Index::global).toList();
      Index any = schema.indexes().get(r.nextInt(schema.indexes().size()));
      Index g = global.get(r.nextInt(global.size()));
      return switch (r.nextInt(15)) {
        case 0, 1 -> new Op.Flush();
        case 2 -> new Op.MajorCompact();
        case 3 -> new Op.SplitData(row());
        case 4 -> new Op.SplitIndex(g.alias());
        case 5 -> new Op.Move(r.nextBoolean() ? g.alias() : null);
        case 6 -> switchConsistency(g.alias());
        case 7 -> new Op.RecreateIndex(any.alias());
        case 8 -> new Op.Rebuild(g.alias());
        case 9 -> eventualNow.get(g.alias()) ? null : new Op.Repair(g.alias());
        case 10 -> new Op.DisableEnable();
        case 11 -> alter();
        case 12 -> new Op.RollWal();
        case 13 -> new Op.Merge(r.nextBoolean() ? g.alias() : null);
        default -> truncate();
      };
    }

    /**
     * A family's VERSIONS, TTL, MIN_VERSIONS, KEEP_DELETED_CELLS or NEW_VERSION_BEHAVIOR changed
     * while indexed.
     */
    Op alter() {
      List<Family> families = schema.families();
      Family f = familiesNow.get(families.get(r.nextInt(families.size())).name());
      Op.AlterFamily op =
          switch (r.nextInt(5)) {
            case 0 -> new Op.AlterFamily(f.name(), "VERSIONS", f.versions() == 1 ? 3 : 1);
            case 1 ->
                new Op.AlterFamily(
                    f.name(), "TTL", f.ttlSeconds() != 0 && r.nextBoolean() ? 0 : 3 + r.nextInt(3));
            case 2 -> new Op.AlterFamily(f.name(), "MIN_VERSIONS", 1 - f.minVersions());
            case 3 ->
                new Op.AlterFamily(f.name(), "KEEP_DELETED_CELLS", f.keepDeletedCells() ? 0 : 1);
            default ->
                new Op.AlterFamily(
                    f.name(), "NEW_VERSION_BEHAVIOR", f.newVersionBehavior() ? 0 : 1);
          };
      Family to = f.with(op.setting(), op.value());
      if (schema.watchesFamily(f.name()) && f.alterRefused(op.setting(), op.value())) {
        return op; // refused: the family stays as it is
      }
      if (to.ttlSeconds() > 0) expiring = true;
      familiesNow.put(f.name(), to);
      return op;
    }

    Op switchConsistency(String alias) {
      boolean toEventual = !eventualNow.get(alias);
      eventualNow.put(alias, toEventual);
      return new Op.SetConsistency(alias, toEventual);
    }

    Op truncate() {
      return new Op.Truncate();
    }
  }
}
