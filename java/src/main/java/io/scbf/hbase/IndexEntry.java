package io.scbf.hbase;

import java.util.Map;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * One index entry: a data row key, the covered columns' values stored with it (as of the last index
 * write; not re-checked against the data row), and the indexed value when the query answers one
 * (ranges in value order: as {@code Bytes.toBytes} of the column's type writes it, a {@code
 * BIG_DECIMAL} at its smallest scale; null otherwise).
 */
@InterfaceAudience.Public
public record IndexEntry(byte[] row, Map<IndexSpec.Column, byte[]> covered, byte[] value) {
  /** An entry without its value (point lookups: the value is the one asked). */
  public IndexEntry(byte[] row, Map<IndexSpec.Column, byte[]> covered) {
    this(row, covered, null);
  }
}
