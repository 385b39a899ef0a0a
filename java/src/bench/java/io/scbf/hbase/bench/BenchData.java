package io.scbf.hbase.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The benchmark's rows, generated deterministically so that both tables get the same rows: 10% of
 * rows have the popular city "Beijing", the others one of rows/10 cities ("city-i", about 9 rows
 * each, Poisson-distributed, so some cities have exactly one row). Row keys are a bijective mix of
 * the row number, so every batch spreads over all pre-split regions, as a real load would.
 */
final class BenchData {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] AGE = Bytes.toBytes("age");
  static final byte[] NAME = Bytes.toBytes("name");
  static final String POPULAR = "Beijing";

  private final int rows;
  private final int cities;

  /** Rows per selective city, counted while generating, to pick one-row and selective values. */
  private final int[] rowsPerCity;

  BenchData(int rows) {
    this.rows = rows;
    this.cities = Math.max(1, rows / 10);
    this.rowsPerCity = new int[cities];
  }

  int rows() {
    return rows;
  }

  /** Split keys giving {@code regions} regions of equal share of the mixed key space. */
  static byte[][] splits(int regions) {
    byte[][] splits = new byte[regions - 1][];
    for (int i = 1; i < regions; i++)
      splits[i - 1] = Bytes.toBytes(String.format("u%08x", (int) ((1L << 32) * i / regions)));
    return splits;
  }

  /** The puts of rows [from, to), with the given durability; counts cities once per row. */
  List<Put> puts(int from, int to, Durability durability, boolean count) {
    List<Put> out = new ArrayList<>(to - from);
    for (int i = from; i < to; i++) {
      Random rnd =
          new Random(i * 0x9E3779B97F4A7C15L); // per row: any chunk order gives the same rows
      String city;
      if (rnd.nextInt(10) == 0) {
        city = POPULAR;
      } else {
        int c = rnd.nextInt(cities);
        if (count) rowsPerCity[c]++;
        city = "city-" + c;
      }
      out.add(
          new Put(Bytes.toBytes(String.format("u%08x", i * 0x9E3779B1)))
              .addColumn(D, CITY, Bytes.toBytes(city))
              .addColumn(D, AGE, Bytes.toBytes(String.format("%02d", 18 + rnd.nextInt(60))))
              .addColumn(D, NAME, Bytes.toBytes("name-" + i))
              .setDurability(durability));
    }
    return out;
  }

  /**
   * An update pass (after the queries, whose checks use the generated counts): every fourth row of
   * [from, to) gets a new city, one of rows/10: "moved-i" in pass 0, "moved{pass}-i" after it, so
   * that every pass replaces each row's indexed value; the other columns are untouched.
   */
  List<Put> updates(int from, int to, Durability durability, int pass) {
    String prefix = pass == 0 ? "moved-" : "moved" + pass + "-";
    List<Put> out = new ArrayList<>((to - from) / 4 + 1);
    for (int i = from; i < to; i++) {
      if (i % 4 != 0) continue;
      Random rnd = new Random(~i * 0x9E3779B97F4A7C15L);
      out.add(
          new Put(Bytes.toBytes(String.format("u%08x", i * 0x9E3779B1)))
              .addColumn(D, CITY, Bytes.toBytes(prefix + rnd.nextInt(cities)))
              .setDurability(durability));
    }
    return out;
  }

  /** Up to {@code n} distinct cities with between lo and hi rows, from a seeded random order. */
  List<String> citiesWithRows(int lo, int hi, int n, long seed) {
    List<String> out = new ArrayList<>(n);
    Random rnd = new Random(seed);
    for (int tries = 0; out.size() < n && tries < 50 * cities; tries++) {
      int c = rnd.nextInt(cities);
      String city = "city-" + c;
      if (rowsPerCity[c] >= lo && rowsPerCity[c] <= hi && !out.contains(city)) out.add(city);
    }
    return out;
  }

  int rowsOf(String city) {
    return city.equals(POPULAR) ? -1 : rowsPerCity[Integer.parseInt(city.substring(5))];
  }
}
