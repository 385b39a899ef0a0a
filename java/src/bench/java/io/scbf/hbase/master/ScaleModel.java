package io.scbf.hbase.master;

import com.google.protobuf.ByteString;
import io.scbf.KeyBatch;
import io.scbf.MembershipFilter;
import io.scbf.ScalableSplitCountingBloomFilter;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexPlacement;
import io.scbf.hbase.shared.proto.IndexProtos.PublishRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RegionFilter;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Routing at cluster scale, from the real code, without a cluster: builds the real counting filters
 * of a simulated cluster (servers x regions, entries per region), derives the routing bitmaps the
 * region servers publish, feeds them to the master's real {@link RoutingTable} as publications,
 * then measures the master's memory, the bytes of the delta publications at a given update rate,
 * and the routes it answers per second. The simulated cluster is scaled down (one JVM, one machine)
 * and the figures are extrapolated to the target cluster by the formulas printed with them
 * (docs/benchmarks-routing.md, "Scale").
 *
 * <p>Arguments (all optional): --servers 20 --regions 100 (per server) --entries 10000 (per region)
 * --fpp 0.001 --updates 100000 (changed entries per second, cluster-wide) --target-servers 1000
 * --target-regions 100 --routes 2000; for the {@code BY_VALUE} section: --target-entries
 * 10000000000 (index entries cluster-wide) --split-gb 10 (the index table's region size, HBase's
 * default) --rows-per-value 10.
 */
public final class ScaleModel {
  private ScaleModel() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i], args[i + 1]);
    int servers = Integer.parseInt(a.getOrDefault("--servers", "20"));
    int regionsPerServer = Integer.parseInt(a.getOrDefault("--regions", "100"));
    int entries = Integer.parseInt(a.getOrDefault("--entries", "10000"));
    double fpp = Double.parseDouble(a.getOrDefault("--fpp", "0.001"));
    long updatesPerSecond = Long.parseLong(a.getOrDefault("--updates", "100000"));
    int targetServers = Integer.parseInt(a.getOrDefault("--target-servers", "1000"));
    int targetRegions = Integer.parseInt(a.getOrDefault("--target-regions", "100"));
    int routes = Integer.parseInt(a.getOrDefault("--routes", "2000"));
    int regions = servers * regionsPerServer;
    long totalEntries = (long) regions * entries;
    System.out.printf(
        "simulated: %d servers x %d regions x %d entries = %,d entries, fpp %s%n",
        servers, regionsPerServer, entries, totalEntries, fpp);

    // One local index over every region of one table: the worst case for a route, which checks
    // one bitmap per region of the index.
    TableName table = TableName.valueOf("scale");
    String index = "scale__idx_v";
    List<RegionInfo> infos = new ArrayList<>(regions);
    List<ServerName> hosts = new ArrayList<>(regions);
    for (int r = 0; r < regions; r++) {
      byte[] start = r == 0 ? new byte[0] : Bytes.toBytes(String.format("r%06d", r));
      byte[] end = r == regions - 1 ? new byte[0] : Bytes.toBytes(String.format("r%06d", r + 1));
      infos.add(RegionInfoBuilder.newBuilder(table).setStartKey(start).setEndKey(end).build());
      hosts.add(ServerName.valueOf("rs" + (r % servers) + ".example", 16020, 1L));
    }
    Map<String, ServerName> hostOf = new HashMap<>();
    for (int r = 0; r < regions; r++) hostOf.put(infos.get(r).getEncodedName(), hosts.get(r));
    RoutingTable.ClusterView view =
        new RoutingTable.ClusterView() {
          @Override
          public List<RegionInfo> regionsOf(TableName t) {
            return infos;
          }

          @Override
          public ServerName openOn(RegionInfo region) {
            return hostOf.get(region.getEncodedName());
          }

          @Override
          public boolean isOnline(ServerName server) {
            return true;
          }

          @Override
          public boolean isBuilding(TableName t) {
            return false;
          }
        };

    Random rnd = new Random(42);
    long buildStart = System.nanoTime();
    ScalableSplitCountingBloomFilter[] filters = new ScalableSplitCountingBloomFilter[regions];
    MembershipFilter[] published = new MembershipFilter[regions];
    long countingBytes = 0;
    long fullPublicationBytes = 0;
    try (RoutingTable master = new RoutingTable(view, Long.MAX_VALUE / 4)) {
      Map<ServerName, PublishRequest.Builder> full = new HashMap<>();
      for (int r = 0; r < regions; r++) {
        filters[r] =
            ScalableSplitCountingBloomFilter.create(
                Math.max(IndexSpec.DEFAULT_INITIAL_CAPACITY, entries), fpp);
        KeyBatch keys = new KeyBatch(entries, entries * 16);
        for (int i = 0; i < entries; i++) keys.add(key(rnd));
        filters[r].addAll(keys);
        countingBytes += filters[r].stats().bytes();
        published[r] = MembershipFilter.of(filters[r]);
        byte[] bitmap = published[r].toByteArray();
        fullPublicationBytes += bitmap.length;
        full.computeIfAbsent(
                hosts.get(r),
                s -> PublishRequest.newBuilder().setServer(s.toString()).setFull(true))
            .addRegions(region(index, infos.get(r), 1).setMembership(bs(bitmap)));
      }
      long now = System.currentTimeMillis();
      for (PublishRequest.Builder p : full.values()) master.publish(p.build(), now);
      double buildSeconds = (System.nanoTime() - buildStart) / 1e9;
      long masterBytes = master.filterBytes();
      double bitsPerEntry = masterBytes * 8.0 / totalEntries;
      System.out.printf(
          "built and published in %.1f s: counting filters (region servers) %,d bytes = %.1f"
              + " bits/entry; master routing bitmaps %,d bytes = %.1f bits/entry%n",
          buildSeconds,
          countingBytes,
          countingBytes * 8.0 / totalEntries,
          masterBytes,
          bitsPerEntry);

      // One publish interval (1 s) of changes at the given rate: each a new entry in a random
      // region (a replaced value adds one key and removes one; the add dominates the delta).
      long changes =
          Math.min(
              updatesPerSecond * (long) regions / ((long) targetServers * targetRegions), 200_000);
      changes = Math.max(changes, 1000);
      int[] changedPerRegion = new int[regions];
      for (long c = 0; c < changes; c++) {
        int r = rnd.nextInt(regions);
        filters[r].add(key(rnd));
        changedPerRegion[r]++;
      }
      long deltaBytes = 0;
      long requestBytes = 0;
      int changedRegions = 0;
      int fullResends = 0;
      Map<ServerName, PublishRequest.Builder> deltas = new HashMap<>();
      for (int r = 0; r < regions; r++) {
        if (changedPerRegion[r] == 0) continue;
        changedRegions++;
        MembershipFilter next = MembershipFilter.of(filters[r]);
        byte[] delta = next.deltaFrom(published[r]);
        RegionFilter.Builder rf = region(index, infos.get(r), 2);
        if (delta == null) { // the filter grew a sub-filter: the full bitmap, as servers send
          byte[] bitmap = next.toByteArray();
          deltaBytes += bitmap.length;
          fullResends++;
          rf.setMembership(bs(bitmap));
        } else {
          deltaBytes += delta.length;
          rf.setBaseVersion(1).setDelta(bs(delta));
        }
        published[r].close();
        published[r] = next;
        deltas
            .computeIfAbsent(hosts.get(r), s -> PublishRequest.newBuilder().setServer(s.toString()))
            .addRegions(rf);
      }
      now = System.currentTimeMillis();
      for (PublishRequest.Builder p : deltas.values()) {
        PublishRequest request = p.build();
        requestBytes += request.getSerializedSize();
        if (master.publish(request, now).getNeedSnapshotCount() > 0) {
          throw new IllegalStateException("the master refused a delta");
        }
      }
      double bytesPerChange = (double) requestBytes / changes;
      System.out.printf(
          "delta publication: %,d changed entries in %,d regions (%d grew and sent full bitmaps)"
              + " -> %,d delta bytes, %,d bytes on the wire = %.1f B per changed entry (a full"
              + " re-send of every region: %,d bytes)%n",
          changes,
          changedRegions,
          fullResends,
          deltaBytes,
          requestBytes,
          bytesPerChange,
          fullPublicationBytes);

      // Routes: the master checks one bitmap per region of the index (so does a client's copy).
      List<byte[]> probes = new ArrayList<>(routes);
      for (int i = 0; i < routes; i++) probes.add(key(rnd)); // absent: the common selective case
      long candidates = 0;
      for (int warm = 0; warm < Math.min(routes, 200); warm++) {
        master.route(index, table, probes.get(warm), now);
      }
      long routeStart = System.nanoTime();
      for (byte[] k : probes) {
        RouteResponse rr = master.route(index, table, k, now);
        candidates += rr.getCandidatesCount();
      }
      double routeSeconds = (System.nanoTime() - routeStart) / 1e9;
      double nsPerBitmap = routeSeconds * 1e9 / ((double) routes * regions);
      System.out.printf(
          "routes: %,d in %.2f s = %,.0f routes/s over %,d regions (%.0f ns per region's bitmap),"
              + " %.3f candidates per absent value (expected fpp x regions = %.3f)%n",
          routes,
          routeSeconds,
          routes / routeSeconds,
          regions,
          nsPerBitmap,
          (double) candidates / routes,
          fpp * regions);

      // A client's routing copy probes the same bitmaps, without the master's bookkeeping.
      long maybe = 0;
      long probeStart = System.nanoTime();
      for (byte[] k : probes) {
        for (MembershipFilter m : published) if (m.mightContain(k)) maybe++;
      }
      double nsPerProbe = (System.nanoTime() - probeStart) / ((double) routes * regions);
      System.out.printf(
          "client routing copy: %.0f ns per region's bitmap (%d false positives)%n",
          nsPerProbe, maybe);

      // Extrapolation to the target cluster, by the formulas below.
      long targetRegionCount = (long) targetServers * targetRegions;
      long targetEntries = targetRegionCount * entries;
      System.out.printf(
          "%nextrapolated to %,d servers x %d regions (%,d regions, %,d entries at %d per"
              + " region):%n",
          targetServers, targetRegions, targetRegionCount, targetEntries, entries);
      System.out.printf(
          "  master memory = entries x %.1f bits / 8 = %,.0f MiB%n",
          bitsPerEntry, targetEntries * bitsPerEntry / 8 / (1 << 20));
      System.out.printf(
          "  publish bandwidth at %,d changed entries/s = rate x %.1f B = %,.1f MiB/s (all servers"
              + " together; idle servers send only keep-alives)%n",
          updatesPerSecond, bytesPerChange, updatesPerSecond * bytesPerChange / (1 << 20));
      System.out.printf(
          "  one master route over an index spread on all %,d regions = regions x %.0f ns = %.2f"
              + " ms (%.0f routes/s per core); from a client's copy: %.2f ms; a global index of"
              + " 64 buckets: %.1f us%n",
          targetRegionCount,
          nsPerBitmap,
          targetRegionCount * nsPerBitmap / 1e6,
          1e9 / (targetRegionCount * nsPerBitmap),
          targetRegionCount * nsPerProbe / 1e6,
          64 * nsPerBitmap / 1e3);
    } finally {
      for (ScalableSplitCountingBloomFilter f : filters) if (f != null) f.close();
      for (MembershipFilter m : published) if (m != null) m.close();
    }
    localRouteAt(
        Integer.parseInt(a.getOrDefault("--local-regions", "100000")),
        Integer.parseInt(a.getOrDefault("--local-entries", "200")),
        fpp,
        routes);
    byValue(
        targetServers,
        targetRegions,
        Long.parseLong(a.getOrDefault("--target-entries", "10000000000")),
        Long.parseLong(a.getOrDefault("--split-gb", "10")) << 30,
        Integer.parseInt(a.getOrDefault("--rows-per-value", "10")),
        fpp,
        routes);
  }

  /**
   * A local index over {@code regions} data regions, run at that count (not extrapolated): the
   * master's real route, which slices the bitmaps of an index over that many regions, against a
   * probe of every region's bitmap (what a client's copy and the master did before). Each region's
   * filter is sized to its entries: the route's cost depends on the region count and the bitmap
   * size only through cache misses, which a small bitmap understates least when the regions'
   * bitmaps together exceed the processor's caches (they do here).
   */
  static void localRouteAt(int regions, int entries, double fpp, int routes)
      throws InterruptedException {
    TableName table = TableName.valueOf("wide");
    String index = "wide__idx_v";
    int servers = 100;
    List<RegionInfo> infos = new ArrayList<>(regions);
    Map<String, ServerName> hostOf = new HashMap<>();
    for (int r = 0; r < regions; r++) {
      byte[] start = r == 0 ? new byte[0] : Bytes.toBytes(String.format("r%07d", r));
      byte[] end = r == regions - 1 ? new byte[0] : Bytes.toBytes(String.format("r%07d", r + 1));
      RegionInfo info =
          RegionInfoBuilder.newBuilder(table).setStartKey(start).setEndKey(end).build();
      infos.add(info);
      hostOf.put(
          info.getEncodedName(), ServerName.valueOf("rs" + (r % servers) + ".example", 16020, 1L));
    }
    RoutingTable.ClusterView view =
        new RoutingTable.ClusterView() {
          @Override
          public List<RegionInfo> regionsOf(TableName t) {
            return infos;
          }

          @Override
          public ServerName openOn(RegionInfo region) {
            return hostOf.get(region.getEncodedName());
          }

          @Override
          public boolean isOnline(ServerName server) {
            return true;
          }

          @Override
          public boolean isBuilding(TableName t) {
            return false;
          }
        };
    Random rnd = new Random(7);
    MembershipFilter[] bitmaps = new MembershipFilter[regions];
    long bitmapBytes = 0;
    // Two tables fed the same publications: one on the model's clock, to time each step; one as
    // the master runs it (the system clock, snapshots rebuilt in the background).
    try (RoutingTable master =
            new RoutingTable(
                view,
                Long.MAX_VALUE / 4,
                RoutingTable.SLICED_MIN_REGIONS,
                RoutingTable.SNAPSHOT_MS,
                false);
        RoutingTable live = new RoutingTable(view, Long.MAX_VALUE / 4)) {
      long t0 = System.nanoTime();
      Map<ServerName, PublishRequest.Builder> full = new HashMap<>();
      for (int r = 0; r < regions; r++) {
        try (ScalableSplitCountingBloomFilter f =
            ScalableSplitCountingBloomFilter.create(entries, fpp)) {
          KeyBatch keys = new KeyBatch(entries, entries * 16);
          for (int i = 0; i < entries; i++) keys.add(key(rnd));
          f.addAll(keys);
          bitmaps[r] = MembershipFilter.of(f);
        }
        bitmapBytes += bitmaps[r].sizeBytes();
        ServerName host = hostOf.get(infos.get(r).getEncodedName());
        full.computeIfAbsent(
                host, s -> PublishRequest.newBuilder().setServer(s.toString()).setFull(true))
            .addRegions(region(index, infos.get(r), 1).setMembership(bs(bitmaps[r].toByteArray())));
        if (full.get(host).getRegionsCount() >= 1000) {
          PublishRequest request = full.remove(host).build();
          master.publish(request, 0);
          live.publish(request, System.currentTimeMillis());
        }
      }
      for (PublishRequest.Builder p : full.values()) {
        master.publish(p.build(), 0);
        live.publish(p.build(), System.currentTimeMillis());
      }
      System.out.printf(
          "%nlocal index over %,d regions (%,d entries each, fpp %s), run at that count: bitmaps"
              + " %,d bytes, built and published in %.1f s%n",
          regions, entries, fpp, bitmapBytes, (System.nanoTime() - t0) / 1e9);

      List<byte[]> probes = new ArrayList<>(routes);
      for (int i = 0; i < routes; i++) probes.add(key(rnd));
      long firstStart = System.nanoTime();
      master.route(index, table, probes.get(0), 1);
      double firstMs = (System.nanoTime() - firstStart) / 1e6;
      // The snapshot of sure regions is rebuilt every SNAPSHOT_MS of the table's clock: timed
      // apart (nothing changed; 1% of the regions published; the region list changed, which sorts
      // the regions again), then the routes that reuse it.
      long clock = 1;
      int rebuilds = 20;
      double idleMs = 0;
      double churnMs = 0;
      double fullMs = 0;
      int churn = regions / 100;
      for (int i = 0; i < rebuilds; i++) {
        clock += RoutingTable.SNAPSHOT_MS;
        long start = System.nanoTime();
        master.route(index, table, probes.get(i), clock);
        idleMs += (System.nanoTime() - start) / 1e6 / rebuilds;
        master.publish(resend(index, infos, hostOf, bitmaps, rnd, churn), clock);
        clock += RoutingTable.SNAPSHOT_MS;
        start = System.nanoTime();
        master.route(index, table, probes.get(i), clock);
        churnMs += (System.nanoTime() - start) / 1e6 / rebuilds;
      }
      int splits = 5;
      for (int i = 0; i < splits; i++) {
        RegionInfo before = infos.get(0);
        infos.set(
            0, RegionInfoBuilder.newBuilder(before).setRegionId(before.getRegionId() + 1).build());
        hostOf.put(infos.get(0).getEncodedName(), hostOf.get(before.getEncodedName()));
        clock += RoutingTable.SNAPSHOT_MS;
        long start = System.nanoTime();
        master.route(index, table, probes.get(i), clock);
        fullMs += (System.nanoTime() - start) / 1e6 / splits;
      }
      long now = clock;
      master.route(index, table, probes.get(0), now);
      long candidates = 0;
      long routeStart = System.nanoTime();
      for (byte[] k : probes) candidates += master.route(index, table, k, now).getCandidatesCount();
      double routeUs = (System.nanoTime() - routeStart) / 1e3 / routes;
      int probeRoutes = Math.max(1, routes / 20);
      long maybe = 0;
      long probeStart = System.nanoTime();
      for (int i = 0; i < probeRoutes; i++) {
        for (MembershipFilter m : bitmaps) if (m.mightContain(probes.get(i))) maybe++;
      }
      double probeMs = (System.nanoTime() - probeStart) / 1e6 / probeRoutes;
      System.out.printf(
          "  master route, sliced: %.1f us per route (%,d routes, %.3f candidates per absent value;"
              + " expected fpp x regions = %.1f); the first route, which slices the bitmaps and"
              + " reads every region, %.0f ms; sliced copy %,d bytes%n",
          routeUs,
          routes,
          (double) candidates / routes,
          fpp * regions,
          firstMs,
          master.slicedBytes());
      System.out.printf(
          "  its snapshot of sure regions, rebuilt once per %d ms while routes run: %.2f ms when"
              + " nothing changed, %.2f ms after %,d regions published, %.1f ms after the region"
              + " list changed (a split: the regions sorted and placed again, the new one read)%n",
          RoutingTable.SNAPSHOT_MS, idleMs, churnMs, churn, fullMs);
      // As the master runs it: a route every 20 ms while 10 regions publish between routes (500
      // a second), then routes back to back.
      live.route(index, table, probes.get(0), System.currentTimeMillis());
      int sparse = Math.min(routes, 500);
      long[] micros = new long[sparse];
      for (int i = 0; i < sparse; i++) {
        Thread.sleep(20);
        live.publish(resend(index, infos, hostOf, bitmaps, rnd, 10), System.currentTimeMillis());
        long start = System.nanoTime();
        live.route(index, table, probes.get(i), System.currentTimeMillis());
        micros[i] = (System.nanoTime() - start) / 1000;
      }
      java.util.Arrays.sort(micros);
      long denseStart = System.nanoTime();
      for (byte[] k : probes) live.route(index, table, k, System.currentTimeMillis());
      double denseUs = (System.nanoTime() - denseStart) / 1e3 / routes;
      System.out.printf(
          "  as the master runs (snapshots rebuilt in the background, 500 regions publishing a"
              + " second): a route every 20 ms p50 %d us, p99 %d us, max %d us (%d routes); back"
              + " to back %.1f us per route%n",
          micros[sparse / 2],
          micros[(int) Math.min(sparse - 1, Math.ceil(sparse * 0.99) - 1)],
          micros[sparse - 1],
          sparse,
          denseUs);
      System.out.printf(
          "  a probe of every region's bitmap (the client's copy; the master below %d regions):"
              + " %.2f ms per route (%d routes, %d false positives)%n",
          RoutingTable.SLICED_MIN_REGIONS, probeMs, probeRoutes, maybe);
    } finally {
      for (MembershipFilter m : bitmaps) if (m != null) m.close();
    }
  }

  /**
   * A {@code BY_VALUE} global index at the target size, from the real code where it runs: the real
   * index row of a typical value (its bytes in a store file), a region's real filter after its
   * build from its rows (bytes per entry), and a lookup in the structure HBase's client keeps its
   * region locations in (a sorted map of start keys, as its MetaCache) at the index's region count.
   */
  static void byValue(
      int targetServers,
      int regionsPerServer,
      long entries,
      long splitBytes,
      int rowsPerValue,
      double fpp,
      int routes) {
    IndexSpec spec =
        IndexSpec.builder(Bytes.toBytes("d"), Bytes.toBytes("city"))
            .alias("city")
            .layout(IndexSpec.Layout.BY_VALUE)
            .fpp(fpp)
            .build();
    byte[] alias = Bytes.toBytes("city");
    byte[] value = Bytes.toBytes("city-1234567");
    byte[] user = Bytes.toBytes("u0123abcd");
    byte[] key =
        IndexKeyCodec.rowKey(IndexPlacement.salt(spec, alias, value, user), alias, value, user);
    long rowBytes =
        new KeyValue(key, IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER, 1L, new byte[0])
            .getSerializedSize();
    // A region's share of the entries when the index splits at splitBytes (HBase splits at about
    // the size limit; daughters start at half of it: on average 3/4 full).
    long regions = Math.max(1, (long) Math.ceil(entries * rowBytes / (0.75 * splitBytes)));
    long perRegion = entries / regions;
    // The filter a region builds when it opens: the default first sub-filter, grown by the
    // region's keys (scaled down to 1M keys), then compacted right-sized as FilterCompactor does
    // once growth made it worse than designed.
    int sample = (int) Math.min(perRegion, 1_000_000);
    double grownBitsPerEntry;
    double filterBitsPerEntry;
    Random rnd = new Random(7);
    try (ScalableSplitCountingBloomFilter f =
        ScalableSplitCountingBloomFilter.create(spec.initialCapacity(), fpp)) {
      KeyBatch keys = new KeyBatch(10_000, 10_000 * 16);
      for (int i = 0; i < sample; i++) {
        keys.add(key(rnd));
        if (keys.size() == 10_000) {
          f.addAll(keys);
          keys.clear();
        }
      }
      if (keys.size() > 0) f.addAll(keys);
      grownBitsPerEntry = f.stats().bytes() * 8.0 / sample;
      if (f.needsCompaction()) {
        Random again = new Random(7);
        f.compact(
            sample,
            new java.util.Iterator<byte[]>() {
              int left = sample;

              @Override
              public boolean hasNext() {
                return left > 0;
              }

              @Override
              public byte[] next() {
                left--;
                return key(again);
              }
            });
      }
      filterBitsPerEntry = f.stats().bytes() * 8.0 / sample;
    }
    // The client's region cache: a sorted map of start keys (HBase's MetaCache is one per table).
    ConcurrentSkipListMap<byte[], Long> cache = new ConcurrentSkipListMap<>(Bytes.BYTES_COMPARATOR);
    for (long r = 0; r < regions; r++) {
      cache.put(Bytes.toBytes(r * (Long.MAX_VALUE / regions)), r);
    }
    long found = 0;
    long t0 = System.nanoTime();
    int lookups = routes * 100;
    for (int i = 0; i < lookups; i++) {
      found += cache.floorEntry(Bytes.toBytes(rnd.nextLong() & Long.MAX_VALUE)).getValue();
    }
    double routeNs = (System.nanoTime() - t0) / (double) lookups;
    long servers = targetServers;
    double boundary = (double) rowsPerValue * rowBytes / (0.75 * splitBytes);
    System.out.printf(
        "%nBY_VALUE global index at %,d entries on %,d servers (index row %d B in a store file,"
            + " regions split at %d GiB; %,d data regions for comparison):%n",
        entries, servers, rowBytes, splitBytes >> 30, servers * regionsPerServer);
    System.out.printf(
        "  index regions: %,d (%.1f per server), %,d entries each; no cap: a smaller split size"
            + " gives more%n",
        regions, (double) regions / servers, perRegion);
    System.out.printf(
        "  memory per region server: its regions' counting filters (4-bit counters), %.1f bits"
            + " per entry once compacted (%.1f while grown) = %,.0f MiB; routing state at the"
            + " master and in clients: 0 bits per entry%n",
        filterBitsPerEntry,
        grownBitsPerEntry,
        entries * filterBitsPerEntry / 8 / servers / (1 << 20));
    System.out.printf(
        "  memory per client: its cached locations of the index's %,d regions (no state per"
            + " entry)%n",
        regions);
    // With 1 GiB regions (e.g. the index table's MAX_FILESIZE set lower) the same index spreads
    // over ten times the regions: the route below is measured at both counts.
    System.out.printf(
        "  RPCs per point query: 1 + P(a region boundary cuts the value's %d rows) = %.6f%n",
        rowsPerValue, 1 + boundary);
    System.out.printf(
        "  route: the value's key hashed, then its region looked up among %,d cached locations:"
            + " %.0f ns (%d)%n",
        regions, routeNs, found % 10);
  }

  /** A region's publication, as FilterPublisher builds it (its server named by the request). */
  /**
   * One server's publication re-sending {@code count} random regions' bitmaps whole (as after a
   * compaction): each region is touched, so the next snapshot re-reads it.
   */
  private static PublishRequest resend(
      String index,
      List<RegionInfo> infos,
      Map<String, ServerName> hostOf,
      MembershipFilter[] bitmaps,
      Random rnd,
      int count) {
    PublishRequest.Builder p = PublishRequest.newBuilder().setFull(true);
    for (int i = 0; i < count; i++) {
      int r = rnd.nextInt(infos.size());
      p.addRegions(
          region(index, infos.get(r), 2)
              .setServer(hostOf.get(infos.get(r).getEncodedName()).toString())
              .setMembership(bs(bitmaps[r].toByteArray())));
    }
    return p.setServer(p.getRegions(0).getServer()).build();
  }

  private static RegionFilter.Builder region(String index, RegionInfo info, long version) {
    return RegionFilter.newBuilder()
        .setIndexTable(index)
        .setEncodedRegion(info.getEncodedName())
        .setReady(true)
        .setVersion(version);
  }

  private static ByteString bs(byte[] b) {
    return ByteString.copyFrom(b);
  }

  private static byte[] key(Random rnd) {
    byte[] k = new byte[16];
    rnd.nextBytes(k);
    return k;
  }
}
