package io.scbf.hbase.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.junit.jupiter.api.Test;

/**
 * Every routing decision of {@link RoutingTableTest}, with each index routed bit-sliced (the path
 * of indexes over many regions) and a snapshot of sure regions rebuilt for every route: the sliced
 * copy must answer exactly as a probe per region, through full bitmaps, deltas, refused
 * publications, retirements, moves, dead and silent servers and building indexes. Then the reuse of
 * a snapshot: what a publication changes shows at once, a silent server is distrusted early.
 */
class SlicedRoutingTableTest extends RoutingTableTest {
  static final long REUSE = 500;

  boolean reuseSnapshots;

  @Override
  RoutingTable newTable(RoutingTable.ClusterView cluster) {
    return new RoutingTable(cluster, STALE, 0, 0, false);
  }

  @Test
  void aReusedSnapshotSeesPublicationsAtOnceAndDistrustsSilentServersEarly() {
    try (RoutingTable reusing = new RoutingTable(view, STALE, 0, REUSE, false)) {
      publishTo(reusing, 0);
      assertEquals(List.of(1), routeWith(reusing, "v1", 10));
      // A new bit (a delta) shows at once: bits are not part of the snapshot.
      filters[2].add(key("late"));
      reusing.publish(request(RS2, delta(2, 10, 11)), 20);
      assertEquals(List.of(2), routeWith(reusing, "late", 21));
      // A refused publication makes the region unsure at once (the snapshot is rebuilt).
      reusing.publish(request(RS2, delta(2, 10, 11)), 30);
      assertEquals(List.of(2), routeWith(reusing, "absent", 31));
      // Sure at t only if still sure at t + REUSE: the snapshot built at STALE - REUSE - 5 is kept
      // until STALE - 5; the next one distrusts RS1 (last heard at 0), which a probe per region
      // would trust until STALE.
      reusing.publish(request(RS2, full(2, 12)), STALE - REUSE - 10);
      assertEquals(List.of(), routeWith(reusing, "absent", STALE - REUSE - 5));
      assertEquals(List.of(), routeWith(reusing, "absent", STALE - 6));
      assertEquals(List.of(0, 1), routeWith(reusing, "absent", STALE - 4));
    }
  }

  @Test
  void anIdleCopyIsDroppedAndTheNextRouteSlicesEveryRegionAgain() {
    try (RoutingTable t = new RoutingTable(view, STALE, 0, 0, false)) {
      publishTo(t, 0);
      assertEquals(List.of(1), routeWith(t, "v1", 10));
      assertTrue(t.slicedBytes() > 0);
      assertEquals(0, t.dropIdle(10 + RoutingTable.SLICED_IDLE_MS), "routed just now");
      long later = 11 + RoutingTable.SLICED_IDLE_MS;
      assertEquals(1, t.dropIdle(later));
      assertEquals(0, t.slicedBytes(), "the copy's memory is not counted once dropped");
      // Without a copy: a keep-alive from each server, and a delta.
      t.publish(request(RS1), later);
      filters[2].add(key("late"));
      t.publish(request(RS2, delta(2, 10, 11)), later);
      // The next route makes a new copy: the regions sliced in the dropped copy are in it too,
      // else they would all be unsure (asked for every value).
      assertEquals(List.of(1), routeWith(t, "v1", later + 1));
      assertEquals(List.of(2), routeWith(t, "late", later + 1));
      assertEquals(List.of(), routeWith(t, "absent", later + 1));
      assertTrue(t.slicedBytes() > 0);
    }
  }

  /** A build after the first re-reads the regions that may have changed, and only those. */
  @Test
  void aRebuildRereadsOnlyTouchedMovedAndDistrustedRegions() {
    publishAll(0);
    assertEquals(List.of(1), route("v1", 1));
    assertEquals(1, table.snapshotsFull.get());
    long read = table.snapshotRegionsRead.get();
    assertEquals(4, read);

    assertEquals(List.of(), route("absent", 2));
    assertEquals(read, table.snapshotRegionsRead.get(), "nothing changed: nothing re-read");

    filters[2].add(key("late"));
    publish(3, RS2, false, delta(2, 10, 11));
    assertEquals(List.of(2), route("late", 4));
    assertEquals(read += 1, table.snapshotRegionsRead.get(), "the touched region");

    openOn.put(regions.get(3).getEncodedName(), RS1); // moved, no publication yet
    assertEquals(List.of(3), route("absent", 5));
    assertEquals(read += 1, table.snapshotRegionsRead.get(), "the moved region");

    publish(STALE - 10, RS2, false); // RS2's keep-alive; RS1 goes silent at STALE
    assertEquals(List.of(3), route("absent", STALE));
    assertEquals(List.of(0, 1, 3), route("absent", STALE + 1));
    assertEquals(read += 2, table.snapshotRegionsRead.get(), "RS1's regions, once distrusted");
    assertEquals(1, table.snapshotsFull.get());

    // The region list changed (a region gone, one new): only the new region is read.
    regions.remove(3);
    regions.add(
        RegionInfoBuilder.newBuilder(INDEX)
            .setStartKey(new byte[] {3})
            .setEndKey(new byte[0])
            .setRegionId(2)
            .build());
    assertEquals(List.of(0, 1, 3), route("absent", STALE + 2));
    assertEquals(read += 1, table.snapshotRegionsRead.get());
    assertEquals(1, table.snapshotsFull.get());

    building.add(INDEX); // the index building again: every region re-read, every one unsure
    assertEquals(List.of(0, 1, 2, 3), route("absent", STALE + 3));
    assertEquals(2, table.snapshotsFull.get());
    assertEquals(read + 4, table.snapshotRegionsRead.get());
  }

  void publishTo(RoutingTable t, long now) {
    t.publish(request(RS1, full(0, 10), full(1, 10)), now);
    t.publish(request(RS2, full(2, 10), full(3, 10)), now);
  }
}
