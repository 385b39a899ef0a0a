package io.scbf.hbase.crash;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The client side of {@code scripts/crash-test.sh}, against a real multi-process cluster (the HBase
 * configuration on the class path):
 *
 * <ul>
 *   <li>{@code setup}: a table with a global and a local index;
 *   <li>{@code write LOG STOP}: puts and value changes as fast as it can until the file STOP
 *       exists, appending every acknowledged write ({@code row value}) and every failed one ({@code
 *       ? row value}) to LOG;
 *   <li>{@code check LOG}: no acknowledged write lost (each row holds its last acknowledged value,
 *       or a later attempted one whose outcome is unknown), and no routed query misses a row: every
 *       value's rows by a full scan are found by both indexes. Exit status 1 on any loss or miss.
 * </ul>
 */
public final class CrashWorkload {
  static final TableName TABLE = TableName.valueOf("crash");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] AGE = Bytes.toBytes("age");
  static final int ROWS = 5000;
  static final int VALUES = 40;

  private CrashWorkload() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.setInt("hbase.client.retries.number", 30);
    try (Connection c = ConnectionFactory.createConnection(conf)) {
      switch (args[0]) {
        case "setup" -> setup(c);
        case "write" -> write(c, Path.of(args[1]), Path.of(args[2]));
        case "check" -> System.exit(check(c, Path.of(args[1])) ? 0 : 1);
        default -> throw new IllegalArgumentException("setup | write LOG STOP | check LOG");
      }
    }
  }

  static byte[] row(int i) {
    return Bytes.toBytes(String.format("r%05d", i));
  }

  static void setup(Connection c) throws IOException {
    try (Admin admin = c.getAdmin()) {
      byte[][] splits = new byte[7][];
      for (int i = 0; i < splits.length; i++) splits[i] = row((i + 1) * ROWS / 8);
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          splits);
    }
    IndexAdmin indexes = new IndexAdmin(c);
    indexes.createIndex(TABLE, IndexSpec.builder(D, CITY).alias("city").buckets(8).build());
    indexes.createIndex(TABLE, IndexSpec.builder(D, AGE).alias("age").local().build());
    System.out.println("setup: table " + TABLE + " with indexes city (global) and age (local)");
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
                .addColumn(D, AGE, Bytes.toBytes("a" + v));
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

  static boolean check(Connection c, Path log) throws IOException {
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
    int lost = 0;
    Set<Integer> seen = new TreeSet<>();
    try (Table t = c.getTable(TABLE);
        ResultScanner s = t.getScanner(new Scan())) {
      for (Result r : s) {
        String row = Bytes.toString(r.getRow());
        String city = Bytes.toString(r.getValue(D, CITY));
        cityRows.computeIfAbsent(city, k -> new TreeSet<>()).add(row);
        ageRows.computeIfAbsent(Bytes.toString(r.getValue(D, AGE)), k -> new TreeSet<>()).add(row);
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
    int misses = 0;
    try (IndexedTable indexed = new IndexedTable(c, TABLE)) {
      for (Map.Entry<String, TreeSet<String>> e : cityRows.entrySet()) {
        misses += missing(indexed.findRowKeys(D, CITY, Bytes.toBytes(e.getKey())), e, "city");
      }
      for (Map.Entry<String, TreeSet<String>> e : ageRows.entrySet()) {
        misses += missing(indexed.findRowKeys(D, AGE, Bytes.toBytes(e.getKey())), e, "age");
      }
    }
    System.out.printf(
        "check: %d rows, %d acknowledged rows, %d lost, %d index misses (routed, both indexes)%n",
        seen.size(), lastAcked.size(), lost, misses);
    return lost == 0 && misses == 0;
  }

  private static int missing(
      List<byte[]> found, Map.Entry<String, TreeSet<String>> expected, String index) {
    Set<String> got = new TreeSet<>();
    for (byte[] r : found) got.add(Bytes.toString(r));
    int n = 0;
    for (String row : expected.getValue()) {
      if (!got.contains(row)) {
        n++;
        System.out.println("MISS: " + index + " = " + expected.getKey() + " lacks " + row);
      }
    }
    return n;
  }
}
