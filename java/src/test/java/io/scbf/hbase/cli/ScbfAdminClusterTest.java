package io.scbf.hbase.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.proto.IndexProtos.LocalIndexService;
import io.scbf.hbase.shared.proto.IndexProtos.RepairRowsRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RepairRowsResponse;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The operator CLI on a mini cluster: verify finds every index row removed, added or altered on
 * purpose, repair fixes them all (queries then match a full scan exactly), and the other commands
 * do what they say.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ScbfAdminClusterTest {
  static final TableName TABLE = TableName.valueOf("vr");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] NAME = Bytes.toBytes("name");
  static final int BUCKETS = 4;

  HBaseTestingUtility util;
  Connection connection;

  record Run(int status, String out, String err) {}

  Run cli(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        ScbfAdmin.run(
            connection,
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static byte[] row(int i) {
    return Bytes.toBytes(String.format("row-%04d", i));
  }

  @BeforeAll
  void startCluster() throws Exception {
    util = MiniCluster.start(1);
    connection = util.getConnection();
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          new byte[][] {row(30)});
    }
    try (Table t = connection.getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        puts.add(
            new Put(row(i))
                .addColumn(D, CITY, Bytes.toBytes("city-" + (i % 4)))
                .addColumn(D, NAME, Bytes.toBytes("name-" + i)));
      }
      t.put(puts);
    }
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (util != null) util.shutdownMiniCluster();
  }

  static byte[] indexKey(byte[] userRow, String city) {
    return IndexKeyCodec.rowKey(
        IndexKeyCodec.bucket(userRow, BUCKETS),
        Bytes.toBytes("city"),
        Bytes.toBytes(city),
        userRow);
  }

  @Test
  @Order(1)
  void createListAndDescribe() {
    Run created =
        cli(
            "create",
            "vr",
            "d:city",
            "--alias",
            "city",
            "--by-row",
            "--buckets",
            "4",
            "--covered",
            "d:name");
    assertEquals(0, created.status(), created.err());
    assertTrue(
        created.out().contains(": backfill city of vr: 60 rows, 2/2 regions"), created.out());
    Run list = cli("list", "vr");
    assertEquals(0, list.status(), list.err());
    assertTrue(list.out().contains("city") && list.out().contains("global, 4 buckets"), list.out());
    assertFalse(list.out().contains("BUILDING"), list.out());
    Run describe = cli("describe", "vr", "city");
    assertEquals(0, describe.status(), describe.err());
    assertTrue(describe.out().contains("routing:"), describe.out());
    Run consistent = cli("verify", "vr", "city");
    assertEquals(0, consistent.status(), consistent.out() + consistent.err());
    assertTrue(consistent.out().contains("60 data rows, 60 index rows"), consistent.out());
  }

  @Test
  @Order(2)
  void verifyFindsEveryDamageAndRepairFixesIt() throws Exception {
    TableName indexTable = IndexCatalog.indexTableName(TABLE, "city");
    // Damaged by a superuser: index tables refuse every other client's writes.
    try (Connection hbase = MiniCluster.superuser(util);
        Table index = hbase.getTable(indexTable)) {
      for (int i = 0; i < 5; i++) { // missing: rows 0..4 lose their index rows
        index.delete(new Delete(indexKey(row(i), "city-" + (i % 4))));
      }
      for (int i = 10; i < 14; i++) { // stale: rows 10..13 indexed under a value they lack
        index.put(
            new Put(indexKey(row(i), "city-x"))
                .addColumn(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER, new byte[0]));
      }
      index.put( // stale: a row that does not exist
          new Put(indexKey(row(999), "city-1"))
              .addColumn(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER, new byte[0]));
      index.put( // wrong covered value
          new Put(indexKey(row(20), "city-0"))
              .addColumn(
                  IndexCatalog.INDEX_FAMILY,
                  IndexCatalog.INDEX_QUALIFIER,
                  Bytes.toBytes("garbage")));
    }
    Run found = cli("verify", "vr", "city");
    assertEquals(1, found.status(), found.out() + found.err());
    assertTrue(found.out().contains("missing 5, wrong covered values 1, stale 5"), found.out());

    Run repaired = cli("repair", "vr", "city");
    assertEquals(0, repaired.status(), repaired.err());
    assertTrue(repaired.out().contains("6 written, 5 stale removed"), repaired.out());

    Run clean = cli("verify", "vr", "city");
    assertEquals(0, clean.status(), clean.out());
    Thread.sleep(2000); // publication
    Oracle oracle = new Oracle(connection, TABLE, D, CITY);
    try (IndexedTable t = new IndexedTable(connection, TABLE)) {
      for (byte[] v : oracle.values()) {
        assertEquals(oracle.rows(v), Oracle.strings(t.findRowKeys(D, CITY, v)));
      }
      assertEquals(List.of(), t.findRowKeys(D, CITY, Bytes.toBytes("city-x")));
    }
    try (Table index = connection.getTable(indexTable);
        ResultScanner s = index.getScanner(new Scan())) {
      int n = 0;
      for (Result r : s) n++;
      assertEquals(60, n);
    }
  }

  /** The data region deletes only what its current data does not produce, whatever it is sent. */
  @Test
  @Order(3)
  void theRegionKeepsARowItFindsCurrent() throws Exception {
    byte[] current = indexKey(row(7), "city-3");
    try (Table data = connection.getTable(TABLE)) {
      RepairRowsResponse r =
          LocalIndexService.newBlockingStub(data.coprocessorService(row(7)))
              .repairRows(
                  null,
                  RepairRowsRequest.newBuilder()
                      .setAlias(ByteString.copyFromUtf8("city"))
                      .addIndexRows(ByteString.copyFrom(current))
                      .build());
      assertEquals(0, r.getRemoved());
      assertEquals(1, r.getKept());
    }
    try (Table index = connection.getTable(IndexCatalog.indexTableName(TABLE, "city"))) {
      assertTrue(index.exists(new org.apache.hadoop.hbase.client.Get(current)));
    }
  }

  private static RepairRowsRequest tooMany(RepairRowsRequest.Builder request) {
    for (int i = 0; i <= 10_000; i++) request.addDataRows(ByteString.copyFrom(row(i % 30)));
    return request.build();
  }

  /** Hostile or mistaken repair requests fail with a clear error; the server serves on. */
  @Test
  @Order(4)
  void badStaleRowRequestsAreRefused() throws Exception {
    byte[] otherRegion = indexKey(row(45), "city-1"); // row 45 is not in the first region
    RepairRowsRequest.Builder city =
        RepairRowsRequest.newBuilder().setAlias(ByteString.copyFromUtf8("city"));
    java.util.Map<RepairRowsRequest, String> bad =
        java.util.Map.of(
            city.clone().addIndexRows(ByteString.copyFrom(new byte[] {1, 2})).build(),
            "not an index row",
            RepairRowsRequest.newBuilder()
                .setAlias(ByteString.copyFromUtf8("nosuch"))
                .addIndexRows(ByteString.copyFrom(indexKey(row(1), "city-1")))
                .build(),
            "no global index 'nosuch'",
            city.clone().addIndexRows(ByteString.copyFrom(otherRegion)).build(),
            "is not in region",
            city.clone().addDataRows(ByteString.copyFrom(row(45))).build(),
            "row-0045 is not in region",
            tooMany(city.clone()),
            "at most 10000 rows per repair request");
    try (Table data = connection.getTable(TABLE)) {
      for (java.util.Map.Entry<RepairRowsRequest, String> e : bad.entrySet()) {
        com.google.protobuf.ServiceException thrown =
            org.junit.jupiter.api.Assertions.assertThrows(
                com.google.protobuf.ServiceException.class,
                () ->
                    LocalIndexService.newBlockingStub(data.coprocessorService(row(1)))
                        .repairRows(null, e.getKey()));
        String text = thrown.getMessage() + " / " + thrown.getCause();
        assertTrue(text.contains(e.getValue()), text);
      }
    }
    assertEquals(0, cli("verify", "vr", "city").status(), "nothing removed, server serving");
  }

  @Test
  @Order(5)
  void findRemovesTheStaleRowsItMeetsInTheBackground() throws Exception {
    byte[] stale = indexKey(row(41), "city-0"); // row 41 holds city-1
    try (Connection hbase = MiniCluster.superuser(util);
        Table index = hbase.getTable(IndexCatalog.indexTableName(TABLE, "city"))) {
      index.put(
          new Put(stale)
              .addColumn(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER, new byte[0]));
      Oracle oracle = new Oracle(connection, TABLE, D, CITY);
      try (IndexedTable t = new IndexedTable(connection, TABLE).setStrict(true)) {
        byte[] v = Bytes.toBytes("city-0");
        assertEquals(oracle.rows(v), Oracle.resultRows(t.find(D, CITY, v)));
        assertEquals(1, t.staleRowsSent());
        long deadline = System.currentTimeMillis() + 30_000;
        while (index.exists(new org.apache.hadoop.hbase.client.Get(stale))) {
          assertTrue(System.currentTimeMillis() < deadline, "stale row still there");
          Thread.sleep(100);
        }
      }
    }
    assertEquals(0, cli("verify", "vr", "city").status());
  }

  @Test
  @Order(6)
  void rebuildDropAndBadUsage() throws Exception {
    assertEquals(0, cli("rebuild", "vr", "city").status());
    assertFalse(new IndexAdmin(connection).isBuilding(TABLE, "city"));
    Run created = cli("create", "vr", "d:name", "--then", "d:city", "--alias", "name", "--local");
    assertEquals(0, created.status(), created.err());
    String listed = cli("list", "vr").out();
    assertTrue(listed.contains("local") && listed.contains("[d:name, d:city]"), listed);
    Run localStatus = cli("status", "vr", "name");
    assertEquals(0, localStatus.status(), localStatus.err());
    assertTrue(localStatus.out().contains("of 2 regions ready; 60 entries"), localStatus.out());
    Run localVerify = cli("verify", "vr", "name");
    assertEquals(2, localVerify.status());
    assertTrue(localVerify.err().contains("local"), localVerify.err());
    assertEquals(0, cli("drop", "vr", "name").status());
    assertEquals(
        List.of("city"),
        new IndexAdmin(connection).listIndexes(TABLE).stream().map(IndexSpec::alias).toList());
    Run defined = cli("create", "vr", "d:name", "--alias", "nm", "--no-backfill");
    assertEquals(0, defined.status(), defined.err());
    assertTrue(new IndexAdmin(connection).isBuilding(TABLE, "nm"));
    assertEquals(
        List.of(IndexSpec.Layout.BY_VALUE),
        new IndexAdmin(connection)
            .listIndexes(TABLE).stream()
                .filter(s -> s.alias().equals("nm"))
                .map(IndexSpec::layout)
                .toList(),
        "a global index is by value unless --by-row");
    assertEquals(0, cli("mark-built", "vr", "nm").status());
    assertFalse(new IndexAdmin(connection).isBuilding(TABLE, "nm"));
    // A BY_VALUE index publishes nothing to the master: status asks its regions themselves.
    try (Table t = connection.getTable(TABLE);
        IndexedTable indexed = new IndexedTable(connection, TABLE)) {
      t.put(new Put(row(100)).addColumn(D, NAME, Bytes.toBytes("zed")));
      for (int i = 0; i < 3; i++) {
        assertEquals(1, indexed.findRowKeys(D, NAME, Bytes.toBytes("zed")).size());
      }
    }
    Run byValue = cli("status", "vr", "nm");
    assertEquals(0, byValue.status(), byValue.err());
    long[] served = lookupsAndCacheHits(byValue.out());
    assertTrue(served[0] >= 3 && served[1] >= 2, byValue.out());
    assertTrue(byValue.out().contains("routing: by key"), byValue.out());
    assertTrue(
        byValue.out().matches("(?s).*filters: (\\d+) of \\1 regions ready; 1 entries.*"),
        byValue.out());
    assertEquals(0, cli("drop", "vr", "nm").status());
    assertEquals(0, cli("set-immutable", "vr", "true").status());
    try (Admin admin = connection.getAdmin()) {
      assertTrue(IndexCatalog.hasImmutableRows(admin.getDescriptor(TABLE)));
    }
    assertEquals(0, cli("set-immutable", "vr", "false").status());
    assertEquals(2, cli("set-immutable", "vr", "maybe").status());
    assertEquals(2, cli("verify").status());
    assertEquals(2, cli("frobnicate", "vr").status());
    assertEquals(2, cli("create", "vr", "nocolon").status());
    assertEquals(2, cli("create", "vr", "d:x", "--then", "d:x", "--alias", "xx").status());
    assertEquals(2, cli("create", "vr", "d:x", "--buckets", "many").status());
    assertEquals(2, cli("create", "vr", "d:x", "--by-row", "--by-value").status());
    Run missing = cli("verify", "vr", "nosuch");
    assertEquals(2, missing.status());
    assertTrue(missing.err().contains("no index 'nosuch'"), missing.err());
    assertEquals(2, cli("list", "nosuchtable").status());
  }

  /** The lookups and hot cache hits a status prints. */
  static long[] lookupsAndCacheHits(String status) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile(
                "lookups: ([\\d,]+) since the regions opened; hot cache hits ([\\d,]+)")
            .matcher(status);
    assertTrue(m.find(), status);
    return new long[] {
      Long.parseLong(m.group(1).replace(",", "")), Long.parseLong(m.group(2).replace(",", ""))
    };
  }

  /** scripts/scbf-admin run as an operator would: a separate JVM, settings by -D. */
  Run launcher(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", "scripts/scbf-admin"));
    command.add("-D");
    command.add("hbase.zookeeper.property.clientPort=" + util.getZkCluster().getClientPort());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("SCBF_CLASSPATH", System.getProperty("java.class.path"));
    pb.environment().put("SCBF_JAR", "target/classes"); // not a stale jar of an earlier build
    java.nio.file.Path out = java.nio.file.Files.createTempFile("scbf-admin", ".out");
    java.nio.file.Path err = java.nio.file.Files.createTempFile("scbf-admin", ".err");
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS), "scbf-admin hung");
    Run run =
        new Run(
            p.exitValue(),
            java.nio.file.Files.readString(out),
            java.nio.file.Files.readString(err));
    java.nio.file.Files.delete(out);
    java.nio.file.Files.delete(err);
    return run;
  }

  @Test
  @Order(7)
  void theLauncherAnswersStatusFindExplainAndExitCodes() throws Exception {
    Run help = launcher("help");
    assertEquals(0, help.status(), help.err());
    assertTrue(help.out().contains("find") && help.out().contains("exit status"), help.out());
    Run findHelp = launcher("find", "--help");
    assertEquals(0, findHelp.status());
    assertTrue(findHelp.out().contains("--limit N"), findHelp.out());

    Oracle oracle = new Oracle(connection, TABLE, D, CITY);
    byte[] city1 = Bytes.toBytes("city-1");
    Run keys = launcher("find", "vr", "d:city", "city-1", "--keys-only", "--strict");
    assertEquals(0, keys.status(), keys.err());
    assertEquals(oracle.rows(city1), Stream.of(keys.out().split("\n")).sorted().toList());
    Run limited = launcher("find", "vr", "d:city", "city-1", "--limit", "3");
    assertEquals(0, limited.status(), limited.err());
    String[] lines = limited.out().split("\n");
    assertEquals(3, lines.length, limited.out());
    for (String line : lines) {
      assertTrue(line.startsWith("row-") && line.contains("\td:city=city-1"), line);
    }
    assertTrue(limited.err().contains("# 3 row(s) (the limit)"), limited.err());
    Run explain = launcher("explain", "vr", "d:city", "city-1");
    assertEquals(0, explain.status(), explain.err());
    assertTrue(explain.out().contains("regions "), explain.out());

    Run status = launcher("status", "vr", "city");
    assertEquals(0, status.status(), status.err());
    assertTrue(status.out().contains("regions: " + BUCKETS + " (index table"), status.out());
    assertTrue(status.out().contains("publish lag max"), status.out());
    long rows = oracle.values().stream().mapToLong(v -> oracle.rows(v).size()).sum();
    assertTrue(
        status.out().contains(String.format("filters: 4 of 4 regions ready; %,d entries", rows)),
        status.out());
    assertTrue(lookupsAndCacheHits(status.out())[0] > 0, "the finds above were lookups");

    assertEquals(2, launcher("find", "vr", "d:city", "city-1", "--limit", "zero").status());
    assertEquals(2, launcher("status", "vr", "nosuch").status());
    Run unreachable =
        launcher(
            "-D",
            "hbase.zookeeper.property.clientPort=1",
            "-D",
            "zookeeper.recovery.retry=0",
            "-D",
            "hbase.client.retries.number=1",
            "list",
            "vr");
    assertEquals(3, unreachable.status(), unreachable.out() + unreachable.err());
  }

  @Test
  @Order(8)
  void typedIndexesAreCreatedListedAndQueriedInTheirType() throws Exception {
    byte[] bal = Bytes.toBytes("bal");
    try (Table t = connection.getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        puts.add(new Put(row(i)).addColumn(D, bal, Bytes.toBytes((long) (i % 20 - 10))));
      }
      t.put(puts);
    }
    Run created = cli("create", "vr", "d:bal", "--type", "long", "--alias", "bal");
    assertEquals(0, created.status(), created.err());
    assertTrue(
        created.out().contains("on vr d:bal long: backfill bal of vr: 60 rows"), created.out());
    Run composite =
        cli("create", "vr", "d:bal:long", "--then", "d:city:string", "--alias", "bal_city");
    assertEquals(0, composite.status(), composite.err());
    String listed = cli("list", "vr").out();
    assertTrue(
        listed.contains("d:bal long") && listed.contains("[d:bal long, d:city string]"), listed);
    Run described = cli("describe", "vr", "bal_city");
    assertTrue(described.out().contains("[d:bal long, d:city string]"), described.out());
    assertEquals(
        List.of(IndexSpec.ValueType.LONG, IndexSpec.ValueType.STRING),
        new IndexAdmin(connection)
            .listIndexes(TABLE).stream()
                .filter(s -> s.alias().equals("bal_city"))
                .findFirst()
                .orElseThrow()
                .types());

    // VALUE is read as a LONG: -7 is Bytes.toBytes(-7L), held by rows 3, 23 and 43.
    Run found = cli("find", "vr", "d:bal", "-7", "--keys-only");
    assertEquals(0, found.status(), found.err());
    assertEquals(
        List.of("row-0003", "row-0023", "row-0043"), found.out().lines().sorted().toList());
    Run notALong = cli("find", "vr", "d:bal", "seven");
    assertEquals(2, notALong.status());
    assertTrue(notALong.err().contains("'seven' is not a long value"), notALong.err());
    assertEquals(2, cli("create", "vr", "d:bal", "--type", "money", "--alias", "b2").status());
    assertEquals(2, cli("create", "vr", "d:bal:long", "--type", "long", "--alias", "b2").status());
    assertEquals(0, cli("drop", "vr", "bal").status());
    assertEquals(0, cli("drop", "vr", "bal_city").status());
  }

  @Test
  @Order(9)
  void anOrderedIndexAnswersRangesInValueOrder() throws Exception {
    // Rows 0..59 hold d:bal = i % 20 - 10 (the test before wrote them).
    Run created = cli("create", "vr", "d:bal", "--type", "long", "--ordered", "--alias", "bal_o");
    assertEquals(0, created.status(), created.err());
    assertTrue(cli("list", "vr").out().contains("ordered"), cli("list", "vr").out());
    Run range = cli("range", "vr", "bal_o", "-3", "2", "--desc", "--limit", "4");
    assertEquals(0, range.status(), range.err());
    // Values 1, 1, 1, 0 from the top: rows 51, 31, 11 (ties in descending row order), then 50.
    List<String> rows = range.out().lines().map(l -> l.split("\t")[0]).toList();
    assertEquals(List.of("row-0051", "row-0031", "row-0011", "row-0050"), rows, range.out());
    Run entries = cli("range", "vr", "bal_o", "-", "-9", "--entries");
    assertEquals(0, entries.status(), entries.err());
    assertEquals(
        List.of("row-0000\tvalue=-10", "row-0020\tvalue=-10", "row-0040\tvalue=-10"),
        entries.out().lines().toList());
    // Issue 51: --format json, one object per line, for scripts.
    Run json = cli("range", "vr", "bal_o", "-", "-9", "--entries", "--format", "json");
    assertEquals(0, json.status(), json.err());
    assertEquals(
        List.of(
            "{\"row\":\"row-0000\",\"value\":\"-10\",\"covered\":{}}",
            "{\"row\":\"row-0020\",\"value\":\"-10\",\"covered\":{}}",
            "{\"row\":\"row-0040\",\"value\":\"-10\",\"covered\":{}}"),
        json.out().lines().toList());
    Run jsonRows =
        cli("range", "vr", "bal_o", "-3", "2", "--desc", "--limit", "1", "--format", "json");
    assertEquals(0, jsonRows.status(), jsonRows.err());
    // JSON escapes the backslash of \xNN.
    assertTrue(
        jsonRows.out().startsWith("{\"row\":\"row-0051\",\"cells\":{")
            && jsonRows.out().contains("\"d:bal\":\"\\\\x00\\\\x00"),
        jsonRows.out());
    Run jsonKeys = cli("find", "vr", "d:bal", "-7", "--keys-only", "--format", "json");
    assertEquals(
        List.of("{\"row\":\"row-0003\"}", "{\"row\":\"row-0023\"}", "{\"row\":\"row-0043\"}"),
        jsonKeys.out().lines().sorted().toList(),
        jsonKeys.err());
    Run badFormat = cli("range", "vr", "bal_o", "-3", "2", "--format", "xml");
    assertEquals(2, badFormat.status(), badFormat.out());
    assertTrue(badFormat.err().contains("--format is tsv or json"), badFormat.err());
    Run plan = cli("explain-range", "vr", "bal_o", "-3", "2");
    assertEquals(0, plan.status(), plan.err());
    assertTrue(plan.out().contains("counted"), plan.out());
    Run notOrdered = cli("range", "vr", "city", "a", "b", "--entries");
    assertEquals(2, notOrdered.status(), notOrdered.out());
    // Issue 51: a BY_ROW index has no value order to reverse (--desc was silently ignored), and
    // its range is streamed so that --limit bounds what is read.
    Run unordered = cli("range", "vr", "city", "a", "b", "--desc");
    assertEquals(2, unordered.status(), unordered.out());
    assertTrue(unordered.err().contains("--desc needs an ORDERED index"), unordered.err());
    Run limited = cli("range", "vr", "city", "city-0", "city-2", "--limit", "2");
    assertEquals(0, limited.status(), limited.err());
    assertEquals(2, limited.out().lines().count(), limited.out());
    assertTrue(limited.err().contains("2 row(s) (the limit)"), limited.err());
    assertEquals(
        2, cli("create", "vr", "d:bal", "--ordered", "--by-row", "--alias", "bad").status());
    assertEquals(0, cli("drop", "vr", "bal_o").status());
  }

  @Test
  @Order(10)
  void expressionAndPartialIndexesAreCreatedListedAndQueriedByAlias() throws Exception {
    byte[] mail = Bytes.toBytes("mail");
    byte[] st = Bytes.toBytes("st");
    try (Table t = connection.getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        String address = "User" + i % 5 + "@X.org";
        puts.add(
            new Put(row(i))
                .addColumn(D, mail, Bytes.toBytes(i % 2 == 0 ? address.toUpperCase() : address))
                .addColumn(D, st, Bytes.toBytes(i % 10 == 0 ? "ACTIVE" : "IDLE")));
      }
      t.put(puts);
    }
    Run lower = cli("create", "vr", "d:mail", "--expression", "lower", "--alias", "mail_lc");
    assertEquals(0, lower.status(), lower.err());
    Run partial = cli("create", "vr", "d:city", "--where", "d:st=ACTIVE", "--alias", "city_act");
    assertEquals(0, partial.status(), partial.err());
    String listed = cli("list", "vr").out();
    assertTrue(listed.contains("d:mail lower"), listed);
    assertTrue(listed.contains("d:city where [d:st = ACTIVE]"), listed);
    // Rows 3, 8, ..., 58 hold user3@x.org in either case.
    Run found = cli("find", "vr", "mail_lc", "user3@x.org", "--keys-only");
    assertEquals(0, found.status(), found.err());
    List<String> expected = new ArrayList<>();
    for (int i = 3; i < 60; i += 5) expected.add(Bytes.toString(row(i)));
    assertEquals(expected, found.out().lines().sorted().toList());
    // city-2 is held by rows 2, 6, 10, ...; of those, 10, 30 and 50 are ACTIVE.
    Run active = cli("find", "vr", "city_act", "city-2", "--keys-only");
    assertEquals(0, active.status(), active.err());
    assertEquals(List.of("row-0010", "row-0030", "row-0050"), active.out().lines().toList());
    Run unknown = cli("create", "vr", "d:mail", "--expression", "soundex", "--alias", "m2");
    assertEquals(2, unknown.status());
    assertTrue(unknown.err().contains("unknown index function 'soundex'"), unknown.err());
    Run path = cli("create", "vr", "d:mail", "--expression", "json(user.x)", "--alias", "m2");
    assertEquals(2, path.status());
    assertTrue(path.err().contains("malformed JSON path"), path.err());
    assertEquals(2, cli("create", "vr", "d:city", "--where", "d:st", "--alias", "c2").status());
    Run ranged =
        cli(
            "create",
            "vr",
            "d:city",
            "--where",
            "d:st>=B",
            "--where",
            "d:mail present",
            "--alias",
            "city_idle");
    assertEquals(0, ranged.status(), ranged.err());
    listed = cli("list", "vr").out();
    assertTrue(listed.contains("d:city where [d:st >= B, d:mail present]"), listed);
    // IDLE >= B > ACTIVE: of city-2's rows, all but 10, 30 and 50.
    Run idle = cli("find", "vr", "city_idle", "city-2", "--keys-only");
    assertEquals(0, idle.status(), idle.err());
    List<String> idleRows = new ArrayList<>();
    for (int i = 2; i < 60; i += 4) if (i % 10 != 0) idleRows.add(Bytes.toString(row(i)));
    assertEquals(idleRows, idle.out().lines().sorted().toList());
    Run empty = cli("create", "vr", "d:city", "--where", "d:st:int>=5,<1", "--alias", "c3");
    assertEquals(2, empty.status());
    assertTrue(empty.err().contains("empty range"), empty.err());
    assertEquals(0, cli("drop", "vr", "mail_lc").status());
    assertEquals(0, cli("drop", "vr", "city_act").status());
    assertEquals(0, cli("drop", "vr", "city_idle").status());
  }

  @Test
  @Order(11)
  void anEventualIndexIsCreatedAwaitedAndSwitched() throws Exception {
    TableName ev = TableName.valueOf("vr_ev");
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(ev)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build());
    }
    try (Table t = connection.getTable(ev)) {
      for (int i = 0; i < 10; i++) {
        t.put(new Put(row(i)).addColumn(D, CITY, Bytes.toBytes("city-" + (i % 2))));
      }
    }
    Run created = cli("create", "vr_ev", "d:city", "--alias", "city", "--eventual");
    assertEquals(0, created.status(), created.err());
    assertTrue(cli("list", "vr_ev").out().contains("EVENTUAL"));
    try (Table t = connection.getTable(ev)) {
      for (int i = 10; i < 20; i++) {
        t.put(new Put(row(i)).addColumn(D, CITY, Bytes.toBytes("city-" + (i % 2))));
      }
    }
    Run awaited = cli("await", "vr_ev", "--timeout-ms", "60000");
    assertEquals(0, awaited.status(), awaited.out() + awaited.err());
    try (IndexedTable t = new IndexedTable(connection, ev)) {
      assertEquals(10, t.findRowKeys(D, CITY, Bytes.toBytes("city-0")).size());
    }
    Run status = cli("status", "vr_ev", "city");
    assertTrue(status.out().contains("eventual: peer scbf_eventual"), status.out());
    assertEquals(2, cli("set-consistency", "vr_ev", "city", "sometimes").status());
    Run strong = cli("set-consistency", "vr_ev", "city", "strong");
    assertEquals(0, strong.status(), strong.err());
    assertFalse(cli("list", "vr_ev").out().contains("EVENTUAL"));
  }

  /**
   * Issue 51: the README's CLI quick start runs as written, every line exiting 0 (its first create
   * used to exit 2 for want of an alias). The tables it names are made here with a few rows.
   */
  @Test
  @Order(12)
  void theReadmesCliQuickStartRunsAsWritten() throws Exception {
    List<String> lines = shBlock("README.md", "## CLI quick start");
    freshTable("people");
    freshTable("accounts");
    try (Table people = connection.getTable(TableName.valueOf("people"));
        Table accounts = connection.getTable(TableName.valueOf("accounts"))) {
      for (int i = 0; i < 21; i++) {
        people.put(
            new Put(row(i))
                .addColumn(D, CITY, Bytes.toBytes(i % 3 == 0 ? "Paris" : "Oslo"))
                .addColumn(D, NAME, Bytes.toBytes("name-" + i)));
        accounts.put(
            new Put(row(i)).addColumn(D, Bytes.toBytes("balance"), Bytes.toBytes(i * 10L - 100)));
      }
    }
    Map<String, Run> runs = runAsWritten(lines);
    assertEquals(
        7, runs.get("find people d:city Paris --limit 20").out().lines().count(), "the Paris rows");
    // Balances -100..100 by 10: [-50, 50) holds -50..40, the largest (40, row 14) first.
    List<String> range =
        runs.get("range accounts balance -50 50 --desc --limit 10").out().lines().toList();
    assertEquals(10, range.size(), range.toString());
    assertTrue(range.get(0).startsWith("row-0014\t"), range.get(0));
    assertTrue(
        runs.get("verify people city").out().contains(": 21 data rows, 21 index rows;"),
        runs.toString());
  }

  /**
   * Issue 51: every command of the operations guide's CLI session runs as written, in its order,
   * each exiting 0, on the tables the guide describes; what the queries print is checked against
   * the rows written.
   */
  @Test
  @Order(13)
  void theOperationsGuidesCliSessionRunsAsWritten() throws Exception {
    List<String> lines =
        shBlock("docs/operations.md", "## Operating: the admin CLI, verify and repair");
    freshTable("people");
    freshTable("accounts");
    try (Table people = connection.getTable(TableName.valueOf("people"));
        Table accounts = connection.getTable(TableName.valueOf("accounts"))) {
      for (int i = 0; i < 30; i++) {
        people.put(
            new Put(row(i))
                .addColumn(D, CITY, Bytes.toBytes(i % 3 == 0 ? "Paris" : "Oslo"))
                .addColumn(D, NAME, Bytes.toBytes("name-" + i))
                .addColumn(
                    D, Bytes.toBytes("email"), Bytes.toBytes(i == 7 ? "Alice@X.org" : "p" + i))
                .addColumn(
                    D, Bytes.toBytes("status"), Bytes.toBytes(i % 2 == 0 ? "ACTIVE" : "GONE"))
                .addColumn(D, Bytes.toBytes("age"), Bytes.toBytes(10 + i)));
        accounts.put(
            new Put(row(i))
                .addColumn(D, Bytes.toBytes("balance"), Bytes.toBytes(i * 10L - 150))
                .addColumn(
                    D, Bytes.toBytes("currency"), Bytes.toBytes(i % 2 == 0 ? "EUR" : "NOK")));
      }
    }
    Map<String, Run> runs = runAsWritten(lines);
    assertTrue(runs.size() >= 25, "the guide's session: " + runs.keySet());
    // Paris: rows 0, 3, ..., 27; ACTIVE among them the even ones (0, 6, 12, 18, 24).
    assertEquals(
        10,
        runs.get("find people d:city Paris --limit 20 --strict").out().lines().count(),
        runs.toString());
    assertEquals(
        10, runs.get("find people city Paris --keys-only").out().lines().count(), runs.toString());
    assertEquals(
        "row-0007",
        runs.get("find people email_lc alice@x.org")
            .out()
            .lines()
            .findFirst()
            .orElse("")
            .split("\t")[0]);
    assertEquals(
        5, runs.get("find people city_active Paris").out().lines().count(), runs.toString());
    assertEquals(
        1, runs.get("find accounts balance -50").out().lines().count(), "balance -50: row 10");
    // Balances -150..140 by 10: [-50, 50) holds -50..40 (rows 10..19), ascending.
    List<String> range = runs.get("range accounts bal_o -50 50").out().lines().toList();
    assertEquals(10, range.size(), range.toString());
    assertTrue(range.get(0).startsWith("row-0010\t"), range.get(0));
    assertTrue(
        runs.get("verify people city").out().contains(": 30 data rows, 30 index rows;"),
        runs.toString());
  }

  /** The lines of the first sh block after {@code heading} in {@code file}. */
  static List<String> shBlock(String file, String heading) throws IOException {
    String text = Files.readString(Path.of(file));
    int section = text.indexOf(heading);
    assertTrue(section >= 0, file + " has no " + heading);
    int from = text.indexOf("```sh\n", section) + "```sh\n".length();
    List<String> lines = text.substring(from, text.indexOf("```", from)).lines().toList();
    assertTrue(lines.size() >= 5, file + ": " + lines);
    return lines;
  }

  /** An empty table {@code name} with family d: dropped first, with its indexes, if it exists. */
  void freshTable(String name) throws IOException {
    TableName table = TableName.valueOf(name);
    try (Admin admin = connection.getAdmin()) {
      if (admin.tableExists(table)) {
        IndexAdmin indexes = new IndexAdmin(connection);
        for (IndexSpec spec : indexes.listIndexes(table)) indexes.dropIndex(table, spec.alias());
        admin.disableTable(table);
        admin.deleteTable(table);
      }
      admin.createTable(
          TableDescriptorBuilder.newBuilder(table)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build());
    }
  }

  /**
   * Runs each line as the shell would hand it to scbf-admin (generic options such as {@code -D}
   * through ToolRunner, on this cluster's configuration), asserting exit 0; keyed by the command
   * line's words after scbf-admin, single-spaced, without the comment.
   */
  Map<String, Run> runAsWritten(List<String> lines) throws Exception {
    Map<String, Run> runs = new LinkedHashMap<>();
    for (String line : lines) {
      List<String> words = DocsAgreeWithCodeTest.shellWords(line.replaceFirst("\\s+#.*", ""));
      assertEquals("scbf-admin", words.get(0), line);
      String[] args = words.subList(1, words.size()).toArray(new String[0]);
      if (args[0].startsWith("-")) {
        Configuration conf = new Configuration(util.getConfiguration());
        assertEquals(0, ToolRunner.run(conf, new ScbfAdmin(), args), line);
        continue;
      }
      Run run = cli(args);
      assertEquals(0, run.status(), line + "\n" + run.out() + run.err());
      runs.put(String.join(" ", args), run);
    }
    return runs;
  }
}
