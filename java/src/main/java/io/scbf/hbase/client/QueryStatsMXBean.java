package io.scbf.hbase.client;

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

  /** Lookups answered from a region server's hot cache. */
  long getLookupCacheHits();

  /** Time of all counted queries, microseconds. */
  long getTotalMicros();
}
