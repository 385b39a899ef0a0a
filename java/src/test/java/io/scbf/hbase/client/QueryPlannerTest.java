package io.scbf.hbase.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.QueryPlan.Answer;
import io.scbf.hbase.QueryPlan.Kind;
import io.scbf.hbase.shared.RowEstimates;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import io.scbf.hbase.shared.proto.IndexProtos.ValueCounts;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class QueryPlannerTest {
  static final byte[] POPULAR = Bytes.toBytes("popular");
  static final byte[] RARE = Bytes.toBytes("rare");

  /** 8 regions of 10,000 entries each; "popular" holds {@code popularShare} of each. */
  static RouteResponse route(byte[] key, double popularShare, int unsure) {
    RowEstimates.Builder estimate = new RowEstimates.Builder(key);
    RouteResponse.Builder r =
        RouteResponse.newBuilder().setTotalRegions(8).setUnsureRegions(unsure);
    for (int i = 0; i < 8; i++) {
      ValueCounts.Builder c = ValueCounts.newBuilder().setEntries(10_000).setHeavyThreshold(78);
      long n = Math.round(10_000 * popularShare);
      if (n >= 78) c.addHeavyHash(RowEstimates.hash(POPULAR)).addHeavyCount(n);
      boolean candidate = i % 2 == 0 || Bytes.equals(key, POPULAR) || i >= 8 - unsure;
      if (i < 8 - unsure) estimate.region(c.build(), candidate);
      if (candidate) {
        r.addCandidates(
            RegionRef.newBuilder().setStartKey(ByteString.EMPTY).setEncodedRegion("r" + i));
      }
    }
    return r.setEstimate(estimate.build()).build();
  }

  static QueryPlanner planner(String mode) {
    Configuration conf = new Configuration(false);
    if (mode != null) conf.set(Settings.PLANNER, mode);
    return new QueryPlanner(Settings.from(conf));
  }

  @Test
  void aPopularValueIsScannedARareOneLookedUp() {
    QueryPlanner p = planner(null);
    QueryPlan popular = p.plan(Answer.ROWS, false, route(POPULAR, 0.3, 0), "unused");
    assertEquals(Kind.DATA_SCAN, popular.kind(), popular.toString());
    assertEquals(24_000, popular.estimatedRows());
    assertEquals(80_000, popular.tableRows());
    assertEquals(8, popular.regionsAsked());
    assertTrue(popular.scanCostMs() < popular.indexCostMs());

    QueryPlan rare = p.plan(Answer.ROWS, false, route(RARE, 0.3, 0), "unused");
    assertEquals(Kind.INDEX_LOOKUP, rare.kind(), rare.toString());
    assertEquals(4 * 77, rare.boundRows(), "threshold - 1 per candidate region");
    assertEquals(2 * 77, rare.estimatedRows());
    assertEquals(4, rare.regionsAsked());
  }

  @Test
  void rowKeysCostLessThanRowsSoTheCrossoverMoves() {
    QueryPlanner p = planner(null);
    // 5% of the rows: re-checking them costs more than a scan, reading their keys does not.
    assertEquals(Kind.DATA_SCAN, p.plan(Answer.ROWS, false, route(POPULAR, 0.05, 0), "").kind());
    assertEquals(
        Kind.INDEX_ONLY, p.plan(Answer.ROW_KEYS, false, route(POPULAR, 0.05, 0), "").kind());
    assertEquals(
        Kind.INDEX_ONLY, p.plan(Answer.ENTRIES, false, route(POPULAR, 0.05, 0), "").kind());
  }

  @Test
  void aLocalIndexReadsRowsInItsRegionsSoItsCrossoverIsHigher() {
    QueryPlanner p = planner(null);
    assertEquals(Kind.DATA_SCAN, p.plan(Answer.ROWS, false, route(POPULAR, 0.05, 0), "").kind());
    assertEquals(Kind.INDEX_LOOKUP, p.plan(Answer.ROWS, true, route(POPULAR, 0.05, 0), "").kind());
    assertEquals(Kind.DATA_SCAN, p.plan(Answer.ROWS, true, route(POPULAR, 0.3, 0), "").kind());
  }

  @Test
  void withoutAnEstimateTheIndexRuns() {
    QueryPlanner p = planner(null);
    QueryPlan notRouted = p.plan(Answer.ROWS, false, null, "strict: not routed, no estimate");
    assertEquals(Kind.INDEX_LOOKUP, notRouted.kind());
    assertEquals(-1, notRouted.estimatedRows());
    assertEquals("strict: not routed, no estimate", notRouted.reason());
    RouteResponse noCounts =
        RouteResponse.newBuilder().setTotalRegions(8).setUnsureRegions(8).build();
    assertEquals(Kind.INDEX_ONLY, p.plan(Answer.ROW_KEYS, false, noCounts, "").kind());
  }

  @Test
  void regionsWithoutCountsAreAssumedLikeTheOthers() {
    QueryPlan p = planner(null).plan(Answer.ROWS, false, route(POPULAR, 0.3, 4), "");
    assertEquals(80_000, p.tableRows(), "4 counted regions of 10,000, scaled to 8");
    assertEquals(24_000, p.estimatedRows());
  }

  @Test
  void indexModeNeverScans() {
    QueryPlan p = planner("index").plan(Answer.ROWS, false, route(POPULAR, 0.9, 0), "");
    assertEquals(Kind.INDEX_LOOKUP, p.kind());
    assertEquals("scbf.planner = index", p.reason());
  }
}
