package io.scbf.mapreduce;

/** Counters of a MapReduce verify (see {@link io.scbf.hbase.VerifyReport} for their meaning). */
public enum VerifyCounter {
  DATA_ROWS,
  INDEX_ROWS,
  MISSING,
  WRONG_COVERED,
  STALE,
  WRITTEN,
  REMOVED,
  KEPT_CURRENT
}
