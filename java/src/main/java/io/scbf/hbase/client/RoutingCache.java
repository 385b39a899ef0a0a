package io.scbf.hbase.client;

import com.google.protobuf.ByteString;
import io.scbf.CorruptSnapshotException;
import io.scbf.MembershipFilter;
import io.scbf.hbase.shared.DaemonThreads;
import io.scbf.hbase.shared.RowEstimates;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.shared.proto.IndexProtos.HeldBitmap;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRouting;
import io.scbf.hbase.shared.proto.IndexProtos.RouteRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateResponse;
import io.scbf.hbase.shared.proto.IndexProtos.ValueCounts;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client's copy of the master's routing state, so that warm queries route without calling the
 * master. Per index, it holds every region's routing bitmap ({@link MembershipFilter}) and whether
 * the master is sure of it, and answers a route as the master would: candidates are the regions
 * whose bitmap may hold the key, plus every region the master was unsure of.
 *
 * <p>Freshness: a query routes with the copy only while its last refresh is at most {@code
 * maxAgeMs} old, and starts a background refresh (deltas from the versions held) once it is older
 * than {@code refreshMs}. So while queries run, the master gets one call per {@code refreshMs} per
 * index, not one per query; an idle client makes none. A copy that is too old (the master is down
 * or slow) is not used: the query asks every region instead (never fewer than the master would
 * have). A query waits for a refresh only when there is no usable copy and the last refresh did not
 * fail, at most {@code waitMs}.
 *
 * <p>With the bitmaps it keeps the regions' value counts, so a route carries the value's row
 * estimate for the query planner, as the master's would.
 *
 * <p>An index whose bitmaps exceed {@code maxBytes} (or {@code maxAgeMs} = 0) is routed by asking
 * the master on every query instead, as before this cache existed; so is every index in a client
 * without the native library ({@code localCopies} false), which cannot read the bitmaps.
 */
final class RoutingCache implements AutoCloseable {
  /** The two master calls, as the client makes them. */
  interface Master {
    RoutingStateResponse routingState(RoutingStateRequest request) throws Exception;

    RouteResponse route(RouteRequest request) throws Exception;
  }

  private final Master master;
  private final long refreshNanos;
  private final long maxAgeNanos;
  private final long maxBytes;
  private final long waitMs;
  private final boolean localCopies;
  private final ExecutorService calls;
  private final Map<String, IndexCopy> copies = new ConcurrentHashMap<>();
  private final AtomicLong masterCalls = new AtomicLong();

  /** Per-query master calls in flight: with the master down, each waits for HBase's retries. */
  private final Semaphore pendingRoutes = new Semaphore(16);

  private volatile boolean closed;

  RoutingCache(Master master, Settings settings, String threadName, boolean localCopies) {
    this.master = master;
    this.localCopies = localCopies;
    this.refreshNanos = TimeUnit.MILLISECONDS.toNanos(settings.clientRoutingRefreshMs());
    this.maxAgeNanos = TimeUnit.MILLISECONDS.toNanos(settings.clientRoutingMaxAgeMs());
    this.maxBytes = settings.clientRoutingMaxBytes();
    this.waitMs = settings.clientRoutingWaitMs();
    this.calls = Executors.newCachedThreadPool(DaemonThreads.named(threadName));
  }

  /**
   * One region as routing sees it; bitmap (and counts) are null when the master is unsure of the
   * region; counts also while the master has none.
   */
  private record RegionCopy(
      byte[] start,
      byte[] end,
      String encoded,
      long version,
      MembershipFilter bitmap,
      ValueCounts counts,
      RegionRef ref) {}

  /** An immutable copy of one index's routing state. */
  private record Copy(List<RegionCopy> regions, long fetchedNanos, long bytes) {}

  /** Per index: the current copy and the refresh in flight. */
  private final class IndexCopy {
    final String index;
    final String regionsOf;
    volatile Copy copy;
    volatile boolean tooLarge;
    volatile boolean lastRefreshFailed;
    CompletableFuture<Void> refreshing; // guarded by this

    IndexCopy(String index, String regionsOf) {
      this.index = index;
      this.regionsOf = regionsOf;
    }

    synchronized CompletableFuture<Void> refresh() {
      if (refreshing == null || refreshing.isDone()) {
        refreshing = CompletableFuture.runAsync(this::fetch, calls);
      }
      return refreshing;
    }

    private void fetch() {
      Copy old = copy;
      RoutingStateRequest.Builder request = RoutingStateRequest.newBuilder().setIndexTable(index);
      if (regionsOf != null) request.setRegionsOf(regionsOf);
      if (old != null) {
        for (RegionCopy r : old.regions()) {
          if (r.bitmap() != null) {
            request.addHeld(
                HeldBitmap.newBuilder().setEncodedRegion(r.encoded()).setVersion(r.version()));
          }
        }
      }
      RoutingStateResponse response;
      try {
        masterCalls.incrementAndGet();
        response = master.routingState(request.build());
      } catch (Exception e) {
        lastRefreshFailed = true;
        throw new IllegalStateException("routing state of " + index, e);
      }
      lastRefreshFailed = false;
      Copy fresh = merge(old, response, System.nanoTime());
      copy = fresh;
      tooLarge = fresh.bytes() > maxBytes;
      if (old != null) closeUnshared(old, fresh);
      if (closed) closeAll(fresh);
    }
  }

  /**
   * The candidate regions for {@code filterKey}, from the copy if it is fresh enough, else from the
   * master; null if neither answered in time (the caller asks every region).
   */
  RouteResponse route(String index, String regionsOf, byte[] filterKey) {
    IndexCopy ic = copies.computeIfAbsent(index, k -> new IndexCopy(index, regionsOf));
    if (!localCopies || maxAgeNanos == 0 || ic.tooLarge) {
      return askMaster(index, regionsOf, filterKey);
    }
    long now = System.nanoTime();
    Copy c = ic.copy;
    if (c == null || now - c.fetchedNanos() > refreshNanos) {
      CompletableFuture<Void> refresh = ic.refresh();
      if ((c == null || now - c.fetchedNanos() > maxAgeNanos) && !ic.lastRefreshFailed) {
        await(refresh); // failed or slow: the old copy (if fresh enough) or every region
      }
      c = ic.copy;
      if (ic.tooLarge) return askMaster(index, regionsOf, filterKey);
    }
    if (c == null || System.nanoTime() - c.fetchedNanos() > maxAgeNanos) return null;
    boolean listSkipped = regionsOf != null;
    try {
      return routeWith(c, filterKey, listSkipped);
    } catch (IllegalStateException replaced) {
      // A refresh closed a bitmap of the copy we read: route with the new copy.
      Copy latest = ic.copy;
      return latest == null ? null : routeWith(latest, filterKey, listSkipped);
    }
  }

  /** Calls to the master so far (refreshes and per-query routes). */
  long masterCalls() {
    return masterCalls.get();
  }

  /** The future's value within {@code waitMs}, or null if it failed or is still running. */
  private <T> T await(CompletableFuture<T> f) {
    try {
      return f.get(waitMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private RouteResponse askMaster(String index, String regionsOf, byte[] filterKey) {
    RouteRequest.Builder request =
        RouteRequest.newBuilder().setIndexTable(index).setFilterKey(ByteString.copyFrom(filterKey));
    if (regionsOf != null) request.setRegionsOf(regionsOf);
    if (!pendingRoutes.tryAcquire()) return null;
    masterCalls.incrementAndGet();
    return await(
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return master.route(request.build());
              } catch (Exception e) {
                throw new CompletionException(e);
              } finally {
                pendingRoutes.release();
              }
            },
            calls));
  }

  /**
   * The route from copy {@code c}; with {@code listSkipped} (a local index) it also lists the
   * regions it skips, whose current filters the query then checks (read-after-ack, see {@code
   * LocalQueries}).
   */
  private static RouteResponse routeWith(Copy c, byte[] filterKey, boolean listSkipped) {
    RouteResponse.Builder out = RouteResponse.newBuilder().setTotalRegions(c.regions().size());
    RowEstimates.Builder estimate = new RowEstimates.Builder(filterKey);
    int unsure = 0;
    for (RegionCopy r : c.regions()) {
      boolean sure = r.bitmap() != null;
      if (!sure) unsure++;
      boolean candidate = !sure || r.bitmap().mightContain(filterKey);
      if (sure) estimate.region(r.counts(), candidate);
      if (candidate) {
        out.addCandidates(r.ref());
      } else if (listSkipped) {
        out.addSkipped(r.ref());
      }
    }
    return out.setUnsureRegions(unsure).setEstimate(estimate.build()).build();
  }

  /**
   * The new copy: regions the master is unsure of get no bitmap; the others keep the held bitmap
   * (same version), a copy of it with the deltas applied, or the full bitmap sent. A delta that
   * does not apply leaves the region unsure until the next refresh brings its full bitmap.
   */
  private static Copy merge(Copy old, RoutingStateResponse response, long now) {
    Map<String, RegionCopy> held = new HashMap<>();
    if (old != null) for (RegionCopy r : old.regions()) held.put(r.encoded(), r);
    List<RegionCopy> regions = new ArrayList<>(response.getRegionsCount());
    long bytes = 0;
    for (RegionRouting r : response.getRegionsList()) {
      RegionCopy before = held.get(r.getEncodedRegion());
      MembershipFilter bitmap = r.getSure() ? bitmapOf(r, before) : null;
      ValueCounts counts = null;
      if (bitmap != null) {
        bytes += bitmap.sizeBytes();
        counts = r.hasCounts() ? r.getCounts() : before == null ? null : before.counts();
      }
      regions.add(
          new RegionCopy(
              r.getStartKey().toByteArray(),
              r.getEndKey().toByteArray(),
              r.getEncodedRegion(),
              r.getVersion(),
              bitmap,
              counts,
              RegionRef.newBuilder()
                  .setStartKey(r.getStartKey())
                  .setEndKey(r.getEndKey())
                  .setEncodedRegion(r.getEncodedRegion())
                  .build()));
    }
    return new Copy(List.copyOf(regions), now, bytes);
  }

  private static MembershipFilter bitmapOf(RegionRouting r, RegionCopy held) {
    try {
      if (r.hasMembership()) return MembershipFilter.fromByteArray(r.getMembership().toByteArray());
      if (held == null || held.bitmap() == null) return null;
      if (r.getDeltasCount() == 0) return held.version() == r.getVersion() ? held.bitmap() : null;
      // Queries may be reading the held bitmap: deltas go to a copy.
      MembershipFilter next = MembershipFilter.fromByteArray(held.bitmap().toByteArray());
      for (ByteString d : r.getDeltasList()) {
        if (!next.applyDelta(d.toByteArray())) {
          next.close();
          return null;
        }
      }
      return next;
    } catch (CorruptSnapshotException | IllegalStateException e) {
      return null;
    }
  }

  /** Closes the bitmaps of {@code old} that {@code fresh} does not carry over. */
  private static void closeUnshared(Copy old, Copy fresh) {
    Set<MembershipFilter> kept = Collections.newSetFromMap(new IdentityHashMap<>());
    for (RegionCopy r : fresh.regions()) if (r.bitmap() != null) kept.add(r.bitmap());
    for (RegionCopy r : old.regions()) {
      if (r.bitmap() != null && !kept.contains(r.bitmap())) r.bitmap().close();
    }
  }

  private static void closeAll(Copy c) {
    for (RegionCopy r : c.regions()) if (r.bitmap() != null) r.bitmap().close();
  }

  @Override
  public void close() {
    closed = true;
    calls.shutdownNow();
    for (IndexCopy ic : copies.values()) {
      Copy c = ic.copy;
      if (c != null) closeAll(c);
    }
    copies.clear();
  }
}
