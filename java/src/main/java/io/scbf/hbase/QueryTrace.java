package io.scbf.hbase;

/**
 * What the last query of an {@link IndexedTable} did.
 *
 * @param kind "point", "point-strict" or "range" ("local-" before each for a local index);
 *     "point-scan (planned)" when the planner chose a scan of the data table for a popular value;
 *     "point-scan (index building)" or "range-scan (index building)" when the index was being built
 *     and the data table was scanned instead
 * @param bucketsTotal buckets (index regions) of the index
 * @param bucketsAsked buckets that received a lookup
 * @param unsureBuckets buckets routed only because the master was unsure about them
 * @param cacheHits lookups answered from a region server's hot cache
 * @param indexHits index entries returned (before any re-check)
 * @param routed false if routing was skipped (strict, range) or the master was unreachable
 * @param routeMicros time asking the master
 * @param lookupMicros time of the parallel bucket lookups
 * @param totalMicros whole query, including the data re-check if any
 * @param routingFailures 1 if asking the master for routing failed (every bucket was then asked;
 *     the cause is logged by {@link IndexedTable}), else 0
 * @param plan the plan a point query chose, with its estimates (null for range queries)
 */
public record QueryTrace(
    String kind,
    int bucketsTotal,
    int bucketsAsked,
    int unsureBuckets,
    int cacheHits,
    int indexHits,
    boolean routed,
    long routeMicros,
    long lookupMicros,
    long totalMicros,
    int routingFailures,
    QueryPlan plan) {

  /** A trace without routing failures (the form before {@code routingFailures} existed). */
  public QueryTrace(
      String kind,
      int bucketsTotal,
      int bucketsAsked,
      int unsureBuckets,
      int cacheHits,
      int indexHits,
      boolean routed,
      long routeMicros,
      long lookupMicros,
      long totalMicros) {
    this(
        kind,
        bucketsTotal,
        bucketsAsked,
        unsureBuckets,
        cacheHits,
        indexHits,
        routed,
        routeMicros,
        lookupMicros,
        totalMicros,
        0,
        null);
  }

  QueryTrace withTotalMicros(long micros) {
    return new QueryTrace(
        kind,
        bucketsTotal,
        bucketsAsked,
        unsureBuckets,
        cacheHits,
        indexHits,
        routed,
        routeMicros,
        lookupMicros,
        micros,
        routingFailures,
        plan);
  }

  QueryTrace withPlan(QueryPlan p) {
    return new QueryTrace(
        kind,
        bucketsTotal,
        bucketsAsked,
        unsureBuckets,
        cacheHits,
        indexHits,
        routed,
        routeMicros,
        lookupMicros,
        totalMicros,
        routingFailures,
        p);
  }

  @Override
  public String toString() {
    return String.format(
        "%s: buckets asked %d/%d (unsure %d), cache hits %d, index hits %d,"
            + " route %d us, lookups %d us, total %d us%s%s",
        kind,
        bucketsAsked,
        bucketsTotal,
        unsureBuckets,
        cacheHits,
        indexHits,
        routeMicros,
        lookupMicros,
        totalMicros,
        routingFailures > 0
            ? " (routing failed: all buckets asked)"
            : routed ? "" : " (not routed)",
        plan == null ? "" : "; plan " + plan);
  }
}
