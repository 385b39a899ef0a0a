package io.scbf.hbase.regionserver.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.regionserver.querymatcher.DeleteTracker;
import org.apache.hadoop.hbase.regionserver.querymatcher.NewVersionBehaviorTracker;
import org.apache.hadoop.hbase.regionserver.querymatcher.ScanDeleteTracker;
import org.apache.hadoop.hbase.regionserver.querymatcher.ScanQueryMatcher.MatchCode;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * {@link IndexVersionTracker} against HBase's own {@link NewVersionBehaviorTracker}, the oracle:
 * the same random rows (puts and every kind of delete marker, repeated timestamps and sequence ids,
 * empty qualifiers, rows longer than the replay limit) fed to both as a user scan and as a
 * compaction feed them, every answer compared.
 */
class IndexVersionTrackerTest {
  private static final byte[] ROW = Bytes.toBytes("r");
  private static final byte[] FAMILY = Bytes.toBytes("i");
  private static final byte[] OTHER_FAMILY = Bytes.toBytes("d");
  private static final byte[][] QUALIFIERS = {
    new byte[0], Bytes.toBytes("a"), Bytes.toBytes("b"), Bytes.toBytes("c")
  };

  @Test
  void answersAsHBasesTrackerOnRandomRows() throws IOException {
    long seed = Long.getLong("scbf.tracker.seed", 20261129L);
    Random random = new Random(seed);
    int rowsWithMarkers = 0, rowsPastReplay = 0;
    for (int round = 0; round < 400; round++) {
      int minVersions = random.nextInt(2);
      long oldestStamp = random.nextInt(4);
      TreeSet<byte[]> columns = null;
      if (random.nextBoolean()) {
        columns = new TreeSet<>(Bytes.BYTES_COMPARATOR);
        for (byte[] q : QUALIFIERS) if (random.nextBoolean()) columns.add(q);
      }
      NewVersionBehaviorTracker stock = stock(columns, minVersions, oldestStamp);
      // As in a data region: the tracker answers for its local index families only.
      List<byte[]> families =
          switch (random.nextInt(3)) {
            case 0 -> null;
            case 1 -> List.of(OTHER_FAMILY, FAMILY);
            default -> List.of(OTHER_FAMILY);
          };
      DeleteTracker replaced =
          IndexVersionTracker.replacing(stock(columns, minVersions, oldestStamp), families);
      assertInstanceOf(IndexVersionTracker.class, replaced);
      IndexVersionTracker fast = (IndexVersionTracker) replaced;
      boolean userScan = random.nextBoolean();
      for (int r = 0; r < 20; r++) {
        List<Cell> row = randomRow(random);
        if (row.stream().anyMatch(c -> PrivateCellUtil.isDelete(c.getTypeByte()))) {
          rowsWithMarkers++;
        }
        if (row.size() > IndexVersionTracker.MAX_REPLAY) rowsPastReplay++;
        String where = "seed " + seed + ", round " + round + ", row " + r + ": " + row;
        feed(stock, fast, row, userScan, random, where);
        assertEquals(families != null && families.size() == 1, fast.readsAsHBase(), where);
      }
    }
    assertTrue(
        rowsWithMarkers > 1000 && rowsPastReplay > 50, rowsWithMarkers + " " + rowsPastReplay);
  }

  @Test
  void keepsHBasesTrackerWhereItDoesNotApply() {
    NewVersionBehaviorTracker threeVersions =
        new NewVersionBehaviorTracker(null, CellComparator.getInstance(), 0, 3, 3, 0);
    assertSame(threeVersions, IndexVersionTracker.replacing(threeVersions));
    ScanDeleteTracker classic = new ScanDeleteTracker(CellComparator.getInstance());
    assertSame(classic, IndexVersionTracker.replacing(classic));
    assertNull(IndexVersionTracker.unavailableReason());
  }

  private static NewVersionBehaviorTracker stock(
      TreeSet<byte[]> columns, int minVersions, long oldestStamp) {
    return new NewVersionBehaviorTracker(
        columns, CellComparator.getInstance(), minVersions, 1, 1, oldestStamp);
  }

  /**
   * As HBase's matchers call a tracker that is both delete and column tracker: a reset per row
   * (once per role), markers added, each put checked for deletion, then (user scans) counted as a
   * version, the rest of its column skipped once a version says so.
   */
  private static void feed(
      NewVersionBehaviorTracker stock,
      IndexVersionTracker fast,
      List<Cell> row,
      boolean userScan,
      Random random,
      String where)
      throws IOException {
    for (NewVersionBehaviorTracker t : List.of(stock, fast)) {
      t.reset();
      t.reset();
    }
    byte[] skipping = null;
    for (Cell cell : row) {
      if (skipping != null && CellUtil.matchingQualifier(cell, skipping)) continue;
      skipping = null;
      assertEquals(
          outcome(stock::isEmpty), outcome(fast::isEmpty), where + " isEmpty before " + cell);
      if (PrivateCellUtil.isDelete(cell.getTypeByte())) {
        assertEquals(
            outcome(
                () -> {
                  stock.add(cell);
                  return "added";
                }),
            outcome(
                () -> {
                  fast.add(cell);
                  return "added";
                }),
            where + " add " + cell);
        continue;
      }
      Object deleted = outcome(() -> stock.isDeleted(cell));
      assertEquals(deleted, outcome(() -> fast.isDeleted(cell)), where + " isDeleted " + cell);
      if (random.nextInt(8) == 0) fast.beforeShipped();
      if (!userScan || deleted != DeleteTracker.DeleteResult.NOT_DELETED) continue;
      MatchCode column = stock.checkColumn(cell, cell.getTypeByte());
      assertEquals(column, fast.checkColumn(cell, cell.getTypeByte()), where + " column " + cell);
      assertEquals(stock.done(), fast.done(), where + " done after " + cell);
      assertEquals(stock.getColumnHint() == null, fast.getColumnHint() == null, where);
      if (column == MatchCode.SEEK_NEXT_ROW) break;
      if (column == MatchCode.SEEK_NEXT_COL) {
        skipping = CellUtil.cloneQualifier(cell);
        continue;
      }
      MatchCode code = stock.checkVersions(cell, cell.getTimestamp(), cell.getTypeByte(), false);
      assertEquals(
          code,
          fast.checkVersions(cell, cell.getTimestamp(), cell.getTypeByte(), false),
          where + " checkVersions " + cell);
      if (code == MatchCode.SEEK_NEXT_COL || code == MatchCode.INCLUDE_AND_SEEK_NEXT_COL) {
        skipping = CellUtil.cloneQualifier(cell);
      }
    }
  }

  /**
   * A call's answer, or the class of what it threw: HBase's tracker throws on some marker orders of
   * the empty qualifier (a version delete after a family delete finds no column map), and this one
   * must then throw the same.
   */
  private static Object outcome(Callable<Object> call) {
    try {
      return call.call();
    } catch (Exception e) {
      return e.getClass();
    }
  }

  private interface Callable<T> {
    T call() throws Exception;
  }

  /** One row's cells in the order a store scanner gives them (sequence ids descending last). */
  private static List<Cell> randomRow(Random random) {
    int n = random.nextInt(10) == 0 ? 60 + random.nextInt(20) : 1 + random.nextInt(8);
    boolean markers = random.nextBoolean();
    List<Cell> cells = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      KeyValue.Type type = KeyValue.Type.Put;
      byte[] qualifier = QUALIFIERS[random.nextInt(QUALIFIERS.length)];
      if (markers && random.nextInt(3) == 0) {
        type =
            switch (random.nextInt(4)) {
              case 0 -> KeyValue.Type.Delete;
              case 1 -> KeyValue.Type.DeleteColumn;
              case 2 -> KeyValue.Type.DeleteFamily;
              default -> KeyValue.Type.DeleteFamilyVersion;
            };
        if (type == KeyValue.Type.DeleteFamily || type == KeyValue.Type.DeleteFamilyVersion) {
          qualifier = new byte[0];
        }
      }
      KeyValue kv =
          new KeyValue(ROW, FAMILY, qualifier, 1 + random.nextInt(4), type, Bytes.toBytes(i));
      kv.setSequenceId(1 + random.nextInt(6));
      cells.add(kv);
    }
    CellComparator order = CellComparator.getInstance();
    cells.sort(
        (a, b) -> {
          int c = order.compare(a, b);
          return c != 0 ? c : Long.compare(b.getSequenceId(), a.getSequenceId());
        });
    return cells;
  }
}
