package io.scbf.hbase.bench;

import java.util.Arrays;

/** Latency samples in microseconds, summarized as median and p90 (nearest rank). */
final class Latencies {
  private long[] micros = new long[64];
  private int size;

  void add(long value) {
    if (size == micros.length) micros = Arrays.copyOf(micros, size * 2);
    micros[size++] = value;
  }

  int count() {
    return size;
  }

  double medianMs() {
    return percentile(50) / 1000.0;
  }

  double p90Ms() {
    return percentile(90) / 1000.0;
  }

  double mean() {
    long sum = 0;
    for (int i = 0; i < size; i++) sum += micros[i];
    return size == 0 ? 0 : (double) sum / size;
  }

  private long percentile(int p) {
    if (size == 0) return 0;
    long[] sorted = Arrays.copyOf(micros, size);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * size);
    return sorted[Math.max(0, rank - 1)];
  }
}
