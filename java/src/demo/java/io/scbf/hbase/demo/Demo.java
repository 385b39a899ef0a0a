package io.scbf.hbase.demo;

import io.scbf.hbase.Coprocessors;
import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.QueryTrace;
import io.scbf.hbase.ValueOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.function.ToLongFunction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.StartMiniClusterOption;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The README's main job: an in-process HBase (mini cluster) with the scbf coprocessors, a sample
 * table, two indexes (one created before loading, one created afterwards and backfilled), and
 * selective / absent / popular / range queries next to a full scan with SingleColumnValueFilter.
 *
 * <p>Run with {@code mvn -B -Pdemo verify}; {@code -Ddemo.rows=N} changes the table size.
 */
public final class Demo {
  static final TableName TABLE = TableName.valueOf("people");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] AGE = Bytes.toBytes("age");
  static final byte[] NAME = Bytes.toBytes("name");
  static final byte[] BALANCE = Bytes.toBytes("balance");
  static final int MAX_BALANCE = 50_000;

  public static void main(String[] args) throws Exception {
    int rows = Integer.getInteger("demo.rows", 300_000);
    HBaseTestingUtility util = new HBaseTestingUtility();
    Configuration conf = util.getConfiguration();
    Coprocessors.configure(conf);
    Coprocessors.trustInProcessRegionServers(conf);
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    say(
        "starting an in-process HBase with the scbf coprocessors (its logs: %s) ...",
        "file".equals(System.getProperty("scbf.log.to"))
            ? java.nio.file.Path.of(System.getProperty("scbf.log.file")).toAbsolutePath()
            : "stderr");
    long t0 = System.nanoTime();
    util.startMiniCluster(
        StartMiniClusterOption.builder().numRegionServers(1).numDataNodes(1).build());
    say("HBase up in %.1f s", seconds(t0));
    try {
      run(util.getConnection(), rows);
    } finally {
      util.shutdownMiniCluster();
    }
  }

  static void run(Connection connection, int rows) throws Exception {
    try (Admin admin = connection.getAdmin()) {
      byte[][] splits = new byte[7][];
      for (int i = 1; i <= 7; i++)
        splits[i - 1] = Bytes.toBytes(String.format("user%08d", i * rows / 8));
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          splits);
    }
    IndexAdmin indexAdmin = new IndexAdmin(connection);
    indexAdmin.createIndex(
        TABLE,
        IndexSpec.builder(D, CITY)
            .alias("city")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(16)
            .fpp(0.001)
            .covered(D, NAME)
            .build());
    say(
        "table %s: 8 regions; index 'city' on d:city (the bucket layout, BY_ROW: 16 buckets, fpp"
            + " 0.001, covers d:name)",
        TABLE);
    indexAdmin.createIndex(
        TABLE,
        IndexSpec.builder(D, BALANCE)
            .alias("balance")
            .type(IndexSpec.ValueType.LONG)
            .layout(IndexSpec.Layout.ORDERED)
            .covered(D, NAME)
            .build());
    byte[][] splitAt = new byte[7][];
    for (int i = 1; i <= 7; i++)
      splitAt[i - 1] = Bytes.toBytes(-MAX_BALANCE + i * 2L * MAX_BALANCE / 8);
    indexAdmin.splitIndexAt(TABLE, "balance", splitAt);
    say(
        "index 'balance' on d:balance (a LONG, negatives included: ORDERED by value, covers d:name),"
            + " split into 8 regions");

    long t0 = System.nanoTime();
    Random rnd = new Random(1);
    try (Table table = connection.getTable(TABLE)) {
      List<Put> batch = new ArrayList<>(1000);
      for (int i = 0; i < rows; i++) {
        // 10% live in Beijing (popular); the rest spread over 20000 cities (selective).
        String city = rnd.nextInt(10) == 0 ? "Beijing" : "city-" + rnd.nextInt(20_000);
        batch.add(
            new Put(Bytes.toBytes(String.format("user%08d", i)))
                .addColumn(D, CITY, Bytes.toBytes(city))
                .addColumn(D, AGE, Bytes.toBytes(String.format("%02d", 18 + rnd.nextInt(60))))
                .addColumn(
                    D,
                    BALANCE,
                    Bytes.toBytes((long) rnd.nextInt(2 * MAX_BALANCE + 1) - MAX_BALANCE))
                .addColumn(D, NAME, Bytes.toBytes("name-" + i)));
        if (batch.size() == 1000) {
          table.put(batch);
          batch.clear();
        }
      }
      table.put(batch);
    }
    double load = seconds(t0);
    say(
        "wrote %,d rows with the city and balance indexes maintained: %.1f s (%,.0f rows/s)",
        rows, load, rows / load);

    t0 = System.nanoTime();
    indexAdmin.createIndex(
        TABLE,
        IndexSpec.builder(D, AGE).alias("age").layout(IndexSpec.Layout.BY_ROW).buckets(8).build());
    say("created index 'age' on d:age (8 buckets) over the existing rows: %.1f s", seconds(t0));
    t0 = System.nanoTime();
    indexAdmin.createIndex(
        TABLE,
        IndexSpec.builder(D, CITY)
            .alias("city_v")
            .layout(IndexSpec.Layout.BY_VALUE)
            .buckets(4)
            .covered(D, NAME)
            .build());
    say(
        "created index 'city_v' on d:city laid out by value (BY_VALUE, the default layout: 4"
            + " regions to start, they split as they grow) over the existing rows: %.1f s",
        seconds(t0));
    Thread.sleep(1500); // let every bucket publish its filter to the master (interval 500 ms)

    try (IndexedTable people = new IndexedTable(connection, TABLE)) {
      say(
          "%neach query runs once; its scan (HBase's filters over the whole table, the same answer)"
              + " runs just before and just after it: the mean of the two is shown");
      say(
          "%-36s %8s %14s %10s %12s %12s   %-14s %s",
          "query",
          "rows",
          "regions asked",
          "cache hits",
          "query (ms)",
          "scan (ms)",
          "vs scan",
          "plan");
      String selective = "city-" + 4242;
      point(connection, people, "selective city = " + selective, selective);
      point(connection, people, "selective again (hot cache)", selective);
      point(connection, people, "absent city = Atlantis", "Atlantis");
      // Row keys only, as the scan returns them; find also reads and re-checks every data row.
      rowKeys(connection, people, "popular city = Beijing, row keys", "Beijing");
      rowKeys(connection, people, "popular again (hot cache), row keys", "Beijing");
      point(connection, people, "popular, find (+ data re-check)", "Beijing");
      range(connection, people, "range 30 <= age < 32", "30", "32");
      people.setStrict(true);
      point(connection, people, "strict selective (no routing)", selective);
      people.setStrict(false);
      byValue(connection, people, "by value: selective city", selective);
      byValue(connection, people, "by value: again (hot cache)", selective);
      byValue(connection, people, "by value: absent (region's filter)", "Atlantis");
      byValue(connection, people, "by value: popular, find", "Beijing");
      try (Table table = connection.getTable(TABLE)) {
        table.put(new Put(Bytes.toBytes("new-row")).addColumn(D, CITY, Bytes.toBytes("Newtown")));
      }
      byValue(connection, people, "by value: new row (read-after-ack)", "Newtown");
      typedRange(connection, people, "ordered: -50 <= balance < 50", -50, 50);
      typedRange(connection, people, "ordered: -1000 <= balance < 1000", -1000, 1000);
      typedRange(connection, people, "ordered: balance >= 0 (planned)", 0, MAX_BALANCE + 1);
      topTen(connection, people);
      covered(connection, people);
      say(
          "%nexplain range(-50 <= balance < 50): %s",
          people.explainRange("balance", Bytes.toBytes(-50L), Bytes.toBytes(50L)));
      say(
          "explain range(balance >= 0): %s",
          people.explainRange("balance", Bytes.toBytes(0L), null));
      say("explain find(city = Beijing): %s", people.explain(D, CITY, Bytes.toBytes("Beijing")));
      say(
          "explain find(city = %s): %s",
          selective, people.explain(D, CITY, Bytes.toBytes(selective)));
    }
  }

  static void point(Connection connection, IndexedTable people, String label, String city)
      throws Exception {
    compare(
        label,
        people,
        () -> (long) people.find(D, CITY, Bytes.toBytes(city)).size(),
        () -> scan(connection, cityIs(city)));
  }

  /** A point query through the BY_VALUE index {@code city_v}. */
  static void byValue(Connection connection, IndexedTable people, String label, String city)
      throws Exception {
    compare(
        label,
        people,
        () -> (long) people.find("city_v", Bytes.toBytes(city)).size(),
        () -> scan(connection, cityIs(city)));
  }

  static void rowKeys(Connection connection, IndexedTable people, String label, String city)
      throws Exception {
    compare(
        label,
        people,
        () -> (long) people.findRowKeys(D, CITY, Bytes.toBytes(city)).size(),
        () -> scan(connection, cityIs(city)));
  }

  private static SingleColumnValueFilter cityIs(String city) {
    return new SingleColumnValueFilter(D, CITY, CompareOperator.EQUAL, Bytes.toBytes(city));
  }

  static void range(Connection connection, IndexedTable people, String label, String lo, String hi)
      throws Exception {
    compare(
        label,
        people,
        () -> (long) people.range(D, AGE, Bytes.toBytes(lo), Bytes.toBytes(hi)).size(),
        () ->
            scan(
                connection,
                new FilterList(
                    new SingleColumnValueFilter(
                        D, AGE, CompareOperator.GREATER_OR_EQUAL, Bytes.toBytes(lo)),
                    new SingleColumnValueFilter(D, AGE, CompareOperator.LESS, Bytes.toBytes(hi)))));
  }

  /**
   * A range on the typed ORDERED index {@code balance}, next to a scan with HBase's own filters:
   * they compare raw bytes, where a negative long sorts after every positive one, so the scan needs
   * two byte ranges for a range across zero.
   */
  static void typedRange(Connection connection, IndexedTable people, String label, long lo, long hi)
      throws Exception {
    compare(
        label,
        people,
        () -> (long) people.range(D, BALANCE, Bytes.toBytes(lo), Bytes.toBytes(hi)).size(),
        () -> scan(connection, longRange(lo, hi)));
  }

  /**
   * Rows with lo <= balance < hi by raw-byte filters, negatives and the rest apart: as raw bytes
   * the negatives are [0x80.., 0xff..] (in order among themselves) and sort above every other
   * value.
   */
  static org.apache.hadoop.hbase.filter.Filter longRange(long lo, long hi) {
    FilterList any = new FilterList(FilterList.Operator.MUST_PASS_ONE);
    if (lo < 0) {
      FilterList negatives = new FilterList(atLeast(lo));
      if (hi < 0) negatives.addFilter(below(hi));
      any.addFilter(negatives);
    }
    if (hi > 0) any.addFilter(new FilterList(atLeast(Math.max(lo, 0)), below(hi)));
    return any;
  }

  private static SingleColumnValueFilter atLeast(long v) {
    return balance(CompareOperator.GREATER_OR_EQUAL, v);
  }

  private static SingleColumnValueFilter below(long v) {
    return balance(CompareOperator.LESS, v);
  }

  /** A test of d:balance that drops rows without one (the row written by the read-after-ack). */
  private static SingleColumnValueFilter balance(CompareOperator op, long v) {
    SingleColumnValueFilter f = new SingleColumnValueFilter(D, BALANCE, op, Bytes.toBytes(v));
    f.setFilterIfMissing(true);
    return f;
  }

  /** The 10 largest negative balances, in value order: the index reads about 10 entries. */
  static void topTen(Connection connection, IndexedTable people) throws Exception {
    List<Long> top =
        compare(
            "ordered: top 10 balances < 0, desc",
            people,
            () -> {
              List<Long> got = new ArrayList<>();
              for (Result r :
                  people.range(
                      "balance",
                      Bytes.toBytes((long) -MAX_BALANCE),
                      Bytes.toBytes(0L),
                      ValueOrder.DESCENDING,
                      10)) {
                got.add(Bytes.toLong(r.getValue(D, BALANCE)));
              }
              return got;
            },
            () -> {
              List<Long> all = new ArrayList<>();
              try (Table table = connection.getTable(TABLE);
                  ResultScanner scanner =
                      table.getScanner(
                          new Scan().setFilter(longRange(-MAX_BALANCE, 0)).setCaching(1000))) {
                for (Result r : scanner) all.add(Bytes.toLong(r.getValue(D, BALANCE)));
              }
              all.sort(java.util.Comparator.reverseOrder());
              return all.subList(0, Math.min(10, all.size()));
            },
            List::size);
    say("%36s balances %s", "", top);
  }

  /** A covered range: names and balances from the index alone, no data row read. */
  static void covered(Connection connection, IndexedTable people) throws Exception {
    compare(
        "ordered: covered -50..50 (no data)",
        people,
        () ->
            (long)
                people
                    .rangeEntries(
                        "balance",
                        Bytes.toBytes(-50L),
                        Bytes.toBytes(50L),
                        ValueOrder.ASCENDING,
                        100_000)
                    .size(),
        () -> scan(connection, longRange(-50, 50)));
  }

  /**
   * Runs {@code query} once (the first time, as a new user would) between two runs of the scan
   * answering the same question, and prints a row: the scan's time is the mean of the two, so a
   * machine warming up or slowing down weighs on both sides alike (the first range of the table,
   * timed before its scan alone, ran 1.4-5.9x slower in four runs than the scan run right after it,
   * though it was the same scan plus 20-100 ms of counting). Both scans must answer what the query
   * did.
   */
  static <T> T compare(
      String label,
      IndexedTable people,
      Callable<T> query,
      Callable<T> scan,
      ToLongFunction<T> rows)
      throws Exception {
    long t0 = System.nanoTime();
    T before = scan.call();
    double scanMs = millis(t0);
    t0 = System.nanoTime();
    T answer = query.call();
    double queryMs = millis(t0);
    QueryTrace trace = people.lastTrace();
    t0 = System.nanoTime();
    T after = scan.call();
    scanMs = (scanMs + millis(t0)) / 2;
    if (!answer.equals(before) || !answer.equals(after)) {
      throw new IllegalStateException(
          label + ": the index answered " + answer + ", the scans " + before + " and " + after);
    }
    row(label, rows.applyAsLong(answer), trace, queryMs, scanMs);
    return answer;
  }

  /** {@link #compare} of a query and a scan that answer a number of rows. */
  static void compare(String label, IndexedTable people, Callable<Long> query, Callable<Long> scan)
      throws Exception {
    compare(label, people, query, scan, n -> n);
  }

  static void row(String label, long rows, QueryTrace trace, double indexMs, double scanMs) {
    say(
        "%-36s %8d %9d / %-3d %10d %12.1f %12.1f   %-14s %s",
        label,
        rows,
        trace.regions().asked(),
        trace.regions().total(),
        trace.lookups().cacheHits(),
        indexMs,
        scanMs,
        speed(indexMs, scanMs),
        trace.plan() == null ? "index (range)" : trace.plan().kind());
  }

  /** The query's speed against the scan's, as a ratio either way ("1x" hid a slower query). */
  static String speed(double queryMs, double scanMs) {
    double q = Math.max(queryMs, 0.001), s = Math.max(scanMs, 0.001);
    return q <= s ? String.format("%.1fx faster", s / q) : String.format("%.1fx slower", q / s);
  }

  static long scan(Connection connection, org.apache.hadoop.hbase.filter.Filter filter)
      throws Exception {
    long n = 0;
    try (Table table = connection.getTable(TABLE);
        ResultScanner scanner = table.getScanner(new Scan().setFilter(filter).setCaching(1000))) {
      for (Result r : scanner) n++;
    }
    return n;
  }

  static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  static double millis(long t0) {
    return (System.nanoTime() - t0) / 1e6;
  }

  static void say(String format, Object... args) {
    System.out.println(String.format(format, args));
  }
}
