package io.scbf;

/**
 * A Split Counting Bloom Filter in native memory: M counters (4 bits by default) split into k
 * slices, hash i probing only slice i. Supports remove, merge and snapshots in the C format, so a
 * filter built in C, in a MapReduce task or on another server reads back here with identical
 * answers.
 *
 * <p>Sizing follows the SCBF paper: for a false-positive rate P, {@code k = ceil(log2(1/P))}, and a
 * filter of M positions holds {@code n = M ln(2)^2 / |ln P|} keys at that rate (every slice then
 * half full). {@link #create(long, double)} sizes from n, {@link #createWithPositions(long,
 * double)} from M.
 *
 * <pre>{@code
 * try (SplitCountingBloomFilter f = SplitCountingBloomFilter.create(1_000_000, 0.01)) {
 *     f.add(key);
 *     if (f.mightContain(key)) { ... }
 *     byte[] snapshot = f.toByteArray();
 * }
 * }</pre>
 *
 * @see CountingBloomFilter for the key operations, thread-safety and the no-false-negative contract
 */
public final class SplitCountingBloomFilter extends CountingBloomFilter {
  /** Default counter width: the SCBF paper shows 4 bits make overflow negligible. */
  public static final int DEFAULT_COUNTER_BITS = 4;

  /** Largest number of counter positions the native library accepts (2^36). */
  public static final long MAX_POSITIONS = 1L << 36;

  private SplitCountingBloomFilter(long pointer) {
    super(NativeBridge.SCBF, pointer);
  }

  /**
   * A filter sized to hold expectedKeys keys at false-positive rate fpp, with 4-bit counters.
   *
   * @throws IllegalArgumentException if expectedKeys &lt; 1, fpp not in (0, 1), or the size exceeds
   *     {@link #MAX_POSITIONS}
   */
  public static SplitCountingBloomFilter create(long expectedKeys, double fpp) {
    return create(expectedKeys, fpp, DEFAULT_COUNTER_BITS);
  }

  /** As {@link #create(long, double)} with 4- or 8-bit counters. */
  public static SplitCountingBloomFilter create(long expectedKeys, double fpp, int counterBits) {
    if (expectedKeys < 1) {
      throw new IllegalArgumentException("expectedKeys must be >= 1: " + expectedKeys);
    }
    return newFilter(expectedKeys, false, fpp, counterBits);
  }

  /**
   * A filter of about {@code positions} counters (rounded down to k equal slices), designed for
   * false-positive rate fpp; its capacity follows from both (see {@link FilterStats#capacity()}).
   */
  public static SplitCountingBloomFilter createWithPositions(long positions, double fpp) {
    return createWithPositions(positions, fpp, DEFAULT_COUNTER_BITS);
  }

  /** As {@link #createWithPositions(long, double)} with 4- or 8-bit counters. */
  public static SplitCountingBloomFilter createWithPositions(
      long positions, double fpp, int counterBits) {
    if (positions < 1 || positions > MAX_POSITIONS) {
      throw new IllegalArgumentException("positions must be in [1, 2^36]: " + positions);
    }
    return newFilter(positions, true, fpp, counterBits);
  }

  /**
   * Reads a snapshot written by {@link #toByteArray()} or by the C library.
   *
   * @throws CorruptSnapshotException if the bytes are not a valid SCBF snapshot
   */
  public static SplitCountingBloomFilter fromByteArray(byte[] snapshot) {
    checkSnapshot(snapshot);
    Native.load();
    return new SplitCountingBloomFilter(NativeBridge.restore(NativeBridge.SCBF, snapshot));
  }

  private static SplitCountingBloomFilter newFilter(
      long size, boolean isPositions, double fpp, int counterBits) {
    checkFpp(fpp);
    checkCounterBits(counterBits);
    Native.load();
    return new SplitCountingBloomFilter(
        NativeBridge.scbfCreate(size, isPositions, fpp, counterBits, 0L));
  }

  /**
   * Adds other's counters into this one (saturating), so this filter answers for the keys of both:
   * how filters built by separate tasks are combined.
   *
   * @throws IllegalArgumentException if the filters have different parameters, or other is this
   */
  public void merge(SplitCountingBloomFilter other) {
    mergeFrom(other);
  }

  /** Sizes, fill and estimated false-positive rate, read now (O(M): it counts counters). */
  public FilterStats stats() {
    long p = handle.acquire();
    try {
      long[] longs = new long[NativeBridge.SCBF_LONGS];
      double[] doubles = NativeBridge.scbfStats(p, longs);
      return FilterStats.of(longs, doubles);
    } finally {
      handle.release();
    }
  }
}
