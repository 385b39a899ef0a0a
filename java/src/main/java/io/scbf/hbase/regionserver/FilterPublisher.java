package io.scbf.hbase.regionserver;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRoutingService;
import io.scbf.hbase.shared.proto.IndexProtos.PublishRequest;
import io.scbf.hbase.shared.proto.IndexProtos.PublishResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RegionFilter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the filters of a region server's open index regions to the master routing endpoint, in
 * one RPC per interval (and at once when a region opens, becomes ready or closes). A region's full
 * snapshot is sent only when its filter changed since the master last received it; otherwise a
 * heartbeat tells the master the filter it holds is still current. A master that lacks a snapshot
 * (a new master, a lost message) asks for it in its answer, and gets it right away. Everything runs
 * on the one publishing thread.
 */
final class FilterPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(FilterPublisher.class);

  /** The connection to publish on (created on first use). */
  interface ConnectionSource {
    Connection get() throws IOException;
  }

  private final ServerName server;
  private final OpenIndexRegions regions;
  private final ConnectionSource connection;
  private final ScheduledExecutorService scheduler;

  /** Filter version the master holds, per region; only the publishing thread touches it. */
  private final Map<String, Long> masterVersions = new HashMap<>();

  private volatile long lastSuccessMillis = System.currentTimeMillis();
  private volatile boolean stopped;

  FilterPublisher(
      ServerName server,
      OpenIndexRegions regions,
      ConnectionSource connection,
      ScheduledExecutorService scheduler,
      long intervalMs) {
    this.server = server;
    this.regions = regions;
    this.connection = connection;
    this.scheduler = scheduler;
    scheduler.scheduleWithFixedDelay(this::tick, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
  }

  void publishSoon() {
    submit(this::tick);
  }

  /** The region left {@link OpenIndexRegions}: tell the master to stop trusting its filter. */
  void publishClosed(IndexRegion region) {
    RegionFilter closed = closedPublication(region);
    submit(
        () -> {
          masterVersions.remove(region.publicationKey());
          send(List.of(closed));
        });
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
      LOG.debug("scbf publisher of {} stopped", server);
    }
  }

  private void tick() {
    if (stopped || regions.isEmpty()) return;
    // A second round at once when the master asked for snapshots it lacks.
    for (int round = 0; round < 2 && publishRound(); round++) {
      LOG.debug("master asked {} for filter snapshots", server);
    }
  }

  /** One publication of every open region; true if the master asked for snapshots. */
  private boolean publishRound() {
    List<IndexRegion> batch = regions.list();
    List<RegionFilter> messages = new ArrayList<>(batch.size());
    for (IndexRegion r : batch) {
      try {
        messages.add(publication(r));
      } catch (IllegalStateException e) {
        LOG.debug("scbf region {} closed while publishing", r.encodedName());
        messages.add(closedPublication(r));
      }
    }
    PublishResponse response = send(messages);
    if (response == null) return false;
    for (RegionFilter f : messages) {
      if (f.hasSnapshot()) {
        masterVersions.put(
            IndexRegion.publicationKey(f.getIndexTable(), f.getEncodedRegion()), f.getVersion());
      }
    }
    boolean resend = false;
    for (String encoded : response.getNeedSnapshotList()) {
      // By HBase region: every local index of a data region resends (a few bytes more, rarely).
      for (IndexRegion r : regions.ofRegion(encoded)) {
        masterVersions.remove(r.publicationKey());
        resend = true;
      }
    }
    return resend;
  }

  /** A heartbeat, or the full filter if the master does not hold its current version. */
  private RegionFilter publication(IndexRegion region) {
    BucketFilter f = region.filter(); // one filter for the whole publication, even across a rebuild
    long version = f.version(); // read before serializing: the snapshot holds at least this
    RegionFilter.Builder b =
        RegionFilter.newBuilder()
            .setIndexTable(region.indexTable())
            .setEncodedRegion(region.encodedName())
            .setServer(server.toString())
            .setReady(region.routable(f))
            .setVersion(version);
    Long held = masterVersions.get(region.publicationKey());
    if (region.routable(f) && (held == null || held != version)) {
      b.setSnapshot(ByteString.copyFrom(f.snapshot()));
    }
    return b.build();
  }

  private RegionFilter closedPublication(IndexRegion region) {
    return RegionFilter.newBuilder()
        .setIndexTable(region.indexTable())
        .setEncodedRegion(region.encodedName())
        .setServer(server.toString())
        .setReady(false)
        .setVersion(0)
        .setClosed(true)
        .build();
  }

  private PublishResponse send(List<RegionFilter> messages) {
    try (Admin admin = connection.get().getAdmin()) {
      PublishResponse r =
          IndexRoutingService.newBlockingStub(admin.coprocessorService())
              .publish(null, PublishRequest.newBuilder().addAllRegions(messages).build());
      lastSuccessMillis = System.currentTimeMillis();
      return r;
    } catch (IOException | ServiceException | RuntimeException e) {
      // The master is down or moving: routing treats these buckets as unsure meanwhile.
      LOG.warn(
          "scbf publication of {} regions from {} failed: {}",
          messages.size(),
          server,
          e.toString());
      return null;
    }
  }
}
