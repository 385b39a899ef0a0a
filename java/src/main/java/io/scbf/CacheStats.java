package io.scbf;

/**
 * An immutable reading of a {@link HotscoreCache}'s counters.
 *
 * @param hits lookups that found a value
 * @param misses lookups that found none
 * @param admissions puts that cached their value
 * @param rejections puts refused (the key did not outscore what it would evict, or too large)
 * @param evictions entries dropped to make room
 * @param invalidations entries dropped by invalidate
 * @param entries cached entries now
 * @param ghosts tracked keys without a cached value (their scores let them earn their way in)
 * @param bytesUsed native bytes charged now: keys, values, metadata, index and ghosts
 * @param capacityBytes the configured bound on bytesUsed
 * @param periods scoring periods closed so far
 */
public record CacheStats(
    long hits,
    long misses,
    long admissions,
    long rejections,
    long evictions,
    long invalidations,
    long entries,
    long ghosts,
    long bytesUsed,
    long capacityBytes,
    long periods) {

  /** hits / (hits + misses), or 0 before the first lookup. */
  public double hitRatio() {
    long lookups = hits + misses;
    return lookups == 0 ? 0.0 : (double) hits / lookups;
  }
}
