package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.QueryPlan.Kind;
import io.scbf.hbase.client.QueryStream;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexPlacement;
import io.scbf.hbase.shared.PackedHits;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.shared.proto.IndexProtos.IndexLookupService;
import io.scbf.hbase.shared.proto.IndexProtos.LocalIndexService;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryResponse;
import io.scbf.hbase.shared.proto.IndexProtos.LookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RangeLookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.ServerLookupRequest;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Streamed answers (issue 12, part 6) against a full scan, both index modes, with pages of 7 rows:
 * every row exactly once and no page larger than its limit, for the index plan (paged lookups and
 * re-checks) and the scan plan; {@code find} with a limit; local point and range streams that go on
 * across splits and merges of the regions they read.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StreamClusterTest {
  static final TableName TABLE = TableName.valueOf("streamed");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city"); // global index
  static final byte[] ZIP = Bytes.toBytes("zip"); // local index
  static final byte[] BIG = Bytes.toBytes("big");
  static final int ROWS = 600;
  static final int PAGE = 7;

  HBaseTestingUtility util;
  Connection indexOnly; // planner off: the index plan, paged
  Connection planned;

  @BeforeAll
  void start() throws Exception {
    util = MiniCluster.start(2);
    try (Admin admin = util.getConnection().getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          new byte[][] {Bytes.toBytes("row-0300")});
    }
    IndexAdmin indexes = new IndexAdmin(util.getConnection());
    indexes.createIndex(
        TABLE,
        IndexSpec.builder(D, CITY)
            .alias("city")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(4)
            .build());
    indexes.createIndex(TABLE, IndexSpec.builder(D, ZIP).alias("zip").local().build());
    List<Put> puts = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      byte[] v = i % 2 == 0 ? BIG : Bytes.toBytes("v" + i % 30);
      puts.add(new Put(row(i)).addColumn(D, CITY, v).addColumn(D, ZIP, v));
    }
    try (Table t = util.getConnection().getTable(TABLE)) {
      t.put(puts);
    }
    Configuration conf = new Configuration(util.getConfiguration());
    conf.setInt(Settings.CLIENT_PAGE_ROWS, PAGE);
    conf.set(Settings.PLANNER, "index");
    indexOnly = ConnectionFactory.createConnection(conf);
    Configuration plannedConf = new Configuration(util.getConfiguration());
    plannedConf.setInt(Settings.CLIENT_PAGE_ROWS, PAGE);
    planned = ConnectionFactory.createConnection(plannedConf);
    Thread.sleep(2000); // publications
  }

  @AfterAll
  void stop() throws Exception {
    if (indexOnly != null) indexOnly.close();
    if (planned != null) planned.close();
    if (util != null) util.shutdownMiniCluster();
  }

  static byte[] row(int i) {
    return Bytes.toBytes(String.format("row-%04d", i));
  }

  /** Every row of the stream, sorted, checking that none came twice and pages stayed small. */
  static List<String> drain(ResultScanner s) throws Exception {
    List<String> rows = new ArrayList<>();
    try (s) {
      for (Result r = s.next(); r != null; r = s.next()) rows.add(Bytes.toString(r.getRow()));
      assertTrue(
          ((QueryStream) s).largestPage() <= PAGE, "page of " + ((QueryStream) s).largestPage());
    }
    List<String> sorted = new ArrayList<>(rows);
    sorted.sort(null);
    assertEquals(sorted.size(), sorted.stream().distinct().count(), "a row came twice");
    return sorted;
  }

  List<String> expected(byte[] column, byte[] value) throws Exception {
    return new Oracle(util.getConnection(), TABLE, D, column).rows(value);
  }

  @Test
  @Order(1)
  void indexStreamsPageThroughEveryRow() throws Exception {
    try (IndexedTable t = new IndexedTable(indexOnly, TABLE)) {
      for (byte[] column : List.of(CITY, ZIP)) {
        assertEquals(300, expected(column, BIG).size());
        assertEquals(expected(column, BIG), drain(t.stream(D, column, BIG)));
        assertEquals(Kind.INDEX_LOOKUP, t.lastTrace().plan().kind());
        assertEquals(
            expected(column, Bytes.toBytes("v7")), drain(t.stream(D, column, Bytes.toBytes("v7"))));
        assertEquals(List.of(), drain(t.stream(D, column, Bytes.toBytes("absent"))));
      }
    }
  }

  @Test
  @Order(2)
  void scanPlanStreamsToo() throws Exception {
    try (IndexedTable t = new IndexedTable(planned, TABLE)) {
      for (byte[] column : List.of(CITY, ZIP)) {
        for (int i = 0; i < 50 && t.explain(D, column, BIG).kind() != Kind.DATA_SCAN; i++) {
          Thread.sleep(200);
        }
        assertEquals(expected(column, BIG), drain(t.stream(D, column, BIG)));
        assertEquals(Kind.DATA_SCAN, t.lastTrace().plan().kind(), t.lastTrace().toString());
      }
    }
  }

  @Test
  @Order(3)
  void findWithALimitReadsOnlyWhatItNeeds() throws Exception {
    try (IndexedTable t = new IndexedTable(indexOnly, TABLE)) {
      for (byte[] column : List.of(CITY, ZIP)) {
        List<Result> ten = t.find(D, column, BIG, 10);
        assertEquals(10, ten.size());
        for (Result r : ten) {
          assertTrue(expected(column, BIG).contains(Bytes.toString(r.getRow())));
        }
        assertEquals(0, t.find(D, column, BIG, 0).size());
        assertEquals(expected(column, BIG).size(), t.find(D, column, BIG, 10_000).size());
        assertThrows(IllegalArgumentException.class, () -> t.find(D, column, BIG, -1));
      }
    }
  }

  @Test
  @Order(4)
  void aLocalStreamGoesOnAcrossASplitOfTheRegionItReads() throws Exception {
    List<String> expected = expected(ZIP, BIG);
    try (IndexedTable t = new IndexedTable(indexOnly, TABLE)) {
      List<String> rows = new ArrayList<>();
      try (ResultScanner s = t.stream(D, ZIP, BIG)) {
        for (int i = 0; i < 20; i++) rows.add(Bytes.toString(s.next().getRow()));
        try (Admin admin = util.getConnection().getAdmin()) {
          admin.split(TABLE, Bytes.toBytes("row-0150"));
          for (int i = 0; i < 100 && admin.getRegions(TABLE).size() < 3; i++) Thread.sleep(200);
          assertEquals(3, admin.getRegions(TABLE).size(), "the split happened");
        }
        for (Result r = s.next(); r != null; r = s.next()) rows.add(Bytes.toString(r.getRow()));
      }
      assertEquals(expected, rows, "every row once, in row-key order");
    }
  }

  @Test
  @Order(5)
  void globalLookupsMakeOneCallPerServerAndFollowAMovedBucket() throws Exception {
    TableName index = IndexCatalog.indexTableName(TABLE, "city");
    byte[] v7 = Bytes.toBytes("v7");
    try (IndexedTable t = new IndexedTable(indexOnly, TABLE).setStrict(true);
        RegionLocator locator = indexOnly.getRegionLocator(index);
        Admin admin = util.getConnection().getAdmin()) {
      java.util.Set<ServerName> servers = new java.util.HashSet<>();
      for (HRegionLocation l : locator.getAllRegionLocations()) {
        servers.add(l.getServerName());
      }
      long before = t.lookupCalls();
      assertEquals(expected(CITY, v7), Oracle.resultRows(t.find(D, CITY, v7)));
      assertEquals(4, t.lastTrace().regions().asked(), "strict: every bucket");
      assertEquals(servers.size(), t.lookupCalls() - before, "one call per server");

      // Move a bucket: the client's cached location is stale, the server call misses it and the
      // bucket is asked through its own endpoint (which re-locates it).
      HRegionLocation moved = locator.getAllRegionLocations().get(0);
      ServerName target = null;
      for (ServerName s : admin.getRegionServers()) {
        if (!s.equals(moved.getServerName())) target = s;
      }
      admin.move(moved.getRegion().getEncodedNameAsBytes(), target);
      for (int i = 0; i < 50; i++) {
        if (target.equals(
            util.getConnection()
                .getRegionLocator(index)
                .getRegionLocation(moved.getRegion().getStartKey(), true)
                .getServerName())) {
          break;
        }
        Thread.sleep(200);
      }
      assertEquals(expected(CITY, v7), Oracle.resultRows(t.find(D, CITY, v7)));
    }
  }

  @Test
  @Order(6)
  void malformedPagingRequestsGetClearErrorsAndTheServersKeepServing() throws Exception {
    TableName index = IndexCatalog.indexTableName(TABLE, "city");
    ByteString big = ByteString.copyFrom(BIG);
    var lookup = LookupRequest.newBuilder().setAlias(ByteString.copyFromUtf8("city")).setValue(big);
    var local =
        LocalQueryRequest.newBuilder()
            .setAlias(ByteString.copyFromUtf8("zip"))
            .setAnswer(LocalQueryRequest.Answer.ROWS);
    Connection c = util.getConnection();
    try (Table indexTable = c.getTable(index);
        Table data = c.getTable(TABLE)) {
      var bucket = IndexLookupService.newBlockingStub(indexTable.coprocessorService(new byte[0]));
      var region = LocalIndexService.newBlockingStub(data.coprocessorService(new byte[0]));
      assertDoNotRetry(() -> bucket.lookup(null, lookup.clone().setLimit(-1).build()), "< 0");
      assertDoNotRetry(
          () -> region.query(null, local.clone().setValue(big).setLimit(-1).build()), "< 0");
      assertDoNotRetry(
          () -> region.query(null, local.clone().setLo(big).setLimit(-1).build()), "< 0");
      assertTrue(
          region.query(null, local.clone().setLo(big).setLimit(5).build()).getRowsCount() <= 5);
      // Any resume point and byte budget are positions and bounds, never errors.
      byte[] junk = new byte[] {(byte) 0xff, 0, (byte) 0xff};
      bucket.lookup(
          null,
          lookup
              .clone()
              .setLimit(3)
              .setMaxBytes(Integer.MAX_VALUE)
              .setResumeAfter(ByteString.copyFrom(junk))
              .build());
      region.query(
          null,
          local
              .clone()
              .setValue(big)
              .setLimit(3)
              .setMaxBytes(-5)
              .setResumeAfter(ByteString.copyFrom(junk))
              .build());
      // A count (the planner's) of any range or resume point answers a count; on what is not a
      // paged range, a clear error; never rows.
      var count = local.clone().setCountOnly(true);
      assertDoNotRetry(
          () -> region.query(null, count.clone().setLo(big).setLimit(-1).build()), "< 0");
      assertDoNotRetry(
          () -> region.query(null, count.clone().setValue(big).setLimit(2).build()),
          "count_only counts a paged range");
      assertDoNotRetry(
          () -> region.query(null, count.clone().setLo(big).setLimit(0).build()),
          "count_only counts a paged range");
      for (LocalQueryRequest odd :
          List.of(
              count.clone().setLo(big).setHi(ByteString.copyFrom(junk)).setLimit(1).build(),
              count.clone().setLimit(Integer.MAX_VALUE).build(),
              count
                  .clone()
                  .setLo(ByteString.copyFrom(junk))
                  .setLimit(3)
                  .setResumeAfter(ByteString.copyFrom(junk))
                  .build())) {
        LocalQueryResponse counted = region.query(null, odd);
        assertEquals(0, counted.getRowsCount(), "a count returns no rows: " + odd);
        assertTrue(counted.getCounted() >= 0, "a count is never negative: " + odd);
      }
      // lookupMany: an unknown region is left unanswered; a data region is refused.
      var many = ServerLookupRequest.newBuilder().setLookup(lookup.clone().build());
      var unknown =
          bucket.lookupMany(null, many.clone().addEncodedRegions("no-such-region").build());
      assertTrue(!unknown.getRegions(0).hasAnswer());
      String dataRegion =
          c.getRegionLocator(TABLE).getAllRegionLocations().get(0).getRegion().getEncodedName();
      try (Admin admin = c.getAdmin()) {
        // Only a data region hosted with the bucket is looked at; move it there if needed.
        ServerName bucketServer =
            c.getRegionLocator(index).getRegionLocation(new byte[0]).getServerName();
        admin.move(Bytes.toBytes(dataRegion), bucketServer);
        for (int i = 0; i < 50; i++) {
          if (bucketServer.equals(
              c.getRegionLocator(TABLE).getRegionLocation(new byte[0], true).getServerName())) {
            break;
          }
          Thread.sleep(200);
        }
      }
      assertDoNotRetry(
          () -> bucket.lookupMany(null, many.clone().addEncodedRegions(dataRegion).build()),
          "not an scbf index region");
    }
    try (IndexedTable t = new IndexedTable(indexOnly, TABLE)) {
      assertEquals(expected(CITY, BIG), Oracle.resultRows(t.find(D, CITY, BIG)));
    }
  }

  /**
   * A global range streams bucket by bucket in pages (the bucket resumes after the last index row
   * key it sent), with every row once; a local range and both list forms answer like a full scan; a
   * resume key outside the range and a negative limit get clear errors.
   */
  @Test
  @Order(7)
  void rangesStreamInPagesAndTheirRequestsAreChecked() throws Exception {
    byte[] lo = Bytes.toBytes("v1");
    byte[] hi = Bytes.toBytes("v3");
    try (IndexedTable t = new IndexedTable(indexOnly, TABLE)) {
      for (byte[][] range : new byte[][][] {{lo, hi}, {null, null}, {BIG, null}}) {
        List<String> want =
            new Oracle(util.getConnection(), TABLE, D, CITY).range(range[0], range[1]);
        assertEquals(want, drain(t.streamRange(D, CITY, range[0], range[1])), "global stream");
        assertEquals(want, Oracle.resultRows(t.range(D, CITY, range[0], range[1])), "global list");
        assertEquals(
            new Oracle(util.getConnection(), TABLE, D, ZIP).range(range[0], range[1]),
            drain(t.streamRange(D, ZIP, range[0], range[1])),
            "local stream");
      }
    }
    try (Table indexTable =
        util.getConnection().getTable(IndexCatalog.indexTableName(TABLE, "city"))) {
      var bucket = IndexLookupService.newBlockingStub(indexTable.coprocessorService(new byte[0]));
      var range =
          RangeLookupRequest.newBuilder()
              .setAlias(ByteString.copyFromUtf8("city"))
              .setLo(ByteString.copyFrom(lo))
              .setHi(ByteString.copyFrom(hi));
      assertDoNotRetry(() -> bucket.rangeLookup(null, range.clone().setLimit(-1).build()), "< 0");
      assertDoNotRetry(
          () ->
              bucket.rangeLookup(
                  null,
                  range
                      .clone()
                      .setLimit(3)
                      .setResumeAfter(ByteString.copyFrom(Bytes.toBytes("elsewhere")))
                      .build()),
          "resume_after is not an index row key of this range");
      assertDoNotRetry(
          () -> bucket.rangeLookup(null, range.clone().setReverse(true).build()),
          "only ORDERED indexes read in descending order");
      // Counting reads no more than one past the limit; packed pages hold what messages do.
      var all = PackedHits.of(bucket.rangeLookup(null, range.clone().build()));
      var counted = bucket.rangeLookup(null, range.clone().setCountOnly(true).setLimit(2).build());
      assertEquals(3, counted.getValueEstimate(), "limit + 1: more than the limit");
      assertTrue(counted.getOverLimit());
      assertEquals(0, PackedHits.count(counted), "a count sends no entries");
      var packed = bucket.rangeLookup(null, range.clone().setPacked(true).build());
      assertEquals(0, packed.getHitsCount());
      assertEquals(
          all.stream().map(h -> Bytes.toString(h.row())).toList(),
          PackedHits.of(packed).stream().map(h -> Bytes.toString(h.row())).toList());
      var first = bucket.rangeLookup(null, range.clone().setLimit(3).build());
      assertEquals(3, first.getHitsCount());
      assertTrue(first.hasResumeAfter(), "more than 3 entries in v1 <= city < v3 in bucket 0");
      var second =
          bucket.rangeLookup(
              null, range.clone().setLimit(3).setResumeAfter(first.getResumeAfter()).build());
      assertTrue(second.getHitsCount() > 0);
      assertTrue(
          !first.getHitsList().contains(second.getHits(0)),
          "the second page starts after the first");
    }
  }

  /**
   * A local range streams region by region in pages, resuming at an index key, so it goes on across
   * a split and a merge of the regions it reads, with every row once; and so does a local index
   * that is not built yet (its regions page through a scan of their rows).
   */
  @Test
  @Order(8)
  void aLocalRangeStreamGoesOnAcrossSplitsAndMerges() throws Exception {
    List<String> want = new Oracle(util.getConnection(), TABLE, D, ZIP).range(null, null);
    assertEquals(ROWS, want.size());
    new IndexAdmin(util.getConnection())
        .defineIndex(
            TABLE, IndexSpec.builder(D, ZIP).thenColumn(D, CITY).alias("zipcity").local().build());
    try (IndexedTable t = new IndexedTable(indexOnly, TABLE);
        Admin admin = util.getConnection().getAdmin()) {
      List<String> rows = new ArrayList<>();
      try (ResultScanner s = t.streamRange(D, ZIP, null, null)) {
        for (int i = 0; i < 40; i++) rows.add(Bytes.toString(s.next().getRow()));
        int before = admin.getRegions(TABLE).size();
        admin.split(TABLE, Bytes.toBytes("row-0075"));
        for (int i = 0; i < 100 && admin.getRegions(TABLE).size() == before; i++) Thread.sleep(200);
        assertEquals(before + 1, admin.getRegions(TABLE).size(), "the split happened");
        for (int i = 0; i < 200; i++) rows.add(Bytes.toString(s.next().getRow()));
        List<org.apache.hadoop.hbase.client.RegionInfo> regions = admin.getRegions(TABLE);
        regions.sort(org.apache.hadoop.hbase.client.RegionInfo.COMPARATOR);
        admin
            .mergeRegionsAsync(
                new byte[][] {
                  regions.get(regions.size() - 2).getEncodedNameAsBytes(),
                  regions.get(regions.size() - 1).getEncodedNameAsBytes()
                },
                false)
            .get(60, java.util.concurrent.TimeUnit.SECONDS);
        for (Result r = s.next(); r != null; r = s.next()) rows.add(Bytes.toString(r.getRow()));
        assertTrue(((QueryStream) s).largestPage() <= PAGE);
      }
      List<String> sorted = new ArrayList<>(rows);
      sorted.sort(null);
      assertEquals(want, sorted, "every row once");

      // Not built: every region answers from its rows, in the same order, page by page.
      assertTrue(new IndexAdmin(util.getConnection()).isBuilding(TABLE, "zipcity"));
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < ROWS; i++) {
        String v = i % 2 == 0 ? "big" : "v" + i % 30;
        if (v.compareTo("v1") >= 0 && v.compareTo("v2") < 0) expected.add(Bytes.toString(row(i)));
      }
      assertEquals(
          expected,
          drain(t.streamRange("zipcity", List.of(), Bytes.toBytes("v1"), Bytes.toBytes("v2"))));
      assertEquals(
          Oracle.resultRows(t.find(D, ZIP, BIG)).size(),
          drain(t.streamRange("zipcity", List.of(BIG), null, null)).size(),
          "leading column equal");

      // The largest limit a client can send: the region answers all its rows in one page.
      try (Table data = util.getConnection().getTable(TABLE)) {
        LocalQueryResponse whole =
            LocalIndexService.newBlockingStub(data.coprocessorService(new byte[0]))
                .query(
                    null,
                    LocalQueryRequest.newBuilder()
                        .setAlias(ByteString.copyFromUtf8("zipcity"))
                        .setAnswer(LocalQueryRequest.Answer.KEYS)
                        .setLimit(Integer.MAX_VALUE)
                        .build());
        String end = Bytes.toString(whole.getEndKey().toByteArray());
        assertTrue(!whole.getIndexed() && !whole.hasResumeAfter());
        assertEquals(
            want.stream().filter(r -> end.isEmpty() || r.compareTo(end) < 0).count(),
            whole.getHitsCount());
      }
    }
  }

  /**
   * An index row of a value its row no longer holds (a replaced value whose delete is still on its
   * way, or damage) inside the range: the row's current value is in the range too, so a re-check
   * against the range keeps both entries and the stream sends the row twice. An entry counts only
   * if its row holds the entry's own value.
   */
  @Test
  @Order(9)
  void aStaleEntryInsideTheRangeDoesNotSendItsRowTwice() throws Exception {
    byte[] row = row(1);
    byte[] lo = Bytes.toBytes("v1");
    byte[] hi = Bytes.toBytes("v3");
    try (Table data = util.getConnection().getTable(TABLE)) {
      assertEquals("v1", Bytes.toString(data.get(new Get(row)).getValue(D, CITY)));
    }
    IndexSpec spec =
        new IndexAdmin(util.getConnection())
            .listIndexes(TABLE).stream()
                .filter(s -> s.alias().equals("city"))
                .findFirst()
                .orElseThrow();
    byte[] alias = Bytes.toBytes("city");
    byte[] old = Bytes.toBytes("v2");
    byte[] stale =
        IndexKeyCodec.rowKey(IndexPlacement.salt(spec, alias, old, row), alias, old, row);
    // Damaged by a superuser: index tables refuse every other client's writes.
    try (Connection hbase = MiniCluster.superuser(util);
        Table index = hbase.getTable(IndexCatalog.indexTableName(TABLE, "city"));
        IndexedTable t = new IndexedTable(indexOnly, TABLE)) {
      index.put(
          new Put(stale)
              .addColumn(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER, new byte[0]));
      try {
        List<String> want = new Oracle(util.getConnection(), TABLE, D, CITY).range(lo, hi);
        assertTrue(want.contains("row-0001"), want.toString());
        assertEquals(want, drain(t.streamRange(D, CITY, lo, hi)));
      } finally {
        index.delete(new Delete(stale));
      }
    }
  }

  interface Call {
    void run() throws Exception;
  }

  static void assertDoNotRetry(Call call, String says) {
    ServiceException e = assertThrows(ServiceException.class, call::run);
    assertTrue(e.getCause() instanceof DoNotRetryIOException, String.valueOf(e.getCause()));
    assertTrue(String.valueOf(e.getCause().getMessage()).contains(says), e.getCause().getMessage());
  }
}
