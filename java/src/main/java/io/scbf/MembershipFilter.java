package io.scbf;

import java.util.Objects;

/**
 * The routing form of a {@link ScalableSplitCountingBloomFilter}: one bit per counter (counter &gt;
 * 0 → 1), a quarter of a 4-bit counting filter's memory, answering {@link #mightContain} exactly as
 * the counting filter did when it was derived. It cannot delete; its owner derives a new one from
 * the counting filter and sends the {@link #deltaFrom difference}.
 *
 * <p>A delta names the bitmap it applies to and the one it produces (by checksum), so {@link
 * #applyDelta} refuses a delta for any other base (a lost, duplicated or reordered message) and
 * leaves this bitmap unchanged; the holder then needs a full bitmap again.
 *
 * <p>Thread safety: queries, {@link #toByteArray} and {@link #deltaFrom} may run concurrently;
 * {@link #applyDelta} must not run concurrently with anything on the same bitmap (its holder
 * locks).
 */
public final class MembershipFilter implements AutoCloseable {
  final NativeHandle handle; // package-private: MembershipRouteSet reads bitmaps in place

  private MembershipFilter(long pointer) {
    this.handle = new NativeHandle(this, "MembershipFilter", pointer, NativeBridge.MEMBERSHIP);
  }

  /** The bitmap of {@code filter} now. */
  public static MembershipFilter of(ScalableSplitCountingBloomFilter filter) {
    Objects.requireNonNull(filter, "filter");
    long p = filter.handle.acquire();
    try {
      return new MembershipFilter(NativeBridge.memberOf(p));
    } finally {
      filter.handle.release();
    }
  }

  /**
   * Reads a bitmap written by {@link #toByteArray()}.
   *
   * @throws CorruptSnapshotException if the bytes are not a valid bitmap
   */
  public static MembershipFilter fromByteArray(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    Native.load();
    return new MembershipFilter(NativeBridge.memberRead(bytes));
  }

  /** False if the key is surely absent; true if it may be present. */
  public boolean mightContain(byte[] key) {
    Objects.requireNonNull(key, "key");
    return mightContain(key, 0, key.length);
  }

  /** As {@link #mightContain(byte[])} for key[off, off+len). */
  public boolean mightContain(byte[] key, int off, int len) {
    Objects.checkFromIndexSize(off, len, Objects.requireNonNull(key, "key").length);
    long p = handle.acquire();
    try {
      return NativeBridge.memberContains(p, key, off, len);
    } finally {
      handle.release();
    }
  }

  /**
   * The delta that turns {@code base} into this bitmap, or null if their shapes differ (the
   * counting filter grew or was compacted in between): send the whole bitmap then.
   */
  public byte[] deltaFrom(MembershipFilter base) {
    Objects.requireNonNull(base, "base");
    long from = base.handle.acquire();
    try {
      long to = handle.acquire();
      try {
        return NativeBridge.memberDelta(from, to);
      } finally {
        handle.release();
      }
    } finally {
      base.handle.release();
    }
  }

  /**
   * Applies a delta made by {@link #deltaFrom} in place.
   *
   * @return false (and nothing changed) if this bitmap is not the delta's base
   * @throws CorruptSnapshotException if the delta is malformed (nothing changed)
   */
  public boolean applyDelta(byte[] delta) {
    Objects.requireNonNull(delta, "delta");
    long p = handle.acquire();
    try {
      return NativeBridge.memberApply(p, delta);
    } finally {
      handle.release();
    }
  }

  /** The bitmap's encoding (what {@link #fromByteArray} reads). */
  public byte[] toByteArray() {
    long p = handle.acquire();
    try {
      return NativeBridge.memberBytes(p);
    } finally {
      handle.release();
    }
  }

  /** Bytes of the encoding, the memory a holder keeps (O(1), unlike {@link #stats()}). */
  public long sizeBytes() {
    long p = handle.acquire();
    try {
      return NativeBridge.memberSize(p);
    } finally {
      handle.release();
    }
  }

  /** Sizes and fill, read now (O(size)). */
  public Stats stats() {
    long p = handle.acquire();
    try {
      long[] l = new long[NativeBridge.MEMBER_LONGS];
      double fpr = NativeBridge.memberStats(p, l);
      return new Stats(
          (int) l[NativeBridge.MEMBER_L_FILTERS],
          l[NativeBridge.MEMBER_L_BITS],
          l[NativeBridge.MEMBER_L_SET_BITS],
          l[NativeBridge.MEMBER_L_BYTES],
          fpr);
    } finally {
      handle.release();
    }
  }

  /**
   * @param filters sub-filters
   * @param bits bits over all sub-filters
   * @param setBits bits at 1
   * @param bytes size of the encoding (the memory a holder keeps)
   * @param estimatedFpr false-positive rate implied by the fill
   */
  public record Stats(int filters, long bits, long setBits, long bytes, double estimatedFpr) {}

  public boolean isClosed() {
    return handle.isClosed();
  }

  /** Frees the native memory; later calls throw IllegalStateException. Idempotent. */
  @Override
  public void close() {
    handle.close();
  }
}
