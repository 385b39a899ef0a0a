package io.scbf.hbase.master;

import com.google.protobuf.ByteString;
import io.scbf.ScalableFilterStats;
import io.scbf.ScalableSplitCountingBloomFilter;
import io.scbf.hbase.shared.proto.IndexProtos.PublishRequest;
import io.scbf.hbase.shared.proto.IndexProtos.PublishResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RegionFilter;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStats;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import io.scbf.hbase.shared.proto.IndexProtos.ServerStats;
import io.scbf.hbase.shared.proto.IndexProtos.StatsResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's routing state: the latest published filter of every index region, grouped per region
 * server (the SCBF paper's per-server filter set) and per region, and the routing decision. A
 * region is a candidate for a value if its filter may contain the value, or if the master is unsure
 * about it: never published, not ready (building), heard from too long ago, published by a server
 * that no longer hosts it, or hosted by a dead server. Since "unsure" is a candidate, a new master
 * (empty table) or a dead server costs extra lookups, never answers.
 *
 * <p>Routing needs the answer per region (the client asks buckets), so the table keeps one filter
 * per region rather than a merged filter per server; the per-server grouping shows in the stats.
 * Entries are keyed by index and region: a data region carries one filter per local index.
 */
final class RoutingTable implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RoutingTable.class);

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
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  final AtomicLong routesServed = new AtomicLong();
  final AtomicLong bucketsAsked = new AtomicLong();
  final AtomicLong bucketsTotal = new AtomicLong();
  final AtomicLong unsureAnswers = new AtomicLong();

  RoutingTable(ClusterView cluster, long staleMs) {
    this.cluster = cluster;
    this.staleMs = staleMs;
  }

  /** The latest publication of one region. */
  private static final class Entry {
    final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    final String indexTable;
    final String encoded;
    volatile ServerName server;
    volatile boolean ready;
    volatile long lastSeen;

    /** Version of {@link #filter}; heartbeats with another version make the entry unsure. */
    volatile long version = -1;

    volatile boolean current;
    ScalableSplitCountingBloomFilter filter; // guarded by lock

    Entry(String indexTable, String encoded) {
      this.indexTable = indexTable;
      this.encoded = encoded;
    }

    void replace(ScalableSplitCountingBloomFilter f) {
      lock.writeLock().lock();
      try {
        if (filter != null) filter.close();
        filter = f;
      } finally {
        lock.writeLock().unlock();
      }
    }
  }

  PublishResponse publish(PublishRequest request, long now) {
    PublishResponse.Builder response = PublishResponse.newBuilder();
    for (RegionFilter rf : request.getRegionsList()) {
      ServerName from = ServerName.valueOf(rf.getServer());
      if (rf.getClosed()) {
        // Only the server that published the entry may retire it (a late "closed" from the old
        // server must not erase the new server's publication).
        entries.computeIfPresent(
            key(rf.getIndexTable(), rf.getEncodedRegion()),
            (k, e) -> {
              if (!from.equals(e.server)) return e;
              e.replace(null);
              return null;
            });
        continue;
      }
      Entry e =
          entries.computeIfAbsent(
              key(rf.getIndexTable(), rf.getEncodedRegion()),
              k -> new Entry(rf.getIndexTable(), rf.getEncodedRegion()));
      e.lock.writeLock().lock(); // one publication at a time: filter, version and server agree
      try {
        if (!update(e, rf, from, now)) response.addNeedSnapshot(rf.getEncodedRegion());
      } finally {
        e.lock.writeLock().unlock();
      }
    }
    return response.build();
  }

  /** Applies one publication; false if the master needs the region's full snapshot. */
  private static boolean update(Entry e, RegionFilter rf, ServerName from, long now) {
    e.lastSeen = now;
    if (rf.hasSnapshot()) {
      try {
        e.replace(ScalableSplitCountingBloomFilter.fromByteArray(rf.getSnapshot().toByteArray()));
      } catch (RuntimeException bad) {
        LOG.warn(
            "scbf: unreadable filter snapshot from {} for {}: {}",
            from,
            rf.getEncodedRegion(),
            bad.toString());
        e.current = false;
        return false;
      }
      e.version = rf.getVersion();
      e.server = from;
      e.ready = rf.getReady();
      e.current = true;
      return true;
    }
    boolean same = from.equals(e.server) && rf.getVersion() == e.version;
    e.server = from;
    e.ready = rf.getReady();
    e.current = same && rf.getReady();
    return same || !rf.getReady();
  }

  private static String key(String index, String encodedRegion) {
    return index + '/' + encodedRegion;
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
    List<RegionInfo> regions = new ArrayList<>(cluster.regionsOf(regionsOf));
    regions.sort(
        Comparator.comparing(
            RegionInfo::getStartKey, org.apache.hadoop.hbase.util.Bytes.BYTES_COMPARATOR));
    RouteResponse.Builder out = RouteResponse.newBuilder().setTotalRegions(regions.size());
    int unsure = 0;
    boolean building = cluster.isBuilding(regionsOf);
    for (RegionInfo region : regions) {
      Entry e = building ? null : entries.get(key(index, region.getEncodedName()));
      boolean sure = false;
      boolean candidate = true;
      if (e != null) {
        e.lock.readLock().lock();
        try {
          sure =
              isUsable(e, now)
                  && e.server.equals(cluster.openOn(region))
                  && cluster.isOnline(e.server);
          candidate = !sure || e.filter.mightContain(filterKey);
        } finally {
          e.lock.readLock().unlock();
        }
      }
      if (!sure) unsure++;
      if (candidate) {
        out.addCandidates(
            RegionRef.newBuilder()
                .setStartKey(ByteString.copyFrom(region.getStartKey()))
                .setEndKey(ByteString.copyFrom(region.getEndKey()))
                .setEncodedRegion(region.getEncodedName()));
      }
    }
    out.setUnsureRegions(unsure);
    routesServed.incrementAndGet();
    bucketsAsked.addAndGet(out.getCandidatesCount());
    bucketsTotal.addAndGet(regions.size());
    unsureAnswers.addAndGet(unsure);
    return out.build();
  }

  private boolean isUsable(Entry e, long now) {
    return e.ready
        && e.current
        && e.filter != null
        && e.server != null
        && now - e.lastSeen <= staleMs;
  }

  StatsResponse stats(String indexTableOrNull, long now) {
    StatsResponse.Builder out =
        StatsResponse.newBuilder()
            .setRoutesServed(routesServed.get())
            .setBucketsAsked(bucketsAsked.get())
            .setBucketsTotal(bucketsTotal.get());
    Map<String, long[]> perServer = new TreeMap<>(); // server -> {regions, bytes}
    List<Entry> sorted = new ArrayList<>(entries.values());
    sorted.sort(Comparator.comparing((Entry e) -> e.indexTable).thenComparing(e -> e.encoded));
    for (Entry e : sorted) {
      if (indexTableOrNull != null && !indexTableOrNull.equals(e.indexTable)) continue;
      e.lock.readLock().lock();
      try {
        ScalableFilterStats s = e.filter == null ? null : e.filter.stats();
        String server = String.valueOf(e.server);
        out.addRegions(
            RegionStats.newBuilder()
                .setIndexTable(e.indexTable)
                .setEncodedRegion(e.encoded)
                .setServer(server)
                .setReady(e.ready)
                .setAgeMs(now - e.lastSeen)
                .setFilterBytes(s == null ? 0 : s.bytes())
                .setFilters(s == null ? 0 : s.filters())
                .setEstimatedFpr(s == null ? 1.0 : s.estimatedFpr())
                .setResidue(s == null ? 0 : s.residue()));
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

  long filterBytes() {
    long bytes = 0;
    for (Entry e : entries.values()) {
      e.lock.readLock().lock();
      try {
        if (e.filter != null) bytes += e.filter.stats().bytes();
      } finally {
        e.lock.readLock().unlock();
      }
    }
    return bytes;
  }

  @Override
  public void close() {
    for (Entry e : entries.values()) e.replace(null);
    entries.clear();
  }
}
