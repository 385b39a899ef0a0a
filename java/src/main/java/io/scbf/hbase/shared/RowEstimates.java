package io.scbf.hbase.shared;

import io.scbf.hbase.shared.proto.IndexProtos.RowEstimate;
import io.scbf.hbase.shared.proto.IndexProtos.ValueCounts;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * How many rows a value has, from the regions' {@link ValueCounts}: the query planner's input. A
 * region names its heavy values (at least {@code heavy_threshold} entries) by the 64-bit hash of
 * their filter key, so a route knows the value's count in every candidate region where it is heavy,
 * and only a bound (below the threshold) in the others. Region servers, the master and clients hash
 * filter keys with {@link #hash} alike.
 */
@InterfaceAudience.Private
public final class RowEstimates {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long M1 = 0x87c37b91114253d5L;
  private static final long M2 = 0x4cf5ad432745937fL;

  private RowEstimates() {}

  /** A well-mixed 64-bit hash of {@code key[off, off + len)} (not for security). */
  public static long hash(byte[] key, int off, int len) {
    long h = 0x9e3779b97f4a7c15L ^ (len * M1);
    int i = off;
    int end = off + len;
    for (; i + 8 <= end; i += 8) {
      h ^= Long.rotateLeft((long) LONGS.get(key, i) * M1, 31) * M2;
      h = Long.rotateLeft(h, 27) * 5 + 0x52dce729;
    }
    long tail = 0;
    for (int shift = 0; i < end; i++, shift += 8) tail |= (key[i] & 0xffL) << shift;
    h ^= Long.rotateLeft(tail * M1, 31) * M2;
    return fmix(h);
  }

  public static long hash(byte[] key) {
    return hash(key, 0, key.length);
  }

  private static long fmix(long h) {
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    return h ^ (h >>> 33);
  }

  /** The count {@code counts} gives the value hashed to {@code hash}, or -1 if it is not heavy. */
  public static long heavyCount(ValueCounts counts, long hash) {
    for (int i = 0; i < counts.getHeavyHashCount(); i++) {
      if (counts.getHeavyHash(i) == hash) return counts.getHeavyCount(i);
    }
    return -1;
  }

  /** Sums one value's estimate over the regions of a route. */
  public static final class Builder {
    private final long hash;
    private long heavyRows;
    private long boundRows;
    private long entries;
    private int counted;

    public Builder(byte[] filterKey) {
      this.hash = hash(filterKey);
    }

    /**
     * One region: {@code counts} null if unknown (never published, or routing is unsure of it),
     * {@code candidate} if the route asks it.
     */
    public void region(ValueCounts counts, boolean candidate) {
      if (counts == null) return;
      counted(1, counts.getEntries());
      if (candidate) candidate(counts);
    }

    /** Regions with known counts, summed by the caller: how many, and their entries. */
    public void counted(int regions, long regionEntries) {
      counted += regions;
      entries += regionEntries;
    }

    /** A candidate region whose counts are known (and already {@link #counted}). */
    public void candidate(ValueCounts counts) {
      long n = heavyCount(counts, hash);
      if (n >= 0) {
        heavyRows += n;
        boundRows += n;
      } else {
        boundRows += Math.max(0, counts.getHeavyThreshold() - 1);
      }
    }

    public RowEstimate build() {
      return RowEstimate.newBuilder()
          .setHeavyRows(heavyRows)
          .setBoundRows(boundRows)
          .setEntries(entries)
          .setRegionsCounted(counted)
          .build();
    }
  }
}
