package io.scbf;

import java.util.Objects;

/**
 * Many regions' routing bitmaps ({@link MembershipFilter}) in one bit-sliced native set: "which
 * regions may hold this key?" hashes the key once per bitmap shape and reads k words per 64
 * regions, instead of probing every region's bitmap (docs/design.md, "Routing at many regions").
 *
 * <p>Each region is a slot, a small non-negative integer the caller assigns and reuses. The set
 * copies a bitmap's bits when it is {@link #set}; naming the bitmap the slot was last set to as
 * {@code previous} changes only the bits that differ (a publication's delta). A query answers for
 * each slot exactly what the slot's bitmap would: no false negative.
 *
 * <p>Thread safety: queries may run concurrently with each other and with one {@code set} or {@code
 * clear}; each query sees a slot before or after a concurrent set. Callers serialize sets of one
 * slot.
 */
public final class MembershipRouteSet implements AutoCloseable {
  /** Slots are 0 .. MAX_SLOTS - 1 (scbf/routeset.h). */
  public static final int MAX_SLOTS = 1 << 24;

  private final NativeHandle handle;

  public MembershipRouteSet() {
    Native.load();
    this.handle =
        new NativeHandle(
            this, "MembershipRouteSet", NativeBridge.routesetNew(), NativeBridge.ROUTESET);
  }

  /**
   * Gives {@code slot} the bits of {@code next}; {@code previous} (or null) should be the bitmap
   * the slot was last set to, so that only the differing bits change. A {@code previous} that is
   * not the slot's content is ignored (the slot is rewritten).
   */
  public void set(int slot, MembershipFilter previous, MembershipFilter next) {
    checkSlot(slot);
    Objects.requireNonNull(next, "next");
    long p = handle.acquire();
    try {
      long to = next.handle.acquire();
      try {
        if (previous == null) {
          NativeBridge.routesetSet(p, slot, 0, to);
        } else {
          long from = previous.handle.acquire();
          try {
            NativeBridge.routesetSet(p, slot, from, to);
          } finally {
            previous.handle.release();
          }
        }
      } finally {
        next.handle.release();
      }
    } finally {
      handle.release();
    }
  }

  /** Empties {@code slot}: no key routes to it until it is set again. */
  public void clear(int slot) {
    checkSlot(slot);
    long p = handle.acquire();
    try {
      NativeBridge.routesetClear(p, slot);
    } finally {
      handle.release();
    }
  }

  /**
   * The slots whose bitmap may hold {@code key}, as a bit set (bit s of word s / 64), of at least
   * {@code minSlots} bits.
   */
  public long[] query(byte[] key, int minSlots) {
    Objects.requireNonNull(key, "key");
    long p = handle.acquire();
    try {
      // A set between sizing and querying may raise the slot count: size again then.
      while (true) {
        int slots = Math.max(minSlots, NativeBridge.routesetSlots(p));
        long[] out = new long[(slots + 63) >>> 6];
        if (NativeBridge.routesetQuery(p, key, 0, key.length, out)) return out;
      }
    } finally {
      handle.release();
    }
  }

  /**
   * @param slots slots holding a bitmap
   * @param shapes distinct bitmap geometries (k, m, seed)
   * @param lanes lanes in use (one per sub-filter of each slot's bitmap)
   * @param pages 64-lane pages allocated
   * @param bytes native memory held
   */
  public record Stats(long slots, long shapes, long lanes, long pages, long bytes) {}

  public Stats stats() {
    long p = handle.acquire();
    try {
      long[] l = new long[NativeBridge.ROUTESET_LONGS];
      NativeBridge.routesetStats(p, l);
      return new Stats(
          l[NativeBridge.ROUTESET_L_SLOTS],
          l[NativeBridge.ROUTESET_L_SHAPES],
          l[NativeBridge.ROUTESET_L_LANES],
          l[NativeBridge.ROUTESET_L_PAGES],
          l[NativeBridge.ROUTESET_L_BYTES]);
    } finally {
      handle.release();
    }
  }

  private static void checkSlot(int slot) {
    if (slot < 0 || slot >= MAX_SLOTS) {
      throw new IllegalArgumentException("slot " + slot + " outside [0, " + MAX_SLOTS + ")");
    }
  }

  public boolean isClosed() {
    return handle.isClosed();
  }

  /** Frees the native memory; later calls throw IllegalStateException. Idempotent. */
  @Override
  public void close() {
    handle.close();
  }
}
