package io.scbf.hbase.regionserver.lookup;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Guards the lookup cache against a lost invalidation. A lookup that misses scans the index rows
 * and then caches the result; a write that lands between the scan and the cache put would otherwise
 * leave a stale entry behind (its invalidation came too early). Writers bump the generation of the
 * key's stripe after their write is visible and then invalidate; a lookup reads the generation
 * before scanning and, after its cache put, invalidates its own entry if the generation moved.
 * Either the writer's invalidation follows the put, or the lookup sees the bump.
 */
@InterfaceAudience.Private
public final class CacheGenerations {
  private static final int STRIPES = 4096;
  private final AtomicLongArray generations = new AtomicLongArray(STRIPES);

  long stamp(byte[] key) {
    return generations.get(stripe(key));
  }

  void bump(byte[] key) {
    generations.incrementAndGet(stripe(key));
  }

  boolean changedSince(byte[] key, long stamp) {
    return generations.get(stripe(key)) != stamp;
  }

  private static int stripe(byte[] key) {
    return Arrays.hashCode(key) & (STRIPES - 1);
  }
}
