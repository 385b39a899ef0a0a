package io.scbf.hbase.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.scbf.MembershipFilter;
import io.scbf.ScalableSplitCountingBloomFilter;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.RowEstimates;
import io.scbf.hbase.shared.proto.IndexProtos.HeldBitmap;
import io.scbf.hbase.shared.proto.IndexProtos.PublishRequest;
import io.scbf.hbase.shared.proto.IndexProtos.PublishResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RegionFilter;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRouting;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RowEstimate;
import io.scbf.hbase.shared.proto.IndexProtos.ValueCounts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Routing decisions against a scripted cluster view: bitmap negatives skip, unsure asks; deltas
 * apply only to their base (lost, duplicated, reordered and corrupt ones are refused and the region
 * is unsure until its full bitmap arrives); a new master asks servers to resend.
 */
class RoutingTableTest {
  static final TableName INDEX = TableName.valueOf("t__idx_c");
  static final ServerName RS1 = ServerName.valueOf("rs1,16020,1");
  static final ServerName RS2 = ServerName.valueOf("rs2,16020,1");
  static final long STALE = 3000;

  final List<RegionInfo> regions = new ArrayList<>();
  final Map<String, ServerName> openOn = new HashMap<>();
  final Set<ServerName> online = new HashSet<>(List.of(RS1, RS2));
  final Set<TableName> building = new HashSet<>();
  final RoutingTable.ClusterView view =
      new RoutingTable.ClusterView() {
        @Override
        public List<RegionInfo> regionsOf(TableName t) {
          return regions;
        }

        @Override
        public ServerName openOn(RegionInfo r) {
          return openOn.get(r.getEncodedName());
        }

        @Override
        public boolean isOnline(ServerName s) {
          return online.contains(s);
        }

        @Override
        public boolean isBuilding(TableName t) {
          return building.contains(t);
        }
      };

  final RoutingTable table = newTable(view);

  /** The table under test: four regions route by a probe each ({@link SlicedRoutingTableTest}). */
  RoutingTable newTable(RoutingTable.ClusterView cluster) {
    return new RoutingTable(cluster, STALE);
  }

  RoutingTableTest() {
    for (int b = 0; b < 4; b++) {
      RegionInfo r =
          RegionInfoBuilder.newBuilder(INDEX)
              .setStartKey(b == 0 ? new byte[0] : new byte[] {(byte) b})
              .setEndKey(b == 3 ? new byte[0] : new byte[] {(byte) (b + 1)})
              .build();
      regions.add(r);
      openOn.put(r.getEncodedName(), b < 2 ? RS1 : RS2);
      filters[b] = ScalableSplitCountingBloomFilter.create(1000, 0.0001);
      filters[b].add(key("v" + b));
    }
  }

  /** Each bucket's counting filter (as its region server keeps it) and the last bitmap sent. */
  final ScalableSplitCountingBloomFilter[] filters = new ScalableSplitCountingBloomFilter[4];

  final MembershipFilter[] sent = new MembershipFilter[4];

  @AfterEach
  void close() {
    table.close();
    for (int b = 0; b < 4; b++) {
      filters[b].close();
      if (sent[b] != null) sent[b].close();
    }
  }

  static byte[] key(String v) {
    return IndexKeyCodec.filterKey(Bytes.toBytes("c"), Bytes.toBytes(v));
  }

  ServerName serverOf(int b) {
    return b < 2 ? RS1 : RS2;
  }

  RegionFilter.Builder message(int b, long version, boolean ready) {
    return RegionFilter.newBuilder()
        .setIndexTable(INDEX.getNameAsString())
        .setEncodedRegion(regions.get(b).getEncodedName())
        .setServer(serverOf(b).toString())
        .setReady(ready)
        .setVersion(version);
  }

  /** Bucket b's whole bitmap now. */
  RegionFilter full(int b, long version) {
    MembershipFilter now = MembershipFilter.of(filters[b]);
    if (sent[b] != null) sent[b].close();
    sent[b] = now;
    return message(b, version, true).setMembership(ByteString.copyFrom(now.toByteArray())).build();
  }

  /** The delta from the last bitmap made for bucket b to its bitmap now. */
  RegionFilter delta(int b, long base, long version) {
    MembershipFilter now = MembershipFilter.of(filters[b]);
    byte[] d = now.deltaFrom(sent[b]);
    sent[b].close();
    sent[b] = now;
    return message(b, version, true).setDelta(ByteString.copyFrom(d)).setBaseVersion(base).build();
  }

  PublishResponse publish(long now, ServerName from, boolean full, RegionFilter... filters) {
    return table.publish(
        PublishRequest.newBuilder()
            .setServer(from.toString())
            .setFull(full)
            .addAllRegions(List.of(filters))
            .build(),
        now);
  }

  static PublishRequest request(ServerName from, RegionFilter... filters) {
    return PublishRequest.newBuilder()
        .setServer(from.toString())
        .setFull(true)
        .addAllRegions(List.of(filters))
        .build();
  }

  List<Integer> route(String value, long now) {
    return routeWith(table, value, now);
  }

  static List<Integer> routeWith(RoutingTable table, String value, long now) {
    return routeWith(table, value, now, 4);
  }

  static List<Integer> routeWith(RoutingTable table, String value, long now, int regions) {
    RouteResponse r = table.route(INDEX, key(value), now);
    assertEquals(regions, r.getTotalRegions());
    List<Integer> buckets = new ArrayList<>();
    for (RegionRef ref : r.getCandidatesList())
      buckets.add(IndexKeyCodec.bucketOfRegion(ref.getStartKey().toByteArray()));
    return buckets;
  }

  void publishAll(long now) {
    publish(now, RS1, true, full(0, 10), full(1, 10));
    publish(now, RS2, true, full(2, 10), full(3, 10));
  }

  @Test
  void unpublishedRegionsAreCandidatesAndPublishedNegativesAreSkipped() {
    assertEquals(List.of(0, 1, 2, 3), route("v1", 0), "nothing published: ask all");
    publishAll(0);
    assertEquals(List.of(1), route("v1", 100));
    assertEquals(List.of(), route("absent", 100));
  }

  @Test
  void silentServersGoStaleKeepAlivesKeepThemAndMovedDeadOrBuildingRegionsAreUnsure() {
    publishAll(0);
    assertEquals(List.of(0, 1, 2, 3), route("absent", STALE + 1), "stale");
    publish(STALE, RS1, false);
    publish(STALE, RS2, false);
    assertEquals(List.of(), route("absent", STALE + 1), "keep-alives refresh");

    openOn.put(regions.get(2).getEncodedName(), RS1); // moved: RS2's bitmap no longer authoritative
    assertEquals(List.of(2), route("absent", STALE + 1));
    openOn.put(regions.get(2).getEncodedName(), RS2);
    online.remove(RS2); // dead server
    assertEquals(List.of(2, 3), route("absent", STALE + 1));
    online.add(RS2);
    publish(STALE, RS2, false, message(3, 11, false).build()); // reopened, building
    assertEquals(List.of(3), route("absent", STALE + 1));
  }

  @Test
  void deltasApplyOnlyToTheirBase() {
    publishAll(0);
    filters[0].add(key("new"));
    RegionFilter d1 = delta(0, 10, 11);
    assertEquals(0, publish(1, RS1, false, d1).getNeedSnapshotCount());
    assertEquals(List.of(0), route("new", 2));
    assertEquals(List.of(), route("absent", 2));

    // Duplicated: the master holds 11 now.
    PublishResponse r = publish(3, RS1, false, d1);
    assertEquals(List.of(regions.get(0).getEncodedName()), r.getNeedSnapshotList());
    assertEquals(List.of(0), route("absent", 4), "unsure until the full bitmap arrives");
    publish(5, RS1, false, full(0, 11));
    assertEquals(List.of(), route("absent", 6));

    // Lost (11 -> 12 never arrived) and reordered (12 -> 13 arrives first).
    filters[0].add(key("a"));
    RegionFilter d12 = delta(0, 11, 12);
    filters[0].remove(key("new"));
    RegionFilter d23 = delta(0, 12, 13);
    assertFalse(publish(7, RS1, false, d23).getNeedSnapshotList().isEmpty());
    assertEquals(List.of(0), route("absent", 8));
    assertFalse(publish(9, RS1, false, d12).getNeedSnapshotList().isEmpty(), "refused: unsure");
    publish(10, RS1, false, full(0, 13));
    assertEquals(List.of(0), route("a", 11));
    assertEquals(List.of(), route("new", 11), "the removed value's bits went off");

    // Corrupt: refused, nothing applied.
    filters[0].add(key("b"));
    RegionFilter good = delta(0, 13, 14);
    byte[] bytes = good.getDelta().toByteArray();
    bytes[bytes.length / 2] ^= 1;
    RegionFilter bad = RegionFilter.newBuilder(good).setDelta(ByteString.copyFrom(bytes)).build();
    assertFalse(publish(12, RS1, false, bad).getNeedSnapshotList().isEmpty());
    assertEquals(List.of(0), route("absent", 13));
  }

  /** Servers name themselves once per request; a region naming no server is the sender's. */
  @Test
  void aRegionWithoutAServerIsTheSendersAndWithoutEitherIsRefused() {
    for (int b = 0; b < 4; b++) {
      RegionFilter anonymous = RegionFilter.newBuilder(full(b, 1)).clearServer().build();
      assertEquals(0, publish(0, serverOf(b), true, anonymous).getNeedSnapshotCount());
    }
    assertEquals(List.of(), route("absent", 1), "attributed to the senders: routable");
    PublishResponse r =
        table.publish(
            PublishRequest.newBuilder()
                .addRegions(RegionFilter.newBuilder(full(0, 2)).clearServer())
                .build(),
            1);
    assertEquals(List.of(regions.get(0).getEncodedName()), r.getNeedSnapshotList());
  }

  @Test
  void aNewMasterAsksEveryServerToResend() {
    PublishResponse r = publish(0, RS1, false);
    assertTrue(r.getResync(), "a keep-alive to a master that holds nothing");
    r = publish(0, RS1, false, delta0From(10));
    assertTrue(r.getResync());
    assertEquals(List.of(0, 1, 2, 3), route("absent", 1), "nothing taken from a resync");
    publishAll(2);
    assertFalse(publish(3, RS1, false).getResync());
  }

  private RegionFilter delta0From(long base) {
    sent[0] = MembershipFilter.of(filters[0]);
    filters[0].add(key("x"));
    return delta(0, base, base + 1);
  }

  @Test
  void clientsGetBitmapsOnceThenDeltasThenNothing() {
    publishAll(0);
    RoutingStateResponse first = table.routingState(INDEX.getNameAsString(), INDEX, List.of(), 1);
    assertEquals(4, first.getRegionsCount());
    for (RegionRouting r : first.getRegionsList()) {
      assertTrue(r.getSure() && r.hasMembership() && r.getDeltasCount() == 0);
    }
    filters[0].add(key("n1"));
    publish(2, RS1, false, delta(0, 10, 11));
    filters[0].add(key("n2"));
    publish(3, RS1, false, delta(0, 11, 12));
    List<HeldBitmap> held = new ArrayList<>();
    for (RegionRouting r : first.getRegionsList()) {
      held.add(
          HeldBitmap.newBuilder()
              .setEncodedRegion(r.getEncodedRegion())
              .setVersion(r.getVersion())
              .build());
    }
    RoutingStateResponse next = table.routingState(INDEX.getNameAsString(), INDEX, held, 4);
    RegionRouting r0 = next.getRegions(0);
    assertEquals(12, r0.getVersion());
    assertEquals(2, r0.getDeltasCount(), "the two deltas since the held version");
    assertFalse(r0.hasMembership());
    try (MembershipFilter copy =
        MembershipFilter.fromByteArray(first.getRegions(0).getMembership().toByteArray())) {
      for (ByteString d : r0.getDeltasList()) assertTrue(copy.applyDelta(d.toByteArray()));
      assertTrue(copy.mightContain(key("n2")));
    }
    for (int b = 1; b < 4; b++) {
      RegionRouting r = next.getRegions(b);
      assertTrue(r.getSure() && !r.hasMembership() && r.getDeltasCount() == 0, "held is current");
    }
    held.set(0, HeldBitmap.newBuilder(held.get(0)).setVersion(7).build());
    assertTrue(
        table.routingState(INDEX.getNameAsString(), INDEX, held, 4).getRegions(0).hasMembership(),
        "an unknown held version gets the full bitmap");
    assertFalse(
        table
            .routingState(INDEX.getNameAsString(), INDEX, held, STALE + 10)
            .getRegions(0)
            .getSure(),
        "stale regions are unsure to clients too");
  }

  @Test
  void onlyThePublishingServerRetiresARegion() {
    publishAll(0);
    publish(
        1,
        RS2,
        false,
        RegionFilter.newBuilder(message(0, 10, false).setServer(RS2.toString()).build())
            .setClosed(true)
            .build());
    assertEquals(List.of(), route("absent", 2), "a close from another server is ignored");
    publish(1, RS1, false, message(0, 10, false).setClosed(true).build());
    assertEquals(List.of(0), route("absent", 2));
    assertTrue(table.stats(null, 2).getServersCount() == 2);
    assertEquals(3, table.stats(null, 2).getRegionsCount());
  }

  @Test
  void everyRegionOfABuildingIndexIsACandidateWhateverItPublished() {
    publishAll(0);
    assertEquals(List.of(), route("absent", 1));
    building.add(INDEX); // e.g. marked building for a rebuild after a snapshot restore
    assertEquals(List.of(0, 1, 2, 3), route("absent", 1));
    assertEquals(4, table.route(INDEX, key("absent"), 1).getUnsureRegions());
    building.remove(INDEX);
    assertEquals(List.of(), route("absent", 1));
  }

  /** Counts where value "hot" has {@code hot} entries of {@code entries}. */
  static ValueCounts counts(long entries, long hot) {
    return ValueCounts.newBuilder()
        .setEntries(entries)
        .setHeavyThreshold(32)
        .addHeavyHash(RowEstimates.hash(key("hot")))
        .addHeavyCount(hot)
        .build();
  }

  @Test
  void valueCountsReachRoutesAndClientsWithTheirBitmap() {
    for (int b = 0; b < 4; b++) filters[b].add(key("hot"));
    for (int b = 0; b < 4; b++) {
      publish(
          0,
          serverOf(b),
          true,
          RegionFilter.newBuilder(full(b, 1)).setCounts(counts(1000, 300)).build());
    }
    RowEstimate hot = table.route(INDEX, key("hot"), 1).getEstimate();
    assertEquals(1200, hot.getHeavyRows());
    assertEquals(4000, hot.getEntries());
    assertEquals(4, hot.getRegionsCounted());
    RowEstimate rare = table.route(INDEX, key("v1"), 1).getEstimate();
    assertEquals(0, rare.getHeavyRows());
    assertEquals(31, rare.getBoundRows(), "below the threshold in its one candidate region");

    // A delta without counts keeps the held ones; a delta with counts replaces them.
    filters[0].add(key("more"));
    publish(2, RS1, false, delta(0, 1, 2));
    assertEquals(1200, table.route(INDEX, key("hot"), 3).getEstimate().getHeavyRows());
    filters[0].add(key("more2"));
    publish(
        4, RS1, false, RegionFilter.newBuilder(delta(0, 2, 3)).setCounts(counts(1000, 10)).build());
    assertEquals(910, table.route(INDEX, key("hot"), 5).getEstimate().getHeavyRows());

    // Clients get counts with every bitmap or delta, nothing with a current version.
    RoutingStateResponse first = table.routingState(INDEX.getNameAsString(), INDEX, List.of(), 5);
    assertEquals(10, first.getRegions(0).getCounts().getHeavyCount(0));
    List<HeldBitmap> held = new ArrayList<>();
    for (RegionRouting r : first.getRegionsList()) {
      held.add(
          HeldBitmap.newBuilder()
              .setEncodedRegion(r.getEncodedRegion())
              .setVersion(r.getVersion())
              .build());
    }
    assertFalse(
        table.routingState(INDEX.getNameAsString(), INDEX, held, 5).getRegions(0).hasCounts());

    // Regions routing is unsure of count for nothing.
    assertEquals(0, table.route(INDEX, key("hot"), STALE + 10).getEstimate().getRegionsCounted());
  }
}
