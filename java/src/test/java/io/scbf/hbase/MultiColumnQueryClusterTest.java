package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * IN and AND queries ({@link IndexedTable#find(Condition...)}) over a global and a local index,
 * against the rows generated (and a full scan): with the planner (a popular condition alone is
 * scanned, selective ones intersect their row keys before any row is read) and with the index
 * forced.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiColumnQueryClusterTest {
  static final TableName TABLE = TableName.valueOf("multi");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city"); // global
  static final byte[] ZIP = Bytes.toBytes("zip"); // local
  static final byte[] AGE = Bytes.toBytes("age"); // global
  static final byte[] NAME = Bytes.toBytes("name"); // not indexed
  static final int ROWS = 2000;

  HBaseTestingUtility util;
  Connection indexOnly;

  static String city(int i) {
    return i % 4 == 0 ? "big" : "c" + i % 50;
  }

  static String zip(int i) {
    return "z" + i % 7;
  }

  static String age(int i) {
    return "a" + i % 13;
  }

  static byte[] b(String s) {
    return Bytes.toBytes(s);
  }

  static byte[] row(int i) {
    return Bytes.toBytes(String.format("row-%05d", i));
  }

  @BeforeAll
  void start() throws Exception {
    util = MiniCluster.start(2);
    try (Admin admin = util.getConnection().getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          new byte[][] {row(ROWS / 2)});
    }
    IndexAdmin indexes = new IndexAdmin(util.getConnection());
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, CITY)
            .alias("city")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(4)
            .build());
    indexes.createIndex(TABLE, IndexSpec.builder(D, ZIP).alias("zip").local().build());
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, AGE).alias("age").layout(IndexSpec.Layout.BY_ROW).buckets(2).build());
    List<Put> puts = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      puts.add(
          new Put(row(i))
              .addColumn(D, CITY, b(city(i)))
              .addColumn(D, ZIP, b(zip(i)))
              .addColumn(D, AGE, b(age(i)))
              .addColumn(D, NAME, b("n" + i)));
    }
    try (Table t = util.getConnection().getTable(TABLE)) {
      t.put(puts);
    }
    Configuration conf = new Configuration(util.getConfiguration());
    conf.set(Settings.PLANNER, "index");
    indexOnly = ConnectionFactory.createConnection(conf);
    Thread.sleep(2000); // publications
  }

  @AfterAll
  void stop() throws Exception {
    if (indexOnly != null) indexOnly.close();
    if (util != null) util.shutdownMiniCluster();
  }

  static List<String> expected(IntPredicate p) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) if (p.test(i)) out.add(Bytes.toString(row(i)));
    return out;
  }

  void assertQueries(IndexedTable t) throws Exception {
    assertEquals(
        expected(i -> city(i).equals("c1") || city(i).equals("c3")),
        Oracle.resultRows(t.find(Condition.in(D, CITY, b("c3"), b("c1"), b("absent"), b("c1")))),
        "IN on a global index");
    assertEquals(
        expected(i -> zip(i).equals("z2") || zip(i).equals("z5")),
        Oracle.resultRows(t.find(Condition.in(D, ZIP, b("z2"), b("z5")))),
        "IN on a local index");
    assertEquals(
        expected(i -> city(i).equals("c1") && zip(i).equals("z3")),
        Oracle.resultRows(t.find(Condition.eq(D, CITY, b("c1")), Condition.eq(D, ZIP, b("z3")))),
        "global AND local");
    assertEquals(
        expected(
            i ->
                city(i).equals("big")
                    && age(i).equals("a5")
                    && (zip(i).equals("z1") || zip(i).equals("z2"))),
        Oracle.resultRows(
            t.find(
                Condition.eq(D, CITY, b("big")),
                Condition.eq(D, AGE, b("a5")),
                Condition.in(D, ZIP, b("z1"), b("z2")))),
        "three conditions");
    assertEquals(
        List.of(),
        Oracle.resultRows(t.find(Condition.eq(D, CITY, b("c1")), Condition.eq(D, CITY, b("c2")))),
        "contradiction");
    Oracle scan = new Oracle(util.getConnection(), TABLE, D, CITY);
    assertEquals(scan.rows(b("big")), Oracle.resultRows(t.find(Condition.eq(D, CITY, b("big")))));
  }

  @Test
  void plannedQueriesMatchTheRowsAndAPopularConditionIsScanned() throws Exception {
    try (IndexedTable t = new IndexedTable(util.getConnection(), TABLE)) {
      for (int i = 0;
          i < 50 && t.explain(D, CITY, b("big")).kind() != QueryPlan.Kind.DATA_SCAN;
          i++) {
        Thread.sleep(200);
      }
      assertQueries(t);
      t.find(Condition.eq(D, CITY, b("big")));
      assertEquals("and-scan (planned)", t.lastTrace().kind(), t.lastTrace().toString());
    }
    // Scans made costly: the index plan with estimates, so the selective conditions intersect.
    Configuration conf = new Configuration(util.getConfiguration());
    conf.setDouble(Settings.PLANNER_SCAN_ROW_US, 1000);
    try (Connection c = ConnectionFactory.createConnection(conf);
        IndexedTable t = new IndexedTable(c, TABLE)) {
      assertQueries(t);
      // a5 (~154 rows) drives; big (500) is within 4x of it, c1 (~30) would drive instead.
      t.find(Condition.eq(D, CITY, b("big")), Condition.eq(D, AGE, b("a5")));
      assertEquals("and (2 of 2 conditions intersected)", t.lastTrace().kind());
      List<Result> rows =
          t.find(
              Condition.eq(D, ZIP, b("z1")),
              Condition.in(D, AGE, b("a5"), b("a6")),
              Condition.eq(D, CITY, b("c1")));
      // c1 (30 rows, estimated ~62: below the heavy threshold, half the bound) drives; z1 (~286)
      // and a5 or a6 (~308) are over 4x larger: only re-checked.
      assertEquals("and (1 of 3 conditions intersected)", t.lastTrace().kind());
      assertEquals(
          expected(
              i ->
                  zip(i).equals("z1")
                      && (age(i).equals("a5") || age(i).equals("a6"))
                      && city(i).equals("c1")),
          Oracle.resultRows(rows));
    }
  }

  @Test
  void indexOnlyQueriesMatchTheRows() throws Exception {
    try (IndexedTable t = new IndexedTable(indexOnly, TABLE)) {
      assertQueries(t);
      assertEquals(QueryPlan.Kind.INDEX_LOOKUP, t.lastTrace().plan().kind());
    }
  }

  @Test
  void badConditionsGetClearErrorsAndUnindexedOnesAreRechecked() throws Exception {
    try (IndexedTable t = new IndexedTable(util.getConnection(), TABLE)) {
      assertThrows(IllegalArgumentException.class, () -> t.find(new Condition[0]));
      // A column without an index: alone it is scanned, beside an indexed one re-checked.
      Condition unindexed = Condition.eq(D, NAME, b("n1"));
      assertEquals(expected(i -> i == 1), Oracle.resultRows(t.find(unindexed)));
      QueryPlan scan = t.explain(unindexed);
      assertEquals(QueryPlan.Kind.DATA_SCAN, scan.kind(), scan.toString());
      assertTrue(scan.reason().contains("d:name has no usable index"), scan.reason());
      assertEquals(
          expected(i -> i == 1),
          Oracle.resultRows(t.find(Condition.eq(D, CITY, b("c1")), unindexed)));
      assertEquals(
          List.of(),
          Oracle.resultRows(t.find(Condition.eq(D, CITY, b("c2")), unindexed)),
          "row 1 is in c1: the unindexed condition is re-checked");
      QueryPlan and = t.explain(Condition.eq(D, CITY, b("c1")), unindexed);
      assertTrue(and.reason().contains("d:city by index 'city'"), and.reason());
      assertThrows(IllegalArgumentException.class, () -> Condition.in(D, CITY));
      assertThrows(IllegalArgumentException.class, () -> Condition.eq(D, CITY, null));
    }
  }

  /**
   * Composite indexes, global (city, age) and local (zip, age), written row by row and partially
   * updated, against a model of the rows: every column equal, the leading ones equal, and a range
   * on the next column; with the planner, the index forced, scans made cheap (the planner scans),
   * and an index being built (queries scan the table until its build).
   */
  @Test
  void compositeIndexesAnswerLikeTheRows() throws Exception {
    TableName table = TableName.valueOf("composite");
    try (Admin admin = util.getConnection().getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(table)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          new byte[][] {row(300)});
    }
    IndexAdmin indexes = new IndexAdmin(util.getConnection());
    indexes.createIndex(
        table,
        IndexSpec.builder(D, CITY)
            .thenColumn(D, AGE)
            .alias("city_age")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(3)
            .build());
    indexes.createIndex(
        table, IndexSpec.builder(D, ZIP).thenColumn(D, AGE).alias("zip_age").local().build());
    int n = 600;
    java.util.Map<String, java.util.Map<String, byte[]>> model = new java.util.TreeMap<>();
    try (Table t = util.getConnection().getTable(table)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        java.util.Map<String, byte[]> cols = new java.util.HashMap<>();
        cols.put("city", b("k" + i % 5));
        cols.put("age", b("b" + i % 7));
        cols.put("zip", b("y" + i % 3));
        model.put(Bytes.toStringBinary(row(i)), cols);
        Put p = new Put(row(i));
        cols.forEach((q, v) -> p.addColumn(D, b(q), v));
        puts.add(p);
      }
      t.put(puts);
      // Partial updates: one column of both composites, then a column removed.
      for (int i = 0; i < 60; i++) {
        t.put(new Put(row(i)).addColumn(D, AGE, b("b9")));
        model.get(Bytes.toStringBinary(row(i))).put("age", b("b9"));
      }
      for (int i = 60; i < 70; i++) {
        t.delete(new org.apache.hadoop.hbase.client.Delete(row(i)).addColumns(D, CITY));
        model.get(Bytes.toStringBinary(row(i))).remove("city");
      }
      byte[] zeros = {0, 'x', 0};
      t.put(
          new Put(row(n))
              .addColumn(D, CITY, zeros)
              .addColumn(D, AGE, new byte[] {0})
              .addColumn(D, ZIP, zeros));
      model.put(
          Bytes.toStringBinary(row(n)),
          new java.util.HashMap<>(
              java.util.Map.of("city", zeros, "age", new byte[] {0}, "zip", zeros)));
    }
    Thread.sleep(2000); // publications
    indexes.defineIndex(
        table,
        IndexSpec.builder(D, AGE)
            .thenColumn(D, CITY)
            .alias("age_city")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(2)
            .build());

    Configuration cheapScans = new Configuration(util.getConfiguration());
    cheapScans.setDouble(Settings.PLANNER_SCAN_ROW_US, 1e-6);
    try (Connection scanning = ConnectionFactory.createConnection(cheapScans)) {
      for (Connection c : List.of(util.getConnection(), indexOnly, scanning)) {
        try (IndexedTable t = new IndexedTable(c, table)) {
          assertComposites(t, model);
        }
      }
    }
    try (IndexedTable t = new IndexedTable(indexOnly, table)) {
      t.find("age_city", b("b3"), b("k1"));
      assertTrue(t.lastTrace().kind().contains("scan"), "building: " + t.lastTrace());
      indexes.rebuildIndex(table, "age_city");
      assertComposites(t, model);
      t.find("age_city", b("b3"), b("k1"));
      assertTrue(!t.lastTrace().kind().contains("scan"), "built: " + t.lastTrace());
      assertEquals(
          List.of("d:city", "d:age"),
          t.indexes().stream()
              .filter(s -> s.alias().equals("city_age"))
              .findFirst()
              .orElseThrow()
              .columns()
              .stream()
              .map(Object::toString)
              .toList());
      IllegalArgumentException tooMany =
          assertThrows(
              IllegalArgumentException.class, () -> t.find("city_age", b("a"), b("b"), b("c")));
      assertTrue(tooMany.getMessage().contains("got 3 value(s)"), tooMany.getMessage());
      assertThrows(
          IllegalArgumentException.class,
          () -> t.range("city_age", List.of(b("k1"), b("b1")), null, null));
      assertTrue(
          assertThrows(IllegalArgumentException.class, () -> t.find("nope", b("x")))
              .getMessage()
              .contains("no scbf index named 'nope'"));
    }
    for (String alias : List.of("city_age", "age_city")) { // (verify is for global indexes)
      assertTrue(indexes.verify(table, alias).isConsistent(), alias);
    }

    // Each column fits an index row key, the tuple does not: that row's write fails with the
    // reason, the rest of the batch is written, no server aborts.
    byte[] half = new byte[17_000];
    java.util.Arrays.fill(half, (byte) 'x');
    try (Table t = util.getConnection().getTable(table)) {
      org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException failed =
          assertThrows(
              org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException.class,
              () ->
                  t.put(
                      List.of(
                          new Put(row(700)).addColumn(D, CITY, half).addColumn(D, AGE, half),
                          new Put(row(701))
                              .addColumn(D, CITY, b("k1"))
                              .addColumn(D, AGE, b("b9")))));
      assertEquals(1, failed.getNumExceptions());
      assertTrue(
          failed.getCause(0).getMessage().contains("is too large for index"),
          failed.getCause(0).getMessage());
      assertTrue(t.get(new org.apache.hadoop.hbase.client.Get(row(700))).isEmpty());
    }
    try (IndexedTable t = new IndexedTable(indexOnly, table)) {
      assertTrue(
          Oracle.resultRows(t.find("city_age", b("k1"), b("b9")))
              .contains(Bytes.toStringBinary(row(701))));
    }
    for (var rs : util.getMiniHBaseCluster().getRegionServerThreads()) {
      assertTrue(
          !rs.getRegionServer().isAborted(), rs.getRegionServer().getServerName() + " aborted");
    }
  }

  /** The model's rows (sorted keys) whose columns satisfy the test. */
  static List<String> modelRows(
      java.util.Map<String, java.util.Map<String, byte[]>> model,
      java.util.function.Predicate<java.util.Map<String, byte[]>> test) {
    List<String> out = new ArrayList<>();
    model.forEach(
        (row, cols) -> {
          if (test.test(cols)) out.add(row);
        });
    return out;
  }

  static boolean is(java.util.Map<String, byte[]> cols, String column, byte[] value) {
    return cols.get(column) != null && Bytes.equals(cols.get(column), value);
  }

  static boolean in(java.util.Map<String, byte[]> cols, String column, String lo, String hi) {
    byte[] v = cols.get(column);
    return v != null
        && (lo == null || Bytes.compareTo(v, b(lo)) >= 0)
        && (hi == null || Bytes.compareTo(v, b(hi)) < 0);
  }

  static List<String> sorted(List<Result> rows) {
    List<String> out = new ArrayList<>(Oracle.resultRows(rows));
    java.util.Collections.sort(out);
    return out;
  }

  void assertComposites(IndexedTable t, java.util.Map<String, java.util.Map<String, byte[]>> model)
      throws Exception {
    String[][] pairs = {
      {"city_age", "city", "age"}, {"zip_age", "zip", "age"}, {"age_city", "age", "city"}
    };
    for (String[] p : pairs) {
      String alias = p[0];
      String first = p[1];
      String second = p[2];
      byte[] v1 = b(first.equals("age") ? "b9" : first.equals("city") ? "k1" : "y2");
      byte[] v2 = b(second.equals("age") ? "b9" : "k1");
      assertEquals(
          modelRows(model, c -> is(c, first, v1) && is(c, second, v2)),
          sorted(t.find(alias, v1, v2)),
          alias + ": every column equal");
      assertEquals(
          modelRows(model, c -> is(c, first, v1) && c.get(second) != null),
          sorted(t.find(alias, v1)),
          alias + ": the leading column equal");
      assertEquals(
          modelRows(model, c -> is(c, first, v1) && in(c, second, "b2", "k2")),
          sorted(t.range(alias, List.of(v1), b("b2"), b("k2"))),
          alias + ": leading equal, range on the next");
      assertEquals(
          modelRows(model, c -> in(c, first, "b3", "y1") && c.get(second) != null),
          sorted(t.range(alias, List.of(), b("b3"), b("y1"))),
          alias + ": range on the first column");
      assertEquals(
          modelRows(model, c -> c.get(first) != null && c.get(second) != null),
          sorted(t.range(alias, List.of(), null, null)),
          alias + ": every indexed row");
    }
    byte[] zeros = {0, 'x', 0};
    assertEquals(
        List.of(Bytes.toStringBinary(row(600))),
        sorted(t.find("city_age", zeros, new byte[] {0})),
        "values with 0x00 bytes");
    assertEquals(
        List.of(Bytes.toStringBinary(row(600))),
        sorted(t.find("zip_age", zeros)),
        "a leading value with 0x00 bytes");
  }
}
