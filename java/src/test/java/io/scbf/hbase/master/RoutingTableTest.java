package io.scbf.hbase.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.scbf.ScalableSplitCountingBloomFilter;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.proto.IndexProtos.PublishRequest;
import io.scbf.hbase.shared.proto.IndexProtos.PublishResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RegionFilter;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
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

/** Routing decisions against a scripted cluster view: filter negatives skip, unsure asks. */
class RoutingTableTest {
  static final TableName INDEX = TableName.valueOf("t__idx_c");
  static final ServerName RS1 = ServerName.valueOf("rs1,16020,1");
  static final ServerName RS2 = ServerName.valueOf("rs2,16020,1");
  static final long STALE = 3000;

  final List<RegionInfo> regions = new ArrayList<>();
  final Map<String, ServerName> openOn = new HashMap<>();
  final Set<ServerName> online = new HashSet<>(List.of(RS1, RS2));
  final Set<TableName> building = new HashSet<>();
  final RoutingTable table =
      new RoutingTable(
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
          },
          STALE);

  RoutingTableTest() {
    for (int b = 0; b < 4; b++) {
      RegionInfo r =
          RegionInfoBuilder.newBuilder(INDEX)
              .setStartKey(b == 0 ? new byte[0] : new byte[] {(byte) b})
              .setEndKey(b == 3 ? new byte[0] : new byte[] {(byte) (b + 1)})
              .build();
      regions.add(r);
      openOn.put(r.getEncodedName(), b < 2 ? RS1 : RS2);
    }
  }

  @AfterEach
  void close() {
    table.close();
  }

  static byte[] key(String v) {
    return IndexKeyCodec.filterKey(Bytes.toBytes("c"), Bytes.toBytes(v));
  }

  /** Bucket b's filter holds "v<b>" only. */
  RegionFilter snapshot(int b, ServerName server, long version) {
    try (ScalableSplitCountingBloomFilter f =
        ScalableSplitCountingBloomFilter.create(1000, 0.0001)) {
      f.add(key("v" + b));
      return RegionFilter.newBuilder()
          .setIndexTable(INDEX.getNameAsString())
          .setEncodedRegion(regions.get(b).getEncodedName())
          .setServer(server.toString())
          .setReady(true)
          .setVersion(version)
          .setSnapshot(ByteString.copyFrom(f.toByteArray()))
          .build();
    }
  }

  RegionFilter heartbeat(int b, ServerName server, long version, boolean ready) {
    return RegionFilter.newBuilder()
        .setIndexTable(INDEX.getNameAsString())
        .setEncodedRegion(regions.get(b).getEncodedName())
        .setServer(server.toString())
        .setReady(ready)
        .setVersion(version)
        .build();
  }

  PublishResponse publish(long now, RegionFilter... filters) {
    return table.publish(PublishRequest.newBuilder().addAllRegions(List.of(filters)).build(), now);
  }

  List<Integer> route(String value, long now) {
    RouteResponse r = table.route(INDEX, key(value), now);
    assertEquals(4, r.getTotalRegions());
    List<Integer> buckets = new ArrayList<>();
    for (RegionRef ref : r.getCandidatesList())
      buckets.add(IndexKeyCodec.bucketOfRegion(ref.getStartKey().toByteArray()));
    return buckets;
  }

  void publishAll(long now) {
    publish(
        now,
        snapshot(0, RS1, 10),
        snapshot(1, RS1, 10),
        snapshot(2, RS2, 10),
        snapshot(3, RS2, 10));
  }

  @Test
  void unpublishedRegionsAreCandidatesAndPublishedNegativesAreSkipped() {
    assertEquals(List.of(0, 1, 2, 3), route("v1", 0), "nothing published: ask all");
    publishAll(0);
    assertEquals(List.of(1), route("v1", 100));
    assertEquals(List.of(), route("absent", 100));
  }

  @Test
  void staleNotReadyMovedAndDeadRegionsAreUnsure() {
    publishAll(0);
    assertEquals(List.of(0, 1, 2, 3), route("absent", STALE + 1), "stale");
    publish(
        STALE,
        heartbeat(0, RS1, 10, true),
        heartbeat(1, RS1, 10, true),
        heartbeat(2, RS2, 10, true),
        heartbeat(3, RS2, 10, true));
    assertEquals(List.of(), route("absent", STALE + 1), "heartbeats refresh");

    openOn.put(regions.get(2).getEncodedName(), RS1); // moved: RS2's filter no longer authoritative
    assertEquals(List.of(2), route("absent", STALE + 1));
    openOn.put(regions.get(2).getEncodedName(), RS2);
    online.remove(RS2); // dead server
    assertEquals(List.of(2, 3), route("absent", STALE + 1));
    online.add(RS2);
    publish(STALE, heartbeat(3, RS2, 11, false)); // reopened, building
    assertEquals(List.of(3), route("absent", STALE + 1));
  }

  @Test
  void heartbeatsWithAnUnknownVersionAskForTheSnapshot() {
    PublishResponse r = publish(0, heartbeat(0, RS1, 5, true), heartbeat(1, RS1, 5, false));
    assertEquals(List.of(regions.get(0).getEncodedName()), r.getNeedSnapshotList());
    publishAll(0);
    r = publish(10, heartbeat(0, RS1, 11, true));
    assertEquals(List.of(regions.get(0).getEncodedName()), r.getNeedSnapshotList());
    assertEquals(
        List.of(0), route("absent", 20), "until the new snapshot arrives the bucket is unsure");
  }

  @Test
  void onlyThePublishingServerRetiresARegion() {
    publishAll(0);
    publish(1, RegionFilter.newBuilder(heartbeat(0, RS2, 10, false)).setClosed(true).build());
    assertEquals(List.of(), route("absent", 2), "a close from another server is ignored");
    publish(1, RegionFilter.newBuilder(heartbeat(0, RS1, 10, false)).setClosed(true).build());
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
}
