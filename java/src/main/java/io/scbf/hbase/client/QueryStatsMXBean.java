package io.scbf.hbase.client;

import java.util.Map;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * One {@code IndexedTable}'s queries so far, on JMX as {@code
 * io.scbf.hbase:type=IndexedTable,table=TABLE,id=N} while the table is open.
 */
@InterfaceAudience.Private
public interface QueryStatsMXBean {
  /** Queries made (each public query call once, a multi-column query included). */
  long getQueries();

  /** Queries answered through an index (lookups, then rows re-checked or not). */
  long getIndexPlans();

  /**
   * Queries answered by scanning the data table (planned for a popular value, or index building).
   */
  long getScanPlans();

  /** Regions the counted queries asked, and could have asked (where counted). */
  long getRegionsAsked();

  long getRegionsTotal();

  /** Queries whose routing failed (every region was then asked). */
  long getRoutingFailures();

  /**
   * Queries asked a second time after HBase's client gave up following stale "moved to" records of
   * a region (moved away and back, then split): their tables' cached locations were dropped first.
   */
  long getLocationRetries();

  /** Lookups answered from a region server's hot cache. */
  long getLookupCacheHits();

  /** Time of all counted queries, microseconds. */
  long getTotalMicros();

  /**
   * Query latencies in microseconds by kind, over the queries since the previous read of this
   * attribute (HBase's histograms start afresh when read, as HBase's own metrics do each period):
   * {@code KIND.count}, {@code KIND.p50}, {@code KIND.p95}, {@code KIND.p99} and {@code KIND.max}
   * for each kind with queries, KIND one of {@code point} (equality on one index, global or local,
   * planned scans included), {@code range}, {@code and} (several conditions), {@code stream} (until
   * the stream is returned: planning and routing; its pages are read later) and {@code other}.
   */
  Map<String, Long> getLatencyMicros();
}
