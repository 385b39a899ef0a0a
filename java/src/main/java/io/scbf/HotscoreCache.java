package io.scbf;

import java.util.Objects;

/**
 * A byte-bounded key/value cache in native memory: the index-lookup cache of a region server.
 *
 * <p>The default policy, {@link Policy#HOTSCORE}, is adaptive hotscore: a key's hotscore is its
 * recent access count, kept for every key looked up (cached or not) in a small frequency sketch
 * that halves all counts as time passes. New values enter a small LRU window; leaving it, a value
 * enters the main area only if it is hotter than the entry it would evict, so a scan of one-off
 * keys cannot flush the hot set, yet a new key earns its place as soon as it is used again. The
 * window's share of the capacity adapts to the workload by comparing each lookup with what plain
 * LRU would have done (towards LRU when recency pays, towards frequency when it does not). {@link
 * Policy#PAPER} is the HiBase paper's formula (period, decay, ghosts), kept for reproduction;
 * {@link Policy#LRU} the baseline.
 *
 * <p>Every byte is charged against {@code capacityBytes} (keys, values, metadata, index, ghosts),
 * none of it on the Java heap. Thread-safe; {@link #close()} may race with other calls, which then
 * throw {@link IllegalStateException}.
 *
 * <pre>{@code
 * try (HotscoreCache cache = HotscoreCache.builder().capacityBytes(256L << 20).build()) {
 *     byte[] v = cache.get(key);
 *     if (v == null) {
 *         v = lookUp(key);
 *         cache.put(key, v);
 *     }
 * }
 * }</pre>
 */
public final class HotscoreCache implements AutoCloseable {
  /** Replacement policy. */
  public enum Policy {
    /**
     * Adaptive hotscore (the default): recency window, hotscore admission, self-tuning; it also
     * chooses its mode (this window, a frequency mode or a FIFO mode) from sampled shadows of
     * itself in each mode, within 2% of the capacity.
     */
    HOTSCORE(NativeBridge.POLICY_HOTSCORE),
    /** Least recently used is evicted first. */
    LRU(NativeBridge.POLICY_LRU),
    /**
     * The HiBase paper's formula: every {@code period} lookups (and every {@code periodNanos}, if
     * set) each key's score becomes {@code decay * visits / period + (1 - decay) * score}; a key
     * must outscore the entries it would displace; uncached keys keep a ghost record.
     */
    PAPER(NativeBridge.POLICY_PAPER),
    /**
     * Adaptive hotscore without its mode chooser: the adaptive window alone, the default before
     * 0.4.0 (an operator's way back if the chooser does worse on a workload).
     */
    ADAPTIVE(NativeBridge.POLICY_ADAPTIVE);

    final int nativeCode;

    Policy(int nativeCode) {
      this.nativeCode = nativeCode;
    }
  }

  private final NativeHandle handle;

  private HotscoreCache(long pointer) {
    this.handle = new NativeHandle(this, "HotscoreCache", pointer, NativeBridge.HOTCACHE);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The cached value of key, or null on a miss. Counts a visit for the key either way (that is what
   * its score is made of). Allocates the returned array.
   */
  public byte[] get(byte[] key) {
    Objects.requireNonNull(key, "key");
    long p = handle.acquire();
    try {
      return NativeBridge.cacheGet(p, key, 0, key.length);
    } finally {
      handle.release();
    }
  }

  /**
   * Offers a value for key (typically after a miss); replaces the cached value if there is one.
   *
   * @return true if the value is now cached; false if the policy rejected it or it is larger than
   *     the whole cache
   */
  public boolean put(byte[] key, byte[] value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    long p = handle.acquire();
    try {
      return NativeBridge.cachePut(p, key, 0, key.length, value, 0, value.length);
    } finally {
      handle.release();
    }
  }

  /**
   * Drops the cached value of key (its score history is kept), e.g. when the index row behind it
   * changes.
   *
   * @return true if a value was cached
   */
  public boolean invalidate(byte[] key) {
    Objects.requireNonNull(key, "key");
    long p = handle.acquire();
    try {
      return NativeBridge.cacheInvalidate(p, key, 0, key.length);
    } finally {
      handle.release();
    }
  }

  /** Drops every entry and ghost. */
  public void clear() {
    long p = handle.acquire();
    try {
      NativeBridge.cacheClear(p);
    } finally {
      handle.release();
    }
  }

  /** Counters and occupancy, read now. */
  public CacheStats stats() {
    long[] s = new long[NativeBridge.CACHE_LONGS];
    long p = handle.acquire();
    try {
      NativeBridge.cacheStats(p, s);
    } finally {
      handle.release();
    }
    return new CacheStats(
        s[NativeBridge.CACHE_L_HITS],
        s[NativeBridge.CACHE_L_MISSES],
        s[NativeBridge.CACHE_L_ADMISSIONS],
        s[NativeBridge.CACHE_L_REJECTIONS],
        s[NativeBridge.CACHE_L_EVICTIONS],
        s[NativeBridge.CACHE_L_INVALIDATIONS],
        s[NativeBridge.CACHE_L_ENTRIES],
        s[NativeBridge.CACHE_L_GHOSTS],
        s[NativeBridge.CACHE_L_BYTES_USED],
        s[NativeBridge.CACHE_L_CAPACITY_BYTES],
        s[NativeBridge.CACHE_L_PERIODS]);
  }

  /** Whether {@link #close()} has been called. */
  public boolean isClosed() {
    return handle.isClosed();
  }

  /** Frees the native memory once calls in flight have returned; closing again does nothing. */
  @Override
  public void close() {
    handle.close();
  }

  /** Configuration of a {@link HotscoreCache}; only {@link #capacityBytes(long)} is required. */
  public static final class Builder {
    private long capacityBytes;
    private Policy policy = Policy.HOTSCORE;
    private int period; // 0 = C default
    private double decay; // 0 = C default
    private long periodNanos = -1; // -1 = C default
    private long maxEntries;
    private long ghostEntries; // 0 = derived from capacity

    private Builder() {}

    /** Bound on native memory, everything charged (&gt; 0). */
    public Builder capacityBytes(long capacityBytes) {
      if (capacityBytes <= 0) {
        throw new IllegalArgumentException("capacityBytes must be > 0: " + capacityBytes);
      }
      this.capacityBytes = capacityBytes;
      return this;
    }

    public Builder policy(Policy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** {@link Policy#PAPER}: lookups per scoring period (&gt; 0). */
    public Builder period(int period) {
      if (period <= 0) {
        throw new IllegalArgumentException("period must be > 0: " + period);
      }
      this.period = period;
      return this;
    }

    /** {@link Policy#PAPER}: weight a of the current period in the score, in (0, 1]. */
    public Builder decay(double decay) {
      if (!(decay > 0.0 && decay <= 1.0)) {
        throw new IllegalArgumentException("decay must be in (0, 1]: " + decay);
      }
      this.decay = decay;
      return this;
    }

    /**
     * {@link Policy#PAPER}: also close a period every this many nanoseconds (0 = only every {@code
     * period} lookups).
     */
    public Builder periodNanos(long periodNanos) {
      if (periodNanos < 0) {
        throw new IllegalArgumentException("periodNanos must be >= 0: " + periodNanos);
      }
      this.periodNanos = periodNanos;
      return this;
    }

    /** Cap on cached entries besides the byte bound (0 = none). */
    public Builder maxEntries(long maxEntries) {
      if (maxEntries < 0) {
        throw new IllegalArgumentException("maxEntries must be >= 0: " + maxEntries);
      }
      this.maxEntries = maxEntries;
      return this;
    }

    /** {@link Policy#PAPER}: cap on ghost records (0 = derived from the capacity). */
    public Builder ghostEntries(long ghostEntries) {
      if (ghostEntries < 0) {
        throw new IllegalArgumentException("ghostEntries must be >= 0: " + ghostEntries);
      }
      this.ghostEntries = ghostEntries;
      return this;
    }

    /**
     * @throws IllegalStateException if capacityBytes was not set
     * @throws IllegalArgumentException if the native library rejects the combination
     */
    public HotscoreCache build() {
      if (capacityBytes == 0) {
        throw new IllegalStateException("HotscoreCache.builder(): capacityBytes(long) is required");
      }
      Native.load();
      return new HotscoreCache(
          NativeBridge.cacheCreate(
              policy.nativeCode,
              capacityBytes,
              maxEntries,
              period,
              decay,
              periodNanos,
              ghostEntries));
    }
  }
}
