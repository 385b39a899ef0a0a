package io.scbf.mapreduce;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.RoutingReport;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When the master's stats show that routing reflects a build. */
class RoutingWaitTest {
  static RoutingReport.Region region(String table, String encoded, boolean ready, long ageMs) {
    return new RoutingReport.Region(table, encoded, "rs1", ready, ageMs, 100, 1, 0.001, 0);
  }

  static RoutingReport stats(RoutingReport.Region... regions) {
    return new RoutingReport(List.of(), List.of(regions), 0, 0, 0, 0);
  }

  @Test
  void everyBucketReadyAndHeardFromSinceTheWaitStarted() {
    RoutingReport s =
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
    RoutingReport s =
        stats(region("t__idx_a", "r0", true, 10), region("t__idx_a", "r1", false, 10));
    assertFalse(RoutingWait.reflectsBuild(s, "t__idx_a", 2, 500));
  }
}
