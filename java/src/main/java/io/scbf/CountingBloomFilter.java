package io.scbf;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The operations shared by the two native counting filters: add, test and remove keys one at a time
 * or in batches, clear, snapshot, close.
 *
 * <p><b>No false negatives:</b> a key added more times than it was removed always tests positive
 * (counters saturate and stick instead of wrapping). Only remove keys you added: removing a key
 * that was never added can make other keys test negative; this is the counting Bloom filter
 * contract.
 *
 * <p><b>Threads:</b> every operation may be called concurrently from any number of threads. {@link
 * #close()} may race with them: calls already in flight finish first, later calls throw {@link
 * IllegalStateException}.
 *
 * <p><b>Costs:</b> single-key calls cross JNI once and allocate nothing; batch calls ({@link
 * KeyBatch}) cross it once for many keys and pipeline hashing and memory prefetch, the fastest way
 * to test many keys. Arguments are checked before anything reaches native code.
 */
public abstract sealed class CountingBloomFilter implements AutoCloseable
    permits SplitCountingBloomFilter, ScalableSplitCountingBloomFilter {

  final NativeHandle handle;
  private final int kind;

  CountingBloomFilter(int kind, long pointer) {
    this.kind = kind;
    this.handle = new NativeHandle(this, getClass().getSimpleName(), pointer, kind);
  }

  // ---- single keys ----

  /** Adds one occurrence of key. */
  public final void add(byte[] key) {
    Objects.requireNonNull(key, "key");
    keyOp(NativeBridge.ADD, key, 0, key.length);
  }

  /** Adds one occurrence of key[off, off+len). */
  public final void add(byte[] key, int off, int len) {
    keyOp(NativeBridge.ADD, key, off, len);
  }

  /**
   * Adds one occurrence of the buffer's bytes from position to limit (the buffer is not consumed).
   */
  public final void add(ByteBuffer key) {
    keyOp(NativeBridge.ADD, key);
  }

  /**
   * False if key was surely never added (or removed as often as added); true if it may be present.
   */
  public final boolean mightContain(byte[] key) {
    Objects.requireNonNull(key, "key");
    return keyOp(NativeBridge.CONTAINS, key, 0, key.length) != 0;
  }

  /** As {@link #mightContain(byte[])} for key[off, off+len). */
  public final boolean mightContain(byte[] key, int off, int len) {
    return keyOp(NativeBridge.CONTAINS, key, off, len) != 0;
  }

  /** As {@link #mightContain(byte[])} for the buffer's bytes from position to limit. */
  public final boolean mightContain(ByteBuffer key) {
    return keyOp(NativeBridge.CONTAINS, key) != 0;
  }

  /**
   * Removes one occurrence of a key previously added.
   *
   * @return true if the key tested positive and was removed; false if it tested negative (nothing
   *     changed)
   */
  public final boolean remove(byte[] key) {
    Objects.requireNonNull(key, "key");
    return keyOp(NativeBridge.REMOVE, key, 0, key.length) != 0;
  }

  /** As {@link #remove(byte[])} for key[off, off+len). */
  public final boolean remove(byte[] key, int off, int len) {
    return keyOp(NativeBridge.REMOVE, key, off, len) != 0;
  }

  /** As {@link #remove(byte[])} for the buffer's bytes from position to limit. */
  public final boolean remove(ByteBuffer key) {
    return keyOp(NativeBridge.REMOVE, key) != 0;
  }

  // ---- batches ----

  /** Adds every key of the batch, in one native call. */
  public final void addAll(KeyBatch keys) {
    batchOp(NativeBridge.ADD, keys, null);
  }

  /** Adds every key (packs them first: prefer a reused {@link KeyBatch} on hot paths). */
  public final void addAll(byte[]... keys) {
    addAll(KeyBatch.of(keys));
  }

  /** Tests every key of the batch in one native call; result i answers key i. */
  public final boolean[] mightContainAll(KeyBatch keys) {
    Objects.requireNonNull(keys, "keys");
    boolean[] results = new boolean[keys.size()];
    batchOp(NativeBridge.CONTAINS, keys, results);
    return results;
  }

  /**
   * Tests every key of the batch into a caller-owned array (no allocation).
   *
   * @param results receives answer i at index i; length at least {@code keys.size()}
   * @return how many keys may be present
   */
  public final int mightContainAll(KeyBatch keys, boolean[] results) {
    Objects.requireNonNull(results, "results");
    return batchOp(NativeBridge.CONTAINS, keys, results);
  }

  /** Tests every key (packs them first: prefer a reused {@link KeyBatch} on hot paths). */
  public final boolean[] mightContainAll(byte[]... keys) {
    return mightContainAll(KeyBatch.of(keys));
  }

  /**
   * Removes one occurrence of every key of the batch, in one native call.
   *
   * @return how many keys tested positive and were removed
   */
  public final int removeAll(KeyBatch keys) {
    return batchOp(NativeBridge.REMOVE, keys, null);
  }

  /**
   * As {@link #removeAll(KeyBatch)}, also telling which keys were removed.
   *
   * @param removed receives true at index i if key i was removed; length at least {@code
   *     keys.size()}
   */
  public final int removeAll(KeyBatch keys, boolean[] removed) {
    Objects.requireNonNull(removed, "removed");
    return batchOp(NativeBridge.REMOVE, keys, removed);
  }

  /** Removes every key (packs them first). */
  public final int removeAll(byte[]... keys) {
    return removeAll(KeyBatch.of(keys));
  }

  // ---- whole filter ----

  /**
   * Resets every counter (a scalable filter goes back to one empty sub-filter).
   *
   * @throws IllegalStateException from inside this filter's own compaction (its key iterator)
   */
  public final void clear() {
    handle.refuseInOwnCallback("be cleared");
    long p = handle.acquire();
    try {
      NativeBridge.clear(kind, p);
    } finally {
      handle.release();
    }
  }

  /**
   * The filter in the C snapshot format (versioned, little-endian, checksummed): the same bytes the
   * C library writes, readable by {@code fromByteArray} here or by {@code *_snapshot_read} in C.
   */
  public final byte[] toByteArray() {
    long p = handle.acquire();
    try {
      return NativeBridge.snapshot(kind, p);
    } finally {
      handle.release();
    }
  }

  /** Whether {@link #close()} has been called. */
  public final boolean isClosed() {
    return handle.isClosed();
  }

  /**
   * Frees the native memory, after any call in flight on another thread has returned. Later calls
   * throw {@link IllegalStateException}; closing again does nothing.
   */
  @Override
  public final void close() {
    handle.close();
  }

  /** Counter-wise saturating add of other into this; shared by the typed merge methods. */
  final void mergeFrom(CountingBloomFilter other) {
    Objects.requireNonNull(other, "other");
    if (other == this) {
      throw new IllegalArgumentException("cannot merge a filter into itself");
    }
    handle.refuseInOwnCallback("be merged into");
    long dst = handle.acquire();
    try {
      long src = other.handle.acquire();
      try {
        NativeBridge.merge(kind, dst, src);
      } finally {
        other.handle.release();
      }
    } finally {
      handle.release();
    }
  }

  static void checkFpp(double fpp) {
    if (!(fpp > 0.0 && fpp < 1.0)) {
      throw new IllegalArgumentException("fpp must be in (0, 1): " + fpp);
    }
  }

  static void checkCounterBits(int counterBits) {
    if (counterBits != 4 && counterBits != 8) {
      throw new IllegalArgumentException("counterBits must be 4 or 8: " + counterBits);
    }
  }

  static byte[] checkSnapshot(byte[] snapshot) {
    Objects.requireNonNull(snapshot, "snapshot");
    if (snapshot.length == 0) {
      throw new CorruptSnapshotException("empty snapshot");
    }
    return snapshot;
  }

  private int keyOp(int op, byte[] key, int off, int len) {
    Objects.requireNonNull(key, "key");
    Objects.checkFromIndexSize(off, len, key.length);
    long p = handle.acquire();
    try {
      return NativeBridge.keyOp(kind, op, p, key, off, len);
    } finally {
      handle.release();
    }
  }

  private int keyOp(int op, ByteBuffer key) {
    Objects.requireNonNull(key, "key");
    int pos = key.position();
    int len = key.limit() - pos;
    if (key.hasArray()) {
      return keyOp(op, key.array(), key.arrayOffset() + pos, len);
    }
    if (!key.isDirect()) { // read-only heap buffer: no access to its array
      byte[] copy = new byte[len];
      key.get(pos, copy);
      return keyOp(op, copy, 0, len);
    }
    long p = handle.acquire();
    try {
      return NativeBridge.keyOpDirect(kind, op, p, key, pos, len);
    } finally {
      handle.release();
    }
  }

  private int batchOp(int op, KeyBatch keys, boolean[] results) {
    Objects.requireNonNull(keys, "keys");
    int n = keys.size();
    if (results != null && results.length < n) {
      throw new IllegalArgumentException(
          "results has " + results.length + " slots for " + n + " keys");
    }
    long p = handle.acquire();
    try {
      return NativeBridge.batchOp(kind, op, p, keys.data(), keys.offsets(), n, results);
    } finally {
      handle.release();
    }
  }
}
