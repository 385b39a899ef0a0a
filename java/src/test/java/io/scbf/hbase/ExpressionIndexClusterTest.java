package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Expression and partial indexes, global (each layout) and local, some maintained by the write path
 * from the first row and some built over existing rows, against an oracle that computes each
 * function on its own: every value's rows, then again after updates that change case, JSON fields
 * and status, balances across a range WHERE's bound and a column a "present" WHERE needs (moving
 * rows in and out of the WHEREs) and delete rows. The planner uses a partial index only for queries
 * implying its WHERE (an IN or a range within its range, anything on its "present" column) and
 * answers the others right without it; verify finds the global ones consistent, a partial index
 * holding exactly the rows its WHERE selects.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExpressionIndexClusterTest {
  static final TableName TABLE = TableName.valueOf("expr");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] EMAIL = Bytes.toBytes("email");
  static final byte[] DOC = Bytes.toBytes("doc");
  static final byte[] TS = Bytes.toBytes("ts");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] STATUS = Bytes.toBytes("status");
  static final byte[] BAL = Bytes.toBytes("bal");
  static final byte[] FLAG = Bytes.toBytes("flag");
  static final long HOUR = 3_600_000L;
  static final long BASE = 1_700_000_000_000L;
  static final int ROWS = 600;

  /** The WHERE of {@code city_solvent}: a balance of at least 0, in int order. */
  static final Condition SOLVENT =
      Condition.range(D, BAL, Bytes.toBytes(0), true, null, false, IndexSpec.ValueType.INT);

  HBaseTestingUtility util;
  IndexedTable table;

  /** The oracle: each row's current columns. */
  final Map<String, Map<String, byte[]>> model = new TreeMap<>();

  static byte[] b(String s) {
    return Bytes.toBytes(s);
  }

  static String row(int i) {
    return String.format("row-%04d", i);
  }

  static String email(int i, int variant) {
    String e = "User" + (i % 40) + "@Example.COM";
    return switch ((i + variant) % 3) {
      case 0 -> e;
      case 1 -> e.toUpperCase(Locale.ROOT);
      default -> e.toLowerCase(Locale.ROOT);
    };
  }

  static String doc(int i, int variant) {
    int k = (i + variant) % 10;
    if (k == 9) return "{\"user\": {\"name\": \"broken\""; // malformed
    if (k == 8) return "{\"other\": 1}"; // no such path
    return "{\"id\": " + i + ", \"user\": {\"name\": \"n" + (i + variant) % 20 + "\"}}";
  }

  /** An int in [-50, 50], some rows' on either side of 0 and its sign changing with the variant. */
  static int balance(int i, int variant) {
    return (i + variant) * 37 % 101 - 50;
  }

  static String status(int i, int variant) {
    int k = (i + variant) % 20;
    return k < 2 ? "ACTIVE" : k == 2 ? "PENDING" : "IDLE";
  }

  @BeforeAll
  void start() throws Exception {
    util = MiniCluster.start(1);
    try (Admin admin = util.getConnection().getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          new byte[][] {b(row(ROWS / 2))});
    }
    IndexAdmin indexes = new IndexAdmin(util.getConnection());
    // Maintained by the write path from the first row.
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, EMAIL)
            .alias("email_lc")
            .type(IndexSpec.ValueType.STRING)
            .expression(IndexExpression.lower())
            .build());
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, CITY)
            .alias("city_active")
            .where(Condition.eq(D, STATUS, b("ACTIVE")))
            .build());
    indexes.createIndex(
        TABLE, IndexSpec.builder(D, CITY).alias("city_solvent").where(SOLVENT).build());
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, DOC)
            .alias("doc_name")
            .local()
            .expression(IndexExpression.jsonPath("$.user.name").then(IndexExpression.upper()))
            .build());
    List<Mutation> load = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      load.add(
          write(i, email(i, 0), doc(i, 0), BASE + i * 7 * 60_000L, "c" + i % 10, status(i, 0)));
    }
    apply(load);
    // Built over the rows already there (the online backfill).
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, TS)
            .alias("hour")
            .layout(IndexSpec.Layout.ORDERED)
            .type(IndexSpec.ValueType.LONG)
            .expression(IndexExpression.truncate(HOUR))
            .build());
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, EMAIL)
            .alias("email_end")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(4)
            .expression(IndexExpression.reverse().then(IndexExpression.prefix(5)))
            .build());
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, CITY)
            .alias("city_open")
            .local()
            .where(Condition.in(D, STATUS, b("ACTIVE"), b("PENDING")))
            .build());
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, CITY)
            .alias("city_flagged")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(4)
            .where(Condition.present(D, FLAG))
            .build());
    table = new IndexedTable(util.getConnection(), TABLE);
    MiniCluster.awaitRoutingBound(System.currentTimeMillis());
  }

  @AfterAll
  void stop() throws Exception {
    if (table != null) table.close();
    if (util != null) util.shutdownMiniCluster();
  }

  Put write(int i, String email, String doc, long ts, String city, String status) {
    Map<String, byte[]> cols = model.computeIfAbsent(row(i), r -> new TreeMap<>());
    cols.put("email", b(email));
    cols.put("doc", b(doc));
    cols.put("ts", Bytes.toBytes(ts));
    cols.put("city", b(city));
    cols.put("status", b(status));
    cols.put("bal", Bytes.toBytes(balance(i, 0)));
    if (i % 3 == 0) cols.put("flag", b("y"));
    Put put = new Put(b(row(i)));
    if (i % 3 == 0) put.addColumn(D, FLAG, b("y"));
    return put.addColumn(D, BAL, Bytes.toBytes(balance(i, 0)))
        .addColumn(D, EMAIL, b(email))
        .addColumn(D, DOC, b(doc))
        .addColumn(D, TS, Bytes.toBytes(ts))
        .addColumn(D, CITY, b(city))
        .addColumn(D, STATUS, b(status));
  }

  Put set(int i, byte[] qualifier, String value) {
    return set(i, qualifier, b(value));
  }

  Put set(int i, byte[] qualifier, byte[] value) {
    model.get(row(i)).put(Bytes.toString(qualifier), value);
    return new Put(b(row(i))).addColumn(D, qualifier, value);
  }

  void apply(List<Mutation> mutations) throws IOException, InterruptedException {
    try (Table t = util.getConnection().getTable(TABLE)) {
      t.batch(mutations, new Object[mutations.size()]);
    }
  }

  String col(String row, String column) {
    byte[] v = model.get(row).get(column);
    return v == null ? null : Bytes.toString(v);
  }

  List<String> expected(Predicate<String> rowMatches) {
    List<String> out = new ArrayList<>();
    for (String r : model.keySet()) if (rowMatches.test(r)) out.add(r);
    return out;
  }

  Integer bal(String row) {
    byte[] v = model.get(row).get("bal");
    return v == null ? null : Bytes.toInt(v);
  }

  boolean flagged(String row) {
    return model.get(row).containsKey("flag");
  }

  /** The oracle's reverse().then(prefix(5)) of the ASCII addresses written. */
  static String end(String email) {
    String reversed = new StringBuilder(email).reverse().toString();
    return reversed.substring(0, Math.min(5, reversed.length()));
  }

  /** The oracle's JSON: the user's name, from the shapes {@link #doc} writes. */
  static String name(String doc) {
    if (doc == null || !doc.startsWith("{\"id\"")) return null;
    int at = doc.indexOf("\"name\": \"") + 9;
    return doc.substring(at, doc.indexOf('"', at));
  }

  void assertAnswers() throws Exception {
    TreeSet<String> emails = new TreeSet<>();
    TreeSet<String> ends = new TreeSet<>();
    TreeSet<String> names = new TreeSet<>();
    TreeSet<String> cities = new TreeSet<>();
    for (String r : model.keySet()) {
      emails.add(col(r, "email").toLowerCase(Locale.ROOT));
      ends.add(end(col(r, "email")));
      if (name(col(r, "doc")) != null) names.add(name(col(r, "doc")));
      cities.add(col(r, "city"));
    }
    for (String e : emails) {
      assertEquals(
          expected(r -> col(r, "email").toLowerCase(Locale.ROOT).equals(e)),
          Oracle.resultRows(table.find("email_lc", b(e))),
          "lower " + e);
    }
    for (String end : ends) {
      assertEquals(
          expected(r -> end(col(r, "email")).equals(end)),
          Oracle.resultRows(table.find("email_end", b(end))),
          "reverse, prefix " + end);
    }
    for (String n : names) {
      String upper = n.toUpperCase(Locale.ROOT);
      assertEquals(
          expected(r -> n.equals(name(col(r, "doc")))),
          Oracle.resultRows(table.find("doc_name", b(upper))),
          "json " + n);
    }
    long lo = (BASE / HOUR + 3) * HOUR;
    long hi = (BASE / HOUR + 9) * HOUR;
    List<String> inHours =
        expected(
            r -> {
              long h = Math.floorDiv(Bytes.toLong(model.get(r).get("ts")), HOUR) * HOUR;
              return h >= lo && h < hi;
            });
    List<String> ranged =
        Oracle.resultRows(
            table.range(
                "hour", Bytes.toBytes(lo), Bytes.toBytes(hi), ValueOrder.ASCENDING, 10_000));
    assertEquals(inHours, new ArrayList<>(new TreeSet<>(ranged)), "truncated hours in a range");
    assertEquals(inHours.size(), ranged.size());
    for (String c : cities) {
      Condition inCity = Condition.eq(D, CITY, b(c));
      assertEquals(
          expected(r -> col(r, "city").equals(c) && col(r, "status").equals("ACTIVE")),
          Oracle.resultRows(table.find(inCity, Condition.eq(D, STATUS, b("ACTIVE")))),
          "partial index, implied");
      assertEquals(
          expected(r -> col(r, "city").equals(c) && col(r, "status").equals("PENDING")),
          Oracle.resultRows(table.find(Condition.eq(D, STATUS, b("PENDING")), inCity)),
          "local partial index, implied");
      assertEquals(
          expected(r -> col(r, "city").equals(c)),
          Oracle.resultRows(table.find(inCity)),
          "not implied: a scan");
      assertEquals(
          expected(r -> col(r, "city").equals(c) && !col(r, "status").equals("ACTIVE")),
          Oracle.resultRows(table.find(inCity, Condition.in(D, STATUS, b("IDLE"), b("PENDING")))),
          "not implied by an IN the WHERE does not hold");
      assertEquals(
          expected(r -> col(r, "city").equals(c) && col(r, "status").equals("ACTIVE")),
          Oracle.resultRows(table.find("city_active", b(c))),
          "a partial index by alias: the value within its WHERE");
      assertRangeAndPresentAnswers(inCity, c);
    }
    assertEquals(
        expected(r -> Bytes.compareTo(model.get(r).get("bal"), Bytes.toBytes(20)) >= 0),
        Oracle.resultRows(
            table.find(Condition.range(D, BAL, Bytes.toBytes(20), true, null, false))),
        "a bytes range alone: a scan in unsigned byte order (negative ints last)");
    assertEquals(
        expected(r -> flagged(r) && bal(r) < 0),
        Oracle.resultRows(table.find(Condition.present(D, FLAG), ints(null, false, 0, false))),
        "present and a range, no index: a scan");
  }

  static Condition ints(Integer from, boolean fromIn, Integer to, boolean toIn) {
    return Condition.range(
        D,
        BAL,
        from == null ? null : Bytes.toBytes(from),
        fromIn,
        to == null ? null : Bytes.toBytes(to),
        toIn,
        IndexSpec.ValueType.INT);
  }

  void assertRangeAndPresentAnswers(Condition inCity, String c) throws IOException {
    assertEquals(
        expected(r -> col(r, "city").equals(c) && bal(r) >= 10 && bal(r) < 40),
        Oracle.resultRows(table.find(inCity, ints(10, true, 40, false))),
        "a range within the WHERE's range: the partial index");
    assertEquals(
        expected(r -> col(r, "city").equals(c) && List.of(0, 7, 33).contains(bal(r))),
        Oracle.resultRows(
            table.find(
                inCity,
                Condition.in(D, BAL, Bytes.toBytes(0), Bytes.toBytes(7), Bytes.toBytes(33)))),
        "an IN within the WHERE's range: the partial index");
    assertEquals(
        expected(r -> col(r, "city").equals(c) && bal(r) > -10 && bal(r) <= 10),
        Oracle.resultRows(table.find(inCity, ints(-10, false, 10, true))),
        "a range reaching below the WHERE's: not implied, a scan");
    assertEquals(
        expected(r -> col(r, "city").equals(c) && flagged(r)),
        Oracle.resultRows(table.find(Condition.present(D, FLAG), inCity)),
        "present: the present partial index");
    assertEquals(
        expected(r -> col(r, "city").equals(c) && "y".equals(col(r, "flag")) && bal(r) < 0),
        Oracle.resultRows(
            table.find(inCity, Condition.eq(D, FLAG, b("y")), ints(null, false, 0, false))),
        "an equality implies present");
  }

  void assertConsistent() throws Exception {
    IndexAdmin admin = new IndexAdmin(util.getConnection());
    for (String alias :
        List.of("email_lc", "email_end", "hour", "city_active", "city_solvent", "city_flagged")) {
      VerifyReport report = admin.verify(TABLE, alias);
      assertTrue(report.isConsistent(), alias + ": " + report);
    }
    VerifyReport partial = admin.verify(TABLE, "city_active");
    assertEquals(
        expected(r -> col(r, "status").equals("ACTIVE")).size(),
        partial.indexRows(),
        "a partial index holds the rows its WHERE selects, no more");
    assertEquals(
        expected(r -> bal(r) >= 0).size(),
        admin.verify(TABLE, "city_solvent").indexRows(),
        "a range WHERE: the rows within it");
    assertEquals(
        expected(this::flagged).size(),
        admin.verify(TABLE, "city_flagged").indexRows(),
        "a present WHERE: the rows holding the column");
  }

  @Test
  void expressionAndPartialIndexesAnswerAsTheOracleBeforeAndAfterUpdates() throws Exception {
    assertAnswers();
    assertConsistent();
    // Each batch writes a row once: two writes of a column in one batch may share a timestamp.
    List<Mutation> updates = new ArrayList<>();
    for (int i = 0; i < ROWS; i += 3) {
      updates.add(set(i, EMAIL, email(i, 1))); // another case of the same address
      updates.add(set(i, DOC, doc(i, 3))); // another name, or malformed, or missing
      updates.add(set(i, STATUS, status(i, 7))); // in and out of the WHEREs
      updates.add(set(i, BAL, Bytes.toBytes(balance(i, 13)))); // across the range's bound
    }
    apply(updates);
    updates.clear();
    for (int i = 0; i < ROWS; i += 4) {
      if (flagged(row(i))) {
        model.get(row(i)).remove("flag");
        updates.add(new Delete(b(row(i))).addColumns(D, FLAG)); // out of the present WHERE
      } else {
        updates.add(set(i, FLAG, b(""))); // in: an empty value is present
      }
    }
    apply(updates);
    updates.clear();
    for (int i = 1; i < ROWS; i += 11) {
      updates.add(set(i, EMAIL, "New" + i + "@Mail.example"));
      updates.add(set(i, CITY, "c" + (i + 3) % 10));
    }
    apply(updates);
    updates.clear();
    for (int i = 5; i < ROWS; i += 50) {
      updates.add(new Delete(b(row(i))));
      model.remove(row(i));
    }
    apply(updates);
    MiniCluster.awaitRoutingBound(System.currentTimeMillis());
    assertAnswers();
    assertConsistent();

    // Repair computes the entries as the write path does: a lost entry comes back, no other.
    TableName index = IndexCatalog.indexTableName(TABLE, "email_lc");
    try (Connection superuser = MiniCluster.superuser(util);
        Table t = superuser.getTable(index);
        ResultScanner rows = t.getScanner(new Scan().setLimit(1))) {
      t.delete(new Delete(rows.next().getRow()));
    }
    IndexAdmin admin = new IndexAdmin(util.getConnection());
    assertEquals(1, admin.verify(TABLE, "email_lc").missing());
    VerifyReport repaired = admin.repair(TABLE, "email_lc");
    assertEquals(1, repaired.written(), repaired.toString());
    assertConsistent();
  }

  @Test
  void thePlannerUsesAPartialIndexOnlyForQueriesImplyingItsWhere() {
    Condition inCity = Condition.eq(D, CITY, b("c3"));
    QueryPlan alone = table.explain(inCity);
    assertEquals(QueryPlan.Kind.DATA_SCAN, alone.kind(), alone.toString());
    assertTrue(
        alone.reason().contains("partial index 'city_active' not used: the query does not imply"),
        alone.reason());
    QueryPlan implied = table.explain(inCity, Condition.eq(D, STATUS, b("ACTIVE")));
    assertTrue(implied.reason().contains("by partial index 'city_"), implied.reason());
    QueryPlan local = table.explain(inCity, Condition.eq(D, STATUS, b("PENDING")));
    assertTrue(local.reason().contains("by partial index 'city_open'"), local.reason());
    QueryPlan narrower = table.explain(inCity, ints(10, true, null, false));
    assertTrue(narrower.reason().contains("by partial index 'city_solvent'"), narrower.reason());
    assertTrue(narrower.reason().contains("d:bal:int >= 10: re-checked only"), narrower.reason());
    QueryPlan wider = table.explain(inCity, ints(-1, true, 10, true));
    assertEquals(QueryPlan.Kind.DATA_SCAN, wider.kind(), wider.toString());
    assertTrue(
        wider.reason().contains("partial index 'city_solvent' not used: the query does not imply"),
        wider.reason());
    QueryPlan flagged = table.explain(inCity, Condition.eq(D, FLAG, b("y")));
    assertTrue(flagged.reason().contains("by partial index 'city_flagged'"), flagged.reason());
    QueryPlan anyFlag = table.explain(Condition.present(D, FLAG));
    assertEquals(QueryPlan.Kind.DATA_SCAN, anyFlag.kind(), "present alone answers no index");
    // Queries by column never use an expression or partial index.
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> table.find(D, CITY, b("c3")))
            .getMessage()
            .contains("are asked by alias, or by find(Condition...)"));
    assertThrows(IllegalArgumentException.class, () -> table.find(D, EMAIL, b("x")));
  }

  /**
   * A query compares an IN on a column with its own typed index as that type (BIG_DECIMAL 1.00
   * equals 1.0, every NaN is one DOUBLE value), while a WHERE's IN tests bytes: the query's 1.0 (or
   * NaN) must not be read as implying the WHERE's, or the rows written 1.00 (or another NaN) match
   * the query and are missing from the partial index it then reads.
   */
  @Test
  void aTypedComparisonNeverClaimsAWhereItsByteEqualValuesImply() throws Exception {
    TableName t = TableName.valueOf("typed_where");
    byte[] price = b("price");
    byte[] score = b("score");
    byte[] qty = b("qty");
    byte[] one = Bytes.toBytes(new java.math.BigDecimal("1.0"));
    byte[] nan = Bytes.toBytes(Double.NaN);
    try (Admin admin = util.getConnection().getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(t)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build());
    }
    IndexAdmin indexes = new IndexAdmin(util.getConnection());
    indexes.createIndex(
        t,
        IndexSpec.builder(D, price).alias("price").type(IndexSpec.ValueType.BIG_DECIMAL).build());
    indexes.createIndex(
        t, IndexSpec.builder(D, score).alias("score").type(IndexSpec.ValueType.DOUBLE).build());
    indexes.createIndex(
        t,
        IndexSpec.builder(D, qty).alias("qty_at_one").where(Condition.eq(D, price, one)).build());
    indexes.createIndex(
        t, IndexSpec.builder(D, qty).alias("qty_nan").where(Condition.eq(D, score, nan)).build());
    try (Table data = util.getConnection().getTable(t);
        IndexedTable indexed = new IndexedTable(util.getConnection(), t)) {
      data.put(
          new Put(b("plain"))
              .addColumn(D, price, one)
              .addColumn(D, score, nan)
              .addColumn(D, qty, b("5")));
      data.put(
          new Put(b("other"))
              .addColumn(D, price, Bytes.toBytes(new java.math.BigDecimal("1.00")))
              .addColumn(D, score, Bytes.toBytes(0x7ff8000000000001L)) // a NaN, other bits
              .addColumn(D, qty, b("5")));
      Condition qtyFive = Condition.eq(D, qty, b("5"));
      for (Condition typed : List.of(Condition.eq(D, price, one), Condition.eq(D, score, nan))) {
        assertEquals(
            List.of("other", "plain"),
            rowKeys(indexed.find(typed)),
            "the typed index alone: " + indexed.explain(typed));
        // Without estimates (BY_VALUE regions give none) the first indexed condition's keys are
        // read, the others only re-checked: both orders, so the partial index is read in one.
        assertEquals(
            List.of("other", "plain"),
            rowKeys(indexed.find(typed, qtyFive)),
            indexed.explain(typed, qtyFive).toString());
        assertEquals(
            List.of("other", "plain"),
            rowKeys(indexed.find(qtyFive, typed)),
            indexed.explain(qtyFive, typed).toString());
      }
    }
  }

  private static List<String> rowKeys(List<org.apache.hadoop.hbase.client.Result> rows) {
    return rows.stream().map(r -> Bytes.toString(r.getRow())).sorted().toList();
  }

  @Test
  void badSpecsFailClearly() throws Exception {
    IndexAdmin admin = new IndexAdmin(util.getConnection());
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    admin.createIndex(
                        TABLE,
                        IndexSpec.builder(D, CITY)
                            .alias("nofamily")
                            .where(Condition.eq(b("x"), STATUS, b("A")))
                            .build()))
            .getMessage()
            .contains("has no column family 'x'"));
    String bad =
        IndexSpec.builder(D, EMAIL)
            .alias("bad")
            .expression(IndexExpression.lower())
            .build()
            .encode()
            .replace("expr=lower", "expr=soundex");
    try (Admin hbase = util.getConnection().getAdmin()) {
      IOException refused =
          assertThrows(
              IOException.class,
              () ->
                  hbase.modifyTable(
                      TableDescriptorBuilder.newBuilder(hbase.getDescriptor(TABLE))
                          .setValue("scbf.index.bad", bad)
                          .build()));
      assertTrue(
          String.valueOf(refused.getMessage()).contains("unknown index function 'soundex'"),
          refused.toString());
    }
  }
}
