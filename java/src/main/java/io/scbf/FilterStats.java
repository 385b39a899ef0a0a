package io.scbf;

import java.util.Arrays;

/**
 * An immutable reading of a {@link SplitCountingBloomFilter}'s state.
 *
 * @param positions counters allocated, M = k * m
 * @param k slices, one hash function each
 * @param m counters per slice
 * @param capacity design capacity in keys: every slice is half full there and the false-positive
 *     rate reaches {@code targetFpr}
 * @param targetFpr the false-positive rate the filter was sized for
 * @param counterBits 4 or 8
 * @param nonZeroCounters non-zero counters over all slices
 * @param saturatedCounters counters stuck at their maximum (never decremented again)
 * @param maxFill highest per-slice fill (non-zero counters / m)
 * @param estimatedFpr product over slices of their fill: the false-positive rate now
 * @param bytes native memory owned by the filter
 * @param seed hash seed
 */
public record FilterStats(
    long positions,
    int k,
    long m,
    long capacity,
    double targetFpr,
    int counterBits,
    long nonZeroCounters,
    long saturatedCounters,
    double maxFill,
    double estimatedFpr,
    long bytes,
    long seed,
    double[] sliceFill) {

  /** sliceFill: fill of slice i (non-zero counters / m) at index i; the array is copied. */
  public FilterStats {
    sliceFill = sliceFill.clone();
  }

  /** Fill of each slice (a copy). */
  @Override
  public double[] sliceFill() {
    return sliceFill.clone();
  }

  /** From the glue's arrays, laid out as NativeBridge.scbfStats documents. */
  static FilterStats of(long[] l, double[] d) {
    return new FilterStats(
        l[NativeBridge.SCBF_L_POSITIONS],
        (int) l[NativeBridge.SCBF_L_K],
        l[NativeBridge.SCBF_L_M],
        l[NativeBridge.SCBF_L_CAPACITY],
        d[NativeBridge.SCBF_D_TARGET_FPR],
        (int) l[NativeBridge.SCBF_L_COUNTER_BITS],
        l[NativeBridge.SCBF_L_NONZERO],
        l[NativeBridge.SCBF_L_SATURATED],
        d[NativeBridge.SCBF_D_MAX_FILL],
        d[NativeBridge.SCBF_D_ESTIMATED_FPR],
        l[NativeBridge.SCBF_L_BYTES],
        l[NativeBridge.SCBF_L_SEED],
        Arrays.copyOfRange(d, NativeBridge.SCBF_D_SLICE_FILLS, d.length));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FilterStats s
        && positions == s.positions
        && k == s.k
        && m == s.m
        && capacity == s.capacity
        && Double.compare(targetFpr, s.targetFpr) == 0
        && counterBits == s.counterBits
        && nonZeroCounters == s.nonZeroCounters
        && saturatedCounters == s.saturatedCounters
        && Double.compare(maxFill, s.maxFill) == 0
        && Double.compare(estimatedFpr, s.estimatedFpr) == 0
        && bytes == s.bytes
        && seed == s.seed
        && Arrays.equals(sliceFill, s.sliceFill);
  }

  @Override
  public int hashCode() {
    return 31 * Long.hashCode(positions)
        + 17 * Long.hashCode(nonZeroCounters)
        + Arrays.hashCode(sliceFill);
  }

  @Override
  public String toString() {
    return "FilterStats[positions="
        + positions
        + ", k="
        + k
        + ", m="
        + m
        + ", capacity="
        + capacity
        + ", targetFpr="
        + targetFpr
        + ", counterBits="
        + counterBits
        + ", nonZeroCounters="
        + nonZeroCounters
        + ", saturatedCounters="
        + saturatedCounters
        + ", maxFill="
        + maxFill
        + ", estimatedFpr="
        + estimatedFpr
        + ", bytes="
        + bytes
        + ", seed="
        + seed
        + ", sliceFill="
        + Arrays.toString(sliceFill)
        + "]";
  }
}
