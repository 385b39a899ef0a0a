package io.scbf;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * HotscoreCache (adaptive hotscore and LRU) vs Caffeine on one Zipf workload, 1 or 2 threads (-t):
 * each operation looks a key up and, on a miss, puts its value (what the index-region endpoint
 * does). Same byte budget for all: Caffeine weighs an entry by its key + value bytes, the native
 * cache charges everything it allocates (so it holds fewer entries for the same budget). Hits and
 * lookups are reported as auxiliary counters: hit ratio = hits / lookups.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx2g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class CacheBenchmark {
  static final int TRACE = 1 << 22;
  static final double ZIPF_S = 0.99;
  static final int VALUE_BYTES = 100;
  // 32k distinct keys per MiB of budget: the cache holds about a tenth of the working set
  static final int KEYS_PER_MIB = 1 << 15;

  /**
   * The byte budget of every cache, in MiB. The native cache splits a budget into shards of at
   * least 2 MiB (at most 64), so 4 MiB has 2 locks and 64 MiB, the region server's default, 32.
   */
  @Param({"4", "64"})
  public int budgetMiB;

  /**
   * caffeine: weighs key + value bytes against the same budget (so it holds about twice the
   * entries); caffeine-same-entries: capped at the entry count the native hotscore cache holds in
   * that budget, so hit ratios compare policies rather than memory accounting.
   */
  @Param({"hotscore", "lru", "caffeine", "caffeine-same-entries"})
  public String cache;

  private long capacityBytes;
  private byte[][] keys;
  private byte[] value;
  private int[] trace;
  private HotscoreCache nativeCache;
  private Cache<ByteKey, byte[]> caffeine;

  /** byte[] keys with value equality, for Caffeine. */
  record ByteKey(byte[] bytes) {
    @Override
    public boolean equals(Object o) {
      return o instanceof ByteKey k && Arrays.equals(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }
  }

  @AuxCounters(AuxCounters.Type.EVENTS)
  @State(Scope.Thread)
  public static class Hits {
    public long hits;
    public long lookups;
  }

  /** Each thread walks the trace from its own offset (run with -t 1 and -t 2). */
  @State(Scope.Thread)
  public static class Cursor {
    int next;

    @Setup(Level.Trial)
    public void setUp() {
      next = (int) (Thread.currentThread().getId() * 7919) & (TRACE - 1);
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom rnd = new SplittableRandom(5);
    capacityBytes = (long) budgetMiB << 20;
    keys = new byte[budgetMiB * KEYS_PER_MIB][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = ("idx|city|" + i).getBytes();
    }
    value = new byte[VALUE_BYTES];
    trace = zipfTrace(rnd, keys.length);
    switch (cache) {
      case "hotscore", "lru" ->
          nativeCache =
              HotscoreCache.builder()
                  .capacityBytes(capacityBytes)
                  .policy(
                      cache.equals("lru")
                          ? HotscoreCache.Policy.LRU
                          : HotscoreCache.Policy.HOTSCORE)
                  .build();
      case "caffeine-same-entries" ->
          caffeine =
              Caffeine.newBuilder().maximumSize(nativeEntries()).executor(Runnable::run).build();
      default ->
          caffeine =
              Caffeine.newBuilder()
                  .maximumWeight(capacityBytes)
                  .weigher((ByteKey k, byte[] v) -> k.bytes().length + v.length)
                  .executor(Runnable::run)
                  .build();
    }
  }

  /** Entries the native hotscore cache holds in the budget once full. */
  private long nativeEntries() {
    try (HotscoreCache probe = HotscoreCache.builder().capacityBytes(capacityBytes).build()) {
      for (byte[] key : keys) probe.put(key, value);
      return probe.stats().entries();
    }
  }

  /** Key ranks drawn from a Zipf(s) law by inverting its CDF. */
  private static int[] zipfTrace(SplittableRandom rnd, int distinctKeys) {
    double[] cdf = new double[distinctKeys];
    double sum = 0;
    for (int i = 0; i < distinctKeys; i++) {
      sum += 1.0 / Math.pow(i + 1, ZIPF_S);
      cdf[i] = sum;
    }
    int[] t = new int[TRACE];
    for (int i = 0; i < TRACE; i++) {
      int at = Arrays.binarySearch(cdf, rnd.nextDouble() * sum);
      t[i] = Math.min(at >= 0 ? at : -at - 1, distinctKeys - 1);
    }
    return t;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (nativeCache != null) {
      nativeCache.close();
    }
  }

  @Benchmark
  public Object getOrPut(Hits hits, Cursor cursor) {
    byte[] key = keys[trace[cursor.next++ & (TRACE - 1)]];
    hits.lookups++;
    if (nativeCache != null) {
      byte[] v = nativeCache.get(key);
      if (v != null) {
        hits.hits++;
        return v;
      }
      nativeCache.put(key, value);
      return value;
    }
    ByteKey k = new ByteKey(key);
    byte[] v = caffeine.getIfPresent(k);
    if (v != null) {
      hits.hits++;
      return v;
    }
    caffeine.put(k, value);
    return value;
  }
}
