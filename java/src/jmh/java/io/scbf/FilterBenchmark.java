package io.scbf;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * JNI cost and filter throughput: an empty native call, single-key and batch add / mightContain on
 * a SplitCountingBloomFilter, and Guava's BloomFilter at the same keys and FPP.
 *
 * <p>Workload (same as the C benchmark's): {@code KEYS} random 16-byte keys; each filter is sized
 * for KEYS at 1% and holds half of them, so lookups are half hits, half misses. Batch benchmarks
 * process {@value #BATCH} keys per invocation and report time per key. The *Small variants use
 * filters sized for {@value #SMALL_KEYS} keys, which stay in cache, to show per-call overhead.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx2g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class FilterBenchmark {
  static final int KEYS = 1 << 20;
  static final int KEY_BYTES = 16;
  static final int BATCH = 1024;
  static final double FPP = 0.01;

  /** Keys of the cache-resident filters, where call overhead rather than memory dominates. */
  static final int SMALL_KEYS = 4096;

  private byte[][] keys;
  private KeyBatch[] batches;
  private boolean[] results;
  private SplitCountingBloomFilter scbf;
  private BloomFilter<byte[]> guava;
  private SplitCountingBloomFilter smallScbf;
  private BloomFilter<byte[]> smallGuava;
  private int next;

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom rnd = new SplittableRandom(1);
    keys = new byte[KEYS][KEY_BYTES];
    for (byte[] k : keys) {
      rnd.nextBytes(k);
    }
    batches = new KeyBatch[KEYS / BATCH];
    for (int b = 0; b < batches.length; b++) {
      batches[b] = new KeyBatch(BATCH, BATCH * KEY_BYTES);
      for (int i = 0; i < BATCH; i++) {
        batches[b].add(keys[b * BATCH + i]);
      }
    }
    results = new boolean[BATCH];
    scbf = SplitCountingBloomFilter.create(KEYS, FPP);
    guava = BloomFilter.create(Funnels.byteArrayFunnel(), KEYS, FPP);
    for (int i = 0; i < KEYS; i += 2) {
      scbf.add(keys[i]);
      guava.put(keys[i]);
    }
    smallScbf = SplitCountingBloomFilter.create(SMALL_KEYS, FPP);
    smallGuava = BloomFilter.create(Funnels.byteArrayFunnel(), SMALL_KEYS, FPP);
    for (int i = 0; i < SMALL_KEYS; i += 2) {
      smallScbf.add(keys[i]);
      smallGuava.put(keys[i]);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    scbf.close();
    smallScbf.close();
  }

  private byte[] nextKey() {
    return keys[next++ & (KEYS - 1)];
  }

  private KeyBatch nextBatch() {
    return batches[next++ & (batches.length - 1)];
  }

  @Benchmark
  public void emptyNativeCall() {
    NativeBridge.emptyCall();
  }

  @Benchmark
  public boolean scbfMightContain() {
    return scbf.mightContain(nextKey());
  }

  @Benchmark
  public boolean guavaMightContain() {
    return guava.mightContain(nextKey());
  }

  @Benchmark
  public boolean scbfMightContainSmall() {
    return smallScbf.mightContain(keys[next++ & (SMALL_KEYS - 1)]);
  }

  @Benchmark
  public boolean guavaMightContainSmall() {
    return smallGuava.mightContain(keys[next++ & (SMALL_KEYS - 1)]);
  }

  /** Adds accumulate over the run (counters saturate, which costs the same). */
  @Benchmark
  public void scbfAdd() {
    scbf.add(nextKey());
  }

  @Benchmark
  public boolean guavaPut() {
    return guava.put(nextKey());
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int scbfMightContainBatch() {
    return scbf.mightContainAll(nextBatch(), results);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void guavaMightContainLoop(Blackhole bh) {
    for (int i = 0; i < BATCH; i++) {
      bh.consume(guava.mightContain(nextKey()));
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void scbfAddBatch() {
    scbf.addAll(nextBatch());
  }

  /**
   * The C benchmark's "L2-sized" case (docs/benchmarks-filters.md: 1 MiB of 4-bit counters, P =
   * 0.001, k = 10, capacity 145,862), for a like-for-like comparison: 8-byte keys, the timed keys
   * plus half the capacity resident, lookups of present keys.
   */
  @State(Scope.Benchmark)
  public static class CBenchL2Case {
    static final int CAPACITY = 145_862;
    SplitCountingBloomFilter filter;
    KeyBatch[] batches;
    byte[][] timed;
    boolean[] results = new boolean[BATCH];
    int next;

    @Setup(Level.Trial)
    public void setUp() {
      filter = SplitCountingBloomFilter.create(CAPACITY, 0.001);
      timed = new byte[CAPACITY][];
      for (int i = 0; i < CAPACITY + CAPACITY / 2; i++) {
        byte[] key =
            ByteBuffer.allocate(8)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(i * 0x9E3779B97F4A7C15L)
                .array();
        filter.add(key);
        if (i < CAPACITY) {
          timed[i] = key;
        }
      }
      batches = new KeyBatch[CAPACITY / BATCH];
      for (int b = 0; b < batches.length; b++) {
        batches[b] = new KeyBatch(BATCH, 8 * BATCH);
        for (int i = 0; i < BATCH; i++) {
          batches[b].add(timed[b * BATCH + i]);
        }
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      filter.close();
    }
  }

  @Benchmark
  public boolean scbfMightContainCBenchL2(CBenchL2Case c) {
    int i = c.next++;
    if (c.next == CBenchL2Case.CAPACITY) {
      c.next = 0;
    }
    return c.filter.mightContain(c.timed[i]);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int scbfMightContainBatchCBenchL2(CBenchL2Case c) {
    int b = c.next++;
    if (c.next == c.batches.length) {
      c.next = 0;
    }
    return c.filter.mightContainAll(c.batches[b], c.results);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void guavaPutLoop(Blackhole bh) {
    for (int i = 0; i < BATCH; i++) {
      bh.consume(guava.put(nextKey()));
    }
  }
}
