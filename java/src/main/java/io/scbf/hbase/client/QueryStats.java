package io.scbf.hbase.client;

import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.QueryTrace;
import java.lang.management.ManagementFactory;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;
import javax.management.JMException;
import javax.management.ObjectName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.metrics.Histogram;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.apache.hadoop.hbase.metrics.Snapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts an {@code IndexedTable}'s queries from their traces and shows them on the platform MBean
 * server while the table is open. A client that cannot register (a security manager, a name taken)
 * keeps querying: the counts are only not on JMX then. Latencies go into one HBase metrics
 * histogram per query kind (hbase-metrics, which every hbase-client brings); a client without it
 * counts without percentiles.
 */
final class QueryStats implements QueryStatsMXBean {
  private static final Logger LOG = LoggerFactory.getLogger(QueryStats.class);

  /** The kinds whose latencies are told apart (the start of {@link QueryTrace#kind()}). */
  enum Kind {
    POINT,
    RANGE,
    AND,
    STREAM,
    OTHER;

    /** "point", "local-point-strict", "range-ordered (first 10)", "point-stream", "and (...)". */
    static Kind of(String traceKind) {
      String k = traceKind.startsWith("local-") ? traceKind.substring(6) : traceKind;
      if (k.contains("stream")) return STREAM;
      if (k.startsWith("point")) return POINT;
      if (k.startsWith("range")) return RANGE;
      if (k.startsWith("and")) return AND;
      return OTHER;
    }

    String key() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final LongAdder queries = new LongAdder();
  private final LongAdder indexPlans = new LongAdder();
  private final LongAdder scanPlans = new LongAdder();
  private final LongAdder regionsAsked = new LongAdder();
  private final LongAdder regionsTotal = new LongAdder();
  private final LongAdder routingFailures = new LongAdder();
  private final LongAdder cacheHits = new LongAdder();
  private final LongAdder micros = new LongAdder();
  private final LongAdder locationRetries = new LongAdder();
  private final Map<Kind, Histogram> latencies = new EnumMap<>(Kind.class);
  private MetricRegistryInfo registry;
  private ObjectName name;

  QueryStats() {
    MetricRegistryInfo info =
        new MetricRegistryInfo(
            "scbf.IndexedTable." + System.identityHashCode(this),
            "latencies of one scbf IndexedTable's queries",
            "scbf",
            "scbf,sub=IndexedTable",
            // "An existing source": HBase's adapter, which copies the global registries to JMX in
            // a server JVM, leaves this one alone (this class's MBean shows it); two open tables
            // would otherwise register one JMX name twice, which that adapter cannot survive.
            true);
    try {
      MetricRegistry metrics = MetricRegistries.global().create(info);
      for (Kind k : Kind.values()) latencies.put(k, metrics.histogram(k.key() + "LatencyMicros"));
      registry = info;
    } catch (RuntimeException | LinkageError e) {
      LOG.debug("scbf: no query latency percentiles (HBase metrics unavailable): {}", e.toString());
      latencies.clear();
    }
  }

  /** Counts one query by its final trace (null: nothing to count). */
  void count(QueryTrace trace) {
    if (trace == null) return;
    queries.increment();
    boolean scanned =
        trace.plan() != null
            ? trace.plan().kind() == QueryPlan.Kind.DATA_SCAN
            : trace.kind().contains("scan");
    (scanned ? scanPlans : indexPlans).increment();
    if (trace.regions().asked() >= 0) regionsAsked.add(trace.regions().asked());
    if (trace.regions().total() >= 0) regionsTotal.add(trace.regions().total());
    if (trace.routing().failed()) routingFailures.increment();
    cacheHits.add(trace.lookups().cacheHits());
    micros.add(trace.totalMicros());
    Histogram latency = latencies.get(Kind.of(trace.kind()));
    if (latency != null) latency.update(trace.totalMicros());
  }

  /** Counts a query asked again after its tables' cached region locations were dropped. */
  void countLocationRetry() {
    locationRetries.increment();
  }

  void register(TableName table) {
    try {
      name =
          new ObjectName(
              "io.scbf.hbase:type=IndexedTable,table="
                  + ObjectName.quote(table.getNameAsString())
                  + ",id="
                  + System.identityHashCode(this));
      ManagementFactory.getPlatformMBeanServer().registerMBean(this, name);
    } catch (JMException | SecurityException e) {
      LOG.debug("scbf: query statistics of {} not on JMX: {}", table, e.toString());
      name = null;
    }
  }

  void unregister() {
    if (registry != null) MetricRegistries.global().remove(registry);
    if (name == null) return;
    try {
      ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
    } catch (JMException | SecurityException e) {
      LOG.debug("scbf: could not unregister {}: {}", name, e.toString());
    }
  }

  @Override
  public long getLocationRetries() {
    return locationRetries.sum();
  }

  @Override
  public long getQueries() {
    return queries.sum();
  }

  @Override
  public long getIndexPlans() {
    return indexPlans.sum();
  }

  @Override
  public long getScanPlans() {
    return scanPlans.sum();
  }

  @Override
  public long getRegionsAsked() {
    return regionsAsked.sum();
  }

  @Override
  public long getRegionsTotal() {
    return regionsTotal.sum();
  }

  @Override
  public long getRoutingFailures() {
    return routingFailures.sum();
  }

  @Override
  public long getLookupCacheHits() {
    return cacheHits.sum();
  }

  @Override
  public long getTotalMicros() {
    return micros.sum();
  }

  @Override
  public Map<String, Long> getLatencyMicros() {
    Map<String, Long> out = new TreeMap<>();
    latencies.forEach(
        (kind, histogram) -> {
          Snapshot s = histogram.snapshot(); // HBase's histograms start afresh at each snapshot
          if (s.getCount() == 0) return;
          out.put(kind.key() + ".count", s.getCount());
          out.put(kind.key() + ".p50", s.getMedian());
          out.put(kind.key() + ".p95", s.get95thPercentile());
          out.put(kind.key() + ".p99", s.get99thPercentile());
          out.put(kind.key() + ".max", s.getMax());
        });
    return out;
  }
}
