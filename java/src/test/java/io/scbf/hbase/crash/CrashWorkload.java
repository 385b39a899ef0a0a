package io.scbf.hbase.crash;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexEntry;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.ValueOrder;
import io.scbf.hbase.shared.IndexCatalog;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The client side of {@code scripts/crash-test.sh}, against a real multi-process cluster (the HBase
 * configuration on the class path):
 *
 * <ul>
 *   <li>{@code setup}: a table with a global index of each layout and a local index ({@code
 *       create-table} and {@code create-indexes} do each half; {@code drop-indexes} drops them);
 *       {@code create-eventual} adds an EVENTUAL global index (the crash test's fifth, the
 *       lifecycle test's too);
 *   <li>{@code write LOG STOP}: puts and value changes as fast as it can until the file STOP
 *       exists, appending every acknowledged write ({@code row value}) and every failed one ({@code
 *       ? row value}) to LOG;
 *   <li>{@code check LOG}: no acknowledged write lost (each row holds its last acknowledged value,
 *       or a later attempted one whose outcome is unknown), and no routed query misses a row: every
 *       value's rows by a full scan are found by every index (an EVENTUAL one once {@code
 *       awaitIndexed} says it caught up). Exit status 1 on any loss or miss; {@code check-data
 *       LOG}: the same without the indexes, and every table read through;
 *   <li>{@code split}: splits a region of the {@code BY_VALUE} index at the middle of its keys (the
 *       script kills a server while it runs); {@code move}: moves one of its regions to another
 *       server. Both report what happened and never fail the run: HBase may refuse a split (a
 *       daughter not yet compacted) or lose it to the kill.
 * </ul>
 */
public final class CrashWorkload {
  static final TableName TABLE = TableName.valueOf("crash");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] AGE = Bytes.toBytes("age");
  static final byte[] ZONE = Bytes.toBytes("zone");
  static final byte[] SCORE = Bytes.toBytes("score");
  static final byte[] SHELF = Bytes.toBytes("shelf");
  static final String EVENTUAL_ALIAS = "shelf";

  /**
   * The EVENTUAL index's catch-up bound after the kills (its backlog may sit in claimed queues).
   */
  static final long CATCH_UP_MS = 300_000;

  static final TableName ZONE_INDEX = IndexCatalog.indexTableName(TABLE, "zone");
  static final int ROWS = 5000;
  static final int VALUES = 40;

  private CrashWorkload() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.setInt("hbase.client.retries.number", 30);
    try (Connection c = ConnectionFactory.createConnection(conf)) {
      switch (args[0]) {
        case "setup" -> {
          createTable(c);
          createIndexes(c);
        }
        case "create-table" -> createTable(c);
        case "create-indexes" -> createIndexes(c);
        case "create-eventual" -> createEventualIndex(c);
        case "drop-indexes" -> dropIndexes(c);
        case "write" -> write(c, Path.of(args[1]), Path.of(args[2]));
        case "check" -> System.exit(check(c, Path.of(args[1]), true) ? 0 : 1);
        case "check-data" -> System.exit(check(c, Path.of(args[1]), false) ? 0 : 1);
        case "split" -> split(c);
        case "move" -> move(c);
        default ->
            throw new IllegalArgumentException(
                "setup | create-table | create-indexes | create-eventual | drop-indexes | write LOG"
                    + " STOP | check LOG"
                    + " | check-data LOG | split | move");
      }
    }
  }

  static byte[] row(int i) {
    return Bytes.toBytes(String.format("r%05d", i));
  }

  static void createTable(Connection c) throws IOException {
    try (Admin admin = c.getAdmin()) {
      byte[][] splits = new byte[7][];
      for (int i = 0; i < splits.length; i++) splits[i] = row((i + 1) * ROWS / 8);
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          splits);
    }
    System.out.println("setup: table " + TABLE);
  }

  static void createIndexes(Connection c) throws IOException {
    IndexAdmin indexes = new IndexAdmin(c);
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, CITY)
            .alias("city")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(8)
            .build());
    indexes.createIndex(TABLE, IndexSpec.builder(D, AGE).alias("age").local().build());
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, ZONE)
            .alias("zone")
            .layout(IndexSpec.Layout.BY_VALUE)
            .buckets(2)
            .build());
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, SCORE)
            .alias("score")
            .type(IndexSpec.ValueType.LONG)
            .layout(IndexSpec.Layout.ORDERED)
            .build());
    System.out.println(
        "setup: indexes city (global, 8 buckets), age (local), zone (global, by value) and score"
            + " (global, ordered, long) on "
            + TABLE);
  }

  /** An EVENTUAL global index: maintained by the applier from the replication peer's edits. */
  static void createEventualIndex(Connection c) throws IOException {
    new IndexAdmin(c)
        .createIndex(
            TABLE,
            IndexSpec.builder(D, SHELF)
                .alias(EVENTUAL_ALIAS)
                .consistency(IndexSpec.Consistency.EVENTUAL)
                .buckets(2)
                .build());
    System.out.println("setup: index shelf (global, by value, EVENTUAL) on " + TABLE);
  }

  /** Drops every index of the table (the first step of an uninstall). */
  static void dropIndexes(Connection c) throws IOException {
    IndexAdmin indexes = new IndexAdmin(c);
    for (IndexSpec spec : indexes.listIndexes(TABLE)) indexes.dropIndex(TABLE, spec.alias());
    try (Admin admin = c.getAdmin()) {
      System.out.println(
          "dropped: "
              + TABLE
              + " has no scbf attribute left: "
              + admin.getDescriptor(TABLE).getValues().keySet().stream()
                  .noneMatch(k -> k.toString().startsWith("scbf.")));
    }
  }

  /** Splits the zone index's largest-keyed region in the middle of its key range. */
  static void split(Connection c) throws IOException {
    try (Admin admin = c.getAdmin()) {
      List<RegionInfo> regions = admin.getRegions(ZONE_INDEX);
      RegionInfo r = regions.get(new Random().nextInt(regions.size()));
      byte[] start = r.getStartKey().length == 0 ? new byte[] {0} : r.getStartKey();
      byte[] end = r.getEndKey().length == 0 ? new byte[] {(byte) 0xff} : r.getEndKey();
      byte[][] points = Bytes.split(start, end, 1);
      if (points == null || points.length < 3) return;
      admin.splitRegionAsync(r.getRegionName(), points[1]).get(60, TimeUnit.SECONDS);
      System.out.println(
          "split: zone index region " + r.getEncodedName() + " split, now " + count(admin));
    } catch (Exception e) {
      System.out.println("split: not done (" + e.getClass().getSimpleName() + ")");
    }
  }

  /** Moves one zone index region to another region server. */
  static void move(Connection c) throws IOException {
    try (Admin admin = c.getAdmin();
        RegionLocator locator = c.getRegionLocator(ZONE_INDEX)) {
      HRegionLocation l = locator.getAllRegionLocations().get(0);
      for (ServerName s : admin.getRegionServers()) {
        if (!s.equals(l.getServerName())) {
          admin.move(l.getRegion().getEncodedNameAsBytes(), s);
          System.out.println(
              "move: zone index region " + l.getRegion().getEncodedName() + " moved");
          return;
        }
      }
    } catch (IOException e) {
      System.out.println("move: not done (" + e.getClass().getSimpleName() + ")");
    }
  }

  private static String count(Admin admin) throws IOException {
    return admin.getRegions(ZONE_INDEX).size() + " regions";
  }

  static void write(Connection c, Path log, Path stop) throws IOException {
    Random random = new Random();
    long acked = 0, failed = 0;
    try (Table t = c.getTable(TABLE);
        PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8))) {
      while (!Files.exists(stop)) {
        int i = random.nextInt(ROWS);
        int v = random.nextInt(VALUES);
        Put p =
            new Put(row(i))
                .addColumn(D, CITY, Bytes.toBytes("c" + v))
                .addColumn(D, AGE, Bytes.toBytes("a" + v))
                .addColumn(D, ZONE, Bytes.toBytes("z" + v))
                .addColumn(D, SCORE, Bytes.toBytes(score(v)))
                .addColumn(D, SHELF, Bytes.toBytes("s" + v));
        try {
          t.put(p);
          out.println(i + " " + v);
          acked++;
        } catch (IOException e) {
          out.println("? " + i + " " + v);
          failed++;
        }
        out.flush();
      }
    }
    System.out.println("write: " + acked + " acknowledged, " + failed + " failed");
  }

  /**
   * No acknowledged write lost; with {@code indexes}, no row missed by a routed query of any index
   * either. Without, also every table of the cluster is read through (after an uninstall).
   */
  static boolean check(Connection c, Path log, boolean indexes) throws IOException {
    Map<Integer, Integer> lastAcked = new HashMap<>();
    Map<Integer, Set<Integer>> allowed = new HashMap<>(); // last acked + later unknown outcomes
    for (String line : Files.readAllLines(log)) {
      String[] f = line.split(" ");
      if (f[0].equals("?")) {
        int i = Integer.parseInt(f[1]);
        allowed.computeIfAbsent(i, k -> new TreeSet<>()).add(Integer.parseInt(f[2]));
      } else {
        int i = Integer.parseInt(f[0]), v = Integer.parseInt(f[1]);
        lastAcked.put(i, v);
        allowed.put(i, new TreeSet<>(List.of(v)));
      }
    }
    Map<String, TreeSet<String>> cityRows = new TreeMap<>();
    Map<String, TreeSet<String>> ageRows = new TreeMap<>();
    Map<String, TreeSet<String>> zoneRows = new TreeMap<>();
    TreeMap<Long, TreeSet<String>> scoreRows = new TreeMap<>();
    Map<String, TreeSet<String>> shelfRows = new TreeMap<>();
    int lost = 0;
    Set<Integer> seen = new TreeSet<>();
    try (Table t = c.getTable(TABLE);
        ResultScanner s = t.getScanner(new Scan())) {
      for (Result r : s) {
        String row = Bytes.toString(r.getRow());
        String city = Bytes.toString(r.getValue(D, CITY));
        cityRows.computeIfAbsent(city, k -> new TreeSet<>()).add(row);
        ageRows.computeIfAbsent(Bytes.toString(r.getValue(D, AGE)), k -> new TreeSet<>()).add(row);
        zoneRows
            .computeIfAbsent(Bytes.toString(r.getValue(D, ZONE)), k -> new TreeSet<>())
            .add(row);
        if (r.getValue(D, SHELF) != null) {
          shelfRows
              .computeIfAbsent(Bytes.toString(r.getValue(D, SHELF)), k -> new TreeSet<>())
              .add(row);
        }
        if (r.getValue(D, SCORE) != null) {
          scoreRows
              .computeIfAbsent(Bytes.toLong(r.getValue(D, SCORE)), k -> new TreeSet<>())
              .add(row);
        }
        int i = Integer.parseInt(row.substring(1));
        seen.add(i);
        Set<Integer> ok = allowed.get(i);
        if (ok != null
            && lastAcked.containsKey(i)
            && !ok.contains(Integer.parseInt(city.substring(1)))) {
          lost++;
          System.out.println(
              "LOST: " + row + " holds " + city + ", acknowledged c" + lastAcked.get(i));
        }
      }
    }
    for (int i : lastAcked.keySet()) {
      if (!seen.contains(i)) {
        lost++;
        System.out.println("LOST: row " + i + " is gone, acknowledged c" + lastAcked.get(i));
      }
    }
    if (!indexes) {
      System.out.printf(
          "check: %d rows, %d acknowledged rows, %d lost; %s%n",
          seen.size(), lastAcked.size(), lost, readAllTables(c));
      return lost == 0;
    }
    int misses = 0;
    try (IndexedTable indexed = new IndexedTable(c, TABLE)) {
      for (Map.Entry<String, TreeSet<String>> e : cityRows.entrySet()) {
        misses += missing(indexed.findRowKeys(D, CITY, Bytes.toBytes(e.getKey())), e, "city");
      }
      for (Map.Entry<String, TreeSet<String>> e : ageRows.entrySet()) {
        misses += missing(indexed.findRowKeys(D, AGE, Bytes.toBytes(e.getKey())), e, "age");
      }
      for (Map.Entry<String, TreeSet<String>> e : zoneRows.entrySet()) {
        misses += missing(indexed.findRowKeys(D, ZONE, Bytes.toBytes(e.getKey())), e, "zone");
      }
      for (Map.Entry<Long, TreeSet<String>> e : scoreRows.entrySet()) {
        misses +=
            missing(
                indexed.findRowKeys(D, SCORE, Bytes.toBytes(e.getKey())),
                Map.entry(e.getKey().toString(), e.getValue()),
                "score");
      }
      // A range across zero, from the index alone: every row of its values.
      TreeSet<String> inRange = new TreeSet<>();
      scoreRows.subMap(-5L, 5L).values().forEach(inRange::addAll);
      List<byte[]> ranged = new ArrayList<>();
      for (IndexEntry entry :
          indexed.rangeEntries(
              "score",
              Bytes.toBytes(-5L),
              Bytes.toBytes(5L),
              ValueOrder.ASCENDING,
              Integer.MAX_VALUE)) {
        ranged.add(entry.row());
      }
      misses += missing(ranged, Map.entry("[-5, 5)", inRange), "score range");
    }
    String eventual = "no EVENTUAL index";
    IndexAdmin indexAdmin = new IndexAdmin(c);
    if (indexAdmin.listIndexes(TABLE).stream().anyMatch(s -> s.alias().equals(EVENTUAL_ALIAS))) {
      long started = System.nanoTime();
      if (!indexAdmin.awaitIndexed(TABLE, CATCH_UP_MS)) {
        misses++;
        System.out.println("MISS: the EVENTUAL index did not catch up in " + CATCH_UP_MS + " ms");
      }
      long caughtUpMs = (System.nanoTime() - started) / 1_000_000;
      int late = eventualMisses(c, shelfRows, true);
      misses += late;
      eventual = "the EVENTUAL one caught up in " + caughtUpMs + " ms";
      // Tells a wait that returned too early (the misses heal) from lost index updates (they stay).
      for (int waited = 0; late > 0 && waited < 120; waited += 10) {
        sleepSeconds(10);
        late = eventualMisses(c, shelfRows, false);
        System.out.println("after " + (waited + 10) + " s more: " + late + " EVENTUAL misses");
      }
    }
    int zoneRegions;
    try (Admin admin = c.getAdmin()) {
      zoneRegions = admin.getRegions(ZONE_INDEX).size();
    }
    System.out.printf(
        "check: %d rows, %d acknowledged rows, %d lost, %d index misses (routed, every index"
            + " and an ordered range; the by-value one in %d regions; %s)%n",
        seen.size(), lastAcked.size(), lost, misses, zoneRegions, eventual);
    return lost == 0 && misses == 0;
  }

  private static int eventualMisses(
      Connection c, Map<String, TreeSet<String>> shelfRows, boolean print) throws IOException {
    int n = 0;
    try (IndexedTable indexed = new IndexedTable(c, TABLE)) {
      for (Map.Entry<String, TreeSet<String>> e : shelfRows.entrySet()) {
        List<byte[]> found = indexed.findRowKeys(D, SHELF, Bytes.toBytes(e.getKey()));
        n += print ? missing(found, e, "shelf") : lacking(found, e.getValue()).size();
      }
    }
    return n;
  }

  private static void sleepSeconds(int s) throws IOException {
    try {
      TimeUnit.SECONDS.sleep(s);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException();
    }
  }

  /** Reads every row of every user table: each must open and answer. */
  private static String readAllTables(Connection c) throws IOException {
    int tables = 0;
    long rows = 0;
    try (Admin admin = c.getAdmin()) {
      for (TableDescriptor d : admin.listTableDescriptors()) {
        tables++;
        try (Table t = c.getTable(d.getTableName());
            ResultScanner s = t.getScanner(new Scan())) {
          for (Result r : s) rows++;
        }
      }
    }
    return tables + " table(s) read through, " + rows + " rows";
  }

  /** The score of value {@code v}: negative for half the values (a typed order across zero). */
  static long score(int v) {
    return v - VALUES / 2L;
  }

  /** Prints each expected row the answer lacks; returns how many. */
  private static int missing(
      List<byte[]> found, Map.Entry<String, TreeSet<String>> expected, String index) {
    List<String> lacking = lacking(found, expected.getValue());
    for (String row : lacking) {
      System.out.println("MISS: " + index + " = " + expected.getKey() + " lacks " + row);
    }
    return lacking.size();
  }

  /** The rows of {@code expected} that {@code found} does not hold. */
  private static List<String> lacking(List<byte[]> found, Set<String> expected) {
    Set<String> got = new TreeSet<>();
    for (byte[] r : found) got.add(Bytes.toString(r));
    return expected.stream().filter(r -> !got.contains(r)).toList();
  }
}
