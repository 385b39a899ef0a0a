package io.scbf;

import java.util.Iterator;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A scalable Split Counting Bloom Filter in native memory: a list of {@link
 * SplitCountingBloomFilter}s that grows when the newest one is half full, each new one larger
 * ({@code growth}) and with a tighter false-positive rate ({@code tightening}) so the compound rate
 * stays under the target. Use it when the number of keys is not known in advance, e.g. an index
 * bucket that keeps growing.
 *
 * <p><b>Remove and residue.</b> A remove decrements a sub-filter only when the key tests positive
 * in exactly one of them (its home). A key positive in several cannot be placed safely, so nothing
 * is decremented and the remove counts as residue: it raises the false-positive rate, never causes
 * a false negative. When residue or the sub-filter count pass their thresholds, {@link
 * #needsCompaction()} turns true and the owner rebuilds one right-sized filter from the real key
 * set with {@link #compact(long, Iterator)}.
 *
 * @see CountingBloomFilter for the key operations, thread-safety and the no-false-negative contract
 */
public final class ScalableSplitCountingBloomFilter extends CountingBloomFilter {
  /** compact() is rare; serializing it keeps "the thread inside the iterator" well defined. */
  private final ReentrantLock compaction = new ReentrantLock();

  private ScalableSplitCountingBloomFilter(long pointer) {
    super(NativeBridge.SSCBF, pointer);
  }

  /**
   * A filter whose first sub-filter holds initialCapacity keys, with compound false-positive rate
   * fpp and the C defaults (tightening 0.5, growth 2, 4-bit counters, at most 32 sub-filters,
   * residue threshold initialCapacity/8).
   */
  public static ScalableSplitCountingBloomFilter create(long initialCapacity, double fpp) {
    return builder(initialCapacity, fpp).build();
  }

  /** A builder to tune growth, tightening, counter width and compaction thresholds. */
  public static Builder builder(long initialCapacity, double fpp) {
    return new Builder(initialCapacity, fpp);
  }

  /**
   * Reads a snapshot written by {@link #toByteArray()} or by the C library.
   *
   * @throws CorruptSnapshotException if the bytes are not a valid scalable SCBF snapshot
   */
  public static ScalableSplitCountingBloomFilter fromByteArray(byte[] snapshot) {
    checkSnapshot(snapshot);
    Native.load();
    return new ScalableSplitCountingBloomFilter(NativeBridge.restore(NativeBridge.SSCBF, snapshot));
  }

  /**
   * Adds other's sub-filters into this one's, sub-filter by sub-filter (this grows to match).
   *
   * @throws IllegalArgumentException if the configurations or sub-filter shapes differ, or other is
   *     this
   * @throws IllegalStateException from inside this filter's own compaction (its key iterator)
   */
  public void merge(ScalableSplitCountingBloomFilter other) {
    mergeFrom(other);
  }

  /** Growth, residue and compound false-positive rates, read now. */
  public ScalableFilterStats stats() {
    long p = handle.acquire();
    try {
      long[] l = new long[NativeBridge.SSCBF_LONGS];
      double[] d = new double[NativeBridge.SSCBF_DOUBLES];
      NativeBridge.sscbfStats(p, l, d);
      boolean needsCompaction = NativeBridge.sscbfNeedsCompaction(p);
      return new ScalableFilterStats(
          (int) l[NativeBridge.SSCBF_L_FILTERS],
          l[NativeBridge.SSCBF_L_RESIDUE],
          d[NativeBridge.SSCBF_D_DESIGN_FPR],
          d[NativeBridge.SSCBF_D_ESTIMATED_FPR],
          d[NativeBridge.SSCBF_D_NEWEST_FILL],
          l[NativeBridge.SSCBF_L_BYTES],
          l[NativeBridge.SSCBF_L_POSITIONS],
          l[NativeBridge.SSCBF_L_SATURATED],
          l[NativeBridge.SSCBF_L_ADDS],
          l[NativeBridge.SSCBF_L_REMOVES],
          needsCompaction);
    } finally {
      handle.release();
    }
  }

  /**
   * True when residue or the sub-filter count passed their thresholds: time to {@link #compact}.
   */
  public boolean needsCompaction() {
    long p = handle.acquire();
    try {
      return NativeBridge.sscbfNeedsCompaction(p);
    } finally {
      handle.release();
    }
  }

  /**
   * Replaces every sub-filter by one sized for {@code max(expectedKeys, initialCapacity)} that
   * holds exactly the given keys (plus keys added concurrently by other threads); residue resets.
   * Keys are pulled from the iterator in chunks during one native call; other threads may keep
   * using the filter meanwhile, and close() waits for the compaction to finish.
   *
   * <p>If the iterator throws (or returns null), the compaction is abandoned, the filter is left
   * unchanged, and the iterator's exception propagates. From the iterator, compact(), close(),
   * clear() and a merge into this filter throw {@link IllegalStateException} (each would wait for
   * this compaction); adds, removes and queries go through.
   *
   * @param expectedKeys how many keys the iterator yields (sizes the new filter), &gt;= 0
   * @param keys every key the filter should hold, once per occurrence
   */
  public void compact(long expectedKeys, Iterator<byte[]> keys) {
    Objects.requireNonNull(keys, "keys");
    if (expectedKeys < 0) {
      throw new IllegalArgumentException("expectedKeys must be >= 0: " + expectedKeys);
    }
    if (compaction.isHeldByCurrentThread()) {
      throw new IllegalStateException("compact() called from inside compact()'s key iterator");
    }
    KeySource source = new KeySource(keys);
    compaction.lock();
    try {
      long p = handle.acquire();
      handle.callbackThread(Thread.currentThread());
      try {
        if (!NativeBridge.sscbfCompact(p, expectedKeys, source)) {
          throwFailure(source.failure());
        }
      } finally {
        handle.callbackThread(null);
        handle.release();
      }
    } finally {
      compaction.unlock();
    }
  }

  private static void throwFailure(Throwable failure) {
    if (failure instanceof RuntimeException e) {
      throw e;
    }
    if (failure instanceof Error e) {
      throw e;
    }
    throw new IllegalStateException("compact: the key iterator failed; filter unchanged", failure);
  }

  /**
   * Configuration of a {@link ScalableSplitCountingBloomFilter}; unset values take the C defaults.
   */
  public static final class Builder {
    private final long initialCapacity;
    private final double fpp;
    private double tightening; // 0 = default
    private int growth; // 0 = default
    private int counterBits = SplitCountingBloomFilter.DEFAULT_COUNTER_BITS;
    private int maxFilters; // 0 = default
    private long residueThreshold = -1; // -1 = default

    private Builder(long initialCapacity, double fpp) {
      if (initialCapacity < 1 || initialCapacity > SplitCountingBloomFilter.MAX_POSITIONS) {
        throw new IllegalArgumentException(
            "initialCapacity must be in [1, 2^36]: " + initialCapacity);
      }
      checkFpp(fpp);
      this.initialCapacity = initialCapacity;
      this.fpp = fpp;
    }

    /**
     * Each new sub-filter's false-positive rate is the previous one's times r, r in (0, 1); default
     * 0.5.
     */
    public Builder tightening(double r) {
      if (!(r > 0.0 && r < 1.0)) {
        throw new IllegalArgumentException("tightening must be in (0, 1): " + r);
      }
      this.tightening = r;
      return this;
    }

    /** Each new sub-filter's capacity is the previous one's times growth (&gt;= 1); default 2. */
    public Builder growth(int growth) {
      if (growth < 1) {
        throw new IllegalArgumentException("growth must be >= 1: " + growth);
      }
      this.growth = growth;
      return this;
    }

    /** Counter width, 4 (default) or 8. */
    public Builder counterBits(int counterBits) {
      checkCounterBits(counterBits);
      this.counterBits = counterBits;
      return this;
    }

    /** Hard cap on sub-filters (&gt;= 1); default 32. */
    public Builder maxFilters(int maxFilters) {
      if (maxFilters < 1) {
        throw new IllegalArgumentException("maxFilters must be >= 1: " + maxFilters);
      }
      this.maxFilters = maxFilters;
      return this;
    }

    /**
     * needsCompaction() turns true when residue exceeds this (&gt;= 0); default initialCapacity/8.
     */
    public Builder residueThreshold(long residueThreshold) {
      if (residueThreshold < 0) {
        throw new IllegalArgumentException("residueThreshold must be >= 0: " + residueThreshold);
      }
      this.residueThreshold = residueThreshold;
      return this;
    }

    public ScalableSplitCountingBloomFilter build() {
      Native.load();
      return new ScalableSplitCountingBloomFilter(
          NativeBridge.sscbfCreate(
              initialCapacity,
              fpp,
              tightening,
              growth,
              counterBits,
              maxFilters,
              residueThreshold,
              0L));
    }
  }
}
