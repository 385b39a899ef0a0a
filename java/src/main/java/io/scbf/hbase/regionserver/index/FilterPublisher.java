package io.scbf.hbase.regionserver.index;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.MembershipFilter;
import io.scbf.hbase.regionserver.filter.BucketFilter;
import io.scbf.hbase.regionserver.filter.ValueFrequencies;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRoutingService;
import io.scbf.hbase.shared.proto.IndexProtos.PublishRequest;
import io.scbf.hbase.shared.proto.IndexProtos.PublishResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RegionFilter;
import io.scbf.hbase.shared.proto.IndexProtos.ValueCounts;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the routing bitmaps of a region server's open index regions to the master routing
 * endpoint. Every interval (and at once when a region opens, becomes ready or closes) it sends, in
 * one RPC, only the regions whose filter changed since the version the master acknowledged: the
 * delta from that version's bitmap, or the whole bitmap when the master holds none or the filter
 * changed shape. Nothing changed: nothing is sent but a keep-alive every {@code keepAliveMs}, which
 * tells the master this server's bitmaps are still current. The master answers which regions it
 * needs in full (a refused delta) or that it holds nothing from this server (it restarted), and
 * gets them at once. Everything runs on the one publishing thread.
 *
 * <p>With a region's bitmap go its {@link ValueCounts} for the query planner: with every full
 * bitmap, and with a delta only when they moved enough ({@link ValueFrequencies#changedEnough}).
 */
@InterfaceAudience.Private
public final class FilterPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(FilterPublisher.class);

  /** The connection to publish on (created on first use). */
  public interface ConnectionSource {
    Connection get() throws IOException;
  }

  /**
   * What the master acknowledged for one region: a version, and its bitmap and value counts if
   * ready.
   */
  private record Acked(long version, boolean ready, MembershipFilter bitmap, ValueCounts counts) {
    void close() {
      if (bitmap != null) bitmap.close();
    }
  }

  /** One region's message and the state the master holds once it is acknowledged. */
  private record Outgoing(String key, RegionFilter message, Acked acked) {}

  private final ServerName server;
  private final OpenIndexRegions regions;
  private final ConnectionSource connection;
  private final ScheduledExecutorService scheduler;
  private final long keepAliveMs;

  /** Per region, what the master holds; only the publishing thread touches it. */
  private final Map<String, Acked> acked = new HashMap<>();

  private final LongAdder publishedBytes = new LongAdder();
  private long lastSentMillis;
  private volatile long lastSuccessMillis = System.currentTimeMillis();
  private volatile boolean stopped;

  public FilterPublisher(
      ServerName server,
      OpenIndexRegions regions,
      ConnectionSource connection,
      ScheduledExecutorService scheduler,
      long intervalMs,
      long keepAliveMs) {
    this.server = server;
    this.regions = regions;
    this.connection = connection;
    this.scheduler = scheduler;
    this.keepAliveMs = Math.max(1, keepAliveMs);
    scheduler.scheduleWithFixedDelay(this::tick, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
  }

  void publishSoon() {
    submit(this::tick);
  }

  /** The region left {@link OpenIndexRegions}: tell the master to stop trusting its bitmap. */
  void publishClosed(IndexRegion region) {
    if (!region.publishes()) return;
    RegionFilter closed = closedPublication(region);
    submit(
        () -> {
          forget(region.publicationKey());
          send(List.of(closed), false);
        });
  }

  public void stop() {
    stopped = true;
    submit(
        () -> {
          forgetAll();
        });
  }

  /** Milliseconds since the last successful publication: the lag of routing behind this server. */
  public long lagMillis() {
    return regions.isEmpty() ? 0 : System.currentTimeMillis() - lastSuccessMillis;
  }

  /** Bytes of every publication sent (requests as serialized). */
  public long publishedBytes() {
    return publishedBytes.sum();
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
    // A second round at once when the master asked for bitmaps it lacks.
    for (int round = 0; round < 2 && publishRound(); round++) {
      LOG.debug("master asked {} for full bitmaps", server);
    }
  }

  /** One publication of every changed region; true if the master asked for full bitmaps. */
  private boolean publishRound() {
    boolean full = acked.isEmpty(); // the master is known to hold nothing from us
    List<Outgoing> out = new ArrayList<>();
    for (IndexRegion r : regions.list()) {
      try {
        Outgoing o = publication(r);
        if (o != null) out.add(o);
      } catch (IllegalStateException e) {
        LOG.debug("scbf region {} closed while publishing", r.encodedName());
      }
    }
    long now = System.currentTimeMillis();
    if (out.isEmpty() && !full && now - lastSentMillis < keepAliveMs) return false;
    List<RegionFilter> messages = new ArrayList<>(out.size());
    for (Outgoing o : out) messages.add(o.message());
    PublishResponse response = send(messages, full);
    if (response == null) {
      for (Outgoing o : out) o.acked().close();
      return false;
    }
    for (Outgoing o : out) {
      Acked old = acked.put(o.key(), o.acked());
      if (old != null) old.close();
    }
    if (response.getResync()) {
      forgetAll();
      return true;
    }
    boolean resend = false;
    for (String encoded : response.getNeedSnapshotList()) {
      // By HBase region: every local index of a data region resends (a few bytes more, rarely).
      for (IndexRegion r : regions.ofRegion(encoded)) {
        forget(r.publicationKey());
        resend = true;
      }
    }
    return resend;
  }

  /** The master no longer holds what we sent for this region: the next round sends it whole. */
  private void forget(String key) {
    Acked a = acked.remove(key);
    if (a != null) a.close();
  }

  private void forgetAll() {
    acked.values().forEach(Acked::close);
    acked.clear();
  }

  /** The region's message if the master's copy is behind, else null. */
  private Outgoing publication(IndexRegion region) {
    if (!region.publishes()) return null;
    BucketFilter f = region.filter(); // one filter for the whole publication, even across a rebuild
    long version = f.version(); // read before deriving: the bitmap holds at least this
    boolean ready = region.routable(f);
    Acked held = acked.get(region.publicationKey());
    if (held != null && held.version() == version && held.ready() == ready) return null;
    RegionFilter.Builder b =
        RegionFilter.newBuilder()
            .setIndexTable(region.indexTable())
            .setEncodedRegion(region.encodedName())
            .setReady(ready)
            .setVersion(version);
    if (!ready) {
      return new Outgoing(
          region.publicationKey(), b.build(), new Acked(version, false, null, null));
    }
    MembershipFilter bitmap = f.membership();
    try {
      byte[] delta = held == null || held.bitmap() == null ? null : bitmap.deltaFrom(held.bitmap());
      if (delta != null && delta.length < bitmap.sizeBytes()) {
        b.setDelta(ByteString.copyFrom(delta)).setBaseVersion(held.version());
      } else {
        b.setMembership(ByteString.copyFrom(bitmap.toByteArray()));
      }
      b.setResidue(f.residue());
      // With every full bitmap (the master may hold none), else only when they moved enough.
      ValueCounts counts = f.counts();
      ValueCounts heldCounts = held == null ? null : held.counts();
      if (b.hasMembership() || ValueFrequencies.changedEnough(heldCounts, counts)) {
        b.setCounts(counts);
      } else {
        counts = heldCounts;
      }
      return new Outgoing(
          region.publicationKey(), b.build(), new Acked(version, true, bitmap, counts));
    } catch (RuntimeException e) {
      bitmap.close();
      throw e;
    }
  }

  private RegionFilter closedPublication(IndexRegion region) {
    return RegionFilter.newBuilder()
        .setIndexTable(region.indexTable())
        .setEncodedRegion(region.encodedName())
        .setReady(false)
        .setVersion(0)
        .setClosed(true)
        .build();
  }

  private PublishResponse send(List<RegionFilter> messages, boolean full) {
    PublishRequest request =
        PublishRequest.newBuilder()
            .addAllRegions(messages)
            .setServer(server.toString())
            .setFull(full)
            .build();
    lastSentMillis = System.currentTimeMillis();
    publishedBytes.add(request.getSerializedSize());
    try (Admin admin = connection.get().getAdmin()) {
      PublishResponse r =
          IndexRoutingService.newBlockingStub(admin.coprocessorService()).publish(null, request);
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
