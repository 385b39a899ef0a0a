package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.IndexSpec.ValueType;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.testing.MiniCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Typed index columns on one region server. The same rows go to three tables whose indexes are
 * global {@code BY_VALUE}, global {@code BY_ROW} and local, one index per column of each {@link
 * ValueType} but {@code BYTES}: negatives, -0.0 and 0.0, NaNs of several encodings, infinities, the
 * integer extremes, BIG_DECIMALs at several scales, strings beyond the BMP, and many rows per
 * value. Every range and point is checked against an oracle comparing the Java values; then a
 * composite typed index, an AND of typed conditions, refused writes of invalid encodings, and a
 * typed index over rows that already hold invalid values (queried while building, by a data scan;
 * backfilled, counted, verified; planned as a scan on an {@code ORDERED} index).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TypedIndexClusterTest {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] AMOUNT = Bytes.toBytes("amount");
  static final TableName BY_VALUE = TableName.valueOf("typed_by_value");
  static final TableName BY_ROW = TableName.valueOf("typed_by_row");
  static final TableName LOCAL = TableName.valueOf("typed_local");
  static final int ROWS = 600;

  /** Rows whose (unindexed until test 5) amount is 3 bytes: not a LONG. */
  static final List<Integer> INVALID_AMOUNTS = List.of(7, 250, 513);

  /** A pair of range bounds, {@code lo <= v < hi}; null is unbounded. */
  record Bounds<T>(T lo, T hi) {}

  /** One typed column: its values as the tables hold them (the oracle), their order and bytes. */
  static final class Col<T> {
    final byte[] qualifier;
    final ValueType type;
    final Comparator<T> order;
    final Function<T, byte[]> raw;
    final List<T> specials;
    final Function<Random, T> common;
    final List<Bounds<T>> ranges;
    final List<T> points;
    final Map<String, T> rows = new TreeMap<>();

    Col(
        String name,
        ValueType type,
        Comparator<T> order,
        Function<T, byte[]> raw,
        List<T> specials,
        Function<Random, T> common,
        List<Bounds<T>> ranges,
        List<T> points) {
      this.qualifier = Bytes.toBytes(name);
      this.type = type;
      this.order = order;
      this.raw = raw;
      this.specials = specials;
      this.common = common;
      this.ranges = ranges;
      this.points = points;
    }

    String name() {
      return Bytes.toString(qualifier);
    }

    /** Every 10th row holds a special value (each several times); the others few common ones. */
    byte[] next(String row, int i, Random random) {
      T v = i % 10 == 0 ? specials.get(i / 10 % specials.size()) : common.apply(random);
      rows.put(row, v);
      return raw.apply(v);
    }

    byte[] bytes(T v) {
      return v == null ? null : raw.apply(v);
    }

    List<String> where(Predicate<T> test) {
      List<String> out = new ArrayList<>();
      rows.forEach(
          (r, v) -> {
            if (test.test(v)) out.add(r);
          });
      return out;
    }

    List<String> in(T lo, T hi) {
      return where(
          v ->
              (lo == null || order.compare(v, lo) >= 0)
                  && (hi == null || order.compare(v, hi) < 0));
    }

    List<String> equalTo(T value) {
      return where(v -> order.compare(v, value) == 0);
    }
  }

  /** UTF-8's byte order: code points, not Java's UTF-16 units (U+FFFD sorts before U+1F600). */
  static int byCodePoint(String a, String b) {
    return Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray());
  }

  static final double NAN_PAYLOAD = Double.longBitsToDouble(0x7ff8000000000123L);
  static final double NAN_NEGATIVE = Double.longBitsToDouble(0xfff8000000000000L);
  static final float FLOAT_NAN_PAYLOAD = Float.intBitsToFloat(0x7fc00123);

  static BigDecimal dec(String text) {
    return new BigDecimal(text);
  }

  final Col<Long> longs =
      new Col<>(
          "long",
          ValueType.LONG,
          Long::compare,
          v -> Bytes.toBytes((long) v),
          List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, 1L, Long.MAX_VALUE),
          r -> (long) (r.nextInt(81) - 40),
          List.of(
              new Bounds<>(-10L, 10L),
              new Bounds<>(-40L, -20L),
              new Bounds<>(null, -5L),
              new Bounds<>(5L, null),
              new Bounds<>(Long.MIN_VALUE, Long.MIN_VALUE + 1),
              new Bounds<>(Long.MAX_VALUE, null),
              new Bounds<>(-1L, 0L),
              new Bounds<>(null, null)),
          List.of(Long.MIN_VALUE, Long.MAX_VALUE, -1L, 0L, -33L, 12_345L));

  final Col<Integer> ints =
      new Col<>(
          "int",
          ValueType.INT,
          Integer::compare,
          v -> Bytes.toBytes((int) v),
          List.of(Integer.MIN_VALUE, -1, 0, 1, Integer.MAX_VALUE),
          r -> r.nextInt(81) - 40,
          List.of(
              new Bounds<>(-10, 10),
              new Bounds<>(-40, -20),
              new Bounds<>(null, -5),
              new Bounds<>(5, null),
              new Bounds<>(Integer.MIN_VALUE, Integer.MIN_VALUE + 1),
              new Bounds<>(Integer.MAX_VALUE, null),
              new Bounds<>(null, null)),
          List.of(Integer.MIN_VALUE, Integer.MAX_VALUE, -1, 0, -17, 12_345));

  final Col<Double> doubles =
      new Col<>(
          "double",
          ValueType.DOUBLE,
          Double::compare,
          v -> Bytes.toBytes((double) v),
          List.of(
              -0.0,
              0.0,
              Double.NaN,
              NAN_PAYLOAD,
              NAN_NEGATIVE,
              Double.NEGATIVE_INFINITY,
              Double.POSITIVE_INFINITY,
              -Double.MIN_VALUE,
              Double.MIN_VALUE,
              -Double.MAX_VALUE,
              Double.MAX_VALUE),
          r -> (r.nextInt(161) - 80) / 4.0,
          List.of(
              new Bounds<>(-10.0, 10.0),
              new Bounds<>(-15.5, -5.25),
              new Bounds<>(null, -5.0),
              new Bounds<>(5.0, null),
              new Bounds<>(-0.0, 0.0), // -0.0 alone
              new Bounds<>(0.0, Double.MIN_VALUE), // 0.0 alone
              new Bounds<>(-Double.MIN_VALUE, Double.MIN_VALUE), // both zeros and -MIN_VALUE
              new Bounds<>(Double.POSITIVE_INFINITY, null), // +Infinity and every NaN
              new Bounds<>(Double.NaN, null), // every NaN
              new Bounds<>(Double.NEGATIVE_INFINITY, -Double.MAX_VALUE),
              new Bounds<>(null, null)),
          List.of(-0.0, 0.0, Double.NaN, NAN_NEGATIVE, Double.NEGATIVE_INFINITY, -7.25, 0.3));

  final Col<Float> floats =
      new Col<>(
          "float",
          ValueType.FLOAT,
          Float::compare,
          v -> Bytes.toBytes((float) v),
          List.of(
              -0.0f,
              0.0f,
              Float.NaN,
              FLOAT_NAN_PAYLOAD,
              Float.NEGATIVE_INFINITY,
              Float.POSITIVE_INFINITY,
              -Float.MIN_VALUE,
              Float.MAX_VALUE),
          r -> (r.nextInt(161) - 80) / 4.0f,
          List.of(
              new Bounds<>(-10.0f, 10.0f),
              new Bounds<>(-15.5f, -5.25f),
              new Bounds<>(null, -5.0f),
              new Bounds<>(5.0f, null),
              new Bounds<>(-0.0f, 0.0f),
              new Bounds<>(0.0f, Float.MIN_VALUE),
              new Bounds<>(Float.POSITIVE_INFINITY, null),
              new Bounds<>(null, null)),
          List.of(-0.0f, 0.0f, Float.NaN, Float.POSITIVE_INFINITY, 19.75f, 0.3f));

  final Col<BigDecimal> decimals =
      new Col<>(
          "decimal",
          ValueType.BIG_DECIMAL,
          BigDecimal::compareTo,
          Bytes::toBytes,
          List.of(
              dec("1"),
              dec("1.0"),
              dec("1.00"),
              dec("0"),
              dec("0.000"),
              dec("-1.5"),
              dec("-1.50"),
              dec("1e100"),
              dec("-1e100"),
              dec("-123456789012345678901234567890.123456789"),
              dec("1e-30"),
              dec("-1e-30")),
          // Few values at three scales: 5, 0.50 and 0.050 differ; 0.5 and 0.50 do not.
          r -> BigDecimal.valueOf(r.nextInt(161) - 80, r.nextInt(3)),
          List.of(
              new Bounds<>(dec("-10"), dec("10")),
              new Bounds<>(dec("-40"), dec("-20")),
              new Bounds<>(null, dec("-5")),
              new Bounds<>(dec("5"), null),
              new Bounds<>(dec("1.0"), dec("1.000001")),
              new Bounds<>(dec("0"), dec("1e-29")),
              new Bounds<>(null, dec("-1e50")),
              new Bounds<>(null, null)),
          List.of(dec("1.0"), dec("0.00"), dec("-1.5"), dec("1E+100"), dec("0.5"), dec("0.333")));

  final Col<String> strings =
      new Col<>(
          "string",
          ValueType.STRING,
          TypedIndexClusterTest::byCodePoint,
          Bytes::toBytes,
          List.of("a", "Z", "é", "\uFFFD", "\uD83D\uDE00", "日本", "zz"),
          r -> "w" + r.nextInt(20),
          List.of(
              new Bounds<>("a", "b"),
              new Bounds<>(null, "m"),
              new Bounds<>("\uFFFD", null), // U+FFFD and U+1F600, which Java's order swaps
              new Bounds<>("w1", "w2"),
              new Bounds<>(null, null)),
          List.of("\uD83D\uDE00", "é", "w7", "absent"));

  final List<Col<?>> cols = List.of(longs, ints, doubles, floats, decimals, strings);
  final Map<String, Long> amounts = new TreeMap<>();
  final Random random = new Random(38);

  HBaseTestingUtility util;
  Connection connection;
  IndexAdmin admin;
  final Map<TableName, IndexedTable> tables = new ConcurrentSkipListMap<>();

  static String row(int i) {
    return String.format("r%04d", i);
  }

  @BeforeAll
  void startCluster() throws Exception {
    util = MiniCluster.start(1);
    connection = util.getConnection();
    admin = new IndexAdmin(connection);
    // One table at a time per thread: each index rewrites its table's descriptor.
    List<CompletableFuture<Void>> created = new ArrayList<>();
    for (TableName name : List.of(BY_VALUE, BY_ROW, LOCAL)) {
      created.add(
          CompletableFuture.runAsync(
              () -> {
                try {
                  createIndexedTable(name);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              }));
    }
    CompletableFuture.allOf(created.toArray(CompletableFuture[]::new)).get();
    List<Put> puts = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      String r = row(i);
      Put p = new Put(Bytes.toBytes(r));
      for (Col<?> c : cols) p.addColumn(D, c.qualifier, c.next(r, i, random));
      if (INVALID_AMOUNTS.contains(i)) {
        p.addColumn(D, AMOUNT, new byte[] {1, 2, 3});
      } else {
        long amount = random.nextInt(201) - 100;
        amounts.put(r, amount);
        p.addColumn(D, AMOUNT, Bytes.toBytes(amount));
      }
      puts.add(p);
    }
    for (TableName name : tables.keySet()) {
      try (Table t = connection.getTable(name)) {
        t.put(puts);
      }
    }
    MiniCluster.awaitRoutingBound(System.currentTimeMillis()); // BY_ROW's publication
  }

  /** The table, its index of every typed column, and BY_VALUE's composite index. */
  void createIndexedTable(TableName name) throws IOException {
    try (Admin hbase = connection.getAdmin()) {
      hbase.createTable(
          TableDescriptorBuilder.newBuilder(name)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          new byte[][] {Bytes.toBytes(row(200)), Bytes.toBytes(row(400))});
    }
    for (Col<?> c : cols) admin.createIndex(name, spec(name, c.qualifier, c.name(), c.type));
    if (name.equals(BY_VALUE)) {
      admin.createIndex(
          BY_VALUE,
          IndexSpec.builder(D, longs.qualifier)
              .type(ValueType.LONG)
              .thenColumn(D, strings.qualifier, ValueType.STRING)
              .alias("long_string")
              .buckets(1)
              .build());
    }
    tables.put(name, new IndexedTable(connection, name));
  }

  static IndexSpec spec(TableName table, byte[] qualifier, String alias, ValueType type) {
    IndexSpec.Builder b = IndexSpec.builder(D, qualifier).alias(alias).type(type);
    if (table.equals(LOCAL)) return b.local().build();
    if (table.equals(BY_ROW)) return b.layout(IndexSpec.Layout.BY_ROW).buckets(2).build();
    return b.layout(IndexSpec.Layout.BY_VALUE).buckets(2).build();
  }

  @AfterAll
  void stopCluster() throws Exception {
    for (IndexedTable t : tables.values()) t.close();
    if (util != null) util.shutdownMiniCluster();
  }

  static List<String> rows(List<Result> results) {
    List<String> out = new ArrayList<>();
    for (Result r : results) out.add(Bytes.toString(r.getRow()));
    out.sort(null);
    return out;
  }

  <T> void assertRanges(TableName name, Col<T> c) throws Exception {
    for (Bounds<T> b : c.ranges) {
      List<String> got = rows(tables.get(name).range(D, c.qualifier, c.bytes(b.lo), c.bytes(b.hi)));
      assertEquals(
          c.in(b.lo, b.hi), got, name + " " + c.type + " range [" + b.lo + ", " + b.hi + ")");
    }
  }

  <T> void assertPoints(TableName name, Col<T> c) throws Exception {
    for (T v : c.points) {
      List<String> got = rows(tables.get(name).find(D, c.qualifier, c.bytes(v)));
      assertEquals(c.equalTo(v), got, name + " " + c.type + " find " + v);
    }
  }

  @Test
  @Order(1)
  void everyTypedRangeMatchesTheOracle() throws Exception {
    for (TableName name : tables.keySet()) {
      for (Col<?> c : cols) {
        assertRanges(name, c);
      }
    }
    // The oracle is not vacuous: the ranges that split signed values meet both signs.
    List<String> acrossZero = longs.in(-10L, 10L);
    assertTrue(longs.in(-10L, 0L).size() > 10 && acrossZero.size() > 2 * 10, acrossZero.toString());
    assertEquals(
        List.of(-Double.MIN_VALUE, -0.0, 0.0),
        doubles.in(-Double.MIN_VALUE, Double.MIN_VALUE).stream()
            .map(doubles.rows::get)
            .distinct()
            .sorted(Double::compare)
            .toList());
  }

  @Test
  @Order(2)
  void everyTypedPointMatchesTheOracle() throws Exception {
    for (TableName name : tables.keySet()) {
      for (Col<?> c : cols) assertPoints(name, c);
      // 1.0 finds the rows written 1, 1.00 (value equality), and NaN every NaN's encoding.
      List<String> one =
          rows(tables.get(name).find(D, decimals.qualifier, Bytes.toBytes(dec("1.0"))));
      assertTrue(
          one.containsAll(decimals.where(v -> v.scale() == 2 && v.compareTo(dec("1")) == 0)));
      assertTrue(
          one.containsAll(decimals.where(v -> v.scale() == 0 && v.compareTo(dec("1")) == 0)));
      List<String> nan =
          rows(tables.get(name).find(D, doubles.qualifier, Bytes.toBytes(Double.NaN)));
      assertTrue(
          nan.containsAll(
              doubles.where(
                  v -> Double.doubleToRawLongBits(v) == Double.doubleToRawLongBits(NAN_NEGATIVE))),
          nan.toString());
    }
  }

  @Test
  @Order(3)
  void aCompositeTypedIndexAndATypedAnd() throws Exception {
    IndexedTable t = tables.get(BY_VALUE);
    long v = -3;
    for (Bounds<String> b :
        List.of(new Bounds<>(null, "w5"), new Bounds<>("w5", null), new Bounds<>("a", "w3"))) {
      List<String> expected = new ArrayList<>(longs.equalTo(v));
      expected.retainAll(strings.in(b.lo, b.hi));
      List<String> got =
          rows(
              t.range(
                  "long_string",
                  List.of(Bytes.toBytes(v)),
                  strings.bytes(b.lo),
                  strings.bytes(b.hi)));
      assertEquals(expected, got, "long = " + v + ", string in [" + b.lo + ", " + b.hi + ")");
    }
    assertEquals(
        longs.in(-10L, 10L),
        rows(t.range("long_string", List.of(), Bytes.toBytes(-10L), Bytes.toBytes(10L))));
    String some = row(123);
    List<String> expected = new ArrayList<>(longs.equalTo(longs.rows.get(some)));
    expected.retainAll(strings.equalTo(strings.rows.get(some)));
    assertEquals(
        expected,
        rows(
            t.find(
                "long_string",
                Bytes.toBytes(longs.rows.get(some)),
                Bytes.toBytes(strings.rows.get(some)))));

    // long IN (x, -1) AND double IN (-0.0, NaN), x the long of a row holding -0.0.
    long x = longs.rows.get(doubles.equalTo(-0.0).get(0));
    List<String> and = new ArrayList<>(longs.where(l -> l == x || l == -1));
    and.retainAll(doubles.where(d -> Double.compare(d, -0.0) == 0 || Double.isNaN(d)));
    assertFalse(and.isEmpty());
    for (IndexedTable table : tables.values()) {
      assertEquals(
          and,
          rows(
              table.find(
                  Condition.in(D, longs.qualifier, Bytes.toBytes(x), Bytes.toBytes(-1L)),
                  Condition.in(
                      D, doubles.qualifier, Bytes.toBytes(-0.0), Bytes.toBytes(Double.NaN)))));
    }
  }

  @Test
  @Order(4)
  void invalidEncodingsAreRefusedAndLoseNothingElse() throws Exception {
    long ack = 0;
    for (TableName name : tables.keySet()) {
      try (Table t = connection.getTable(name)) {
        DoNotRetryIOException single =
            assertThrows(
                DoNotRetryIOException.class,
                () ->
                    t.put(
                        new Put(Bytes.toBytes("bad"))
                            .addColumn(D, longs.qualifier, new byte[] {1, 2, 3})));
        assertTrue(
            single.getMessage().contains("d:long") && single.getMessage().contains("LONG"),
            single.getMessage());
        // In one batch with a valid row: only the invalid one is refused.
        Put valid = new Put(Bytes.toBytes("r9999"));
        for (Col<?> c : cols) valid.addColumn(D, c.qualifier, validOf(c));
        Put invalid =
            new Put(Bytes.toBytes("r9998"))
                .addColumn(D, strings.qualifier, new byte[] {(byte) 0xff, 'x'});
        RetriesExhaustedWithDetailsException batch =
            assertThrows(
                RetriesExhaustedWithDetailsException.class, () -> t.put(List.of(valid, invalid)));
        assertEquals(1, batch.getNumExceptions());
        Throwable cause = batch.getCause(0);
        assertInstanceOf(DoNotRetryIOException.class, cause);
        assertTrue(
            cause.getMessage().contains("d:string") && cause.getMessage().contains("STRING"),
            cause.getMessage());
        assertTrue(t.get(new Get(Bytes.toBytes("r9998"))).isEmpty());
        assertTrue(t.get(new Get(Bytes.toBytes("bad"))).isEmpty());
        ack = System.currentTimeMillis();
      }
    }
    longs.rows.put("r9999", 777_777L);
    ints.rows.put("r9999", -777_777);
    doubles.rows.put("r9999", -777.5);
    floats.rows.put("r9999", -777.5f);
    decimals.rows.put("r9999", dec("-777.50"));
    strings.rows.put("r9999", "r9999");
    MiniCluster.awaitRoutingBound(ack);
    for (TableName name : tables.keySet()) {
      assertEquals(
          List.of("r9999"),
          rows(tables.get(name).find(D, longs.qualifier, Bytes.toBytes(777_777L))),
          name.toString());
      for (Col<?> c : cols) assertRanges(name, c);
    }
  }

  /** The values r9999 holds in the test above, far from every other row's. */
  byte[] validOf(Col<?> c) {
    return switch (c.type) {
      case LONG -> Bytes.toBytes(777_777L);
      case INT -> Bytes.toBytes(-777_777);
      case DOUBLE -> Bytes.toBytes(-777.5);
      case FLOAT -> Bytes.toBytes(-777.5f);
      case BIG_DECIMAL -> Bytes.toBytes(dec("-777.50"));
      default -> Bytes.toBytes("r9999");
    };
  }

  List<String> amountsIn(Long lo, Long hi) {
    List<String> out = new ArrayList<>();
    amounts.forEach(
        (r, a) -> {
          if ((lo == null || a >= lo) && (hi == null || a < hi)) out.add(r);
        });
    return out;
  }

  static byte[] l(Long v) {
    return v == null ? null : Bytes.toBytes(v);
  }

  static final Long[][] AMOUNT_RANGES = {{-10L, 10L}, {null, 0L}, {0L, null}, {-90L, -50L}};

  @Test
  @Order(5)
  void rowsHoldingInvalidValuesAreScannedBuiltCountedAndVerifiedWithoutFindings() throws Exception {
    admin.defineIndex(BY_VALUE, spec(BY_VALUE, AMOUNT, "amount", ValueType.LONG));
    try (IndexedTable t = new IndexedTable(connection, BY_VALUE)) { // sees the new index
      // Building: queries scan the table, testing the typed value in the region servers.
      for (Long[] r : AMOUNT_RANGES) {
        assertEquals(amountsIn(r[0], r[1]), rows(t.range(D, AMOUNT, l(r[0]), l(r[1]))));
        assertTrue(t.lastTrace().kind().contains("index building"), t.lastTrace().toString());
      }
      long some = amounts.get(row(42));
      assertEquals(amountsIn(some, some + 1), rows(t.find(D, AMOUNT, Bytes.toBytes(some))));
      assertTrue(t.lastTrace().kind().contains("index building"), t.lastTrace().toString());

      BuildProgress built = admin.rebuildIndex(BY_VALUE, "amount", BuildProgress.Listener.NONE);
      assertEquals(INVALID_AMOUNTS.size(), built.invalidRows(), built.toString());
      assertTrue(built.toString().contains("3 not indexed"), built.toString());
      for (Long[] r : AMOUNT_RANGES) {
        // Answered by the index, or by a scan the planner chose: either way not "building".
        assertEquals(amountsIn(r[0], r[1]), rows(t.range(D, AMOUNT, l(r[0]), l(r[1]))));
        assertFalse(t.lastTrace().kind().contains("building"), t.lastTrace().toString());
      }
      VerifyReport report = admin.verify(BY_VALUE, "amount");
      assertTrue(report.isConsistent(), report.toString());
      assertEquals(ROWS - INVALID_AMOUNTS.size(), report.indexRows(), report.toString());
    }

    // ORDERED beside it: a wide range is planned as a scan once scans are cheap.
    BuildProgress ordered =
        admin.createIndex(
            BY_VALUE,
            IndexSpec.builder(D, AMOUNT)
                .alias("amount_ordered")
                .type(ValueType.LONG)
                .layout(IndexSpec.Layout.ORDERED)
                .build(),
            BuildProgress.Listener.NONE);
    assertEquals(INVALID_AMOUNTS.size(), ordered.invalidRows(), ordered.toString());
    Configuration cheapScans = new Configuration(util.getConfiguration());
    cheapScans.setDouble(Settings.PLANNER_SCAN_ROW_US, 1e-6);
    try (Connection scanning = ConnectionFactory.createConnection(cheapScans);
        IndexedTable s = new IndexedTable(scanning, BY_VALUE)) {
      for (Long[] r : AMOUNT_RANGES) {
        assertEquals(
            amountsIn(r[0], r[1]),
            rows(s.range("amount_ordered", List.of(), l(r[0]), l(r[1]))),
            "[" + r[0] + ", " + r[1] + ")");
      }
      s.range("amount_ordered", List.of(), null, null);
      assertTrue(s.lastTrace().kind().contains("planned"), s.lastTrace().toString());
    }
  }
}
