package io.scbf.hbase.shared;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** The held rows' keys: a drain walks them table by table and must neither skip nor mix one. */
class EventualRecordsTest {
  @Test
  void aHeldRowNamesItsTableAndRowAndSortsWithinItsTablesRange() {
    TableName table = TableName.valueOf("ns", "t");
    TableName longer = TableName.valueOf("ns", "t1");
    byte[] row = {0, 1, 'r', (byte) 0xff};
    byte[] held = EventualRecords.heldRow(table, row);
    assertEquals(table, EventualRecords.heldTableOf(held));
    assertArrayEquals(row, EventualRecords.heldDataRow(table, held));
    assertTrue(Bytes.startsWith(held, EventualRecords.heldPrefix(table)));
    assertTrue(Bytes.compareTo(EventualRecords.heldStart(), held) < 0);
    assertTrue(Bytes.compareTo(held, EventualRecords.heldAfter(table)) < 0);
    assertTrue(Bytes.compareTo(held, EventualRecords.heldStop()) < 0);
    byte[] other = EventualRecords.heldRow(longer, row);
    assertTrue(
        Bytes.compareTo(EventualRecords.heldAfter(table), other) <= 0,
        "a table whose name extends another's sorts after that one's held rows");
    assertFalse(Bytes.startsWith(other, EventualRecords.heldPrefix(table)));
    assertFalse(Bytes.startsWith(held, EventualRecords.rowKey(table, new byte[0])));
    assertFalse(Bytes.startsWith(held, EventualRecords.probeRow(0)));
  }
}
