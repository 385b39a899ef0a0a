package io.scbf;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.util.concurrent.locks.LockSupport;

/**
 * Owns one native pointer and makes its use from Java memory-safe: shared by every class of the
 * package so the guarding logic exists once.
 *
 * <p>Each native call is bracketed by {@link #acquire()} / {@link #release()}, which count the call
 * as in flight. {@link #close()} marks the handle closed (new calls then throw {@link
 * IllegalStateException}), waits until the in-flight count drains to zero, and only then frees the
 * pointer: a close racing with calls from other threads can never free memory that a call is using.
 * The count is striped over padded slots indexed by thread id, so handler threads calling one
 * filter do not all bounce a single cache line; acquire and release are one atomic add each (no
 * lock, no allocation).
 *
 * <p>Correctness: acquire increments its slot then reads the state; close writes the state then
 * reads every slot. Both are volatile (sequentially consistent) accesses, so either the caller sees
 * the closed state and backs out, or close sees the caller's increment and waits.
 *
 * <p>A {@link Cleaner} frees the pointer of an owner that became unreachable without close(), and
 * logs a warning, since forgetting close() holds native memory for a GC cycle or longer.
 */
final class NativeHandle {
  private static final System.Logger LOG = System.getLogger("io.scbf");
  private static final Cleaner CLEANER = Cleaner.create();

  private static final int STRIPES = 16; // power of two
  private static final int STRIPE_WIDTH = 16; // longs: 128 bytes between slots
  private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle STATE;

  private static final int OPEN = 0;
  private static final int CLOSING = 1;
  private static final int CLOSED = 2;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(Shared.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * What the cleaner may touch: everything but the owner. A Cleaner action must not reach its
   * owner, or the owner would never become unreachable.
   */
  private static final class Shared implements Runnable {
    final String kind;
    final long pointer;
    final int nativeKind;
    final long[] inFlight = new long[STRIPES * STRIPE_WIDTH];

    @SuppressWarnings("unused") // through STATE
    volatile int state;

    /** Thread inside a callback from native code (compact's iterator), or null. */
    volatile Thread callbackThread;

    Shared(String kind, long pointer, int nativeKind) {
      this.kind = kind;
      this.pointer = pointer;
      this.nativeKind = nativeKind;
    }

    /** Cleaner path: the owner is unreachable, so nothing can be in flight. */
    @Override
    public void run() {
      if (closeAndFree()) {
        LOG.log(
            System.Logger.Level.WARNING,
            "{0} was garbage-collected without close();"
                + " its native memory was freed by a Cleaner. Close it (try-with-resources)"
                + " to release native memory promptly.",
            kind);
      }
    }

    /** Returns true if this call freed the pointer, false if it was already closed. */
    boolean closeAndFree() {
      if (!STATE.compareAndSet(this, OPEN, CLOSING)) {
        return false;
      }
      for (int spins = 0; inFlightCalls() != 0; spins++) {
        if (spins < 100) {
          Thread.onSpinWait();
        } else {
          LockSupport.parkNanos(50_000);
        }
      }
      NativeBridge.free(nativeKind, pointer);
      STATE.setVolatile(this, CLOSED);
      return true;
    }

    long inFlightCalls() {
      long sum = 0;
      for (int stripe = 0; stripe < STRIPES; stripe++) {
        sum += (long) SLOTS.getVolatile(inFlight, slotIndex(stripe));
      }
      return sum;
    }
  }

  private final Shared shared;
  private final Cleaner.Cleanable cleanable;

  /**
   * Takes ownership of a pointer just returned by native code.
   *
   * @param owner the public object; when it becomes unreachable unclosed, the pointer is freed
   * @param kind the owner's type, for messages
   * @param nativeKind {@link NativeBridge#SCBF}, {@link NativeBridge#SSCBF} or {@link
   *     NativeBridge#HOTCACHE}, to free the pointer
   */
  NativeHandle(Object owner, String kind, long pointer, int nativeKind) {
    if (pointer == 0) {
      throw new IllegalStateException("scbf: native code returned a null " + kind);
    }
    this.shared = new Shared(kind, pointer, nativeKind);
    this.cleanable = CLEANER.register(owner, shared);
  }

  /**
   * Counts a native call as in flight and returns the pointer to use; pair with {@link #release()}
   * in a finally block.
   *
   * @throws IllegalStateException if the handle is closed (or closing)
   */
  long acquire() {
    int slot = slot();
    SLOTS.getAndAdd(shared.inFlight, slot, 1L);
    if (shared.state != OPEN) {
      SLOTS.getAndAdd(shared.inFlight, slot, -1L);
      throw new IllegalStateException(shared.kind + " is closed");
    }
    return shared.pointer;
  }

  void release() {
    SLOTS.getAndAdd(shared.inFlight, slot(), -1L);
  }

  boolean isClosed() {
    return shared.state != OPEN;
  }

  /**
   * Frees the native memory once calls in flight have returned; later calls throw. Idempotent.
   *
   * @throws IllegalStateException if called from inside a callback of this object's own native call
   *     (it would wait for itself forever)
   */
  void close() {
    refuseInOwnCallback("be closed");
    shared.closeAndFree();
    cleanable.clean(); // unregisters; the action then finds the handle closed and stays quiet
  }

  /**
   * Throws if the current thread runs a callback of this object's own native call, which holds the
   * lock that {@code operation} would wait for (forever, on itself).
   *
   * @throws IllegalStateException then
   */
  void refuseInOwnCallback(String operation) {
    if (shared.callbackThread == Thread.currentThread()) {
      throw new IllegalStateException(
          shared.kind
              + " cannot "
              + operation
              + " from inside its own callback (e.g. compact's key iterator)");
    }
  }

  /** Marks the current thread as running a Java callback of an in-flight call (or clears it). */
  void callbackThread(Thread thread) {
    shared.callbackThread = thread;
  }

  private static int slot() {
    return slotIndex((int) Thread.currentThread().getId() & (STRIPES - 1));
  }

  /** Slots sit mid-stripe, so the array header and neighbours never share their cache line. */
  private static int slotIndex(int stripe) {
    return stripe * STRIPE_WIDTH + STRIPE_WIDTH / 2;
  }
}
