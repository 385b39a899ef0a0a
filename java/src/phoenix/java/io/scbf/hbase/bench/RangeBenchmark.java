package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.HBaseBenchmark.say;
import static io.scbf.hbase.bench.RangeRun.BY_VALUE;
import static io.scbf.hbase.bench.RangeRun.ORDERED;
import static io.scbf.hbase.bench.RangeRun.REGIONS;
import static io.scbf.hbase.bench.RangeRun.THREADS;

import io.scbf.hbase.Coprocessors;
import io.scbf.hbase.IndexedTable;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.StartMiniClusterOption;

/**
 * Range queries on typed {@code ORDERED} scbf indexes next to Apache Phoenix 5.2.1's covered global
 * indexes, on one mini cluster (2 region servers, both products installed), in one run:
 *
 * <ol>
 *   <li>the same rows (a {@code BIGINT}/{@code LONG} column {@code v} uniform over [-2^40, 2^40), a
 *       {@code DOUBLE} column {@code x} uniform over [-1e6, 1e6), a 100-byte payload {@code p}) in
 *       an scbf table with {@code ORDERED} typed indexes on v and x covering p, an scbf table with
 *       a {@code BY_VALUE} index on v covering p (the previous layout, as a reference), and a
 *       Phoenix table with a covered global index ({@code INCLUDE (P)}) on each column; every index
 *       table split into {@code range.regions} (8) regions before the load and the regions of every
 *       table spread over both servers;
 *   <li>ranges of 0.01%, 0.1% and 1% of the rows at random positions: queries per second at {@code
 *       range.threads} (16) threads (the systems taking turns), the regions each scbf query asked,
 *       single-thread latency, and a filtered full scan (HBase, server-side filter) as the
 *       baseline;
 *   <li>the first 10 in value order of a 1% range, both orders, single thread: median and p99;
 *   <li>equality on {@code ORDERED} against {@code BY_VALUE} (and Phoenix), queries per second;
 *   <li>loads of increasing timestamps into salted (4 buckets) and unsalted {@code ORDERED}
 *       indexes, each against random values into the same layout, the four tables taking turns.
 * </ol>
 *
 * Every answer of the single-thread passes is checked against an oracle kept in Java (row counts,
 * the first ten values). Prints a markdown table per section and writes a CSV ({@code range.csv},
 * default target/bench-ranges.csv). The sections: {@link RangeSetup} (tables, load, indexes,
 * section 1), {@link RangeQueries} (2), {@link RangeLookups} (3 and 4), {@link TimestampLoads} (5),
 * on the state of one {@link RangeRun}, measured with {@link RangeMeasure}.
 */
public final class RangeBenchmark {
  private RangeBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rows = Integer.getInteger("range.rows", 1_000_000);
    int tsRows = Integer.getInteger("range.tsRows", 0);
    if (tsRows <= 0) tsRows = Math.max(10_000, rows / 4);
    Path csvPath = Path.of(System.getProperty("range.csv", "target/bench-ranges.csv"));
    HBaseTestingUtility util = new HBaseTestingUtility();
    Configuration conf = util.getConfiguration();
    Coprocessors.configure(conf);
    Coprocessors.trustInProcessRegionServers(conf);
    // Phoenix's mutable global indexes require its WAL codec on every region server.
    conf.set(
        "hbase.regionserver.wal.codec",
        "org.apache.hadoop.hbase.regionserver.wal.IndexedWALEditCodec");
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    // Two region servers share this JVM's heap: each gets a fifth for memstores and block cache.
    conf.setFloat("hbase.regionserver.global.memstore.size", 0.2f);
    conf.setFloat("hfile.block.cache.size", 0.2f);
    conf.setLong("hbase.balancer.period", 3_600_000L);
    long wall = System.nanoTime();
    say(
        "# range benchmark: %,d rows (timestamp loads: %,d rows per table), %d threads, %d regions"
            + " per index, %d cores, load average at start %s",
        rows, tsRows, THREADS, REGIONS, Runtime.getRuntime().availableProcessors(), loadAverage());
    util.startMiniCluster(
        StartMiniClusterOption.builder().numRegionServers(2).numDataNodes(1).build());
    String url = "jdbc:phoenix:localhost:" + util.getZkCluster().getClientPort() + ":/hbase";
    try (PrintWriter csv =
        new PrintWriter(Files.newBufferedWriter(csvPath, StandardCharsets.UTF_8))) {
      csv.println("section,system,case,metric,value");
      run(new RangeRun(rows, tsRows, util, url, csv));
      say("%nCSV: %s", csvPath.toAbsolutePath());
    } finally {
      util.shutdownMiniCluster();
    }
    say(
        "whole run %.1f min, load average at the end %s",
        HBaseBenchmark.seconds(wall) / 60, loadAverage());
  }

  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (Exception e) {
      return "?";
    }
  }

  static void run(RangeRun run) throws Exception {
    long t0 = System.nanoTime();
    try (java.sql.Connection c = DriverManager.getConnection(run.url)) {
      say("Phoenix connected (system tables created) in %.1f s", HBaseBenchmark.seconds(t0));
    }
    RangeSetup setup = new RangeSetup(run);
    setup.setUp();
    setup.load();
    setup.buildIndexes();
    setup.settle(setup.allTables());
    setup.regionReport();
    setup.explainPhoenix();
    try (IndexedTable ordered = new IndexedTable(run.hbase, ORDERED);
        IndexedTable byValue = new IndexedTable(run.hbase, BY_VALUE)) {
      RangeQueries ranges = new RangeQueries(run);
      ranges.ranges(ordered, byValue);
      ranges.doubleRanges(ordered);
      RangeLookups lookups = new RangeLookups(run);
      lookups.topTen(ordered);
      lookups.equality(ordered, byValue);
    }
    new TimestampLoads(run).timestampLoads();
  }
}
