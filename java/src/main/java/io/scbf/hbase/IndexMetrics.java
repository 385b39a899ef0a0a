package io.scbf.hbase;

import io.scbf.CacheStats;
import io.scbf.ScalableFilterStats;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;
import org.apache.hadoop.hbase.metrics.Gauge;
import org.apache.hadoop.hbase.metrics.MetricRegistry;

/**
 * Region server metrics of scbf-hbase, registered in HBase's coprocessor metric registry (and so
 * visible on JMX under "RegionServer,sub=Coprocessor.Region.CP_io.scbf.hbase..."). Gauges
 * aggregate every region server of the JVM (one in production; several in a mini cluster).
 * The master's metrics are in {@link RoutingMasterEndpoint}.
 */
final class IndexMetrics {
  private IndexMetrics() {}

  /** Index rows left behind by failed post-write deletes (queries re-check them away). */
  static final LongAdder STALE_INDEX_ROWS = new LongAdder();

  static void registerRegionServer(MetricRegistry registry) {
    gauge(registry, "scbfFilterBytes", s -> s.bytes());
    gauge(registry, "scbfFilterResidue", s -> s.residue());
    registry.register("scbfFilterEstimatedFprMax", (Gauge<Double>) () -> maxOverFilters(s -> s.estimatedFpr()));
    registry.register("scbfFilterNewestFillMax", (Gauge<Double>) () -> maxOverFilters(s -> s.newestFill()));
    registry.register("scbfIndexRegions", (Gauge<Long>) () -> sumOverRegions(r -> 1));
    registry.register("scbfIndexRegionsReady",
        (Gauge<Long>) () -> sumOverRegions(r -> r.filter().isReady() ? 1 : 0));
    registry.register("scbfFilterSkippedRemoves",
        (Gauge<Long>) () -> sumOverRegions(r -> r.filter().skippedRemoves()));
    registry.register("scbfLookups", (Gauge<Long>) () -> sumOverRegions(IndexRegion::lookups));
    registry.register("scbfLookupCacheHits", (Gauge<Long>) () -> sumOverRegions(IndexRegion::cacheHits));
    registry.register("scbfCacheHitRatio", (Gauge<Double>) () -> {
      long hits = 0, lookups = 0;
      for (RegionServerResources rs : RegionServerResources.all()) {
        CacheStats c = rs.cacheStatsOrNull();
        if (c != null) {
          hits += c.hits();
          lookups += c.hits() + c.misses();
        }
      }
      return lookups == 0 ? 0.0 : (double) hits / lookups;
    });
    registry.register("scbfCacheBytesUsed", (Gauge<Long>) () -> {
      long bytes = 0;
      for (RegionServerResources rs : RegionServerResources.all()) {
        CacheStats c = rs.cacheStatsOrNull();
        if (c != null) bytes += c.bytesUsed();
      }
      return bytes;
    });
    registry.register("scbfPublishLagMs", (Gauge<Long>) () -> {
      long lag = 0;
      for (RegionServerResources rs : RegionServerResources.all()) {
        lag = Math.max(lag, rs.publisher().lagMillis());
      }
      return lag;
    });
    registry.register("scbfStaleIndexRows", (Gauge<Long>) STALE_INDEX_ROWS::sum);
    registry.register("scbfIndexRpcCalls", (Gauge<Long>) IndexRpcSchedulerFactory.INDEX_CALLS::get);
  }

  private static void gauge(MetricRegistry registry, String name, java.util.function.ToLongFunction<ScalableFilterStats> f) {
    registry.register(name, (Gauge<Long>) () -> sumOverRegions(r -> f.applyAsLong(r.filter().stats())));
  }

  private static long sumOverRegions(java.util.function.ToLongFunction<IndexRegion> f) {
    long sum = 0;
    for (RegionServerResources rs : RegionServerResources.all()) {
      for (IndexRegion r : rs.publisher().regions()) {
        try {
          sum += f.applyAsLong(r);
        } catch (IllegalStateException closed) {
          // region closed between listing and reading: not counted
        }
      }
    }
    return sum;
  }

  private static double maxOverFilters(ToDoubleFunction<ScalableFilterStats> f) {
    double max = 0;
    for (RegionServerResources rs : RegionServerResources.all()) {
      for (IndexRegion r : rs.publisher().regions()) {
        try {
          max = Math.max(max, f.applyAsDouble(r.filter().stats()));
        } catch (IllegalStateException closed) {
          // region closed between listing and reading: not counted
        }
      }
    }
    return max;
  }
}
