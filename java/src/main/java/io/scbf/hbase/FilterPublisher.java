package io.scbf.hbase;

import com.google.protobuf.ServiceException;
import io.scbf.hbase.proto.IndexProtos.IndexRoutingService;
import io.scbf.hbase.proto.IndexProtos.PublishRequest;
import io.scbf.hbase.proto.IndexProtos.PublishResponse;
import io.scbf.hbase.proto.IndexProtos.RegionFilter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the filters of a region server's open index regions to the master routing endpoint,
 * in one RPC per interval (and at once when a region opens, becomes ready or closes). A region's
 * full snapshot is sent only when its filter changed since the master last received it; otherwise
 * a heartbeat tells the master the filter it holds is still current. A master that lacks a
 * snapshot (a new master, a lost message) asks for it in its answer, and gets it right away.
 */
final class FilterPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(FilterPublisher.class);

  private final RegionServerResources resources;
  private final ScheduledExecutorService scheduler;
  private final Map<String, Published> regions = new ConcurrentHashMap<>();
  private volatile long lastSuccessMillis = System.currentTimeMillis();
  private volatile boolean stopped;

  private static final class Published {
    final IndexRegion region;
    /** Version of the snapshot the master holds, or -1. Only the publisher thread touches it. */
    long masterVersion = -1;

    Published(IndexRegion region) {
      this.region = region;
    }
  }

  FilterPublisher(RegionServerResources resources, ScheduledExecutorService scheduler, long intervalMs) {
    this.resources = resources;
    this.scheduler = scheduler;
    scheduler.scheduleWithFixedDelay(this::tick, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
  }

  void register(IndexRegion region) {
    regions.put(region.encodedName(), new Published(region));
    publishSoon();
  }

  void unregister(IndexRegion region) {
    if (regions.remove(region.encodedName()) == null) return;
    RegionFilter closed = region.closedPublication();
    submit(() -> send(List.of(closed)));
  }

  /** The index regions currently published (open on this server). */
  List<IndexRegion> regions() {
    List<IndexRegion> out = new ArrayList<>();
    for (Published p : regions.values()) out.add(p.region);
    return out;
  }

  void publishSoon() {
    submit(this::tick);
  }

  void stop() {
    stopped = true;
  }

  /** Milliseconds since the last successful publication: the lag of routing behind this server. */
  long lagMillis() {
    return regions.isEmpty() ? 0 : System.currentTimeMillis() - lastSuccessMillis;
  }

  private void submit(Runnable task) {
    try {
      scheduler.execute(task);
    } catch (RejectedExecutionException e) {
      LOG.debug("scbf publisher of {} stopped", resources.server());
    }
  }

  private void tick() {
    if (stopped || regions.isEmpty()) return;
    // A second round at once when the master asked for snapshots it lacks.
    for (int round = 0; round < 2 && publishRound(); round++) {
      LOG.debug("master asked {} for filter snapshots", resources.server());
    }
  }

  /** One publication of every registered region; true if the master asked for snapshots. */
  private boolean publishRound() {
    List<Published> batch = new ArrayList<>(regions.values());
    List<RegionFilter> messages = new ArrayList<>(batch.size());
    List<Long> versions = new ArrayList<>(batch.size());
    for (Published p : batch) {
      try {
        p.region.compactIfNeeded();
        RegionFilter f = p.region.publication(p.region.filter().version() != p.masterVersion);
        messages.add(f);
        versions.add(f.hasSnapshot() ? f.getVersion() : null);
      } catch (IllegalStateException e) {
        LOG.debug("scbf region {} closed while publishing", p.region.encodedName());
        versions.add(null);
        messages.add(p.region.closedPublication());
      }
    }
    PublishResponse response = send(messages);
    if (response == null) return false;
    for (int i = 0; i < batch.size(); i++) {
      if (versions.get(i) != null) batch.get(i).masterVersion = versions.get(i);
    }
    boolean resend = false;
    for (String encoded : response.getNeedSnapshotList()) {
      Published p = regions.get(encoded);
      if (p != null) {
        p.masterVersion = -1;
        resend = true;
      }
    }
    return resend;
  }

  private PublishResponse send(List<RegionFilter> messages) {
    try (Admin admin = resources.connection().getAdmin()) {
      PublishResponse r = IndexRoutingService.newBlockingStub(admin.coprocessorService())
          .publish(null, PublishRequest.newBuilder().addAllRegions(messages).build());
      lastSuccessMillis = System.currentTimeMillis();
      return r;
    } catch (IOException | ServiceException | RuntimeException e) {
      // The master is down or moving: routing treats these buckets as unsure meanwhile.
      LOG.warn("scbf publication of {} regions from {} failed: {}", messages.size(),
          resources.server(), e.toString());
      return null;
    }
  }
}
