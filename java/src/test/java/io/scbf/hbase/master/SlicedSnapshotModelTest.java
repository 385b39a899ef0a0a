package io.scbf.hbase.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.scbf.MembershipFilter;
import io.scbf.ScalableSplitCountingBloomFilter;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.proto.IndexProtos.PublishRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RegionFilter;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * The sliced route, whose snapshot each build after the first updates from what changed, against a
 * probe of every region's bitmap, through a random history: full bitmaps, deltas on the right and
 * the wrong base, regions not ready, closed by their server or another, keep-alives, moves that no
 * publication reports, servers dying and coming back, silences longer than the stale limit, the
 * index building, regions splitting. The two must name the same candidates after every step.
 */
class SlicedSnapshotModelTest {
  static final TableName INDEX = TableName.valueOf("m__idx_v");
  static final long STALE = 3000;

  final List<RegionInfo> regions = new ArrayList<>();
  final Map<String, ServerName> openOn = new HashMap<>();
  final List<ServerName> servers = new ArrayList<>();
  final Set<ServerName> online = new HashSet<>();
  boolean building;
  final Map<String, ScalableSplitCountingBloomFilter> filters = new HashMap<>();
  final Map<String, MembershipFilter> sent = new HashMap<>();
  final Map<String, Long> version = new HashMap<>();
  final Random rnd = new Random(20261126);

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
          return building;
        }
      };

  @Test
  void incrementalSnapshotsRouteExactlyAsAProbePerRegion() {
    for (int s = 0; s < 4; s++) {
      servers.add(ServerName.valueOf("rs" + s + ",16020,1"));
      online.add(servers.get(s));
    }
    for (int r = 0; r < 24; r++) {
      byte[] start = r == 0 ? new byte[0] : Bytes.toBytes(String.format("k%04d", r * 100));
      byte[] end = r == 23 ? new byte[0] : Bytes.toBytes(String.format("k%04d", (r + 1) * 100));
      addRegion(start, end, servers.get(r % 4));
    }
    long now = 0;
    int routes = 0;
    try (RoutingTable sliced = new RoutingTable(view, STALE, 0, 0, false);
        RoutingTable probed = new RoutingTable(view, STALE, Integer.MAX_VALUE, 0, false)) {
      for (int step = 0; step < 3000; step++) {
        now += rnd.nextInt(10) == 0 ? rnd.nextInt((int) STALE) : rnd.nextInt(50);
        PublishRequest request = change();
        if (request != null) {
          sliced.publish(request, now);
          probed.publish(request, now);
        }
        for (int q = 0; q < 3; q++) {
          byte[] key = key("v" + rnd.nextInt(400));
          assertEquals(candidates(probed, key, now), candidates(sliced, key, now), "step " + step);
          routes++;
        }
      }
      assertTrue(sliced.snapshotsBuilt.get() >= routes, "every sliced route built a snapshot");
      assertTrue(
          sliced.snapshotsFull.get() < sliced.snapshotsBuilt.get() / 4,
          "most builds were incremental: " + sliced.snapshotsFull.get() + " full");
    } finally {
      for (ScalableSplitCountingBloomFilter f : filters.values()) f.close();
      for (MembershipFilter m : sent.values()) m.close();
    }
  }

  /** One random change: a publication (returned) or a change of the cluster (null). */
  PublishRequest change() {
    if (splitting != null) {
      // The daughters published before the master lists them: they are usable at once.
      regions.remove(splitting.parent());
      openOn.remove(splitting.parent().getEncodedName());
      regions.addAll(splitting.daughters());
      splitting = null;
      return null;
    }
    RegionInfo region = regions.get(rnd.nextInt(regions.size()));
    String encoded = region.getEncodedName();
    ServerName host = openOn.get(encoded);
    ServerName from =
        host == null || rnd.nextInt(8) == 0 ? servers.get(rnd.nextInt(servers.size())) : host;
    int what = rnd.nextInt(100);
    if (what < 30) {
      filters.get(encoded).add(key("v" + rnd.nextInt(400)));
      MembershipFilter now = MembershipFilter.of(filters.get(encoded));
      MembershipFilter before = sent.put(encoded, now);
      long base = version.get(encoded);
      long next = base + 1;
      version.put(encoded, next);
      RegionFilter.Builder rf = message(encoded, from, next, true);
      byte[] delta = before == null ? null : now.deltaFrom(before);
      if (delta == null || rnd.nextInt(4) == 0) {
        rf.setMembership(ByteString.copyFrom(now.toByteArray()));
      } else {
        long claimed = rnd.nextInt(6) == 0 ? base - 1 : base; // sometimes the wrong base
        rf.setDelta(ByteString.copyFrom(delta)).setBaseVersion(claimed);
      }
      if (before != null) before.close();
      return request(from, rf.build());
    } else if (what < 38) {
      return request(from, message(encoded, from, version.get(encoded), false).build());
    } else if (what < 43) {
      return request(from, message(encoded, from, version.get(encoded), true).build());
    } else if (what < 48) {
      MembershipFilter gone = sent.remove(encoded);
      if (gone != null) gone.close();
      return request(from, message(encoded, from, 0, false).setClosed(true).build());
    } else if (what < 70) {
      return request(servers.get(rnd.nextInt(servers.size())));
    } else if (what < 80) {
      openOn.put(encoded, rnd.nextInt(5) == 0 ? null : servers.get(rnd.nextInt(servers.size())));
    } else if (what < 85) {
      ServerName s = servers.get(rnd.nextInt(servers.size()));
      if (!online.remove(s)) online.add(s);
    } else if (what < 88) {
      building = !building;
    } else if (what < 90 && regions.size() < 60) {
      return split(region);
    }
    return null;
  }

  RegionInfo newRegion(byte[] start, byte[] end, ServerName host) {
    RegionInfo r =
        RegionInfoBuilder.newBuilder(INDEX)
            .setStartKey(start)
            .setEndKey(end)
            .setRegionId(++regionIds)
            .build();
    openOn.put(r.getEncodedName(), host);
    filters.put(r.getEncodedName(), ScalableSplitCountingBloomFilter.create(200, 0.01));
    version.put(r.getEncodedName(), 0L);
    return r;
  }

  void addRegion(byte[] start, byte[] end, ServerName host) {
    regions.add(newRegion(start, end, host));
  }

  record Split(RegionInfo parent, List<RegionInfo> daughters) {}

  Split splitting;
  long regionIds;

  /**
   * The daughters open on the parent's server and publish their bitmaps; the next change swaps them
   * for the parent in the region list.
   */
  PublishRequest split(RegionInfo parent) {
    byte[] mid =
        Bytes.add(
            parent.getStartKey().length == 0 ? Bytes.toBytes("k") : parent.getStartKey(),
            Bytes.toBytes("m"));
    ServerName host = openOn.get(parent.getEncodedName());
    if (host == null) return null;
    List<RegionInfo> daughters =
        List.of(
            newRegion(parent.getStartKey(), mid, host), newRegion(mid, parent.getEndKey(), host));
    splitting = new Split(parent, daughters);
    List<RegionFilter> published = new ArrayList<>();
    for (RegionInfo d : daughters) {
      String encoded = d.getEncodedName();
      filters.get(encoded).add(key("v" + rnd.nextInt(400)));
      MembershipFilter bitmap = MembershipFilter.of(filters.get(encoded));
      sent.put(encoded, bitmap);
      version.put(encoded, 1L);
      published.add(
          message(encoded, host, 1, true)
              .setMembership(ByteString.copyFrom(bitmap.toByteArray()))
              .build());
    }
    return request(host, published.toArray(new RegionFilter[0]));
  }

  static RegionFilter.Builder message(
      String encoded, ServerName from, long version, boolean ready) {
    return RegionFilter.newBuilder()
        .setIndexTable(INDEX.getNameAsString())
        .setEncodedRegion(encoded)
        .setServer(String.valueOf(from))
        .setReady(ready)
        .setVersion(version);
  }

  static PublishRequest request(ServerName from, RegionFilter... filters) {
    return PublishRequest.newBuilder()
        .setServer(String.valueOf(from))
        .setFull(true)
        .addAllRegions(List.of(filters))
        .build();
  }

  static byte[] key(String v) {
    return IndexKeyCodec.filterKey(Bytes.toBytes("v"), Bytes.toBytes(v));
  }

  /** The candidates' encoded names in start-key order, and how many regions were unsure. */
  static String candidates(RoutingTable table, byte[] key, long now) {
    RouteResponse r = table.route(INDEX, key, now);
    StringBuilder out = new StringBuilder();
    for (RegionRef ref : r.getCandidatesList()) out.append(ref.getEncodedRegion()).append(' ');
    return out.append("unsure ").append(r.getUnsureRegions()).toString();
  }
}
