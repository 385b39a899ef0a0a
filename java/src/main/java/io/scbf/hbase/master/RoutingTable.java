package io.scbf.hbase.master;

import com.google.protobuf.ByteString;
import io.scbf.MembershipFilter;
import io.scbf.hbase.shared.DaemonThreads;
import io.scbf.hbase.shared.RowEstimates;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.shared.proto.IndexProtos.HeldBitmap;
import io.scbf.hbase.shared.proto.IndexProtos.PublishRequest;
import io.scbf.hbase.shared.proto.IndexProtos.PublishResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RegionFilter;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRouting;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStats;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateResponse;
import io.scbf.hbase.shared.proto.IndexProtos.ServerStats;
import io.scbf.hbase.shared.proto.IndexProtos.StatsResponse;
import io.scbf.hbase.shared.proto.IndexProtos.ValueCounts;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's routing state: the latest routing bitmap ({@link MembershipFilter}) of every index
 * region, and the routing decision. A region is a candidate for a value if its bitmap may contain
 * the value, or if the master is unsure about it: never published, not ready (building), its server
 * not heard from for {@code staleMs}, published by a server that no longer hosts it, hosted by a
 * dead server, or a publication was refused (the master then waits for the full bitmap). Since
 * "unsure" is a candidate, a new master (empty table), a lost message or a dead server costs extra
 * lookups, never answers.
 *
 * <p>Publications are deltas from the version the master acknowledged; a delta for any other base
 * is refused (the bitmap stays as it was, the region is unsure, and the answer asks for the full
 * bitmap). A server the master has no state from (a new master) is asked to resend everything. The
 * table keeps each region's recent deltas so that clients holding a copy of the routing state
 * ({@link #routingState}) refresh by deltas too.
 *
 * <p>With the bitmap, each region's latest {@link ValueCounts} (entries, heavy values) are kept and
 * passed on: routes carry the value's {@link RowEstimates row estimate} for the query planner.
 *
 * <p>Entries are keyed by index and region: a data region carries one bitmap per local index. How a
 * publication changes a region's entry is {@link RoutingEntry}'s.
 */
final class RoutingTable implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RoutingTable.class);

  /**
   * Regions from which an index is routed bit-sliced ({@link SlicedRoutes}): below it, a probe per
   * region is fast (256 regions: tens of microseconds) and a second copy of the bitmaps not worth
   * its memory ({@code scbf.route.sliced.min.regions}).
   */
  static final int SLICED_MIN_REGIONS = Settings.DEFAULT_ROUTE_SLICED_MIN_REGIONS;

  /**
   * How long a sliced index's snapshot of sure regions may be used (docs/design.md); while routes
   * run it is rebuilt in the background once it is half that old, so routes find it valid.
   */
  static final long SNAPSHOT_MS = 500;

  /** How often the background looks for snapshots to rebuild. */
  static final long REBUILD_CHECK_MS = 20;

  /** A sliced index whose last route is older than this gets no background rebuilds. */
  static final long ACTIVE_MS = 10_000;

  /**
   * A sliced copy not routed for this long is dropped (a dropped index's, or one no longer
   * queried): its memory goes back, and the next route makes it again from the entries.
   */
  static final long SLICED_IDLE_MS = 10 * 60_000;

  /** How long a dropped copy stays open for a route or publication that found it just before. */
  static final long RETIRED_CLOSE_MS = 60_000;

  /** What the master knows about regions and servers right now. */
  interface ClusterView {
    /** Regions of the table (not split or offline), any order. */
    List<RegionInfo> regionsOf(TableName table);

    /** Server the region is open on, or null while it is not open. */
    ServerName openOn(RegionInfo region);

    boolean isOnline(ServerName server);

    /**
     * True if the table is an index table being built: its filters, even published ones from
     * before, say nothing about rows not indexed yet.
     */
    boolean isBuilding(TableName table);
  }

  private final ClusterView cluster;
  private final long staleMs;
  private final int slicedMinRegions;
  private final long snapshotMs;

  /** Per index routed bit-sliced: created by the first route over enough regions. */
  private final Map<String, SlicedRoutes> sliced = new ConcurrentHashMap<>();

  /** Dropped copies, closed once {@link #RETIRED_CLOSE_MS} old (or with the table). */
  private record Retired(SlicedRoutes routes, long closeAt) {}

  private final Queue<Retired> retired = new ConcurrentLinkedQueue<>();

  /** Index (table name) to encoded region to its entry: a route reads one inner map. */
  private final Map<String, Map<String, RoutingEntry>> entries = new ConcurrentHashMap<>();

  /** When each server's last publication (or keep-alive) arrived. */
  private final Map<ServerName, Long> serverSeen = new ConcurrentHashMap<>();

  final AtomicLong routesServed = new AtomicLong();
  final AtomicLong slicedRoutesServed = new AtomicLong();
  final AtomicLong bucketsAsked = new AtomicLong();
  final AtomicLong bucketsTotal = new AtomicLong();
  final AtomicLong unsureAnswers = new AtomicLong();
  final AtomicLong statesServed = new AtomicLong();
  final AtomicLong bytesReceived = new AtomicLong();
  final AtomicLong snapshotsBuilt = new AtomicLong();
  final AtomicLong snapshotsFull = new AtomicLong();
  final AtomicLong snapshotRegionsRead = new AtomicLong();

  /** Snapshots rebuilt off the route path, or null (tests drive the clock themselves). */
  private final ScheduledExecutorService refresher;

  RoutingTable(ClusterView cluster, long staleMs) {
    this(cluster, staleMs, SLICED_MIN_REGIONS, SNAPSHOT_MS, true);
  }

  /**
   * Tests route every index bit-sliced ({@code slicedMinRegions} 0), with or without reuse, and
   * without background rebuilds, which read the system clock.
   */
  RoutingTable(
      ClusterView cluster,
      long staleMs,
      int slicedMinRegions,
      long snapshotMs,
      boolean rebuildInBackground) {
    this.cluster = cluster;
    this.staleMs = staleMs;
    this.slicedMinRegions = slicedMinRegions;
    this.snapshotMs = snapshotMs;
    if (rebuildInBackground && snapshotMs > 0) {
      refresher =
          Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("scbf-routing-snapshots"));
      refresher.scheduleWithFixedDelay(
          this::rebuildActive, REBUILD_CHECK_MS, REBUILD_CHECK_MS, TimeUnit.MILLISECONDS);
    } else {
      refresher = null;
    }
  }

  /** Rebuilds the snapshot of every sliced index routed lately once it is half its life old. */
  private void rebuildActive() {
    try {
      dropIdle(System.currentTimeMillis());
      for (Map.Entry<String, SlicedRoutes> x : sliced.entrySet()) {
        long now = System.currentTimeMillis();
        SlicedRoutes sr = x.getValue();
        if (now - sr.lastRouted() > ACTIVE_MS || !sr.isFilled()) continue;
        if (sr.current(now + snapshotMs / 2) != null) continue;
        rebuild(x.getKey(), sr, now, true);
      }
    } catch (RuntimeException e) {
      // The next route rebuilds on its own thread; the schedule must go on.
      LOG.warn("scbf: background rebuild of routing snapshots failed", e);
    }
  }

  /**
   * Drops the sliced copies not routed since {@code now - SLICED_IDLE_MS}; returns how many. Safe
   * at any time: a copy is a cache of the entries' bitmaps, and an entry's slot belongs to the copy
   * that gave it ({@link RoutingEntry#slotIn}), so a copy made later slices every entry again.
   */
  int dropIdle(long now) {
    int dropped = 0;
    for (Map.Entry<String, SlicedRoutes> x : sliced.entrySet()) {
      SlicedRoutes sr = x.getValue();
      if (now - sr.lastRouted() <= SLICED_IDLE_MS || !sliced.remove(x.getKey(), sr)) continue;
      // A publication looks the copy up under its entry's lock: once every entry was locked here,
      // none writes to this copy any more (a route that found it still reads it: closed later).
      for (RoutingEntry e : entriesOf(x.getKey()).values()) {
        e.lock.writeLock().lock();
        try {
          if (e.slicedIn == sr) e.slicedIn = null;
        } finally {
          e.lock.writeLock().unlock();
        }
      }
      retired.add(new Retired(sr, now + RETIRED_CLOSE_MS));
      dropped++;
    }
    for (Retired r = retired.peek(); r != null && r.closeAt() <= now; r = retired.peek()) {
      if (retired.remove(r)) r.routes().close();
    }
    return dropped;
  }

  PublishResponse publish(PublishRequest request, long now) {
    bytesReceived.addAndGet(request.getSerializedSize());
    PublishResponse.Builder response = PublishResponse.newBuilder();
    ServerName sender = request.hasServer() ? ServerName.valueOf(request.getServer()) : null;
    if (sender != null && !request.getFull() && !serverSeen.containsKey(sender)) {
      // Deltas and silence mean "as you hold it": only true for a master that holds something.
      return response.setResync(true).build();
    }
    for (RegionFilter rf : request.getRegionsList()) {
      // Each region's publisher is the request's sender unless named (one name per request).
      ServerName from = rf.hasServer() ? ServerName.valueOf(rf.getServer()) : sender;
      if (from == null) {
        response.addNeedSnapshot(rf.getEncodedRegion()); // unattributable: ignored
        continue;
      }
      Map<String, RoutingEntry> ofIndex =
          entries.computeIfAbsent(rf.getIndexTable(), k -> new ConcurrentHashMap<>());
      if (rf.getClosed()) {
        // Only the server that published the entry may retire it (a late "closed" from the old
        // server must not erase the new server's publication).
        ofIndex.computeIfPresent(
            rf.getEncodedRegion(),
            (k, e) -> {
              e.lock.writeLock().lock();
              try {
                if (!from.equals(e.server)) return e;
                e.replace(null);
                SlicedRoutes sr = sliced.get(rf.getIndexTable());
                if (sr != null) sr.touch(e.encoded);
                if (e.slotIn(sr) >= 0) sr.release(e.slot);
                e.slicedIn = null;
                return null;
              } finally {
                e.lock.writeLock().unlock();
              }
            });
        continue;
      }
      RoutingEntry e =
          ofIndex.computeIfAbsent(
              rf.getEncodedRegion(),
              k -> new RoutingEntry(rf.getIndexTable(), rf.getEncodedRegion()));
      e.lock.writeLock().lock(); // one publication at a time: bitmap, version and server agree
      try {
        // Read under the lock: a sliced copy made meanwhile copies this entry after us.
        SlicedRoutes sr = sliced.get(rf.getIndexTable());
        if (!e.update(rf, from, sr)) response.addNeedSnapshot(rf.getEncodedRegion());
      } finally {
        e.lock.writeLock().unlock();
      }
    }
    if (sender != null) serverSeen.put(sender, now);
    return response.build();
  }

  private Map<String, RoutingEntry> entriesOf(String index) {
    return entries.getOrDefault(index, Map.of());
  }

  private List<RoutingEntry> allEntries() {
    List<RoutingEntry> all = new ArrayList<>();
    for (Map<String, RoutingEntry> ofIndex : entries.values()) all.addAll(ofIndex.values());
    return all;
  }

  /** Candidate regions of a global index's table for a filter key, in start-key order. */
  RouteResponse route(TableName indexTable, byte[] filterKey, long now) {
    return route(indexTable.getNameAsString(), indexTable, filterKey, now);
  }

  /**
   * Candidate regions of {@code regionsOf} for a filter key of {@code index}, in start-key order:
   * the index's own table for a global index, the data table for a local one.
   */
  RouteResponse route(String index, TableName regionsOf, byte[] filterKey, long now) {
    SlicedRoutes sr = sliced.get(index);
    if (sr != null) return routeSliced(index, sr, filterKey, now);
    // Only the candidates are sorted: they are few, the regions of a local index can be many.
    List<RegionInfo> regions = cluster.regionsOf(regionsOf);
    if (regions.size() >= slicedMinRegions) {
      return routeSliced(index, slicedOf(index, regionsOf, now), filterKey, now);
    }
    List<RegionInfo> candidates = new ArrayList<>();
    RouteResponse.Builder out = RouteResponse.newBuilder().setTotalRegions(regions.size());
    RowEstimates.Builder estimate = new RowEstimates.Builder(filterKey);
    int unsure = 0;
    boolean building = cluster.isBuilding(regionsOf);
    Map<String, RoutingEntry> ofIndex = entriesOf(index);
    for (RegionInfo region : regions) {
      RoutingEntry e = building ? null : ofIndex.get(region.getEncodedName());
      boolean sure = false;
      boolean candidate = true;
      if (e != null) {
        e.lock.readLock().lock();
        try {
          sure = isUsable(e, region, now);
          candidate = !sure || e.bitmap.mightContain(filterKey);
          if (sure) estimate.region(e.counts, candidate);
        } finally {
          e.lock.readLock().unlock();
        }
      }
      if (!sure) unsure++;
      if (candidate) candidates.add(region);
    }
    candidates.sort(BY_START_KEY);
    for (RegionInfo region : candidates) out.addCandidates(refOf(region));
    out.setUnsureRegions(unsure).setEstimate(estimate.build());
    routesServed.incrementAndGet();
    bucketsAsked.addAndGet(out.getCandidatesCount());
    bucketsTotal.addAndGet(regions.size());
    unsureAnswers.addAndGet(unsure);
    return out.build();
  }

  /** The index's sliced copy, made (and filled from every entry) on first use. */
  private SlicedRoutes slicedOf(String index, TableName regionsOf, long now) {
    SlicedRoutes sr = sliced.computeIfAbsent(index, k -> new SlicedRoutes(regionsOf, now));
    // After the copy is in the map: a publication locks its entry, then looks the copy up.
    sr.fillOnce(
        () -> {
          for (RoutingEntry e : entriesOf(index).values()) {
            e.lock.writeLock().lock();
            try {
              e.sliceIfNew(sr);
            } finally {
              e.lock.writeLock().unlock();
            }
          }
        });
    return sr;
  }

  /**
   * A route from the sliced copy: the regions unsure in the snapshot, plus the sure ones whose bits
   * may hold the key; the work is one native query over every slot and then per candidate.
   */
  private RouteResponse routeSliced(String index, SlicedRoutes sr, byte[] filterKey, long now) {
    sr.routed(now);
    SlicedRoutes.Snapshot snap = sr.current(now);
    if (snap == null) snap = rebuild(index, sr, now, false);
    int[] regionOfSlot = snap.regionOfSlot();
    long[] maybe = sr.query(filterKey, regionOfSlot.length);
    int[] candidates = new int[snap.unsure().length + 16];
    int n = snap.unsure().length;
    System.arraycopy(snap.unsure(), 0, candidates, 0, n);
    for (int w = 0; w < maybe.length; w++) {
      for (long bits = maybe[w]; bits != 0; bits &= bits - 1) {
        int slot = (w << 6) + Long.numberOfTrailingZeros(bits);
        int region = slot < regionOfSlot.length ? regionOfSlot[slot] : -1;
        if (region < 0) continue;
        if (n == candidates.length) candidates = Arrays.copyOf(candidates, n * 2);
        candidates[n++] = region;
      }
    }
    Arrays.sort(candidates, 0, n);
    RouteResponse.Builder out = RouteResponse.newBuilder().setTotalRegions(snap.refs().size());
    RowEstimates.Builder estimate = new RowEstimates.Builder(filterKey);
    estimate.counted(snap.counted(), snap.entries());
    for (int i = 0; i < n; i++) {
      out.addCandidates(snap.refs().get(candidates[i]));
      ValueCounts counts = snap.counts()[candidates[i]];
      if (counts != null) estimate.candidate(counts);
    }
    out.setUnsureRegions(snap.unsure().length).setEstimate(estimate.build());
    routesServed.incrementAndGet();
    slicedRoutesServed.incrementAndGet();
    bucketsAsked.addAndGet(n);
    bucketsTotal.addAndGet(snap.refs().size());
    unsureAnswers.addAndGet(snap.unsure().length);
    return out.build();
  }

  private SlicedRoutes.Snapshot rebuild(String index, SlicedRoutes sr, long now, boolean force) {
    return sr.rebuild(
        now, force, now + snapshotMs, (last, touched) -> evaluate(index, sr, last, touched, now));
  }

  /**
   * Which regions are sure: a region is sure if it would still be at {@code now + snapshotMs}, the
   * snapshot's last use. Reads every region's entry if {@code last} is null or was made in another
   * building state; else only the regions new since {@code last} (a split, a merge), those whose
   * entry was {@code touched}, whose host changed, or whose publisher's trust changed, and copies
   * the rest from {@code last}.
   */
  private SlicedRoutes.Evaluation evaluate(
      String index, SlicedRoutes sr, SlicedRoutes.Evaluation last, Set<String> touched, long now) {
    // Where each region of a newly computed order stood in the last one (-1: new since, its ref
    // made again and its entry read again); a split or merge changes the order but leaves the other
    // regions' refs and evaluations as they were.
    int[][] placed = new int[1][];
    SlicedRoutes.RegionOrder order =
        sr.orderOf(
            cluster.regionsOf(sr.regionsOf),
            listed -> {
              List<RegionInfo> sorted = new ArrayList<>(listed);
              sorted.sort(BY_START_KEY);
              List<RegionRef> refs = new ArrayList<>(sorted.size());
              int[] at = new int[sorted.size()];
              for (int i = 0; i < at.length; i++) {
                RegionInfo region = sorted.get(i);
                at[i] = last == null ? -1 : last.order().positionOf(region);
                refs.add(at[i] >= 0 ? last.order().refs().get(at[i]) : refOf(region));
              }
              placed[0] = at;
              return SlicedRoutes.RegionOrder.of(listed, sorted, refs);
            });
    List<RegionInfo> regions = order.sorted();
    int n = regions.size();
    long horizon = now + snapshotMs;
    boolean building = cluster.isBuilding(sr.regionsOf);
    boolean full = last == null || last.building() != building;
    int[] from = full ? null : placed[0] != null ? placed[0] : positionsIn(last.order(), order);
    Map<ServerName, Boolean> trusted = new HashMap<>();
    Set<ServerName> flipped = new HashSet<>();
    boolean[] again = new boolean[n];
    boolean[] sure = new boolean[n];
    int[] slotOf = new int[n];
    ServerName[] publisherOf = new ServerName[n];
    ValueCounts[] counts = new ValueCounts[n];
    ServerName[] lastHostOf = new ServerName[n];
    if (!full) {
      for (Map.Entry<ServerName, Boolean> t : last.trusted().entrySet()) {
        boolean nowTrusted = isTrusted(t.getKey(), horizon);
        trusted.put(t.getKey(), nowTrusted);
        if (nowTrusted != t.getValue()) flipped.add(t.getKey());
      }
      for (String encoded : touched) {
        Integer i = order.indexOf().get(encoded);
        if (i != null) again[i] = true;
      }
      for (int i = 0; i < n; i++) {
        int j = from[i];
        if (j < 0) {
          again[i] = true;
          continue;
        }
        sure[i] = last.sure()[j];
        slotOf[i] = last.slotOf()[j];
        publisherOf[i] = last.publisherOf()[j];
        counts[i] = last.counts()[j];
        lastHostOf[i] = last.hostOf()[j];
      }
    }
    ServerName[] hostOf = new ServerName[n];
    Map<String, RoutingEntry> ofIndex = entriesOf(index);
    int read = 0;
    for (int i = 0; i < n; i++) {
      RegionInfo region = regions.get(i);
      ServerName host = cluster.openOn(region);
      hostOf[i] = host;
      if (!full
          && !again[i]
          && Objects.equals(host, lastHostOf[i])
          && (flipped.isEmpty() || !flipped.contains(publisherOf[i]))) {
        continue;
      }
      read++;
      sure[i] = false;
      slotOf[i] = -1;
      publisherOf[i] = null;
      counts[i] = null;
      RoutingEntry e = building ? null : ofIndex.get(region.getEncodedName());
      if (e == null) continue;
      e.lock.readLock().lock();
      try {
        publisherOf[i] = e.server;
        slotOf[i] = e.slotIn(sr);
        counts[i] = e.counts;
        sure[i] =
            slotOf[i] >= 0
                && e.isUsable(host, s -> trusted.computeIfAbsent(s, t -> isTrusted(t, horizon)));
      } finally {
        e.lock.readLock().unlock();
      }
    }
    snapshotsBuilt.incrementAndGet();
    if (full) snapshotsFull.incrementAndGet();
    snapshotRegionsRead.addAndGet(read);
    return new SlicedRoutes.Evaluation(
        order, building, sure, slotOf, publisherOf, hostOf, counts, trusted);
  }

  /** For each region of {@code now}, its position in {@code before}, or -1 if it was not there. */
  private static int[] positionsIn(SlicedRoutes.RegionOrder before, SlicedRoutes.RegionOrder now) {
    int[] at = new int[now.sorted().size()];
    for (int i = 0; i < at.length; i++)
      at[i] = before == now ? i : before.positionOf(now.sorted().get(i));
    return at;
  }

  private static RegionRef refOf(RegionInfo region) {
    return RegionRef.newBuilder()
        .setStartKey(ByteString.copyFrom(region.getStartKey()))
        .setEndKey(ByteString.copyFrom(region.getEndKey()))
        .setEncodedRegion(region.getEncodedName())
        .build();
  }

  /** Bytes of the sliced copies (a second copy of those indexes' bitmaps). */
  long slicedBytes() {
    long bytes = 0;
    for (SlicedRoutes sr : sliced.values()) bytes += sr.bytes();
    return bytes;
  }

  /**
   * Every region of {@code regionsOf} with what a client needs to route {@code index} itself: for a
   * region the master is sure of, its bitmap version and, unless the client holds that version, the
   * deltas from the client's version (if still kept) or the full bitmap.
   */
  RoutingStateResponse routingState(
      String index, TableName regionsOf, List<HeldBitmap> held, long now) {
    Map<String, Long> heldVersions = new HashMap<>();
    for (HeldBitmap h : held) heldVersions.put(h.getEncodedRegion(), h.getVersion());
    RoutingStateResponse.Builder out = RoutingStateResponse.newBuilder();
    boolean building = cluster.isBuilding(regionsOf);
    for (RegionInfo region : sortedRegions(regionsOf)) {
      RegionRouting.Builder r =
          RegionRouting.newBuilder()
              .setStartKey(ByteString.copyFrom(region.getStartKey()))
              .setEndKey(ByteString.copyFrom(region.getEndKey()))
              .setEncodedRegion(region.getEncodedName())
              .setSure(false);
      RoutingEntry e = building ? null : entriesOf(index).get(region.getEncodedName());
      if (e != null) {
        e.lock.readLock().lock();
        try {
          if (isUsable(e, region, now)) {
            r.setSure(true).setVersion(e.version);
            e.addTo(r, heldVersions.get(region.getEncodedName()));
          }
        } finally {
          e.lock.readLock().unlock();
        }
      }
      out.addRegions(r);
    }
    statesServed.incrementAndGet();
    return out.build();
  }

  private static final Comparator<RegionInfo> BY_START_KEY =
      Comparator.comparing(RegionInfo::getStartKey, Bytes.BYTES_COMPARATOR);

  private List<RegionInfo> sortedRegions(TableName table) {
    List<RegionInfo> regions = new ArrayList<>(cluster.regionsOf(table));
    regions.sort(BY_START_KEY);
    return regions;
  }

  /** Under e's read lock. */
  private boolean isUsable(RoutingEntry e, RegionInfo region, long now) {
    return e.isUsable(cluster.openOn(region), server -> isTrusted(server, now));
  }

  /** Whether {@code server}'s publications may be trusted at {@code now}. */
  private boolean isTrusted(ServerName server, long now) {
    Long seen = serverSeen.get(server);
    return seen != null && now - seen <= staleMs && cluster.isOnline(server);
  }

  StatsResponse stats(String indexTableOrNull, long now) {
    StatsResponse.Builder out =
        StatsResponse.newBuilder()
            .setRoutesServed(routesServed.get())
            .setBucketsAsked(bucketsAsked.get())
            .setBucketsTotal(bucketsTotal.get())
            .setStatesServed(statesServed.get());
    Map<String, long[]> perServer = new TreeMap<>(); // server -> {regions, bytes}
    List<RoutingEntry> sorted = allEntries();
    sorted.sort(
        Comparator.comparing((RoutingEntry e) -> e.indexTable).thenComparing(e -> e.encoded));
    for (RoutingEntry e : sorted) {
      if (indexTableOrNull != null && !indexTableOrNull.equals(e.indexTable)) continue;
      e.lock.readLock().lock();
      try {
        MembershipFilter.Stats s = e.bitmap == null ? null : e.bitmap.stats();
        String server = String.valueOf(e.server);
        Long seen = e.server == null ? null : serverSeen.get(e.server);
        out.addRegions(
            RegionStats.newBuilder()
                .setIndexTable(e.indexTable)
                .setEncodedRegion(e.encoded)
                .setServer(server)
                .setReady(e.ready)
                .setAgeMs(seen == null ? -1 : now - seen)
                .setFilterBytes(s == null ? 0 : s.bytes())
                .setFilters(s == null ? 0 : s.filters())
                .setEstimatedFpr(s == null ? 1.0 : s.estimatedFpr())
                .setResidue(e.residue));
        long[] agg = perServer.computeIfAbsent(server, k -> new long[2]);
        agg[0]++;
        agg[1] += s == null ? 0 : s.bytes();
      } finally {
        e.lock.readLock().unlock();
      }
    }
    perServer.forEach(
        (server, agg) ->
            out.addServers(
                ServerStats.newBuilder()
                    .setServer(server)
                    .setRegions((int) agg[0])
                    .setFilterBytes(agg[1])));
    return out.build();
  }

  /** Bytes of every bitmap the master holds (its routing memory, deltas kept for clients aside). */
  long filterBytes() {
    long bytes = 0;
    for (RoutingEntry e : allEntries()) {
      e.lock.readLock().lock();
      try {
        bytes += e.bitmapBytes;
      } finally {
        e.lock.readLock().unlock();
      }
    }
    return bytes;
  }

  @Override
  public void close() {
    if (refresher != null) {
      refresher.shutdownNow();
      try {
        refresher.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (RoutingEntry e : allEntries()) {
      e.lock.writeLock().lock();
      try {
        e.replace(null);
      } finally {
        e.lock.writeLock().unlock();
      }
    }
    entries.clear();
    for (SlicedRoutes sr : sliced.values()) sr.close();
    sliced.clear();
    for (Retired r; (r = retired.poll()) != null; ) r.routes().close();
  }
}
