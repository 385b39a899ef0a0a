package io.scbf.hbase.shared;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class LocalIndexKeysTest {
  private static final byte[] ALIAS = Bytes.toBytes("city");

  @Test
  void entriesMapBothWaysAndStayInTheirRange() {
    byte[] start = Bytes.toBytes("row-5");
    LocalIndexKeys keys = new LocalIndexKeys(start);
    byte[] indexKey =
        IndexKeyCodec.rowKey(0, ALIAS, Bytes.toBytes("Nanjing"), Bytes.toBytes("row-7"));
    byte[] row = keys.physical(indexKey);
    assertArrayEquals(indexKey, keys.indexKey(row));
    assertTrue(keys.isOwn(row));
    assertTrue(keys.isOwn(keys.marker()));
    assertTrue(Bytes.compareTo(keys.first(), keys.marker()) <= 0, "the marker sorts first");
    assertTrue(Bytes.compareTo(keys.marker(), row) < 0);
    assertTrue(Bytes.compareTo(row, keys.last()) < 0);
    assertTrue(Bytes.compareTo(start, keys.first()) < 0);
    // Another region's entries and plain data rows are not this region's entries.
    assertFalse(keys.isOwn(new LocalIndexKeys(Bytes.toBytes("row-6")).physical(indexKey)));
    assertFalse(keys.isOwn(Bytes.toBytes("row-5x")));
    assertFalse(keys.isOwn(start));
  }

  @Test
  void aRegionFitsItsEntriesUnlessItsEndCutsTheirRange() {
    assertTrue(LocalIndexKeys.fits(new byte[0], new byte[0]));
    assertTrue(LocalIndexKeys.fits(Bytes.toBytes("a"), Bytes.toBytes("b")));
    assertTrue(LocalIndexKeys.fits(Bytes.toBytes("a"), new byte[] {'a', 1}));
    assertFalse(LocalIndexKeys.fits(Bytes.toBytes("a"), new byte[] {'a', 0, 5}));
    assertFalse(LocalIndexKeys.fits(new byte[0], new byte[] {0, 0x70}));
    assertTrue(LocalIndexKeys.fits(new byte[0], new byte[] {1}));
  }
}
