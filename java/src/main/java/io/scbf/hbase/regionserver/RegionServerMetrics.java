package io.scbf.hbase.regionserver;

import io.scbf.CacheStats;
import io.scbf.ScalableFilterStats;
import io.scbf.hbase.regionserver.eventual.EventualLag;
import io.scbf.hbase.regionserver.index.IndexRegion;
import io.scbf.hbase.regionserver.write.BatchIndexer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.Gauge;
import org.apache.hadoop.hbase.metrics.Histogram;
import org.apache.hadoop.hbase.metrics.MetricRegistry;

/**
 * Region server metrics of scbf-hbase, as gauges in the registry of {@link
 * IndexRegionServerCoprocessor} (on JMX under "RegionServer,sub=Coprocessor.RegionServer.CP_"
 * followed by that class's name, where Hadoop capitalises the names: ScbfFilterBytes, ...). The
 * master's metrics are in the routing endpoint.
 *
 * <p>The registry belongs to the JVM, not to one server: registering replaces the gauges of a
 * server that ran earlier in the same JVM (a test's earlier mini cluster).
 */
final class RegionServerMetrics implements BatchIndexer.Metrics {
  /** The EVENTUAL applier's progress on this server. */
  private final EventualLag eventual = new EventualLag();

  EventualLag eventual() {
    return eventual;
  }

  /** Index rows left behind by failed post-write deletes (queries re-check them away). */
  private final LongAdder staleIndexRows = new LongAdder();

  @Override
  public void addStaleIndexRows(long n) {
    staleIndexRows.add(n);
  }

  /** Stale index rows removed on request of a query or a repair (see IndexRowRepair). */
  private final LongAdder staleIndexRowsRemoved = new LongAdder();

  void addStaleIndexRowsRemoved(long n) {
    staleIndexRowsRemoved.add(n);
  }

  /** Indexed writes whose rows were proved new, so their old values were not read. */
  private final LongAdder oldRowReadsSkipped = new LongAdder();

  @Override
  public void addOldRowReadsSkipped(long n) {
    oldRowReadsSkipped.add(n);
  }

  long oldRowReadsSkipped() {
    return oldRowReadsSkipped.sum();
  }

  /** Local index entries that data regions built from their rows (not loaded by a bulk build). */
  private final LongAdder localEntriesBuilt = new LongAdder();

  void addLocalEntriesBuilt(long n) {
    localEntriesBuilt.add(n);
  }

  long localEntriesBuilt() {
    return localEntriesBuilt.sum();
  }

  /** Per open region, the indexes it disabled (invalid spec, or state it could not build). */
  private final Map<String, Integer> disabledIndexes = new ConcurrentHashMap<>();

  void indexesDisabled(String encodedRegionName, int count) {
    if (count > 0) disabledIndexes.put(encodedRegionName, count);
  }

  void regionClosed(String encodedRegionName) {
    disabledIndexes.remove(encodedRegionName);
  }

  /** The registry the per-index meters go to; null until {@link #register}. */
  private volatile MetricRegistry registry;

  /**
   * Meters of one index (or one indexed table, for write overhead), made on first use; {@code
   * empty} is null where nothing is counted as empty.
   */
  private record Meters(Histogram micros, Counter calls, Counter empty) {}

  private final Map<String, Meters> meters = new ConcurrentHashMap<>();

  /** The meters {@code kind}Us_, Calls_ and (if {@code withEmpty}) Empty_, EmptyRatio_ + name. */
  private Meters meters(String kind, String name, boolean withEmpty) {
    MetricRegistry r = registry;
    if (r == null) return null;
    return meters.computeIfAbsent(
        kind + "_" + name,
        key -> {
          String suffix = "_" + name;
          Counter calls = r.counter(kind + "Calls" + suffix);
          Counter empty = withEmpty ? r.counter(kind + "Empty" + suffix) : null;
          if (withEmpty) {
            gauge(
                r,
                kind + "EmptyRatio" + suffix,
                () -> calls.getCount() == 0 ? 0.0 : (double) empty.getCount() / calls.getCount());
          }
          return new Meters(r.histogram(kind + "Us" + suffix), calls, empty);
        });
  }

  /**
   * A lookup of {@code index} (its index table's name; a local index's name is built the same way)
   * answered in {@code micros}; {@code empty}: the region's filter let the value through but the
   * region held no entry of it, i.e. a false positive of routing (values the region's filter proves
   * absent are not counted: routed clients do not even ask).
   */
  void lookupDone(String index, long micros, boolean empty) {
    Meters m = meters("scbfLookup", index, true);
    if (m == null) return;
    m.micros().update(micros);
    m.calls().increment();
    if (empty) m.empty().increment();
  }

  /** What an indexed write of {@code dataTable} waited for its index work, in one mini-batch. */
  void indexWriteDone(String dataTable, long micros) {
    timed("scbfIndexWrite", dataTable, micros);
  }

  /**
   * A data write of this server waited {@code micros} for the rows of the global index {@code
   * indexTable} to be durable ({@link io.scbf.hbase.regionserver.write.IndexWriter.WaitListener}).
   */
  void indexWaited(String indexTable, long micros) {
    timed("scbfIndexWait", indexTable, micros);
  }

  private void timed(String kind, String name, long micros) {
    Meters m = meters(kind, name, false);
    if (m == null) return;
    m.micros().update(micros);
    m.calls().increment();
  }

  /**
   * Registers the gauges over {@code services} (null while no region is open) and the index RPC
   * calls counted by this server's scheduler.
   */
  void register(
      MetricRegistry registry, Supplier<IndexServices> services, LongSupplier indexRpcCalls) {
    meters.clear();
    this.registry = registry;
    Supplier<List<IndexRegion>> regions =
        () -> {
          IndexServices s = services.get();
          return s == null ? List.of() : s.regions().list();
        };
    Supplier<CacheStats> cache =
        () -> {
          IndexServices s = services.get();
          return s == null ? null : s.cacheStatsOrNull();
        };
    gauge(registry, "scbfFilterBytes", () -> sum(regions.get(), r -> r.filter().stats().bytes()));
    gauge(registry, "scbfFilterResidue", () -> sum(regions.get(), r -> r.filter().residue()));
    gauge(
        registry,
        "scbfFilterEstimatedFprMax",
        () -> max(regions.get(), ScalableFilterStats::estimatedFpr));
    gauge(
        registry,
        "scbfFilterNewestFillMax",
        () -> max(regions.get(), ScalableFilterStats::newestFill));
    gauge(registry, "scbfIndexRegions", () -> (long) regions.get().size());
    gauge(
        registry,
        "scbfIndexRegionsReady",
        () -> sum(regions.get(), r -> r.routable(r.filter()) ? 1 : 0));
    gauge(
        registry,
        "scbfFilterSkippedRemoves",
        () -> sum(regions.get(), r -> r.filter().skippedRemoves()));
    gauge(registry, "scbfLookups", () -> sum(regions.get(), r -> r.lookups().count()));
    gauge(registry, "scbfLookupCacheHits", () -> sum(regions.get(), r -> r.lookups().cacheHits()));
    gauge(
        registry,
        "scbfCacheHitRatio",
        () -> {
          CacheStats c = cache.get();
          long lookups = c == null ? 0 : c.hits() + c.misses();
          return lookups == 0 ? 0.0 : (double) c.hits() / lookups;
        });
    gauge(
        registry,
        "scbfCacheBytesUsed",
        () -> {
          CacheStats c = cache.get();
          return c == null ? 0L : c.bytesUsed();
        });
    servicesGauge(registry, "scbfPublishLagMs", services, s -> s.publisher().lagMillis());
    servicesGauge(registry, "scbfPublishedBytes", services, s -> s.publisher().publishedBytes());
    servicesGauge(registry, "scbfFilterCompactions", services, s -> s.compactor().compactions());
    servicesGauge(registry, "scbfFilterCompactionRows", services, s -> s.compactor().rowsCounted());
    servicesGauge(registry, "scbfIndexWriteCalls", services, s -> s.indexCallsInFlight().calls());
    servicesGauge(
        registry, "scbfIndexWritesCarried", services, s -> s.indexCallsInFlight().writesCarried());
    gauge(registry, "scbfStaleIndexRows", staleIndexRows::sum);
    gauge(registry, "scbfStaleIndexRowsRemoved", staleIndexRowsRemoved::sum);
    gauge(registry, "scbfOldRowReadsSkipped", oldRowReadsSkipped::sum);
    gauge(registry, "scbfLocalEntriesBuilt", localEntriesBuilt::sum);
    gauge(
        registry,
        "scbfDisabledIndexes",
        () -> disabledIndexes.values().stream().mapToLong(Integer::longValue).sum());
    gauge(registry, "scbfIndexRpcCalls", indexRpcCalls::getAsLong);
    gauge(registry, "scbfEventualLagMs", eventual::lagMs);
    gauge(registry, "scbfEventualLastAppliedAgeMs", eventual::lastAppliedAgeMs);
    gauge(registry, "scbfEventualEditsApplied", eventual::editsApplied);
    gauge(registry, "scbfEventualRowsApplied", eventual::rowsApplied);
    gauge(registry, "scbfEventualFailedBatches", eventual::failedBatches);
    gauge(registry, "scbfEventualRowsHeld", eventual::rowsHeld);
    gauge(registry, "scbfEventualRowsReleased", eventual::rowsReleased);
  }

  /** A figure of the running services; 0 while none run. */
  private static void servicesGauge(
      MetricRegistry registry,
      String name,
      Supplier<IndexServices> services,
      ToLongFunction<IndexServices> figure) {
    gauge(
        registry,
        name,
        () -> {
          IndexServices s = services.get();
          return s == null ? 0L : figure.applyAsLong(s);
        });
  }

  private static <T> void gauge(MetricRegistry registry, String name, Gauge<T> gauge) {
    registry.remove(name);
    registry.register(name, gauge);
  }

  private static long sum(List<IndexRegion> regions, ToLongFunction<IndexRegion> f) {
    long sum = 0;
    for (IndexRegion r : regions) {
      try {
        sum += f.applyAsLong(r);
      } catch (IllegalStateException closed) {
        // region closed between listing and reading: not counted
      }
    }
    return sum;
  }

  private static double max(List<IndexRegion> regions, ToDoubleFunction<ScalableFilterStats> f) {
    double max = 0;
    for (IndexRegion r : regions) {
      try {
        max = Math.max(max, f.applyAsDouble(r.filter().stats()));
      } catch (IllegalStateException closed) {
        // region closed between listing and reading: not counted
      }
    }
    return max;
  }
}
