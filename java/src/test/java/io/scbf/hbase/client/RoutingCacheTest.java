package io.scbf.hbase.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.scbf.MembershipFilter;
import io.scbf.ScalableSplitCountingBloomFilter;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.shared.proto.IndexProtos.HeldBitmap;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRouting;
import io.scbf.hbase.shared.proto.IndexProtos.RouteRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client's routing copy against a scripted master: warm queries make no master call, refreshes
 * come as deltas, a master that is down or sends garbage makes queries ask more regions (never
 * fewer), and a copy too large falls back to asking the master per query.
 */
class RoutingCacheTest {
  static final int REGIONS = 4;

  /** A master holding one counting filter per region; region 3 is unsure. */
  final class ScriptedMaster implements RoutingCache.Master {
    final ScalableSplitCountingBloomFilter[] filters =
        new ScalableSplitCountingBloomFilter[REGIONS];
    final long[] versions = new long[REGIONS];
    final Map<String, MembershipFilter> sentAt = new HashMap<>(); // region@version -> bitmap
    final AtomicInteger stateCalls = new AtomicInteger();
    final AtomicInteger routeCalls = new AtomicInteger();
    volatile boolean down;

    /**
     * Sends one corrupt delta, then goes down: the region stays unsure for as long as the copy may
     * be used, instead of for the one refresh period a racing refresh would leave to observe it.
     */
    volatile boolean corruptDeltas;

    ScriptedMaster() {
      for (int b = 0; b < REGIONS; b++) {
        filters[b] = ScalableSplitCountingBloomFilter.create(1000, 0.0001);
        filters[b].add(key("v" + b));
        versions[b] = 1;
      }
    }

    void add(int b, String value) {
      filters[b].add(key(value));
      versions[b]++;
    }

    MembershipFilter bitmapAt(int b) {
      return sentAt.computeIfAbsent(b + "@" + versions[b], k -> MembershipFilter.of(filters[b]));
    }

    @Override
    public RoutingStateResponse routingState(RoutingStateRequest request) {
      stateCalls.incrementAndGet();
      if (down) throw new IllegalStateException("master down");
      Map<String, Long> held = new HashMap<>();
      for (HeldBitmap h : request.getHeldList()) held.put(h.getEncodedRegion(), h.getVersion());
      RoutingStateResponse.Builder out = RoutingStateResponse.newBuilder();
      for (int b = 0; b < REGIONS; b++) {
        RegionRouting.Builder r =
            RegionRouting.newBuilder()
                .setStartKey(ByteString.copyFrom(new byte[] {(byte) b}))
                .setEndKey(ByteString.copyFrom(new byte[] {(byte) (b + 1)}))
                .setEncodedRegion("r" + b)
                .setSure(b != 3);
        if (b != 3) {
          r.setVersion(versions[b]);
          MembershipFilter now = bitmapAt(b);
          Long v = held.get("r" + b);
          MembershipFilter base = v == null ? null : sentAt.get(b + "@" + v);
          if (base == null) {
            r.setMembership(ByteString.copyFrom(now.toByteArray()));
          } else if (v != versions[b]) {
            byte[] d = now.deltaFrom(base);
            if (corruptDeltas) {
              d[d.length / 2] ^= 1;
              down = true;
            }
            r.addDeltas(ByteString.copyFrom(d));
          }
        }
        out.addRegions(r);
      }
      return out.build();
    }

    @Override
    public RouteResponse route(RouteRequest request) {
      routeCalls.incrementAndGet();
      if (down) throw new IllegalStateException("master down");
      return RouteResponse.newBuilder().setTotalRegions(REGIONS).setUnsureRegions(0).build();
    }

    void close() {
      for (ScalableSplitCountingBloomFilter f : filters) f.close();
      sentAt.values().forEach(MembershipFilter::close);
    }
  }

  final ScriptedMaster master = new ScriptedMaster();
  final List<RoutingCache> caches = new ArrayList<>();

  @AfterEach
  void close() {
    caches.forEach(RoutingCache::close);
    master.close();
  }

  static byte[] key(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }

  RoutingCache cache(long refreshMs, long maxAgeMs, long maxBytes) {
    return cache(refreshMs, maxAgeMs, maxBytes, true);
  }

  RoutingCache cache(long refreshMs, long maxAgeMs, long maxBytes, boolean localCopies) {
    Configuration conf = new Configuration(false);
    conf.setLong(Settings.CLIENT_ROUTING_REFRESH_MS, refreshMs);
    conf.setLong(Settings.CLIENT_ROUTING_MAX_AGE_MS, maxAgeMs);
    conf.setLong(Settings.CLIENT_ROUTING_MAX_BYTES, maxBytes);
    conf.setLong(Settings.CLIENT_ROUTING_WAIT_MS, 2000);
    RoutingCache c = new RoutingCache(master, Settings.from(conf), "test-routing", localCopies);
    caches.add(c);
    return c;
  }

  static List<Integer> regions(RouteResponse r) {
    List<Integer> out = new ArrayList<>();
    for (RegionRef ref : r.getCandidatesList()) out.add((int) ref.getStartKey().byteAt(0));
    return out;
  }

  /** Issue 52: a client without the native library routes every query by the master's answer. */
  @Test
  void withoutLocalCopiesEveryRouteAsksTheMaster() {
    RoutingCache c = cache(60_000, 60_000, 1 << 30, false);
    for (int i = 0; i < 11; i++) {
      RouteResponse r = c.route("idx", null, key("v" + i));
      assertEquals(REGIONS, r.getTotalRegions(), "the master's answer");
    }
    assertEquals(11, master.routeCalls.get());
    assertEquals(0, master.stateCalls.get(), "no copy fetched: it could not be read");
    assertEquals(11, c.masterCalls());
  }

  @Test
  void warmQueriesDoNotCallTheMaster() {
    RoutingCache c = cache(60_000, 60_000, 1 << 30);
    assertEquals(List.of(1, 3), regions(c.route("idx", null, key("v1"))), "3 is unsure");
    for (int i = 0; i < 1000; i++) {
      assertEquals(List.of(3), regions(c.route("idx", null, key("absent-" + i))));
    }
    assertEquals(1, c.masterCalls());
    assertEquals(1, master.stateCalls.get());
  }

  @Test
  void refreshesBringNewValuesByDeltas() throws Exception {
    RoutingCache c = cache(50, 60_000, 1 << 30);
    assertEquals(List.of(3), regions(c.route("idx", null, key("new"))));
    master.add(2, "new");
    long deadline = System.currentTimeMillis() + 10_000;
    List<Integer> got;
    do {
      Thread.sleep(60);
      got = regions(c.route("idx", null, key("new")));
    } while (!got.equals(List.of(2, 3)) && System.currentTimeMillis() < deadline);
    assertEquals(List.of(2, 3), got);
    assertTrue(c.masterCalls() >= 2);
  }

  @Test
  void aCorruptDeltaMakesTheRegionUnsureNotSkipped() throws Exception {
    RoutingCache c = cache(50, 60_000, 1 << 30);
    c.route("idx", null, key("x"));
    master.corruptDeltas = true;
    master.add(0, "new0");
    long deadline = System.currentTimeMillis() + 10_000;
    List<Integer> got;
    do {
      Thread.sleep(60);
      got = regions(c.route("idx", null, key("absent")));
    } while (!got.contains(0) && System.currentTimeMillis() < deadline);
    assertEquals(List.of(0, 3), got, "region 0 asked whatever the value");
    master.corruptDeltas = false;
    master.down = false;
    do {
      Thread.sleep(60);
      got = regions(c.route("idx", null, key("absent")));
    } while (got.contains(0) && System.currentTimeMillis() < deadline);
    assertEquals(List.of(3), got, "the next refresh brings the full bitmap");
    assertEquals(List.of(0, 3), regions(c.route("idx", null, key("new0"))));
  }

  @Test
  void withTheMasterDownAnOldCopyIsNotUsedAndQueriesDoNotWait() throws Exception {
    RoutingCache c = cache(20, 200, 1 << 30);
    assertEquals(List.of(3), regions(c.route("idx", null, key("absent"))));
    master.down = true;
    Thread.sleep(300);
    c.route("idx", null, key("absent")); // starts a refresh, which fails
    Thread.sleep(100);
    long start = System.nanoTime();
    assertNull(c.route("idx", null, key("absent")), "too old: the caller asks every region");
    assertTrue((System.nanoTime() - start) / 1_000_000 < 1000, "did not wait for the master");
    master.down = false;
    long deadline = System.currentTimeMillis() + 10_000;
    RouteResponse r;
    do {
      Thread.sleep(30);
      r = c.route("idx", null, key("absent"));
    } while (r == null && System.currentTimeMillis() < deadline);
    assertEquals(List.of(3), regions(r), "routing again once the master is back");
  }

  @Test
  void aCopyTooLargeIsNotKeptAndEachQueryAsksTheMaster() {
    RoutingCache c = cache(60_000, 60_000, 1);
    c.route("idx", null, key("a"));
    c.route("idx", null, key("b"));
    c.route("idx", null, key("c"));
    assertEquals(1, master.stateCalls.get());
    assertEquals(3, master.routeCalls.get());
    RoutingCache perQuery = cache(60_000, 0, 1 << 30);
    perQuery.route("idx", null, key("a"));
    assertEquals(4, master.routeCalls.get());
  }
}
