package io.scbf.hbase.differential;

import java.util.ArrayList;
import java.util.List;

/**
 * Shrinks a failing sequence: delta debugging (remove chunks, halving their size) and then one-op
 * removal passes, until no single op can be removed while the same check still fails. Every attempt
 * runs on a fresh table. Bounded by {@code maxMillis}: a shrink that runs out returns the shortest
 * failing sequence found so far.
 */
final class Shrinker {
  private final Runner runner;
  private final long maxMillis;
  int attempts;

  Shrinker(Runner runner, long maxMillis) {
    this.runner = runner;
    this.maxMillis = maxMillis;
  }

  record Result(List<Op> ops, Failure failure, boolean reproduced, boolean complete) {}

  Result shrink(Sequence seq, Failure original) throws Exception {
    long deadline = System.currentTimeMillis() + maxMillis;
    List<Op> ops = new ArrayList<>(seq.ops().subList(0, original.step() + 1));
    Failure last = attempt(seq, ops, original);
    if (last == null) return new Result(ops, original, false, false);
    int n = 2;
    while (ops.size() >= 2 && System.currentTimeMillis() < deadline) {
      int chunk = (ops.size() + n - 1) / n;
      boolean removed = false;
      for (int from = 0;
          from < ops.size() && System.currentTimeMillis() < deadline;
          from += chunk) {
        List<Op> without = new ArrayList<>(ops.subList(0, from));
        without.addAll(ops.subList(Math.min(ops.size(), from + chunk), ops.size()));
        if (without.isEmpty()) continue;
        Failure f = attempt(seq, without, original);
        if (f != null) {
          ops = without;
          last = f;
          removed = true;
          break;
        }
      }
      if (removed) n = Math.max(n - 1, 2);
      else if (chunk == 1) break;
      else n = Math.min(n * 2, ops.size());
    }
    boolean changed = true;
    while (changed && System.currentTimeMillis() < deadline) {
      changed = false;
      for (int i = ops.size() - 1; i >= 0 && ops.size() > 1; i--) {
        if (System.currentTimeMillis() >= deadline) break;
        List<Op> without = new ArrayList<>(ops);
        without.remove(i);
        Failure f = attempt(seq, without, original);
        if (f != null) {
          ops = without;
          last = f;
          changed = true;
        }
      }
    }
    return new Result(ops, last, true, System.currentTimeMillis() < deadline);
  }

  private Failure attempt(Sequence seq, List<Op> ops, Failure original) throws Exception {
    attempts++;
    Failure f = runner.run(seq.withOps(ops), original);
    return f != null && f.signature().equals(original.signature()) ? f : null;
  }
}
