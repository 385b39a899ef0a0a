package io.scbf.mapreduce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.shared.CoveredValues;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexRows;
import io.scbf.hbase.shared.LocalIndexKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.mapreduce.Counters;
import org.junit.jupiter.api.Test;

/** The mapper's logic on hand-made Results, without a cluster. */
class IndexRowMapperTest {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] NAME = Bytes.toBytes("name");
  static final IndexSpec SPEC =
      IndexSpec.builder(D, CITY)
          .alias("city")
          .layout(IndexSpec.Layout.BY_ROW)
          .buckets(8)
          .covered(D, NAME)
          .build();

  final IndexRows indexRows = new IndexRows(SPEC);
  final Counters counters = new Counters();
  final List<Put> emitted = new ArrayList<>();

  private void map(Result row) throws Exception {
    IndexRowMapper.emit(
        indexRows,
        UnaryOperator.identity(),
        row,
        (key, put) -> {
          assertArrayEquals(put.getRow(), key.copyBytes(), "keyed by the index row key");
          emitted.add(put);
        },
        counters::findCounter);
  }

  private long count(BuildCounter c) {
    return counters.findCounter(c).getValue();
  }

  private static Result row(String key, byte[]... qualifierValuePairs) {
    List<Cell> cells = new ArrayList<>();
    for (int i = 0; i < qualifierValuePairs.length; i += 2) {
      cells.add(
          new KeyValue(
              Bytes.toBytes(key), D, qualifierValuePairs[i], 5L, qualifierValuePairs[i + 1]));
    }
    cells.sort(CellComparator.getInstance());
    return Result.create(cells);
  }

  @Test
  void aRowWithTheColumnGivesTheStreamingIndexRow() throws Exception {
    byte[] value = {0, 'x', 0}; // 0x00 bytes are escaped in the key
    map(row("r1", CITY, value, NAME, Bytes.toBytes("ann")));
    assertEquals(1, emitted.size());
    Put put = emitted.get(0);
    byte[] userRow = Bytes.toBytes("r1");
    assertArrayEquals(
        IndexKeyCodec.rowKey(
            IndexKeyCodec.bucket(userRow, 8), Bytes.toBytes("city"), value, userRow),
        put.getRow());
    byte[] covered = CellUtil.cloneValue(put.getFamilyCellMap().values().iterator().next().get(0));
    assertArrayEquals(Bytes.toBytes("ann"), CoveredValues.decode(covered).get(0));
    assertEquals(1, count(BuildCounter.ROWS_READ));
    assertEquals(1, count(BuildCounter.INDEX_ROWS_WRITTEN));
    assertEquals(put.getRow().length + covered.length, count(BuildCounter.INDEX_BYTES_WRITTEN));
    assertEquals(0, count(BuildCounter.ROWS_WITHOUT_VALUE));
    assertEquals(
        Result.getTotalSizeOfCells(row("r1", CITY, value, NAME, Bytes.toBytes("ann"))),
        count(BuildCounter.DATA_BYTES_READ));
  }

  @Test
  void aRowWithoutTheColumnIsCountedAndEmitsNothing() throws Exception {
    map(row("r2", NAME, Bytes.toBytes("bob")));
    map(row("r3", CITY, Bytes.toBytes(""))); // an empty value is a value
    assertEquals(1, emitted.size());
    assertEquals(2, count(BuildCounter.ROWS_READ));
    assertEquals(1, count(BuildCounter.ROWS_WITHOUT_VALUE));
    assertEquals(1, count(BuildCounter.INDEX_ROWS_WRITTEN));
    assertArrayEquals(new byte[0], IndexKeyCodec.parse(emitted.get(0).getRow()).value());
  }

  @Test
  void aRowWhoseTypedValueIsNotOfItsTypeIsCountedApartAndEmitsNothing() throws Exception {
    IndexSpec typed =
        IndexSpec.builder(D, CITY)
            .alias("city")
            .type(IndexSpec.ValueType.LONG)
            .layout(IndexSpec.Layout.BY_ROW)
            .build();
    IndexRows rows = new IndexRows(typed);
    for (Result r :
        List.of(
            row("r1", CITY, Bytes.toBytes(-5L)),
            row("r2", CITY, new byte[] {1, 2, 3}), // not Bytes.toBytes(long)
            row("r3", NAME, Bytes.toBytes("bob")),
            row("r4", CITY, Bytes.toBytes("12345678901")))) {
      IndexRowMapper.emit(
          rows, UnaryOperator.identity(), r, (k, put) -> emitted.add(put), counters::findCounter);
    }
    assertEquals(1, emitted.size());
    assertArrayEquals(
        IndexValues.indexForm(typed, Bytes.toBytes(-5L)),
        IndexKeyCodec.parse(emitted.get(0).getRow()).value(),
        "the index form, not the raw bytes");
    assertEquals(4, count(BuildCounter.ROWS_READ));
    assertEquals(2, count(BuildCounter.ROWS_INVALID_VALUE));
    assertEquals(1, count(BuildCounter.ROWS_WITHOUT_VALUE));
    assertEquals(1, count(BuildCounter.INDEX_ROWS_WRITTEN));
    String why = rows.invalidValue(row("r2", CITY, new byte[] {1, 2, 3}));
    assertTrue(why.contains("d:city") && why.contains("LONG"), why);
  }

  @Test
  void aLocalIndexGivesTheRegionsEntryAndItsMarker() throws Exception {
    IndexSpec local = IndexSpec.builder(D, CITY).alias("city").local().covered(D, NAME).build();
    byte[] start = Bytes.toBytes("r0");
    LocalIndexKeys keys = new LocalIndexKeys(start);
    byte[] family = IndexCatalog.localFamily("city");
    IndexRowMapper.emit(
        new IndexRows(local),
        IndexRowMapper.localEntries(keys, family),
        row("r1", CITY, Bytes.toBytes("nj"), NAME, Bytes.toBytes("ann")),
        (key, put) -> emitted.add(put),
        counters::findCounter);
    assertEquals(1, emitted.size());
    Put entry = emitted.get(0);
    byte[] userRow = Bytes.toBytes("r1");
    // What the region writes with the row: its start key, then the bucket-0 index key.
    assertArrayEquals(
        keys.physical(IndexKeyCodec.rowKey(0, Bytes.toBytes("city"), Bytes.toBytes("nj"), userRow)),
        entry.getRow());
    assertTrue(Bytes.startsWith(entry.getRow(), start));
    Cell cell = entry.get(family, IndexCatalog.INDEX_QUALIFIER).get(0);
    assertEquals(HConstants.LATEST_TIMESTAMP, cell.getTimestamp(), "the HFile writer's time");
    assertArrayEquals(Bytes.toBytes("ann"), CoveredValues.decode(CellUtil.cloneValue(cell)).get(0));
    assertEquals(1, count(BuildCounter.INDEX_ROWS_WRITTEN));
  }
}
