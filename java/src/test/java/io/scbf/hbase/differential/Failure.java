package io.scbf.hbase.differential;

import java.util.List;

/**
 * What went wrong at one step: a query whose answer differs from the oracle's, or a write that
 * behaved otherwise than the docs say. {@link #signature} is what the shrinker keeps failing.
 */
record Failure(
    int step,
    Op op,
    String signature,
    Query query,
    List<String> expected,
    List<String> actual,
    String detail) {
  static Failure ofQuery(
      int step, Op op, Query q, List<String> expected, List<String> actual, String detail) {
    return new Failure(step, op, "query " + q, q, expected, actual, detail);
  }

  static Failure ofOp(int step, Op op, String what, String detail) {
    return new Failure(step, op, what + " " + op.kind(), null, List.of(), List.of(), detail);
  }

  String describe() {
    StringBuilder b = new StringBuilder();
    b.append("at step ").append(step).append(" (after ").append(op).append("): ").append(signature);
    if (query != null) {
      b.append("\n  expected (HBase): ").append(expected);
      b.append("\n  actual (index):   ").append(actual);
    }
    if (detail != null) b.append("\n  ").append(detail);
    return b.toString();
  }
}
