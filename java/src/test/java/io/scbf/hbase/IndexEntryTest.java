package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** Issue 51: entries compare and hash by their bytes, and share no array with their callers. */
class IndexEntryTest {
  private static final IndexSpec.Column C =
      new IndexSpec.Column(Bytes.toBytes("d"), Bytes.toBytes("c"));

  private static IndexEntry entry(String row, String covered, String value) {
    Map<IndexSpec.Column, byte[]> cov = new HashMap<>();
    if (covered != null) cov.put(C, Bytes.toBytes(covered));
    return new IndexEntry(Bytes.toBytes(row), cov, value == null ? null : Bytes.toBytes(value));
  }

  @Test
  void equalEntriesAreEqual() {
    assertEquals(entry("r1", "x", "v"), entry("r1", "x", "v"));
    assertEquals(entry("r1", "x", "v").hashCode(), entry("r1", "x", "v").hashCode());
    assertEquals(entry("r1", null, null), entry("r1", null, null));
    assertNotEquals(entry("r1", "x", "v"), entry("r1", "y", "v"));
    assertNotEquals(entry("r1", "x", "v"), entry("r1", "x", null));
    assertNotEquals(entry("r1", "x", "v"), entry("r2", "x", "v"));
  }

  @Test
  void anEntryOwnsItsArrays() {
    byte[] row = Bytes.toBytes("r1");
    byte[] value = Bytes.toBytes("v");
    Map<IndexSpec.Column, byte[]> covered = new HashMap<>();
    covered.put(C, Bytes.toBytes("x"));
    IndexEntry e = new IndexEntry(row, covered, value);
    row[0] = 'z';
    value[0] = 'z';
    covered.get(C)[0] = 'z';
    covered.clear();
    e.row()[1] = '9';
    e.value()[0] = 'q';
    e.covered().get(C)[0] = 'q';
    assertEquals(entry("r1", "x", "v"), e);
    assertThrows(UnsupportedOperationException.class, () -> e.covered().clear());
  }

  @Test
  void theTextShowsTheBytes() {
    assertEquals("IndexEntry[row=r1, covered={d:c=x}, value=v]", entry("r1", "x", "v").toString());
  }
}
