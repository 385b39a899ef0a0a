package io.scbf.mapreduce;

/** Counters of a bulk index build, shown with Hadoop's own at the end of each job. */
public enum BuildCounter {
  /** Data rows the mappers read (rows holding at least one indexed or covered column). */
  ROWS_READ,
  /** Rows read that lack the indexed column, so have no index row. */
  ROWS_WITHOUT_VALUE,
  /** Index rows emitted (one per row holding the indexed column). */
  INDEX_ROWS_WRITTEN,
  /** Bytes of the data cells read. */
  DATA_BYTES_READ,
  /** Bytes of the index rows emitted: row key and value. */
  INDEX_BYTES_WRITTEN
}
