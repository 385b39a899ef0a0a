package io.scbf;

import java.nio.ByteBuffer;

/**
 * Every native method of the package, implemented by {@code native/jni/scbf_jni.c}.
 *
 * <p>Callers validate arguments (nulls, ranges) and hold the handle's guard; the glue converts C
 * status codes into exceptions: {@link IllegalArgumentException} for bad arguments or mismatched
 * filters, {@link CorruptSnapshotException} for malformed snapshots, {@link OutOfMemoryError} when
 * native allocation fails. Batch offsets are copied and checked by the glue, so even a
 * {@link KeyBatch} mutated by another thread during a call cannot make it read out of bounds.
 */
final class NativeBridge {
    /** Structure kinds (first argument of the shared filter entry points). */
    static final int SCBF = 0;
    static final int SSCBF = 1;
    static final int HOTCACHE = 2;

    /** Key operations. */
    static final int ADD = 0;
    static final int CONTAINS = 1;
    static final int REMOVE = 2;

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
    static native int batchOp(int kind, int op, long handle, byte[] data, int[] offsets, int n,
                              boolean[] results);

    static native byte[] snapshot(int kind, long handle);

    static native long restore(int kind, byte[] snapshot);

    static native void merge(int kind, long dst, long src);

    static native void clear(int kind, long handle);

    // ---- SplitCountingBloomFilter ----

    static native long scbfCreate(long size, boolean sizeIsPositions, double fpp, int counterBits, long seed);

    /**
     * Fills longs with positions, m, capacity, k, counterBits, nonZero, saturated, bytes, seed and
     * returns targetFpr, maxFill, estimatedFpr, then the k per-slice fills.
     */
    static native double[] scbfStats(long handle, long[] longs);

    // ---- ScalableSplitCountingBloomFilter ----

    /** Zero (or -1 for residueThreshold) selects the C default for a parameter. */
    static native long sscbfCreate(long initialCapacity, double fpp, double tightening, int growth,
                                   int counterBits, int maxFilters, long residueThreshold, long seed);

    /**
     * Fills longs with filters, residue, bytes, positions, saturated, adds, removes and doubles
     * with designFpr, estimatedFpr, newestFill.
     */
    static native void sscbfStats(long handle, long[] longs, double[] doubles);

    static native boolean sscbfNeedsCompaction(long handle);

    /** Pulls keys from source.refill(); returns false if the source reported a failure. */
    static native boolean sscbfCompact(long handle, long expectedKeys, KeySource source);

    // ---- HotscoreCache ----

    /** Zero selects the C default for period, decay, maxEntries, ghostEntries; -1 for periodNanos. */
    static native long cacheCreate(int policy, long capacityBytes, long maxEntries, int period,
                                   double decay, long periodNanos, long ghostEntries);

    static native byte[] cacheGet(long handle, byte[] key, int off, int len);

    static native boolean cachePut(long handle, byte[] key, int koff, int klen, byte[] value, int voff, int vlen);

    static native boolean cacheInvalidate(long handle, byte[] key, int off, int len);

    static native void cacheClear(long handle);

    /**
     * Fills out with hits, misses, admissions, rejections, evictions, invalidations, entries,
     * ghosts, bytesUsed, capacityBytes, periods.
     */
    static native void cacheStats(long handle, long[] out);
}
