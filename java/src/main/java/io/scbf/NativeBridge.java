package io.scbf;

import java.nio.ByteBuffer;

/**
 * Every native method of the package, implemented by the C files in {@code native/jni/}.
 *
 * <p>Callers validate arguments (nulls, ranges) and hold the handle's guard; the glue converts C
 * status codes into exceptions: {@link IllegalArgumentException} for bad arguments or mismatched
 * filters, {@link CorruptSnapshotException} for malformed snapshots, {@link OutOfMemoryError} when
 * native allocation fails. Batch offsets are copied and checked by the glue, so even a {@link
 * KeyBatch} mutated by another thread during a call cannot make it read out of bounds.
 */
final class NativeBridge {
  // Every constant the glue shares with Java is defined here, once: the build generates the
  // glue's header from this class with `javac -h`, which emits each one as a C macro
  // (io_scbf_NativeBridge_<NAME>). A change here is a change of the glue's input.

  /** The contract between these classes and the glue; bumped when a native signature changes. */
  static final int ABI_VERSION = 3;

  /** Structure kinds (first argument of the shared filter entry points). */
  static final int SCBF = 0;

  static final int SSCBF = 1;
  static final int HOTCACHE = 2;
  static final int MEMBERSHIP = 3;
  static final int ROUTESET = 4;

  /** Key operations. */
  static final int ADD = 0;

  static final int CONTAINS = 1;
  static final int REMOVE = 2;

  /** Cache policies ({@link HotscoreCache.Policy}). */
  static final int POLICY_HOTSCORE = 0;

  static final int POLICY_LRU = 1;

  static final int POLICY_PAPER = 2;

  static final int POLICY_ADAPTIVE = 3;

  /** Keys per {@link KeySource} chunk; the glue sizes its offset buffer with it. */
  static final int SOURCE_CHUNK_KEYS = 1024;

  /** {@link #scbfStats}: indexes into its long array. */
  static final int SCBF_L_POSITIONS = 0;

  static final int SCBF_L_M = 1;
  static final int SCBF_L_CAPACITY = 2;
  static final int SCBF_L_K = 3;
  static final int SCBF_L_COUNTER_BITS = 4;
  static final int SCBF_L_NONZERO = 5;
  static final int SCBF_L_SATURATED = 6;
  static final int SCBF_L_BYTES = 7;
  static final int SCBF_L_SEED = 8;
  static final int SCBF_LONGS = 9;

  /** {@link #scbfStats}: indexes into the double array it returns; slice fills follow. */
  static final int SCBF_D_TARGET_FPR = 0;

  static final int SCBF_D_MAX_FILL = 1;
  static final int SCBF_D_ESTIMATED_FPR = 2;
  static final int SCBF_D_SLICE_FILLS = 3;

  /** {@link #sscbfStats}: indexes into its long and double arrays. */
  static final int SSCBF_L_FILTERS = 0;

  static final int SSCBF_L_RESIDUE = 1;
  static final int SSCBF_L_BYTES = 2;
  static final int SSCBF_L_POSITIONS = 3;
  static final int SSCBF_L_SATURATED = 4;
  static final int SSCBF_L_ADDS = 5;
  static final int SSCBF_L_REMOVES = 6;
  static final int SSCBF_LONGS = 7;
  static final int SSCBF_D_DESIGN_FPR = 0;
  static final int SSCBF_D_ESTIMATED_FPR = 1;
  static final int SSCBF_D_NEWEST_FILL = 2;
  static final int SSCBF_DOUBLES = 3;

  /** {@link #cacheStats}: indexes into its long array. */
  static final int CACHE_L_HITS = 0;

  static final int CACHE_L_MISSES = 1;
  static final int CACHE_L_ADMISSIONS = 2;
  static final int CACHE_L_REJECTIONS = 3;
  static final int CACHE_L_EVICTIONS = 4;
  static final int CACHE_L_INVALIDATIONS = 5;
  static final int CACHE_L_ENTRIES = 6;
  static final int CACHE_L_GHOSTS = 7;
  static final int CACHE_L_BYTES_USED = 8;
  static final int CACHE_L_CAPACITY_BYTES = 9;
  static final int CACHE_L_PERIODS = 10;
  static final int CACHE_LONGS = 11;

  private NativeBridge() {}

  static native int abiVersion();

  /** Does nothing: the cost of a JNI crossing, for benchmarks. */
  static native void emptyCall();

  static native void free(int kind, long handle);

  // ---- both filter kinds ----

  /** add: 0; contains: 1 if maybe present; remove: 1 if decremented, 0 if absent. */
  static native int keyOp(int kind, int op, long handle, byte[] key, int off, int len);

  /** As {@link #keyOp} on a direct buffer's bytes [off, off+len). */
  static native int keyOpDirect(int kind, int op, long handle, ByteBuffer key, int off, int len);

  /**
   * Keys i &lt; n are data[offsets[i], offsets[i+1]); results (nullable) gets one flag per key.
   * Returns how many flags are true (0 for add).
   */
  static native int batchOp(
      int kind, int op, long handle, byte[] data, int[] offsets, int n, boolean[] results);

  static native byte[] snapshot(int kind, long handle);

  static native long restore(int kind, byte[] snapshot);

  static native void merge(int kind, long dst, long src);

  static native void clear(int kind, long handle);

  // ---- SplitCountingBloomFilter ----

  static native long scbfCreate(
      long size, boolean sizeIsPositions, double fpp, int counterBits, long seed);

  /** Fills longs at the SCBF_L_* indexes; returns the SCBF_D_* values, then k slice fills. */
  static native double[] scbfStats(long handle, long[] longs);

  // ---- ScalableSplitCountingBloomFilter ----

  /** Zero (or -1 for residueThreshold) selects the C default for a parameter. */
  static native long sscbfCreate(
      long initialCapacity,
      double fpp,
      double tightening,
      int growth,
      int counterBits,
      int maxFilters,
      long residueThreshold,
      long seed);

  /** Fills longs and doubles at the SSCBF_L_* and SSCBF_D_* indexes. */
  static native void sscbfStats(long handle, long[] longs, double[] doubles);

  static native boolean sscbfNeedsCompaction(long handle);

  /** Pulls keys from source.refill(); returns false if the source reported a failure. */
  static native boolean sscbfCompact(long handle, long expectedKeys, KeySource source);

  // ---- MembershipFilter ----

  /** The routing bitmap of a scalable filter, derived now. */
  static native long memberOf(long sscbf);

  static native long memberRead(byte[] bytes);

  static native byte[] memberBytes(long handle);

  static native long memberSize(long handle);

  static native boolean memberContains(long handle, byte[] key, int off, int len);

  /** The delta from one bitmap to another, or null if their shapes differ. */
  static native byte[] memberDelta(long from, long to);

  /** Applies a delta in place: true if applied, false if the bitmap is not the delta's base. */
  static native boolean memberApply(long handle, byte[] delta);

  /** Fills longs at the MEMBER_L_* indexes; returns the estimated false-positive rate. */
  static native double memberStats(long handle, long[] longs);

  static final int MEMBER_L_FILTERS = 0;
  static final int MEMBER_L_BITS = 1;
  static final int MEMBER_L_SET_BITS = 2;
  static final int MEMBER_L_BYTES = 3;
  static final int MEMBER_LONGS = 4;

  // ---- MembershipRouteSet ----

  static native long routesetNew();

  /** prev 0: no previous bitmap named. */
  static native void routesetSet(long handle, int slot, long prev, long next);

  static native void routesetClear(long handle, int slot);

  static native int routesetSlots(long handle);

  /**
   * Fills out with the slots that may hold the key; false if out is shorter than routesetSlots bits
   * (a set raised it meanwhile).
   */
  static native boolean routesetQuery(long handle, byte[] key, int off, int len, long[] out);

  /** Fills longs at the ROUTESET_L_* indexes. */
  static native void routesetStats(long handle, long[] longs);

  static final int ROUTESET_L_SLOTS = 0;
  static final int ROUTESET_L_SHAPES = 1;
  static final int ROUTESET_L_LANES = 2;
  static final int ROUTESET_L_PAGES = 3;
  static final int ROUTESET_L_BYTES = 4;
  static final int ROUTESET_LONGS = 5;

  // ---- HotscoreCache ----

  /**
   * policy is a POLICY_* constant. Zero selects the C default for period, decay, maxEntries,
   * ghostEntries; -1 for periodNanos.
   */
  static native long cacheCreate(
      int policy,
      long capacityBytes,
      long maxEntries,
      int period,
      double decay,
      long periodNanos,
      long ghostEntries);

  static native byte[] cacheGet(long handle, byte[] key, int off, int len);

  static native boolean cachePut(
      long handle, byte[] key, int koff, int klen, byte[] value, int voff, int vlen);

  static native boolean cacheInvalidate(long handle, byte[] key, int off, int len);

  static native void cacheClear(long handle);

  /** Fills out at the CACHE_L_* indexes. */
  static native void cacheStats(long handle, long[] out);
}
