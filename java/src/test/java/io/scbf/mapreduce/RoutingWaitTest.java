package io.scbf.mapreduce;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.shared.proto.IndexProtos.RegionStats;
import io.scbf.hbase.shared.proto.IndexProtos.StatsResponse;
import org.junit.jupiter.api.Test;

/** When the master's stats show that routing reflects a build. */
class RoutingWaitTest {
  static RegionStats region(String table, String encoded, boolean ready, long ageMs) {
    return RegionStats.newBuilder()
        .setIndexTable(table)
        .setEncodedRegion(encoded)
        .setServer("rs1")
        .setReady(ready)
        .setAgeMs(ageMs)
        .setFilterBytes(100)
        .setFilters(1)
        .setEstimatedFpr(0.001)
        .setResidue(0)
        .build();
  }

  static StatsResponse stats(RegionStats... regions) {
    StatsResponse.Builder b =
        StatsResponse.newBuilder().setRoutesServed(0).setBucketsAsked(0).setBucketsTotal(0);
    for (RegionStats r : regions) b.addRegions(r);
    return b.build();
  }

  @Test
  void everyBucketReadyAndHeardFromSinceTheWaitStarted() {
    StatsResponse s =
        stats(
            region("t__idx_a", "r0", true, 100),
            region("t__idx_a", "r1", true, 300),
            region("t__idx_b", "x", false, 99_999)); // another index does not matter
    assertTrue(RoutingWait.reflectsBuild(s, "t__idx_a", 2, 500));
    assertFalse(
        RoutingWait.reflectsBuild(s, "t__idx_a", 2, 300), "r1 last published before the wait");
    assertFalse(RoutingWait.reflectsBuild(s, "t__idx_a", 3, 500), "a bucket never published");
  }

  @Test
  void aBucketStillRebuildingIsNotReflected() {
    StatsResponse s =
        stats(region("t__idx_a", "r0", true, 10), region("t__idx_a", "r1", false, 10));
    assertFalse(RoutingWait.reflectsBuild(s, "t__idx_a", 2, 500));
  }
}
