package io.scbf.hbase;

import static io.scbf.hbase.PeopleTable.CITY;
import static io.scbf.hbase.PeopleTable.CITY_BUCKETS;
import static io.scbf.hbase.PeopleTable.CITY_FPP;
import static io.scbf.hbase.PeopleTable.D;
import static io.scbf.hbase.PeopleTable.NAME;
import static io.scbf.hbase.PeopleTable.SCORE;
import static io.scbf.hbase.PeopleTable.TABLE;
import static io.scbf.hbase.PeopleTable.X;
import static io.scbf.hbase.PeopleTable.randomWrites;
import static io.scbf.hbase.PeopleTable.rawIndexRows;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.MembershipFilter;
import io.scbf.ScalableSplitCountingBloomFilter;
import io.scbf.hbase.regionserver.IndexProbe;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRegionWrites;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRoutingService;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRowMutation;
import io.scbf.hbase.shared.proto.IndexProtos.IndexWriteRequest;
import io.scbf.hbase.shared.proto.IndexProtos.IndexWriteService;
import io.scbf.hbase.shared.proto.IndexProtos.PublishRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RegionFilter;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStats;
import io.scbf.hbase.shared.proto.IndexProtos.StatsResponse;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * End to end on one mini cluster (one region server): indexed writes from concurrent writers
 * checked against a brute-force scan, routing, covered columns, backfill, bad input, and an
 * unavailable index table. The tests share the cluster and run in order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class IndexClusterTest {
  static final long PUBLISH_WAIT_MS = 2000; // 4 publish intervals of 500 ms

  HBaseTestingUtility util;
  Connection connection;
  IndexedTable people;

  @BeforeAll
  void startCluster() throws Exception {
    util = MiniCluster.start(1);
    connection = util.getConnection();
    PeopleTable.create(connection);
    people = new IndexedTable(connection, TABLE);
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (people != null) people.close();
    if (util != null) util.shutdownMiniCluster();
  }

  @Test
  @Order(1)
  void randomizedConcurrentWorkloadMatchesTheScanOracle() throws Exception {
    int rows = 600, writers = 4, opsPerWriter = 400;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      long seed = 42 + w;
      done.add(
          pool.submit(
              () -> {
                randomWrites(connection, new Random(seed), rows, opsPerWriter);
                return null;
              }));
    }
    for (Future<?> f : done) f.get(5, TimeUnit.MINUTES);
    pool.shutdown();

    Oracle oracle = new Oracle(connection, TABLE, D, CITY);
    assertTrue(oracle.values().size() > 20, "workload produced values");
    List<byte[]> probes = new ArrayList<>(oracle.values());
    probes.add(Bytes.toBytes("no-such-city"));

    // find() re-checks the data rows and equals the oracle. findRowKeys() is the raw index: it
    // must hold every oracle row (no false negatives); it may hold stale rows only for puts that
    // HBase itself masked (written in the same millisecond as an earlier delete of the row).
    people.setStrict(true); // strict: equal at once, no publication needed
    for (byte[] v : probes) {
      assertEquals(
          oracle.rows(v),
          Oracle.resultRows(people.find(D, CITY, v)),
          "strict " + Bytes.toString(v) + " raw index rows: " + rawIndexRows(connection, v));
      assertEquals(CITY_BUCKETS, people.lastTrace().regions().asked());
    }
    people.setStrict(false);
    Thread.sleep(PUBLISH_WAIT_MS);
    int stale = 0;
    for (byte[] v : probes) {
      assertEquals(
          oracle.rows(v),
          Oracle.resultRows(people.find(D, CITY, v)),
          "routed " + Bytes.toString(v) + " " + people.lastTrace());
      List<String> raw = Oracle.strings(people.findRowKeys(D, CITY, v));
      assertTrue(raw.containsAll(oracle.rows(v)), "no false negative for " + Bytes.toString(v));
      stale += raw.size() - oracle.rows(v).size();
    }
    System.out.println("randomized workload: " + stale + " stale index rows (HBase-masked puts)");
    byte[][][] ranges = {
      {Bytes.toBytes("city-1"), Bytes.toBytes("city-2")},
      {null, Bytes.toBytes("city-15")},
      {Bytes.toBytes("city-3"), null},
      {null, null},
      {Bytes.toBytes("zzz"), null}
    };
    for (byte[][] r : ranges) {
      assertTrue(
          Oracle.strings(people.rangeRowKeys(D, CITY, r[0], r[1]))
              .containsAll(oracle.range(r[0], r[1])));
      assertEquals(oracle.range(r[0], r[1]), Oracle.resultRows(people.range(D, CITY, r[0], r[1])));
      assertEquals(CITY_BUCKETS, people.lastTrace().regions().asked());
    }
  }

  @Test
  @Order(2)
  void routingAsksNoBucketForAbsentValuesAndAboutOneForSingleBucketValues() throws Exception {
    int values = 300;
    try (Table t = connection.getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < values; i++) {
        puts.add(
            new Put(Bytes.toBytes("single-" + i)).addColumn(D, CITY, Bytes.toBytes("unique-" + i)));
      }
      t.put(puts);
    }
    Thread.sleep(PUBLISH_WAIT_MS);
    people.setStrict(false);
    long absentAsked = 0, zeroAsked = 0;
    for (int i = 0; i < values; i++) {
      assertTrue(people.findRowKeys(D, CITY, Bytes.toBytes("absent-" + i)).isEmpty());
      QueryTrace trace = people.lastTrace();
      assertTrue(trace.routing().routed());
      assertEquals(0, trace.regions().unsure(), trace.toString());
      absentAsked += trace.regions().asked();
      if (trace.regions().asked() == 0) zeroAsked++;
    }
    long singleAsked = 0;
    for (int i = 0; i < values; i++) {
      assertEquals(
          List.of("single-" + i),
          Oracle.strings(people.findRowKeys(D, CITY, Bytes.toBytes("unique-" + i))));
      singleAsked += people.lastTrace().regions().asked();
    }
    double meanAbsent = (double) absentAsked / values;
    double meanSingle = (double) singleAsked / values;
    double expectedSingle = 1 + CITY_FPP * (CITY_BUCKETS - 1);
    System.out.printf(
        "routing: absent values ask %.3f buckets on average (%d of %d ask none);"
            + " single-bucket values ask %.3f (model 1 + FPR*(B-1) = %.3f at the design FPR)%n",
        meanAbsent, zeroAsked, values, meanSingle, expectedSingle);
    assertTrue(zeroAsked >= values * 0.8, "absent values mostly ask no bucket");
    assertTrue(meanAbsent <= 4 * CITY_FPP * CITY_BUCKETS, "absent mean " + meanAbsent);
    assertTrue(
        meanSingle >= 1 && meanSingle <= 1 + 4 * CITY_FPP * (CITY_BUCKETS - 1),
        "single mean " + meanSingle);
  }

  @Test
  @Order(3)
  void nativeFiltersLiveInTheRegionServerAndIndexWritesUseTheirOwnPool() throws Exception {
    RoutingReport stats = people.routingReport(D, CITY);
    assertEquals(CITY_BUCKETS, stats.regions().size());
    for (RoutingReport.Region r : stats.regions()) {
      assertTrue(r.ready(), r.toString());
      assertTrue(r.filterBytes() > 0, "native filter published: " + r);
    }
    assertEquals(1, stats.servers().size());
    assertEquals(stats.filterBytes(), stats.servers().get(0).filterBytes());
    assertTrue(stats.statesServed() > 0, "clients fetched routing copies");
    // 0.2.0's method (deprecated: it returns the internal message) reports the same regions.
    @SuppressWarnings("removal")
    StatsResponse old = people.routingStats(D, CITY);
    assertEquals(
        stats.regions().stream().map(RoutingReport.Region::encodedRegion).toList(),
        old.getRegionsList().stream().map(RegionStats::getEncodedRegion).toList());
    assertTrue(IndexProbe.indexCalls(util) > 0, "index writes ran on the index pool");
  }

  @Test
  @Order(4)
  void coveredColumnsAreStoredInTheIndexAndFollowUpdates() throws Exception {
    byte[] row = Bytes.toBytes("covered-1");
    try (Table t = connection.getTable(TABLE)) {
      t.put(
          new Put(row)
              .addColumn(D, CITY, Bytes.toBytes("Nanjing"))
              .addColumn(D, NAME, Bytes.toBytes("Li")));
      people.setStrict(true);
      List<IndexEntry> entries = people.findEntries(D, CITY, Bytes.toBytes("Nanjing"));
      assertEquals(1, entries.size());
      assertArrayEquals(
          Bytes.toBytes("Li"), entries.get(0).covered().get(new IndexSpec.Column(D, NAME)));
      t.put(new Put(row).addColumn(D, NAME, Bytes.toBytes("Wang")));
      entries = people.findEntries(D, CITY, Bytes.toBytes("Nanjing"));
      assertArrayEquals(
          Bytes.toBytes("Wang"), entries.get(0).covered().get(new IndexSpec.Column(D, NAME)));
      t.delete(new Delete(row).addColumns(D, NAME));
      entries = people.findEntries(D, CITY, Bytes.toBytes("Nanjing"));
      assertTrue(entries.get(0).covered().isEmpty());
    } finally {
      people.setStrict(false);
    }
  }

  @Test
  @Order(5)
  void binaryEmptyAndLargeValuesAreExact() throws Exception {
    byte[][] values = {
      new byte[0], {0}, {0, 0}, {0, (byte) 0xff}, {(byte) 0xff}, {(byte) 0xff, 0}, new byte[20_000]
    };
    java.util.Arrays.fill(values[6], (byte) 'a');
    try (Table t = connection.getTable(TABLE)) {
      for (int i = 0; i < values.length; i++) {
        t.put(new Put(Bytes.toBytes("bin-" + i)).addColumn(D, CITY, values[i]));
      }
    }
    people.setStrict(true);
    for (int i = 0; i < values.length; i++) {
      assertEquals(
          List.of("bin-" + i),
          Oracle.strings(people.findRowKeys(D, CITY, values[i])),
          "value #" + i);
    }
    people.setStrict(false);
    Thread.sleep(PUBLISH_WAIT_MS);
    for (int i = 0; i < values.length; i++) {
      assertEquals(List.of("bin-" + i), Oracle.strings(people.findRowKeys(D, CITY, values[i])));
    }
    // Range over the binary values: [ {0}, {0,(byte)0xff} ) holds {0} and {0,0} only.
    List<String> inRange =
        Oracle.strings(people.rangeRowKeys(D, CITY, new byte[] {0}, new byte[] {0, (byte) 0xff}));
    assertEquals(List.of("bin-1", "bin-2"), inRange);

    // An index row key holds the value, so HBase's 32767-byte row key limit bounds indexed values.
    try (Table t = connection.getTable(TABLE)) {
      byte[] row = Bytes.toBytes("bin-6");
      IOException tooLarge =
          assertThrows(
              IOException.class, () -> t.put(new Put(row).addColumn(D, CITY, new byte[40_000])));
      assertTrue(
          tooLarge.getMessage().contains("too large for index 'city'"), tooLarge.getMessage());
      assertArrayEquals(values[6], t.get(new Get(row)).getValue(D, CITY), "row unchanged");
    }
  }

  @Test
  @Order(6)
  void badInputFailsClearly() throws Exception {
    IllegalArgumentException unindexed =
        assertThrows(
            IllegalArgumentException.class, () -> people.findRowKeys(D, NAME, Bytes.toBytes("x")));
    assertTrue(unindexed.getMessage().contains("has no scbf index"), unindexed.getMessage());

    IndexAdmin indexAdmin = new IndexAdmin(connection);
    IllegalArgumentException noFamily =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                indexAdmin.createIndex(
                    TABLE, IndexSpec.builder(Bytes.toBytes("nope"), CITY).alias("n").build()));
    assertTrue(noFamily.getMessage().contains("no column family 'nope'"), noFamily.getMessage());
    IllegalArgumentException dupAlias =
        assertThrows(
            IllegalArgumentException.class,
            () -> indexAdmin.createIndex(TABLE, IndexSpec.builder(D, NAME).alias("city").build()));
    assertTrue(
        dupAlias.getMessage().contains("already has an index with alias 'city'"),
        dupAlias.getMessage());
    IllegalArgumentException dupColumn =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                indexAdmin.createIndex(
                    TABLE,
                    IndexSpec.builder(D, CITY)
                        .alias("city2")
                        .layout(IndexSpec.Layout.BY_ROW)
                        .build()));
    assertTrue(dupColumn.getMessage().contains("already indexed"), dupColumn.getMessage());

    try (Table t = connection.getTable(TABLE)) {
      byte[] row = Bytes.toBytes("bad-1");
      t.put(new Put(row).addColumn(D, CITY, Bytes.toBytes("Suzhou")));
      IOException inc =
          assertThrows(
              IOException.class, () -> t.increment(new Increment(row).addColumn(D, CITY, 1)));
      assertTrue(
          inc.getMessage().contains("Increment on an indexed or covered column"), inc.getMessage());
      IOException single =
          assertThrows(IOException.class, () -> t.delete(new Delete(row).addColumn(D, CITY)));
      assertTrue(single.getMessage().contains("single version"), single.getMessage());
      assertArrayEquals(Bytes.toBytes("Suzhou"), t.get(new Get(row)).getValue(D, CITY));
      assertEquals(
          5L,
          Bytes.toLong(t.increment(new Increment(row).addColumn(X, SCORE, 5)).getValue(X, SCORE)),
          "increments of unindexed columns still work");
    }
  }

  @Test
  @Order(7)
  void createIndexBackfillsExistingRowsAndDropIndexRemovesIt() throws Exception {
    try (Table t = connection.getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        puts.add(
            new Put(Bytes.toBytes("scored-" + i))
                .addColumn(X, NAME, Bytes.toBytes(String.format("%03d", i % 50))));
      }
      t.put(puts);
    }
    IndexAdmin indexAdmin = new IndexAdmin(connection);
    indexAdmin.createIndex(
        TABLE,
        IndexSpec.builder(X, NAME)
            .alias("xname")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(4)
            .build());
    assertEquals(
        List.of("city", "xname"),
        indexAdmin.listIndexes(TABLE).stream().map(IndexSpec::alias).toList());
    try (IndexedTable t = new IndexedTable(connection, TABLE)) {
      t.setStrict(true);
      Oracle oracle = new Oracle(connection, TABLE, X, NAME);
      assertEquals(
          oracle.rows(Bytes.toBytes("007")),
          Oracle.strings(t.findRowKeys(X, NAME, Bytes.toBytes("007"))));
      assertEquals(4, oracle.rows(Bytes.toBytes("007")).size());
      assertEquals(
          oracle.range(Bytes.toBytes("010"), Bytes.toBytes("020")),
          Oracle.strings(t.rangeRowKeys(X, NAME, Bytes.toBytes("010"), Bytes.toBytes("020"))));
    }
    indexAdmin.dropIndex(TABLE, "xname");
    assertEquals(
        List.of("city"), indexAdmin.listIndexes(TABLE).stream().map(IndexSpec::alias).toList());
    try (Admin admin = connection.getAdmin()) {
      assertFalse(admin.tableExists(IndexCatalog.indexTableName(TABLE, "xname")));
    }
  }

  /**
   * An index write failure fails the data write with a retriable {@link IndexWriteException}: a
   * client whose retries run out sees it with the data row unchanged; a client whose retries
   * outlast a short outage of the index table succeeds once the table is back.
   */
  @Test
  @Order(8)
  void unavailableIndexTableFailsTheDataWriteRetriablyAndLeavesTheRowUnchanged() throws Exception {
    byte[] row = Bytes.toBytes("avail-1");
    TableName indexTable = IndexCatalog.indexTableName(TABLE, "city");
    Configuration impatientConf = new Configuration(connection.getConfiguration());
    impatientConf.setInt("hbase.client.retries.number", 2);
    impatientConf.setLong("hbase.client.pause", 50);
    ExecutorService writer = Executors.newSingleThreadExecutor();
    try (Connection impatient = ConnectionFactory.createConnection(impatientConf);
        Table t = impatient.getTable(TABLE);
        Table patient = connection.getTable(TABLE);
        Admin admin = connection.getAdmin()) {
      t.put(new Put(row).addColumn(D, CITY, Bytes.toBytes("Hangzhou")));
      admin.disableTable(indexTable);
      Future<?> retried;
      try {
        IOException e =
            assertThrows(
                IOException.class,
                () -> t.put(new Put(row).addColumn(D, CITY, Bytes.toBytes("Xiamen"))));
        String message = String.valueOf(e.getMessage());
        assertTrue(
            message.contains("scbf: writing") && message.contains("was not applied"), message);
        assertTrue(
            message.contains("IndexWriteException") && !message.contains("DoNotRetry"), message);
        Result r = t.get(new Get(row));
        assertArrayEquals(Bytes.toBytes("Hangzhou"), r.getValue(D, CITY), "data row unchanged");
        t.put(new Put(row).addColumn(X, SCORE, Bytes.toBytes(1))); // unindexed columns still write
        // The default client keeps retrying while the index table is down.
        retried =
            writer.submit(
                () -> {
                  patient.put(new Put(row).addColumn(D, CITY, Bytes.toBytes("Xiamen")));
                  return null;
                });
        Thread.sleep(1500);
        assertFalse(retried.isDone(), "the write waits for the index");
      } finally {
        admin.enableTable(indexTable);
      }
      retried.get(2, TimeUnit.MINUTES);
      assertArrayEquals(Bytes.toBytes("Xiamen"), patient.get(new Get(row)).getValue(D, CITY));
    } finally {
      writer.shutdownNow();
    }
    Thread.sleep(PUBLISH_WAIT_MS); // the reopened buckets rebuild their filters and publish
    assertEquals(
        List.of("avail-1"), Oracle.strings(people.findRowKeys(D, CITY, Bytes.toBytes("Xiamen"))));
    assertTrue(people.findRowKeys(D, CITY, Bytes.toBytes("Hangzhou")).isEmpty());
    assertNotNull(people.lastTrace());
  }

  /**
   * Writes sent straight to an index table that the bucket filter could not follow (a Delete of
   * some versions, an Append) used to leave rows the filter did not count, or uncount rows that
   * stayed: routed queries then missed rows. They are refused, and nothing is missed.
   */
  @Test
  @Order(10)
  void writesToAnIndexTableThatTheFilterCannotFollowAreRefused() throws Exception {
    byte[] row = Bytes.toBytes("direct-1");
    byte[] city = Bytes.toBytes("Lhasa");
    TableName indexTable = IndexCatalog.indexTableName(TABLE, "city");
    try (Connection hbase = MiniCluster.superuser(util);
        Table t = connection.getTable(TABLE);
        Table clientView = connection.getTable(indexTable);
        Table index = hbase.getTable(indexTable)) {
      t.put(new Put(row).addColumn(D, CITY, city));
      byte[] indexRow = null;
      try (ResultScanner scanner = index.getScanner(new Scan())) {
        for (Result r : scanner) {
          if (Bytes.toString(r.getRow()).endsWith("direct-1")) indexRow = r.getRow();
        }
      }
      assertNotNull(indexRow, "the index row of direct-1");
      byte[] key = indexRow;
      // A client that is not a region server writes nothing to a built index.
      IOException client =
          assertThrows(IOException.class, () -> clientView.delete(new Delete(key)));
      assertTrue(
          client.getMessage().contains("only region servers (HBase superusers) may write")
              && client.getMessage().contains("Coprocessors.trustInProcessRegionServers"),
          client.getMessage());
      // Nor does a superuser when the filter could not follow.
      IOException versions =
          assertThrows(
              IOException.class,
              () ->
                  index.delete(
                      new Delete(key)
                          .addColumns(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER)));
      assertTrue(
          versions.getMessage().contains("a Delete of columns or versions"), versions.getMessage());
      byte[] fresh = Bytes.add(key, Bytes.toBytes("-x"));
      IOException append =
          assertThrows(
              IOException.class,
              () ->
                  index.append(
                      new Append(fresh)
                          .addColumn(
                              IndexCatalog.INDEX_FAMILY,
                              IndexCatalog.INDEX_QUALIFIER,
                              Bytes.toBytes("x"))));
      assertTrue(append.getMessage().contains("index tables accept only"), append.getMessage());
      assertFalse(index.exists(new Get(fresh)), "the Append wrote nothing");
      // Nor inside a RowMutations: HBase applies one atomically and ignores a status the
      // coprocessor sets on its part, so the refusal must fail the whole call.
      IOException atomic =
          assertThrows(
              IOException.class,
              () ->
                  index.mutateRow(
                      RowMutations.of(
                          List.of(
                              new Delete(key)
                                  .addColumns(
                                      IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER)))));
      assertTrue(
          atomic.getMessage().contains("a Delete of columns or versions"), atomic.getMessage());
      assertTrue(index.exists(new Get(key)), "the refused RowMutations deleted nothing");
    }
    Thread.sleep(PUBLISH_WAIT_MS);
    assertEquals(List.of("direct-1"), Oracle.strings(people.findRowKeys(D, CITY, city)));
  }

  @Test
  @Order(9)
  void lastTraceBelongsToTheCallingThread() throws Exception {
    people.setStrict(true);
    // "unique-7" has exactly one index entry (test 2), "absent-7" none: each thread must see the
    // trace of its own last query, however the two interleave.
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (String value : List.of("unique-7", "absent-7")) {
        int expected = value.startsWith("unique") ? 1 : 0;
        done.add(
            threads.submit(
                () -> {
                  assertNull(people.lastTrace(), "no query yet on this thread");
                  for (int i = 0; i < 200; i++) {
                    people.findRowKeys(D, CITY, Bytes.toBytes(value));
                    assertEquals(expected, people.lastTrace().lookups().indexHits(), value);
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) f.get();
    } finally {
      threads.shutdownNow();
    }
    assertEquals(0, people.routingFailures(), "strict queries never route");
  }

  @Test
  @Order(11)
  void aValueWrittenBackWhileItsOldIndexRowIsBeingDeletedIsNeverLost() throws Exception {
    // The index deletes of replaced values go out after the write returns. A value written back
    // at once (a, b, a) re-puts the index row that the first change deletes: the delete must land
    // first, or the live row would vanish from the index.
    byte[][] values = {Bytes.toBytes("flip-a"), Bytes.toBytes("flip-b")};
    people.setStrict(true);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        int writer = w;
        done.add(
            threads.submit(
                () -> {
                  try (Table t = connection.getTable(TABLE)) {
                    byte[] row = Bytes.toBytes("flip-" + writer);
                    for (int i = 0; i < 40; i++) {
                      byte[] value = values[i % 2];
                      t.put(new Put(row).addColumn(D, CITY, value));
                      assertTrue(
                          Oracle.strings(people.findRowKeys(D, CITY, value))
                              .contains(Bytes.toString(row)),
                          "index row of " + Bytes.toString(row) + " after write " + i);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) f.get();
      // Both rows end on flip-b; once the deletes have landed, flip-a holds neither.
      List<String> expected = List.of("flip-0", "flip-1");
      long deadline = System.currentTimeMillis() + 10_000;
      while (!people.findRowKeys(D, CITY, values[0]).isEmpty()
          && System.currentTimeMillis() < deadline) {
        Thread.sleep(50);
      }
      assertEquals(List.of(), Oracle.strings(people.findRowKeys(D, CITY, values[0])));
      assertEquals(
          expected,
          Oracle.strings(people.findRowKeys(D, CITY, values[1])).stream().sorted().toList());
    } finally {
      threads.shutdownNow();
      people.setStrict(false);
    }
  }

  @Test
  @Order(12)
  void onlyRegionServersMayPublishRoutingState() throws Exception {
    try (Table t = connection.getTable(TABLE)) {
      t.put(new Put(Bytes.toBytes("poison-1")).addColumn(D, CITY, Bytes.toBytes("Poisoned")));
    }
    Thread.sleep(PUBLISH_WAIT_MS);
    assertEquals(
        List.of("poison-1"),
        Oracle.strings(people.findRowKeys(D, CITY, Bytes.toBytes("Poisoned"))));

    // A user who is not a superuser sends, for every bucket, an empty filter under the real
    // server's name and a newer version: accepted, it would make routing skip every bucket.
    TableName index = IndexCatalog.indexTableName(TABLE, "city");
    String server = util.getMiniHBaseCluster().getRegionServer(0).getServerName().toString();
    PublishRequest.Builder poison = PublishRequest.newBuilder().setServer(server).setFull(true);
    try (Admin admin = connection.getAdmin();
        ScalableSplitCountingBloomFilter none =
            ScalableSplitCountingBloomFilter.create(1000, 0.001);
        MembershipFilter empty = MembershipFilter.of(none)) {
      for (RegionInfo r : admin.getRegions(index)) {
        poison.addRegions(
            RegionFilter.newBuilder()
                .setIndexTable(index.getNameAsString())
                .setEncodedRegion(r.getEncodedName())
                .setServer(server)
                .setReady(true)
                .setVersion(1L << 40)
                .setMembership(ByteString.copyFrom(empty.toByteArray())));
      }
    }
    User mallory = User.createUserForTesting(util.getConfiguration(), "mallory", new String[0]);
    try (Connection asMallory =
            ConnectionFactory.createConnection(util.getConfiguration(), mallory);
        Admin admin = asMallory.getAdmin()) {
      ServiceException e =
          assertThrows(
              ServiceException.class,
              () ->
                  IndexRoutingService.newBlockingStub(admin.coprocessorService())
                      .publish(null, poison.build()));
      assertTrue(String.valueOf(e.getCause()).contains("only region servers"), e.toString());

      // Nor may the user write index rows through the region servers' index-write endpoint.
      byte[] forged =
          IndexKeyCodec.rowKey(
              0, Bytes.toBytes("city"), Bytes.toBytes("Forged"), Bytes.toBytes("x"));
      RegionInfo bucket0 = connection.getRegionLocator(index).getRegionLocation(forged).getRegion();
      ServiceException w =
          assertThrows(
              ServiceException.class,
              () ->
                  IndexWriteService.newBlockingStub(
                          admin.coprocessorService(
                              util.getMiniHBaseCluster().getRegionServer(0).getServerName()))
                      .write(
                          null,
                          IndexWriteRequest.newBuilder()
                              .addRegions(
                                  IndexRegionWrites.newBuilder()
                                      .setEncodedRegion(bucket0.getEncodedName())
                                      .addMutations(
                                          IndexRowMutation.newBuilder()
                                              .setRow(ByteString.copyFrom(forged))
                                              .setValue(ByteString.EMPTY)))
                              .build()));
      assertTrue(String.valueOf(w.getCause()).contains("only region servers"), w.toString());
      try (Table t = connection.getTable(index)) {
        assertFalse(t.exists(new Get(forged)), "the forged index row was not written");
      }
    }
    assertEquals(
        List.of("poison-1"),
        Oracle.strings(people.findRowKeys(D, CITY, Bytes.toBytes("Poisoned"))),
        people.lastTrace().toString());
  }

  @Test
  @Order(13)
  void newRowsSkipTheOldValueReadAndRowsFromBeforeAReopenStillReplaceTheirEntries()
      throws Exception {
    byte[] old = Bytes.toBytes("watched-old");
    try (Table t = connection.getTable(TABLE)) {
      t.put(new Put(old).addColumn(D, CITY, Bytes.toBytes("WatchedA")));
    }
    // Reopened, the data regions fill their filters of watched rows from a scan, which must find
    // "watched-old": a write that skipped its read would leave the WatchedA entry behind.
    try (Admin admin = connection.getAdmin()) {
      admin.disableTable(TABLE);
      admin.enableTable(TABLE);
    }
    long before = IndexProbe.oldRowReadsSkipped(util);
    List<String> fresh = new ArrayList<>();
    long deadline = System.currentTimeMillis() + 30_000;
    try (Table t = connection.getTable(TABLE)) {
      for (int i = 0;
          IndexProbe.oldRowReadsSkipped(util) == before && System.currentTimeMillis() < deadline;
          i++) {
        fresh.add("watched-new-" + i);
        t.put(
            new Put(Bytes.toBytes("watched-new-" + i))
                .addColumn(D, CITY, Bytes.toBytes("WatchedN")));
        Thread.sleep(20);
      }
      assertTrue(IndexProbe.oldRowReadsSkipped(util) > before, "writes of new rows skip the read");
      t.put(new Put(old).addColumn(D, CITY, Bytes.toBytes("WatchedB")));
    }
    people.setStrict(true);
    try {
      long until = System.currentTimeMillis() + 10_000;
      while (!people.findRowKeys(D, CITY, Bytes.toBytes("WatchedA")).isEmpty()
          && System.currentTimeMillis() < until) {
        Thread.sleep(50);
      }
      assertEquals(
          List.of(), Oracle.strings(people.findRowKeys(D, CITY, Bytes.toBytes("WatchedA"))));
      assertEquals(
          List.of("watched-old"),
          Oracle.strings(people.findRowKeys(D, CITY, Bytes.toBytes("WatchedB"))));
      assertEquals(
          fresh.stream().sorted().toList(),
          Oracle.strings(people.findRowKeys(D, CITY, Bytes.toBytes("WatchedN"))).stream()
              .sorted()
              .toList());
    } finally {
      people.setStrict(false);
    }
  }
}
