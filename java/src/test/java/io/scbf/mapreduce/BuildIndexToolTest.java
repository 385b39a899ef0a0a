package io.scbf.mapreduce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.Condition;
import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexEntry;
import io.scbf.hbase.IndexExpression;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.ValueOrder;
import io.scbf.hbase.VerifyReport;
import io.scbf.hbase.regionserver.IndexProbe;
import io.scbf.hbase.regionserver.IndexProbe.Answers;
import io.scbf.hbase.regionserver.IndexProbe.BucketFilterState;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexRows;
import io.scbf.hbase.testing.MiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
import org.apache.hadoop.hbase.regionserver.HRegion;
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
 * The bulk build on one mini cluster with the local job runner. Table "bulk" is loaded without
 * indexes, then its indexes are defined and built by the tool; table "streamed" gets the same rows
 * through streaming writes with the same indexes defined first. The built index must answer like a
 * full scan, and every bulk-built bucket filter must equal, byte for byte, the filter the same
 * bucket of "streamed" rebuilds from its rows on reopen. Tests share the cluster, in order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BuildIndexToolTest {
  static final TableName BULK = TableName.valueOf("bulk");
  static final TableName STREAMED = TableName.valueOf("streamed");
  static final TableName BULK_LOCAL = TableName.valueOf("bulk_local");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] NAME = Bytes.toBytes("name");
  static final int ROWS = 3000;

  /** City: few keys per bucket before growth, so the filters grow several sub-filters. */
  static final IndexSpec CITY_INDEX =
      IndexSpec.builder(D, CITY)
          .alias("city")
          .layout(IndexSpec.Layout.BY_ROW)
          .buckets(4)
          .fpp(0.01)
          .initialCapacity(64)
          .covered(D, NAME)
          .build();

  static final IndexSpec NAME_INDEX =
      IndexSpec.builder(D, NAME).alias("name").layout(IndexSpec.Layout.BY_ROW).buckets(3).build();

  static final IndexSpec LOCAL_CITY_INDEX =
      IndexSpec.builder(D, CITY).alias("city").local().covered(D, NAME).build();

  HBaseTestingUtility util;
  Connection connection;

  @BeforeAll
  void startCluster() throws Exception {
    util = IndexProbe.startCluster(1);
    connection = util.getConnection();
    createTable(BULK);
    createTable(STREAMED);
    createTable(BULK_LOCAL);
    write(BULK);
    write(BULK_LOCAL);
    IndexAdmin admin = new IndexAdmin(connection);
    admin.defineIndex(BULK_LOCAL, LOCAL_CITY_INDEX);
    for (IndexSpec spec : List.of(CITY_INDEX, NAME_INDEX)) {
      admin.createIndex(STREAMED, spec); // on an empty table: nothing to backfill
      admin.defineIndex(BULK, spec);
    }
    write(STREAMED);
    // The reference: the filters the streamed buckets rebuild from their rows on open.
    try (Admin a = connection.getAdmin()) {
      for (IndexSpec spec : List.of(CITY_INDEX, NAME_INDEX)) {
        TableName index = IndexCatalog.indexTableName(STREAMED, spec.alias());
        a.disableTable(index);
        a.enableTable(index);
      }
    }
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (util != null) util.shutdownMiniCluster();
  }

  private void createTable(TableName name) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(name)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          new byte[][] {row(ROWS / 3), row(2 * ROWS / 3)});
    }
  }

  static byte[] row(int i) {
    return Bytes.toBytes(String.format("r%05d", i));
  }

  /** Every 10th row lacks the city; a few cities are binary with 0x00 bytes; names repeat. */
  static byte[] city(int i) {
    if (i % 250 == 7) return new byte[] {0, (byte) (i / 250), 0};
    return Bytes.toBytes("city-" + (i % 97));
  }

  private void write(TableName table) throws IOException {
    try (Table t = connection.getTable(table)) {
      List<Put> batch = new ArrayList<>();
      for (int i = 0; i < ROWS; i++) {
        Put p = new Put(row(i)).addColumn(D, NAME, Bytes.toBytes("n" + (i % 700)));
        if (i % 10 != 0) p.addColumn(D, CITY, city(i));
        batch.add(p);
        if (batch.size() == 500) {
          t.put(batch);
          batch.clear();
        }
      }
      t.put(batch);
    }
  }

  /** Runs the tool as `hbase jar` would; returns exit status, stdout and stderr. */
  private Run run(String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Configuration conf = new Configuration(util.getConfiguration());
    int status =
        ToolRunner.run(
            conf,
            new BuildIndexTool(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)),
            args);
    return new Run(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  record Run(int status, String out, String err) {}

  @Test
  @Order(1)
  void badArgumentsMissingTablesAndUnknownIndexesFailClearly() throws Exception {
    Run r = run();
    assertEquals(BuildIndexTool.EXIT_USAGE, r.status());
    assertTrue(
        r.err().contains("no table given") && r.err().contains("usage: BuildIndexTool"), r.err());
    r = run("bulk", "--mode", "fast");
    assertEquals(BuildIndexTool.EXIT_USAGE, r.status());
    assertTrue(r.err().contains("--mode must be hfiles or puts, got 'fast'"), r.err());
    r = run("no_such_table");
    assertEquals(BuildIndexTool.EXIT_USAGE, r.status());
    assertTrue(r.err().contains("table no_such_table does not exist"), r.err());
    r = run("bulk", "--index", "zip");
    assertEquals(BuildIndexTool.EXIT_USAGE, r.status());
    assertTrue(r.err().contains("table bulk has no index 'zip'; its indexes: city, name"), r.err());
    r = run("bulk__idx_city"); // an index table is not a data table with indexes
    assertEquals(BuildIndexTool.EXIT_USAGE, r.status());
    assertTrue(r.err().contains("has no scbf index"), r.err());
  }

  @Test
  @Order(2)
  void hfileBuildAnswersLikeAScanAndEqualsTheStreamedFilters() throws Exception {
    // Before the build the index is empty and marked building: queries scan the data table
    // instead of answering "no rows".
    Answers before = new Answers(connection, BULK, D, CITY);
    try (IndexedTable t = new IndexedTable(connection, BULK)) {
      for (byte[] v : before.values()) {
        assertEquals(before.rows(v), IndexProbe.strings(t.findRowKeys(D, CITY, v)));
        assertTrue(t.lastTrace().kind().endsWith("scan (index building)"), t.lastTrace().kind());
      }
    }
    Run r = run("bulk", "--index", "city");
    assertEquals(0, r.status(), r.err());
    assertTrue(
        r.out().contains("3000 rows read, 300 without the column, 2700 index rows"), r.out());
    assertQueriesMatchOracle(CITY, CITY_INDEX);
    assertFiltersEqualStreamed(CITY_INDEX);
  }

  @Test
  @Order(3)
  void putsBuildAnswersLikeAScanAndEqualsTheStreamedFilters() throws Exception {
    Run r = run("bulk", "--index", "name", "--mode", "puts");
    assertEquals(0, r.status(), r.err());
    assertTrue(r.out().contains("3000 rows read, 0 without the column, 3000 index rows"), r.out());
    assertQueriesMatchOracle(NAME, NAME_INDEX);
    // Puts count in arrival order; with no sub-filter growth (default capacity) order is
    // irrelevant.
    assertFiltersEqualStreamed(NAME_INDEX);
  }

  @Test
  @Order(4)
  void rerunningEveryIndexLeavesTheSameIndexAndFilters() throws Exception {
    Map<Integer, BucketFilterState> city = IndexProbe.filters(util, indexTable(BULK, CITY_INDEX));
    Run r = run("bulk"); // all indexes, HFiles: the same rows loaded again
    assertEquals(0, r.status(), r.err());
    assertTrue(r.out().contains("index 'city'") && r.out().contains("index 'name'"), r.out());
    assertSameFilters(city, IndexProbe.filters(util, indexTable(BULK, CITY_INDEX)));
    assertFiltersEqualStreamed(CITY_INDEX);
    assertFiltersEqualStreamed(NAME_INDEX); // now rebuilt after a bulk load: still equal
    assertQueriesMatchOracle(CITY, CITY_INDEX);
    assertQueriesMatchOracle(NAME, NAME_INDEX);
  }

  /** Concurrent writes are safe: no false negatives; stale index rows are re-checked away. */
  @Test
  @Order(5)
  void buildingWhileTheTableIsWrittenLosesNothing() throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    CompletableFuture<Integer> writer =
        CompletableFuture.supplyAsync(
            () -> {
              Random rnd = new Random(7);
              int writes = 0;
              try (Table t = connection.getTable(BULK)) {
                while (!stop.get() || writes < 200) {
                  int i = rnd.nextInt(ROWS);
                  t.put(
                      new Put(row(i))
                          .addColumn(D, CITY, Bytes.toBytes("moved-" + rnd.nextInt(20))));
                  writes++;
                }
              } catch (IOException e) {
                throw new RuntimeException(e);
              }
              return writes;
            });
    Run r = run("bulk", "--index", "city");
    stop.set(true);
    int writes = writer.get();
    assertEquals(0, r.status(), r.err());
    Answers oracle = new Answers(connection, BULK, D, CITY);
    Thread.sleep(2000); // the writer's last index rows: 4 publish intervals
    try (IndexedTable t = new IndexedTable(connection, BULK)) {
      for (byte[] v : oracle.values()) {
        assertEquals(
            oracle.rows(v), IndexProbe.resultRows(t.find(D, CITY, v)), Bytes.toStringBinary(v));
        assertTrue(
            IndexProbe.strings(t.findRowKeys(D, CITY, v)).containsAll(oracle.rows(v)),
            "no false negative for " + Bytes.toStringBinary(v));
      }
    }
    System.out.println("bulk build during " + writes + " concurrent writes: index complete");
  }

  /**
   * A local index defined for the build: until it is built every region scans its rows; the job
   * loads each region's entries and marker, and when the index is marked built the regions keep the
   * loaded entries (none builds its own), count each exactly once and answer routed queries.
   */
  @Test
  @Order(6)
  void localBuildLoadsEveryRegionsEntriesAndTheRegionsKeepThem() throws Exception {
    IndexAdmin admin = new IndexAdmin(connection);
    assertTrue(admin.isBuilding(BULK_LOCAL, "city"));
    Answers oracle = new Answers(connection, BULK_LOCAL, D, CITY);
    try (IndexedTable t = new IndexedTable(connection, BULK_LOCAL)) {
      for (byte[] v : oracle.values()) {
        assertEquals(oracle.rows(v), IndexProbe.resultRows(t.find(D, CITY, v)));
        assertEquals(3, t.lastTrace().regions().unsure(), "no region is routable while building");
      }
    }
    Run r = run("bulk_local", "--mode", "puts");
    assertEquals(BuildIndexTool.EXIT_USAGE, r.status());
    assertTrue(r.err().contains("is local: its entries are built with --mode hfiles"), r.err());

    long builtByRegions = IndexProbe.localEntriesBuilt(util);
    r = run("bulk_local");
    assertEquals(0, r.status(), r.err());
    assertTrue(
        r.out()
            .contains("(local, hfiles): 3000 rows read, 300 without the column, 2700 index rows"),
        r.out());
    assertFalse(admin.isBuilding(BULK_LOCAL, "city"));
    assertEquals(
        builtByRegions,
        IndexProbe.localEntriesBuilt(util),
        "every region kept the loaded entries instead of building its own");

    assertEquals(
        entriesPerRegion(oracle), IndexProbe.localFilterAdds(util, BULK_LOCAL, "city"), "counted");

    List<byte[]> probes = new ArrayList<>(oracle.values());
    probes.add(Bytes.toBytes("absent"));
    try (IndexedTable t = new IndexedTable(connection, BULK_LOCAL)) {
      for (byte[] v : probes) {
        assertEquals(
            oracle.rows(v),
            IndexProbe.resultRows(t.find(D, CITY, v)),
            "find " + Bytes.toStringBinary(v));
        assertEquals(0, t.lastTrace().regions().unsure(), t.lastTrace().toString());
      }
      byte[] lo = Bytes.toBytes("city-1");
      byte[] hi = Bytes.toBytes("city-3");
      assertEquals(oracle.range(lo, hi), IndexProbe.strings(t.rangeRowKeys(D, CITY, lo, hi)));
      IndexEntry entry = t.findEntries(D, CITY, city(11)).get(0);
      int i = Integer.parseInt(Bytes.toString(entry.row()).substring(1));
      assertEquals(
          "n" + (i % 700), Bytes.toString(entry.covered().get(new IndexSpec.Column(D, NAME))));
    }
    r = run("bulk_local", "--index", "city");
    assertEquals(BuildIndexTool.EXIT_USAGE, r.status());
    assertTrue(r.err().contains("local index 'city' of bulk_local is built"), r.err());

    // A split: the left daughter keeps its parent's entries and drops those of its sibling's rows,
    // the right daughter builds its own; each filter then counts exactly its rows.
    builtByRegions = IndexProbe.localEntriesBuilt(util);
    try (Admin a = connection.getAdmin()) {
      a.split(BULK_LOCAL, row(500));
    }
    while (util.getMiniHBaseCluster().getRegions(BULK_LOCAL).size() != 4) Thread.sleep(100);
    util.waitUntilNoRegionsInTransition(60_000);
    assertEquals(entriesPerRegion(oracle), IndexProbe.localFilterAdds(util, BULK_LOCAL, "city"));
    long rightDaughterRows =
        oracle.range(null, null).stream()
            .filter(row -> row.compareTo("r00500") >= 0 && row.compareTo("r01000") < 0)
            .count();
    assertEquals(rightDaughterRows, IndexProbe.localEntriesBuilt(util) - builtByRegions);
    try (IndexedTable t = new IndexedTable(connection, BULK_LOCAL)) {
      for (byte[] v : oracle.values()) {
        assertEquals(oracle.rows(v), IndexProbe.resultRows(t.find(D, CITY, v)));
      }
    }
  }

  /** The verify as MapReduce jobs finds every damage of an index and repairs it. */
  @Test
  @Order(7)
  void mapReduceVerifyFindsEveryDamageAndRepairsIt() throws Exception {
    // Test 5's concurrent writes may have left stale rows: start from a repaired index.
    Run r = runVerify("bulk", "--index", "city", "--repair");
    assertEquals(0, r.status(), r.err());
    r = runVerify("bulk", "--index", "city");
    assertEquals(0, r.status(), r.out() + r.err());
    assertTrue(r.out().contains("3000 data rows"), r.out());

    List<byte[]> withCity = new ArrayList<>();
    for (int i = 1; withCity.size() < 4; i++) if (i % 10 != 0 && i % 250 != 7) withCity.add(row(i));
    try (Connection hbase = MiniCluster.superuser(util);
        Table data = hbase.getTable(BULK);
        Table index = hbase.getTable(indexTable(BULK, CITY_INDEX))) {
      IndexRows rows = new IndexRows(CITY_INDEX);
      for (int k = 0; k < 3; k++) { // missing: three rows lose their index rows
        for (Put p : rows.of(data.get(rows.get(withCity.get(k))))) {
          index.delete(new Delete(p.getRow()));
        }
      }
      for (int k = 0; k < 2; k++) { // stale: two rows indexed under a value they lack
        byte[] userRow = withCity.get(k);
        index.put(
            new Put(
                    IndexKeyCodec.rowKey(
                        IndexKeyCodec.bucket(userRow, CITY_INDEX.buckets()),
                        Bytes.toBytes("city"),
                        Bytes.toBytes("nowhere"),
                        userRow))
                .addColumn(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER, new byte[0]));
      }
      for (Put p : rows.of(data.get(rows.get(withCity.get(3))))) { // a wrong covered value
        index.put(
            new Put(p.getRow())
                .addColumn(
                    IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER, Bytes.toBytes("x")));
      }
    }
    r = runVerify("bulk", "--index", "city");
    assertEquals(1, r.status(), r.out() + r.err());
    assertTrue(r.out().contains("missing 3, wrong covered values 1, stale 2"), r.out());
    r = runVerify("bulk", "--index", "city", "--repair");
    assertEquals(0, r.status(), r.err());
    assertTrue(r.out().contains("repaired: 4 written, 2 stale removed"), r.out());
    r = runVerify("bulk");
    assertEquals(0, r.status(), r.out() + r.err());
    assertTrue(r.out().contains("missing 0, wrong covered values 0, stale 0"), r.out());
    Answers oracle = new Answers(connection, BULK, D, CITY);
    try (IndexedTable t = new IndexedTable(connection, BULK)) {
      for (byte[] v : oracle.values()) {
        // Row keys straight from the index (no re-check): exactly the data's.
        assertEquals(oracle.rows(v), IndexProbe.strings(t.findRowKeys(D, CITY, v)));
      }
      assertTrue(t.findRowKeys(D, CITY, Bytes.toBytes("nowhere")).isEmpty());
    }

    assertEquals(2, runVerify("bulk_local", "--index", "city").status(), "local: nothing to do");
    assertEquals(2, runVerify("no_such_table").status());
  }

  private Run runVerify(String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        ToolRunner.run(
            new Configuration(util.getConfiguration()),
            new VerifyIndexTool(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)),
            args);
    return new Run(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** The rows holding the column in each region of the local table, by encoded region name. */
  private TreeMap<String, Long> entriesPerRegion(Answers oracle) {
    TreeMap<String, Long> expected = new TreeMap<>();
    for (HRegion region : util.getMiniHBaseCluster().getRegions(BULK_LOCAL)) {
      long rows =
          oracle.range(null, null).stream()
              .filter(row -> region.getRegionInfo().containsRow(Bytes.toBytesBinary(row)))
              .count();
      expected.put(region.getRegionInfo().getEncodedName(), rows);
    }
    return expected;
  }

  @Test
  @Order(8)
  void hfileBuildIntoAByValueIndexAnswersLikeAScan() throws Exception {
    // Beside the bucket index on the same column (the online migration to the value layout).
    IndexSpec byValue =
        IndexSpec.builder(D, CITY)
            .alias("city_v")
            .layout(IndexSpec.Layout.BY_VALUE)
            .buckets(2)
            .covered(D, NAME)
            .build();
    new IndexAdmin(connection).defineIndex(BULK, byValue);
    Run r = run("bulk", "--index", "city_v");
    assertEquals(0, r.status(), r.err());
    Answers expected = new Answers(connection, BULK, D, CITY);
    try (IndexedTable t = new IndexedTable(connection, BULK)) {
      for (byte[] v : expected.values()) {
        assertEquals(expected.rows(v), IndexProbe.resultRows(t.find("city_v", v)));
        assertTrue(t.lastTrace().regions().asked() <= 2, t.lastTrace().toString());
      }
    }
  }

  @Test
  @Order(9)
  void aTypedBuildLeavesOutAndReportsTheRowsWhoseValueIsNotOfItsType() throws Exception {
    byte[] amount = Bytes.toBytes("amount");
    TreeMap<String, Long> amounts = new TreeMap<>();
    try (Table t = connection.getTable(BULK)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < ROWS; i += 10) {
        // Written before the index exists: it would refuse the three short values.
        boolean invalid = i % 1000 == 500;
        long v = i % 201 - 100;
        puts.add(
            new Put(row(i))
                .addColumn(D, amount, invalid ? new byte[] {1, 2, 3} : Bytes.toBytes(v)));
        if (!invalid) amounts.put(Bytes.toString(row(i)), v);
      }
      t.put(puts);
    }
    new IndexAdmin(connection)
        .defineIndex(
            BULK,
            IndexSpec.builder(D, amount)
                .alias("amount")
                .type(IndexSpec.ValueType.LONG)
                .layout(IndexSpec.Layout.BY_VALUE)
                .buckets(2)
                .build());
    Run r = run("bulk", "--index", "amount");
    assertEquals(0, r.status(), r.err());
    assertTrue(
        r.out().contains(", 3 with a value not of its type, " + amounts.size() + " index rows"),
        r.out());
    assertTrue(
        r.err().contains("warning: index 'amount': 3 rows hold a value that is not of their"),
        r.err());
    try (IndexedTable t = new IndexedTable(connection, BULK)) {
      List<String> got = new ArrayList<>();
      for (byte[] k : t.rangeRowKeys(D, amount, Bytes.toBytes(-10L), Bytes.toBytes(10L))) {
        got.add(Bytes.toString(k));
      }
      List<String> expected = new ArrayList<>();
      amounts.forEach(
          (row, v) -> {
            if (v >= -10 && v < 10) expected.add(row);
          });
      assertEquals(expected, got, "a range across zero, in the LONG's order");
    }
    VerifyReport verify = new IndexAdmin(connection).verify(BULK, "amount");
    assertTrue(verify.isConsistent(), verify.toString()); // the three rows are not "missing"
    assertEquals(amounts.size(), verify.indexRows());
  }

  @Test
  @Order(10)
  void anOrderedBuildAnswersRangesInValueOrderAcrossItsSplits() throws Exception {
    byte[] amount = Bytes.toBytes("amount"); // written by the test before: LONGs in [-100, 100]
    TreeMap<Long, TreeSet<String>> oracle = new TreeMap<>();
    try (Table t = connection.getTable(BULK);
        ResultScanner scanner = t.getScanner(new Scan().addColumn(D, amount))) {
      for (Result r : scanner) {
        byte[] v = r.getValue(D, amount);
        if (v.length != Bytes.SIZEOF_LONG) continue; // the rows a LONG index leaves out
        oracle
            .computeIfAbsent(Bytes.toLong(v), k -> new TreeSet<>())
            .add(Bytes.toString(r.getRow()));
      }
    }
    IndexAdmin admin = new IndexAdmin(connection);
    admin.defineIndex(
        BULK,
        IndexSpec.builder(D, amount)
            .alias("amount_o")
            .type(IndexSpec.ValueType.LONG)
            .layout(IndexSpec.Layout.ORDERED)
            .buckets(2)
            .build());
    admin.splitIndexAt(
        BULK, "amount_o", Bytes.toBytes(-50L), Bytes.toBytes(0L), Bytes.toBytes(50L));
    Run r = run("bulk", "--index", "amount_o");
    assertEquals(0, r.status(), r.err());
    try (IndexedTable t = new IndexedTable(connection, BULK)) {
      for (long[] range : new long[][] {{-100, 101}, {-60, -40}, {-5, 5}, {49, 51}}) {
        List<String> expected = new ArrayList<>();
        oracle.subMap(range[0], range[1]).values().forEach(expected::addAll);
        List<String> ascending = new ArrayList<>();
        for (IndexEntry e :
            t.rangeEntries(
                "amount_o",
                Bytes.toBytes(range[0]),
                Bytes.toBytes(range[1]),
                ValueOrder.ASCENDING,
                Integer.MAX_VALUE)) {
          ascending.add(Bytes.toString(e.row()));
        }
        assertEquals(expected, ascending, "value order, then row order: " + range[0]);
        List<String> lastThree = new ArrayList<>();
        for (IndexEntry e :
            t.rangeEntries(
                "amount_o",
                Bytes.toBytes(range[0]),
                Bytes.toBytes(range[1]),
                ValueOrder.DESCENDING,
                3)) {
          lastThree.add(Bytes.toString(e.row()));
        }
        List<String> reversed = new ArrayList<>();
        oracle.subMap(range[0], true, range[1], false).descendingMap().values().stream()
            .map(rows -> new ArrayList<>(rows.descendingSet()))
            .forEach(reversed::addAll);
        assertEquals(reversed.subList(0, Math.min(3, reversed.size())), lastThree);
      }
    }
    VerifyReport verify = admin.verify(BULK, "amount_o");
    assertTrue(verify.isConsistent(), verify.toString());
  }

  @Test
  @Order(11)
  void aBulkBuildOfAPartialExpressionIndexHoldsWhatTheWritePathWould() throws Exception {
    byte[][] names = new byte[50][];
    for (int n = 0; n < names.length; n++) names[n] = Bytes.toBytes("n" + n);
    IndexSpec spec =
        IndexSpec.builder(D, CITY)
            .alias("city_uc")
            .layout(IndexSpec.Layout.BY_VALUE)
            .buckets(2)
            .expression(IndexExpression.upper().then(IndexExpression.prefix(6)))
            .where(Condition.in(D, NAME, names))
            .build();
    new IndexAdmin(connection).defineIndex(BULK, spec);
    Run r = run("bulk", "--index", "city_uc");
    assertEquals(0, r.status(), r.err());
    // The oracle, from the rows as they are: upper case, 6 characters, names n0..n49 only.
    TreeMap<String, List<String>> expected = new TreeMap<>();
    long selected = 0;
    try (Table t = connection.getTable(BULK);
        ResultScanner rows = t.getScanner(new Scan().addColumn(D, CITY).addColumn(D, NAME))) {
      for (Result row : rows) {
        byte[] city = row.getValue(D, CITY);
        String name = Bytes.toString(row.getValue(D, NAME));
        if (city == null || name == null || Integer.parseInt(name.substring(1)) >= 50) continue;
        String upper = Bytes.toString(city).toUpperCase(java.util.Locale.ROOT);
        String value = upper.substring(0, Math.min(6, upper.length()));
        expected.computeIfAbsent(value, v -> new ArrayList<>()).add(Bytes.toString(row.getRow()));
        selected++;
      }
    }
    assertTrue(expected.size() > 1, expected.toString());
    try (IndexedTable t = new IndexedTable(connection, BULK)) {
      for (Map.Entry<String, List<String>> e : expected.entrySet()) {
        assertEquals(
            e.getValue(),
            IndexProbe.resultRows(t.find("city_uc", Bytes.toBytes(e.getKey()))),
            e.getKey());
      }
    }
    VerifyReport verify = new IndexAdmin(connection).verify(BULK, "city_uc");
    assertTrue(verify.isConsistent(), verify.toString());
    assertEquals(selected, verify.indexRows(), "entries: the rows its WHERE selects");
  }

  private void assertQueriesMatchOracle(byte[] qualifier, IndexSpec spec) throws Exception {
    Answers oracle = new Answers(connection, BULK, D, qualifier);
    List<byte[]> probes = new ArrayList<>(oracle.values());
    probes.add(Bytes.toBytes("absent"));
    try (IndexedTable t = new IndexedTable(connection, BULK)) {
      // Routed (not strict): the tool returned once routing reflected every bucket's filter.
      for (byte[] v : probes) {
        assertEquals(
            oracle.rows(v),
            IndexProbe.strings(t.findRowKeys(D, qualifier, v)),
            "point " + Bytes.toStringBinary(v));
        assertEquals(0, t.lastTrace().regions().unsure(), t.lastTrace().toString());
      }
      byte[][][] ranges = {
        {null, null},
        {Bytes.toBytes("city-1"), Bytes.toBytes("city-3")},
        {null, Bytes.toBytes("city-")},
        {Bytes.toBytes("n5"), null},
        {Bytes.toBytes("zzz"), null}
      };
      for (byte[][] range : ranges) {
        assertEquals(
            oracle.range(range[0], range[1]),
            IndexProbe.strings(t.rangeRowKeys(D, qualifier, range[0], range[1])));
      }
    }
    TreeMap<Integer, Long> adds = new TreeMap<>();
    IndexProbe.filters(util, indexTable(BULK, spec)).forEach((b, f) -> adds.put(b, f.adds()));
    assertEquals(oracle.rowsPerBucket(spec.buckets()), adds, "index rows counted per bucket");
  }

  /**
   * Issue 51: every job command line of the guides (docs/bulk-build.md, docs/operations.md) runs as
   * written: the words after the class name, on a table "people" as the guides describe, builds
   * first, then verifies, each exiting 0; the built index then answers like a scan.
   */
  @Test
  @Order(12)
  void theGuidesJobCommandLinesRunAsWritten() throws Exception {
    Map<String, List<List<String>>> lines = new TreeMap<>(); // by tool: Build before Verify
    for (String guide : List.of("docs/bulk-build.md", "docs/operations.md")) {
      boolean inSh = false;
      for (String line : Files.readAllLines(Path.of(guide))) {
        if (line.startsWith("```")) {
          inSh = line.equals("```sh");
          continue;
        }
        Matcher m = TOOL_LINE.matcher(line.replaceFirst("\\s+#.*", ""));
        if (inSh && !line.startsWith("#") && m.find()) {
          List<String> args = List.of(m.group(2).trim().split("\\s+"));
          lines.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(args);
        }
      }
    }
    assertEquals(List.of("BuildIndexTool", "VerifyIndexTool"), List.copyOf(lines.keySet()));
    assertTrue(lines.get("BuildIndexTool").size() >= 4, lines.toString());
    TableName people = TableName.valueOf("people");
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(people)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build());
    }
    try (Table t = connection.getTable(people)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        puts.add(new Put(row(i)).addColumn(D, CITY, Bytes.toBytes("city-" + (i % 5))));
      }
      t.put(puts);
    }
    IndexAdmin indexes = new IndexAdmin(connection);
    IndexSpec city = IndexSpec.builder(D, CITY).alias("city").build();
    for (List<String> args : lines.get("BuildIndexTool")) {
      // Each example from the guides' starting point: the index defined, not yet built.
      if (!indexes.listIndexes(people).isEmpty()) indexes.dropIndex(people, "city");
      indexes.defineIndex(people, city);
      Run r = run(args.toArray(new String[0]));
      assertEquals(0, r.status(), args + "\n" + r.out() + r.err());
      assertFalse(indexes.isBuilding(people, "city"), args.toString());
    }
    // A Puts job on a built index is refused before it starts (it used to fail in its mappers,
    // exit 1, "failed: NA").
    Run puts = run("people", "--mode", "puts");
    assertEquals(BuildIndexTool.EXIT_USAGE, puts.status(), puts.err());
    assertTrue(
        puts.err().contains("index 'city' of people is built: its regions take no client Puts"),
        puts.err());
    for (List<String> args : lines.get("VerifyIndexTool")) {
      Run r = runVerify(args.toArray(new String[0]));
      assertEquals(0, r.status(), args + "\n" + r.out() + r.err());
    }
    try (IndexedTable t = new IndexedTable(connection, people)) {
      for (int c = 0; c < 5; c++) {
        assertEquals(40, t.findRowKeys(D, CITY, Bytes.toBytes("city-" + c)).size(), "city-" + c);
      }
    }
  }

  /** A guide's job line: the tool's class, then its arguments (after yarn jar or hbase). */
  private static final Pattern TOOL_LINE =
      Pattern.compile("io\\.scbf\\.mapreduce\\.(BuildIndexTool|VerifyIndexTool)\\b(.*)$");

  private void assertFiltersEqualStreamed(IndexSpec spec) throws InterruptedException {
    assertSameFilters(
        IndexProbe.filters(util, indexTable(STREAMED, spec)),
        IndexProbe.filters(util, indexTable(BULK, spec)));
  }

  private static void assertSameFilters(
      Map<Integer, BucketFilterState> expected, Map<Integer, BucketFilterState> actual) {
    assertEquals(expected.keySet(), actual.keySet());
    expected.forEach(
        (bucket, f) -> {
          assertEquals(f.adds(), actual.get(bucket).adds(), "rows counted, bucket " + bucket);
          assertArrayEquals(
              f.bitmap(), actual.get(bucket).bitmap(), "routing bitmap, bucket " + bucket);
        });
  }

  private static TableName indexTable(TableName data, IndexSpec spec) {
    return IndexCatalog.indexTableName(data, spec.alias());
  }
}
