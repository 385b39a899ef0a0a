package io.scbf.hbase.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * One run of {@link RangeBenchmark}: its settings, the cluster, the oracle of the rows and the CSV.
 * Each section is a {@code RangeRun} made from the run's own, so that they share its state (the
 * random generator too: the sections draw from it in the order they run).
 */
class RangeRun {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] V = Bytes.toBytes("v");
  static final byte[] X = Bytes.toBytes("x");
  static final byte[] P = Bytes.toBytes("p");
  static final byte[] TS = Bytes.toBytes("ts");
  static final TableName ORDERED = TableName.valueOf("range_ordered");
  static final TableName BY_VALUE = TableName.valueOf("range_by_value");
  static final String PHOENIX = "P_RANGE";
  static final String PHOENIX_V = "P_RANGE_V";
  static final String PHOENIX_X = "P_RANGE_X";

  /** v is uniform over [MIN_V, MIN_V + SPAN_V). */
  static final long MIN_V = -(1L << 40);

  static final long SPAN_V = 1L << 41;
  static final double MAX_X = 1e6;
  static final double[] WIDTHS = {0.0001, 0.001, 0.01};
  static final int BATCH = 500;
  static final int WRITERS = Integer.getInteger("range.writers", 4);
  static final int REGIONS = Integer.getInteger("range.regions", 8);
  static final int THREADS = Integer.getInteger("range.threads", 16);
  static final long MEASURE_MS =
      (long) (Double.parseDouble(System.getProperty("range.seconds", "8")) * 1000);
  static final int ROUNDS = Integer.getInteger("range.rounds", 2);
  static final int SAMPLES = Integer.getInteger("range.samples", 30);
  static final int TOP_SAMPLES = Integer.getInteger("range.topSamples", 200);
  static final int SCANS = Integer.getInteger("range.scans", 3);
  static final int TS_BUCKETS = Integer.getInteger("range.tsBuckets", 4);

  final int rows;
  final int tsRows;
  final HBaseTestingUtility util;
  final Connection hbase;
  final String url;
  final PrintWriter csv;

  /** The oracle: v and x of row i, and both sorted. */
  final long[] vs;

  final double[] xs;
  final long[] sortedV;
  final double[] sortedX;

  final Random random;

  RangeRun(int rows, int tsRows, HBaseTestingUtility util, String url, PrintWriter csv)
      throws java.io.IOException {
    this.rows = rows;
    this.tsRows = tsRows;
    this.util = util;
    this.hbase = util.getConnection();
    this.url = url;
    this.csv = csv;
    random = new Random(38);
    vs = new long[rows];
    xs = new double[rows];
    for (int i = 0; i < rows; i++) {
      Random r = rowRandom(i);
      vs[i] = MIN_V + (r.nextLong() >>> 23);
      xs[i] = (r.nextDouble() * 2 - 1) * MAX_X;
    }
    sortedV = vs.clone();
    Arrays.sort(sortedV);
    sortedX = xs.clone();
    Arrays.sort(sortedX);
  }

  RangeRun(RangeRun run) {
    rows = run.rows;
    tsRows = run.tsRows;
    util = run.util;
    hbase = run.hbase;
    url = run.url;
    csv = run.csv;
    vs = run.vs;
    xs = run.xs;
    sortedV = run.sortedV;
    sortedX = run.sortedX;
    random = run.random;
  }

  // ---------------------------------------------------------------- rows and tables

  static Random rowRandom(int i) {
    return new Random(i * 0x9E3779B97F4A7C15L + 38);
  }

  /** Row i's key: a bijection of i over 32 bits, so that every batch spreads over the regions. */
  static String key(int i) {
    return String.format("r%08x", (int) (i * 0x9E3779B1L));
  }

  static byte[][] dataSplits() {
    byte[][] s = new byte[REGIONS - 1][];
    for (int k = 1; k < REGIONS; k++) {
      s[k - 1] = Bytes.toBytes(String.format("r%08x", (int) ((1L << 32) * k / REGIONS)));
    }
    return s;
  }

  static String payload(int i) {
    Random r = new Random(i * 31L + 7);
    char[] c = new char[100];
    for (int k = 0; k < c.length; k++) c[k] = (char) ('a' + r.nextInt(26));
    return new String(c);
  }

  /**
   * Places the regions of each table on the servers in turn (by start key), then turns the balancer
   * off: split daughters stay on their parent's server, and both products should have their regions
   * on both servers.
   */
  void spread(List<TableName> tables) throws Exception {
    try (Admin admin = hbase.getAdmin()) {
      List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
      servers.sort(null);
      for (TableName t : tables) {
        try (org.apache.hadoop.hbase.client.RegionLocator locator = hbase.getRegionLocator(t)) {
          List<HRegionLocation> all = new ArrayList<>(locator.getAllRegionLocations());
          all.sort(Comparator.comparing(l -> l.getRegion().getStartKey(), Bytes.BYTES_COMPARATOR));
          for (int i = 0; i < all.size(); i++) {
            ServerName to = servers.get(i % servers.size());
            if (!all.get(i).getServerName().equals(to)) {
              admin.move(all.get(i).getRegion().getEncodedNameAsBytes(), to);
            }
          }
        }
      }
      util.waitUntilNoRegionsInTransition(120_000);
      admin.balancerSwitch(false, true);
    }
  }

  // ---------------------------------------------------------------- the oracle

  long countV(long lo, long hi) {
    return lowerBound(sortedV, hi) - lowerBound(sortedV, lo);
  }

  static int lowerBound(long[] a, long v) {
    int lo = 0, hi = a.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (a[mid] < v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  static int lowerBound(double[] a, double v) {
    int lo = 0, hi = a.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Double.compare(a[mid], v) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Random range starts for ranges of {@code span} values. */
  long[] starts(long span, int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) out[i] = MIN_V + (long) (random.nextDouble() * (SPAN_V - span));
    return out;
  }

  static void check(long got, long expected, String what) {
    if (got != expected) {
      throw new IllegalStateException(what + ": " + got + " rows, the oracle has " + expected);
    }
  }

  void csv(String section, String system, String kase, String metric, double value) {
    // No commas inside a field: a name's become semicolons.
    csv.printf(
        Locale.ROOT,
        "%s,%s,%s,%s,%.4f%n",
        section,
        system.replace(',', ';'),
        kase.replace(',', ';'),
        metric,
        value);
  }
}
