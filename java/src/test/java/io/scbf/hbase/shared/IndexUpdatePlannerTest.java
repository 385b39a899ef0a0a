package io.scbf.hbase.shared;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.IndexSpec;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class IndexUpdatePlannerTest {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] X = Bytes.toBytes("x");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] NAME = Bytes.toBytes("name");
  static final byte[] ROW = Bytes.toBytes("r1");
  static final IndexSpec SPEC =
      IndexSpec.builder(D, CITY)
          .alias("c")
          .layout(IndexSpec.Layout.BY_ROW)
          .buckets(4)
          .covered(D, NAME)
          .build();
  static final IndexSpec.Column CITY_COL = SPEC.column();
  static final IndexSpec.Column NAME_COL = new IndexSpec.Column(D, NAME);
  final IndexUpdatePlanner planner = new IndexUpdatePlanner(List.of(SPEC));

  static byte[] b(String s) {
    return Bytes.toBytes(s);
  }

  static RowState state(String city, long ts) {
    return RowState.builder().put(CITY_COL, b(city), ts).build();
  }

  static byte[] indexKey(String city) {
    return IndexKeyCodec.rowKey(IndexKeyCodec.bucket(ROW, 4), b("c"), b(city), ROW);
  }

  /**
   * Seed 1030: HBase keeps only the oldest of one batch's family markers on NEW_VERSION_BEHAVIOR.
   */
  @Test
  void familyMarkersAtTwoTimestampsInOneBatchAreRefusedOnNewVersionBehavior() {
    List<org.apache.hadoop.hbase.client.Mutation> twoTimes =
        List.of(new Delete(ROW).addFamily(D, 5_000), new Delete(ROW).addFamily(D, 1_000));
    assertThrows(
        IndexUpdatePlanner.UnfollowableDeletesException.class,
        () -> planner.checkOneBatchFamilyMarkers(twoTimes, f -> true));
    planner.checkOneBatchFamilyMarkers(twoTimes, f -> false);
    planner.checkOneBatchFamilyMarkers(
        List.of(new Delete(ROW).addFamily(D, 5_000), new Delete(ROW).addFamily(D, 5_000)),
        f -> true);
    planner.checkOneBatchFamilyMarkers(
        List.of(new Delete(ROW).addFamily(D, 5_000), new Delete(ROW).addColumns(D, CITY, 1_000)),
        f -> true);
    planner.checkOneBatchFamilyMarkers(
        List.of(new Delete(ROW).addFamily(X, 5_000), new Delete(ROW).addFamily(X, 1_000)),
        f -> true);
  }

  @Test
  void putOfANewValueWritesOneIndexRowWithCoveredValues() {
    Put put = new Put(ROW).addColumn(D, CITY, 10, b("Nanjing")).addColumn(D, NAME, 10, b("Li"));
    assertTrue(planner.concernsIndex(put));
    RowState after = planner.apply(RowState.EMPTY, put);
    List<IndexUpdatePlanner.IndexMutation> ops = planner.diff(ROW, RowState.EMPTY, after);
    assertEquals(1, ops.size());
    Put index = (Put) ops.get(0).mutation();
    assertArrayEquals(indexKey("Nanjing"), index.getRow());
    List<byte[]> covered =
        CoveredValues.decode(
            org.apache.hadoop.hbase.CellUtil.cloneValue(
                index.get(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER).get(0)));
    assertArrayEquals(b("Li"), covered.get(0));
  }

  @Test
  void changingTheValueDeletesTheOldIndexRowAndPutsTheNew() {
    RowState before = state("Nanjing", 10);
    RowState after = planner.apply(before, new Put(ROW).addColumn(D, CITY, 20, b("Suzhou")));
    List<IndexUpdatePlanner.IndexMutation> ops = planner.diff(ROW, before, after);
    assertEquals(2, ops.size());
    assertTrue(ops.get(0).mutation() instanceof Delete);
    assertArrayEquals(indexKey("Nanjing"), ops.get(0).mutation().getRow());
    assertArrayEquals(indexKey("Suzhou"), ops.get(1).mutation().getRow());
  }

  @Test
  void indexRowsCarryTheirDataCellsTimestampAndDeletesTheReplacedOnes() {
    RowState before = state("Nanjing", 10);
    RowState after = planner.apply(before, new Put(ROW).addColumn(D, CITY, 20, b("Suzhou")));
    List<IndexUpdatePlanner.IndexMutation> ops = planner.diff(ROW, before, after);
    Delete delete = (Delete) ops.get(0).mutation();
    // A family delete marker at the replacement's timestamp: masks only index rows up to it, never
    // the row a later write of Nanjing puts (at that write's newer timestamp).
    List<org.apache.hadoop.hbase.Cell> markers =
        delete.getFamilyCellMap().get(IndexCatalog.INDEX_FAMILY);
    assertEquals(1, markers.size());
    assertEquals(org.apache.hadoop.hbase.Cell.Type.DeleteFamily, markers.get(0).getType());
    assertEquals(20, markers.get(0).getTimestamp());
    Put put = (Put) ops.get(1).mutation();
    assertEquals(
        20, put.get(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER).get(0).getTimestamp());
    RowState back = planner.apply(after, new Put(ROW).addColumn(D, CITY, 30, b("Nanjing")));
    Put again = (Put) planner.diff(ROW, after, back).get(1).mutation();
    assertEquals(
        30,
        again.get(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER).get(0).getTimestamp());
  }

  @Test
  void aCoveredRewriteIsNewerThanTheRowItReplaces() {
    RowState before = state("Nanjing", 10);
    RowState after = planner.apply(before, new Put(ROW).addColumn(D, NAME, 25, b("Li")));
    List<IndexUpdatePlanner.IndexMutation> ops = planner.diff(ROW, before, after);
    assertEquals(1, ops.size());
    Put put = (Put) ops.get(0).mutation();
    assertEquals(
        25, put.get(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER).get(0).getTimestamp());
    // Its later replacement's delete masks it: at least the covered cell's timestamp.
    RowState moved = planner.apply(after, new Put(ROW).addColumn(D, CITY, 30, b("Suzhou")));
    assertEquals(30, IndexUpdatePlanner.replacedAt(SPEC, after, moved));
    // A covered column deleted: the rewrite is at the delete marker, newer than the row at 25.
    RowState removed = planner.apply(after, new Delete(ROW).addColumns(D, NAME, 27));
    Put rewrite = (Put) planner.diff(ROW, after, removed).get(0).mutation();
    assertEquals(
        27,
        rewrite.get(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER).get(0).getTimestamp());
  }

  /**
   * Issue 49, seed 1097: an index row's timestamp is what the row's next change reads back from its
   * cells, so that change's delete masks it. A delete marker that removed nothing (a covered column
   * the row did not hold, deleted an hour ahead) must not stamp the row's renewal under a TTL; one
   * that removed a covered cell lifts the rewrite over the replaced row, but never past now.
   */
  @Test
  void deleteMarkersStampNoIndexRowBeyondWhatItsNextChangeReadsBack() {
    IndexUpdatePlanner expiring = new IndexUpdatePlanner(List.of(SPEC), s -> true);
    long now = System.currentTimeMillis();
    RowState before = state("Nanjing", now - 10);
    // Two Deletes, as in a RowMutations: Delete.addFamily drops the family's columns added before.
    RowState noOp =
        expiring.apply(
            expiring.apply(before, new Delete(ROW).addFamily(D, now - 3_000)),
            new Delete(ROW).addColumns(D, NAME, now + 3_600_000));
    assertEquals(List.of(), expiring.diff(ROW, before, noOp), "nothing visible changed");

    RowState covered =
        RowState.builder()
            .put(CITY_COL, b("Nanjing"), now - 10)
            .put(NAME_COL, b("Li"), now - 5)
            .build();
    RowState removed =
        expiring.apply(covered, new Delete(ROW).addColumns(D, NAME, now + 3_600_000));
    Put rewrite = (Put) expiring.diff(ROW, covered, removed).get(0).mutation();
    long ts =
        rewrite.get(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER).get(0).getTimestamp();
    assertTrue(ts >= now - 5, "at least the replaced row's " + (now - 5) + ": " + ts);
    assertTrue(ts <= System.currentTimeMillis(), "not the future marker's: " + ts);
    // The row's next server-stamped change deletes it.
    RowState moved =
        expiring.apply(
            removed, new Put(ROW).addColumn(D, CITY, System.currentTimeMillis(), b("X")));
    assertTrue(IndexUpdatePlanner.replacedAt(SPEC, RowState.of(cells(removed)), moved) >= ts);
  }

  private static List<Cell> cells(RowState s) {
    return List.of(
        new KeyValue(ROW, D, CITY, s.get(CITY_COL).timestamp(), s.get(CITY_COL).value()));
  }

  /**
   * Issue 49: markers the region already holds hide a put stamped at or below them, until a major
   * compaction purges them while the put is in the memstore: such a put is refused. A marker of the
   * same batch hides it for good (flushed and compacted with it): that put changes nothing.
   */
  @Test
  void aPutThatAStoredMarkerMasksIsRefused() {
    List<Cell> markers =
        List.of(
            new KeyValue(ROW, D, null, 50, KeyValue.Type.DeleteFamily),
            new KeyValue(ROW, D, NAME, 70, KeyValue.Type.DeleteColumn),
            new KeyValue(ROW, D, CITY, 90, KeyValue.Type.Delete),
            new KeyValue(ROW, X, CITY, 99, KeyValue.Type.DeleteFamily)); // another family
    RowState before = RowState.of(List.of(), planner.markers(markers));
    for (long masked : new long[] {40, 50, 90}) {
      Put put = new Put(ROW).addColumn(D, CITY, masked, b("Oslo"));
      assertThrows(
          IndexUpdatePlanner.MaskedPutException.class,
          () -> planner.apply(before, put),
          "" + masked);
    }
    for (long visible : new long[] {51, 89, 91}) {
      Put put = new Put(ROW).addColumn(D, CITY, visible, b("Oslo"));
      assertEquals(1, planner.diff(ROW, before, planner.apply(before, put)).size(), "" + visible);
    }
    // A covered column's put under its own stored marker is refused too.
    assertThrows(
        IndexUpdatePlanner.MaskedPutException.class,
        () ->
            planner.apply(
                before,
                new Put(ROW).addColumn(D, CITY, 60, b("Oslo")).addColumn(D, NAME, 60, b("Li"))));
    // A server-stamped Put racing a delete within its millisecond: masked (HBase's rule), not
    // indexed, not refused.
    long now = System.currentTimeMillis();
    RowState raced =
        RowState.of(
            List.of(),
            planner.markers(List.of(new KeyValue(ROW, D, null, now, KeyValue.Type.DeleteFamily))));
    assertNull(
        planner.apply(raced, new Put(ROW).addColumn(D, CITY, now, b("Oslo"))).value(CITY_COL));
    // The batch's own marker masks the put for good: nothing to index, nothing refused.
    RowState deleted = planner.apply(before, new Delete(ROW).addFamily(D, 120));
    RowState after = planner.apply(deleted, new Put(ROW).addColumn(D, CITY, 110, b("Oslo")));
    assertNull(after.value(CITY_COL));
  }

  @Test
  void aDeletedValuesIndexRowIsDeletedAtTheDeleteMarkersTimestamp() {
    RowState before = state("Nanjing", 10);
    RowState after = planner.apply(before, new Delete(ROW).addColumns(D, CITY, 15));
    List<IndexUpdatePlanner.IndexMutation> ops = planner.diff(ROW, before, after);
    assertEquals(1, ops.size());
    assertEquals(
        15,
        ops.get(0)
            .mutation()
            .getFamilyCellMap()
            .get(IndexCatalog.INDEX_FAMILY)
            .get(0)
            .getTimestamp());
  }

  @Test
  void anExpiringIndexRenewsTheRowOfAValueWrittenAgain() {
    IndexUpdatePlanner expiring = new IndexUpdatePlanner(List.of(SPEC), s -> true);
    RowState before = state("Nanjing", 10);
    RowState after = expiring.apply(before, new Put(ROW).addColumn(D, CITY, 20, b("Nanjing")));
    List<IndexUpdatePlanner.IndexMutation> ops = expiring.diff(ROW, before, after);
    assertEquals(1, ops.size(), "a rewrite at the newer timestamp, no delete");
    Put put = (Put) ops.get(0).mutation();
    assertEquals(
        20, put.get(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER).get(0).getTimestamp());
    assertFalse(ops.get(0).createsRow());
    // An older version is not visible: nothing to renew.
    RowState older = expiring.apply(before, new Put(ROW).addColumn(D, CITY, 5, b("Nanjing")));
    assertTrue(expiring.diff(ROW, before, older).isEmpty());
  }

  @Test
  void rewritingTheSameValueOrAnOlderVersionChangesNothing() {
    RowState before = state("Nanjing", 10);
    assertTrue(
        planner
            .diff(
                ROW,
                before,
                planner.apply(before, new Put(ROW).addColumn(D, CITY, 20, b("Nanjing"))))
            .isEmpty());
    RowState older = planner.apply(before, new Put(ROW).addColumn(D, CITY, 5, b("Suzhou")));
    assertArrayEquals(
        b("Nanjing"), older.value(CITY_COL), "an older put does not become the latest");
    assertTrue(planner.diff(ROW, before, older).isEmpty());
  }

  @Test
  void columnFamilyAndRowDeletesRemoveTheIndexRowOnlyIfTheyCoverTheLatestVersion() {
    RowState before = state("Nanjing", 10);
    for (Delete d :
        List.of(
            new Delete(ROW).addColumns(D, CITY, 10),
            new Delete(ROW).addFamily(D, 15),
            new Delete(ROW, 12).addFamily(D, 12))) {
      RowState after = planner.apply(before, d);
      assertNull(after.value(CITY_COL), d.toString());
      List<IndexUpdatePlanner.IndexMutation> ops = planner.diff(ROW, before, after);
      assertEquals(1, ops.size());
      assertTrue(ops.get(0).mutation() instanceof Delete);
    }
    RowState kept = planner.apply(before, new Delete(ROW).addColumns(D, CITY, 9));
    assertArrayEquals(b("Nanjing"), kept.value(CITY_COL), "a delete older than the value keeps it");
    assertFalse(planner.concernsIndex(new Delete(ROW).addFamily(X, 20)));
  }

  @Test
  void aDeleteMarkerMasksLaterPutsOfTheSameBatchWithTheSameTimestamp() {
    RowState before = state("Nanjing", 5);
    RowState s = planner.apply(before, new Delete(ROW).addFamily(D, 10));
    s = planner.apply(s, new Put(ROW).addColumn(D, CITY, 10, b("Suzhou")));
    assertNull(s.value(CITY_COL), "HBase masks a put at the delete's timestamp");
    s = planner.apply(s, new Put(ROW).addColumn(D, CITY, 11, b("Wuxi")));
    assertArrayEquals(b("Wuxi"), s.value(CITY_COL));
  }

  @Test
  void coveredColumnChangesRewriteTheIndexRow() {
    RowState before =
        RowState.builder().put(CITY_COL, b("Nanjing"), 10).put(NAME_COL, b("Li"), 10).build();
    RowState after = planner.apply(before, new Put(ROW).addColumn(D, NAME, 20, b("Wang")));
    List<IndexUpdatePlanner.IndexMutation> ops = planner.diff(ROW, before, after);
    assertEquals(1, ops.size());
    assertTrue(ops.get(0).mutation() instanceof Put);
    assertArrayEquals(indexKey("Nanjing"), ops.get(0).mutation().getRow());
    assertTrue(
        planner
            .diff(
                ROW,
                RowState.EMPTY,
                planner.apply(RowState.EMPTY, new Put(ROW).addColumn(D, NAME, 1, b("x"))))
            .isEmpty(),
        "covered value without indexed value: no row");
  }

  @Test
  void unrelatedColumnsAreIgnored() {
    assertFalse(planner.concernsIndex(new Put(ROW).addColumn(X, CITY, b("v"))));
    assertFalse(planner.concernsIndex(new Put(ROW).addColumn(D, b("other"), b("v"))));
  }

  @Test
  void mutationsTheIndexCannotFollowAreRejected() {
    assertTrue(
        assertThrows(
                DoNotRetryIOException.class,
                () -> planner.checkSupported(new Increment(ROW).addColumn(D, CITY, 1)))
            .getMessage()
            .contains("Increment on an indexed"));
    assertTrue(
        assertThrows(
                DoNotRetryIOException.class,
                () -> planner.checkSupported(new Append(ROW).addColumn(D, NAME, b("x"))))
            .getMessage()
            .contains("Append on an indexed"));
    assertTrue(
        assertThrows(
                DoNotRetryIOException.class,
                () -> planner.checkSupported(new Delete(ROW).addColumn(D, CITY, 10)))
            .getMessage()
            .contains("single version"));
    assertTrue(
        assertThrows(
                DoNotRetryIOException.class,
                () -> planner.checkSupported(new Delete(ROW).addFamilyVersion(D, 10)))
            .getMessage()
            .contains("addFamilyVersion"));
    assertDoesNotThrow(() -> planner.checkSupported(new Increment(ROW).addColumn(X, CITY, 1)));
    assertDoesNotThrow(() -> planner.checkSupported(new Delete(ROW).addColumn(D, b("other"), 10)));
  }

  private static void assertDoesNotThrow(org.junit.jupiter.api.function.Executable e) {
    org.junit.jupiter.api.Assertions.assertDoesNotThrow(e);
  }

  /**
   * A composite index is indexed once every column is there; a put of one column moves the row's
   * index row from the old tuple to the new one; deleting a column removes it.
   */
  @Test
  void aCompositeIndexFollowsEachOfItsColumns() throws Exception {
    IndexSpec composite =
        IndexSpec.builder(D, CITY)
            .thenColumn(D, NAME)
            .alias("cn")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(4)
            .build();
    IndexUpdatePlanner p = new IndexUpdatePlanner(List.of(composite));
    java.util.function.Function<List<byte[]>, byte[]> key =
        values ->
            IndexKeyCodec.rowKey(
                IndexKeyCodec.bucket(ROW, 4), b("cn"), CompositeValue.encode(values), ROW);

    Put cityOnly = new Put(ROW).addColumn(D, CITY, 10, b("Nanjing"));
    assertTrue(p.concernsIndex(cityOnly));
    RowState one = p.apply(RowState.EMPTY, cityOnly);
    assertTrue(p.diff(ROW, RowState.EMPTY, one).isEmpty(), "a row lacking a column is not indexed");

    RowState both = p.apply(one, new Put(ROW).addColumn(D, NAME, 11, b("Li")));
    List<IndexUpdatePlanner.IndexMutation> ops = p.diff(ROW, one, both);
    assertEquals(1, ops.size());
    assertTrue(ops.get(0).createsRow());
    assertArrayEquals(key.apply(List.of(b("Nanjing"), b("Li"))), ops.get(0).mutation().getRow());

    RowState renamed = p.apply(both, new Put(ROW).addColumn(D, NAME, 12, b("Wang")));
    ops = p.diff(ROW, both, renamed);
    assertEquals(2, ops.size());
    assertTrue(ops.get(0).mutation() instanceof Delete);
    assertArrayEquals(key.apply(List.of(b("Nanjing"), b("Li"))), ops.get(0).mutation().getRow());
    assertArrayEquals(key.apply(List.of(b("Nanjing"), b("Wang"))), ops.get(1).mutation().getRow());

    RowState cityGone = p.apply(renamed, new Delete(ROW).addColumns(D, CITY, 13));
    ops = p.diff(ROW, renamed, cityGone);
    assertEquals(1, ops.size());
    assertTrue(ops.get(0).mutation() instanceof Delete);

    // Each column fits alone, the tuple does not: the write fails with the index's reason.
    byte[] half = new byte[17_000];
    java.util.Arrays.fill(half, (byte) 'x');
    Put big = new Put(ROW).addColumn(D, CITY, 20, half).addColumn(D, NAME, 20, half);
    p.checkSupported(big);
    IndexUpdatePlanner.KeyTooLongException tooLong =
        assertThrows(
            IndexUpdatePlanner.KeyTooLongException.class,
            () -> p.diff(ROW, RowState.EMPTY, p.apply(RowState.EMPTY, big)));
    assertTrue(tooLong.getMessage().contains("is too large for index 'cn'"), tooLong.getMessage());
    assertThrows(
        DoNotRetryIOException.class,
        () -> p.checkSupported(new Put(ROW).addColumn(D, NAME, 20, new byte[40_000])));
  }

  static final byte[] STATUS = Bytes.toBytes("status");

  @Test
  void aRowMovingInAndOutOfAPartialIndexsWhereGetsAndLosesItsEntry() {
    IndexSpec partial =
        IndexSpec.builder(D, CITY)
            .alias("c")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(4)
            .where(io.scbf.hbase.Condition.eq(D, STATUS, b("ACTIVE")))
            .build();
    IndexUpdatePlanner p = new IndexUpdatePlanner(List.of(partial));
    assertTrue(p.concernsIndex(new Put(ROW).addColumn(D, STATUS, 1, b("x"))));
    // Insert-only tables must still read the row when only one of city and status is written.
    assertTrue(p.writesPartOfATuple(new Put(ROW).addColumn(D, STATUS, 1, b("x"))));
    assertFalse(
        p.writesPartOfATuple(
            new Put(ROW).addColumn(D, STATUS, 1, b("x")).addColumn(D, CITY, 1, b("y"))));

    RowState inactive =
        p.apply(
            RowState.EMPTY,
            new Put(ROW).addColumn(D, CITY, 10, b("Oslo")).addColumn(D, STATUS, 10, b("NEW")));
    assertTrue(p.diff(ROW, RowState.EMPTY, inactive).isEmpty(), "outside the WHERE: no entry");
    RowState active = p.apply(inactive, new Put(ROW).addColumn(D, STATUS, 20, b("ACTIVE")));
    List<IndexUpdatePlanner.IndexMutation> in = p.diff(ROW, inactive, active);
    assertEquals(1, in.size());
    assertArrayEquals(indexKey("Oslo"), in.get(0).mutation().getRow());
    assertTrue(in.get(0).mutation() instanceof Put);
    assertEquals(20, IndexUpdatePlanner.timestampOf(in.get(0).mutation()));

    RowState moved = p.apply(active, new Put(ROW).addColumn(D, CITY, 30, b("Bergen")));
    List<IndexUpdatePlanner.IndexMutation> move = p.diff(ROW, active, moved);
    assertEquals(2, move.size());
    assertArrayEquals(indexKey("Oslo"), move.get(0).mutation().getRow());
    assertArrayEquals(indexKey("Bergen"), move.get(1).mutation().getRow());

    RowState left = p.apply(moved, new Put(ROW).addColumn(D, STATUS, 40, b("GONE")));
    List<IndexUpdatePlanner.IndexMutation> out = p.diff(ROW, moved, left);
    assertEquals(1, out.size());
    assertTrue(out.get(0).mutation() instanceof Delete);
    assertArrayEquals(indexKey("Bergen"), out.get(0).mutation().getRow());
    // Fenced at the status change: a later return to ACTIVE is newer than the delete.
    assertEquals(40, IndexUpdatePlanner.timestampOf(out.get(0).mutation()));
    RowState back = p.apply(left, new Put(ROW).addColumn(D, STATUS, 50, b("ACTIVE")));
    assertEquals(50, IndexUpdatePlanner.timestampOf(p.diff(ROW, left, back).get(0).mutation()));
    RowState deleted = p.apply(moved, new Delete(ROW).addColumns(D, STATUS, 45));
    assertTrue(p.diff(ROW, moved, deleted).get(0).mutation() instanceof Delete);
  }

  @Test
  void anExpressionIndexChangesOnlyWhenTheExpressionsValueDoes() throws Exception {
    IndexSpec lower =
        IndexSpec.builder(D, CITY)
            .alias("c")
            .layout(IndexSpec.Layout.BY_ROW)
            .buckets(4)
            .expression(io.scbf.hbase.IndexExpression.lower())
            .build();
    IndexUpdatePlanner p = new IndexUpdatePlanner(List.of(lower));
    RowState first = p.apply(RowState.EMPTY, new Put(ROW).addColumn(D, CITY, 10, b("Oslo")));
    assertArrayEquals(
        indexKey("oslo"), p.diff(ROW, RowState.EMPTY, first).get(0).mutation().getRow());
    RowState recased = p.apply(first, new Put(ROW).addColumn(D, CITY, 20, b("OSLO")));
    assertTrue(p.diff(ROW, first, recased).isEmpty(), "same lower case: the entry stays");
    // Bytes that are not text: no entry, and the write is not refused.
    Put binary = new Put(ROW).addColumn(D, CITY, 30, new byte[] {(byte) 0xff});
    p.checkSupported(binary);
    RowState bad = p.apply(recased, binary);
    List<IndexUpdatePlanner.IndexMutation> ops = p.diff(ROW, recased, bad);
    assertEquals(1, ops.size());
    assertTrue(ops.get(0).mutation() instanceof Delete);
  }
}
