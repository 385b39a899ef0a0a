package io.scbf.hbase;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * One index entry: a data row key, the covered columns' values stored with it (as of the last index
 * write; not re-checked against the data row), and the indexed value when the query answers one
 * (ranges in value order: as {@code Bytes.toBytes} of the column's type writes it, a {@code
 * BIG_DECIMAL} at its smallest scale; null otherwise).
 *
 * <p>A value: two entries with the same bytes are equal; an entry copies the arrays it is given and
 * hands out copies, so no caller can change it.
 */
@InterfaceAudience.Public
public record IndexEntry(byte[] row, Map<IndexSpec.Column, byte[]> covered, byte[] value) {
  public IndexEntry {
    if (row == null) throw new IllegalArgumentException("an index entry needs a row key");
    row = row.clone();
    value = value == null ? null : value.clone();
    Map<IndexSpec.Column, byte[]> copy = new LinkedHashMap<>();
    if (covered != null) covered.forEach((c, v) -> copy.put(c, v == null ? null : v.clone()));
    covered = Collections.unmodifiableMap(copy);
  }

  /** An entry without its value (point lookups: the value is the one asked). */
  public IndexEntry(byte[] row, Map<IndexSpec.Column, byte[]> covered) {
    this(row, covered, null);
  }

  @Override
  public byte[] row() {
    return row.clone();
  }

  /** The covered values (unmodifiable; each array a copy). */
  @Override
  public Map<IndexSpec.Column, byte[]> covered() {
    Map<IndexSpec.Column, byte[]> copy = new LinkedHashMap<>();
    covered.forEach((c, v) -> copy.put(c, v == null ? null : v.clone()));
    return Collections.unmodifiableMap(copy);
  }

  @Override
  public byte[] value() {
    return value == null ? null : value.clone();
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) return true;
    if (!(o instanceof IndexEntry e)) return false;
    if (!Arrays.equals(row, e.row) || !Arrays.equals(value, e.value)) return false;
    if (!covered.keySet().equals(e.covered.keySet())) return false;
    for (Map.Entry<IndexSpec.Column, byte[]> c : covered.entrySet()) {
      if (!Arrays.equals(c.getValue(), e.covered.get(c.getKey()))) return false;
    }
    return true;
  }

  @Override
  public int hashCode() {
    int h = 31 * Arrays.hashCode(row) + Arrays.hashCode(value);
    for (Map.Entry<IndexSpec.Column, byte[]> c : covered.entrySet()) {
      h += c.getKey().hashCode() ^ Arrays.hashCode(c.getValue()); // order-free, as Map's
    }
    return h;
  }

  /** {@code IndexEntry[row=r1, covered={d:c=x}, value=v]}, bytes as {@code toStringBinary}. */
  @Override
  public String toString() {
    StringJoiner cov = new StringJoiner(", ", "{", "}");
    covered.forEach((c, v) -> cov.add(c + "=" + (v == null ? "null" : Bytes.toStringBinary(v))));
    return "IndexEntry[row="
        + Bytes.toStringBinary(row)
        + ", covered="
        + cov
        + ", value="
        + (value == null ? "null" : Bytes.toStringBinary(value))
        + "]";
  }
}
