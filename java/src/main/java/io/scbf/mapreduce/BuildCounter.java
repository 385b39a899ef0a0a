package io.scbf.mapreduce;

/** Counters of a bulk index build, shown with Hadoop's own at the end of each job. */
public enum BuildCounter {
  /** Data rows the mappers read (rows holding at least one indexed or covered column). */
  ROWS_READ,
  /** Rows read that lack the indexed column, so have no index row. */
  ROWS_WITHOUT_VALUE,
  /**
   * Rows read whose indexed column of a declared type holds a value not of that type (written
   * before the index existed), so have no index row; each map task logs its first {@value
   * IndexRowMapper#INVALID_LOGGED}.
   */
  ROWS_INVALID_VALUE,
  /** Index rows emitted (one per row holding the indexed column). */
  INDEX_ROWS_WRITTEN,
  /** Bytes of the data cells read. */
  DATA_BYTES_READ,
  /** Bytes of the index rows emitted: row key and value. */
  INDEX_BYTES_WRITTEN
}
