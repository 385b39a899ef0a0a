package io.scbf.hbase.regionserver.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.MembershipFilter;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.regionserver.region.InMemoryIndexRows;
import io.scbf.hbase.regionserver.region.IndexRegionRows;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import java.io.IOException;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FilterBookkeepingTest {
  static final byte[] ALIAS = Bytes.toBytes("v");
  static final IndexSpec SPEC =
      IndexSpec.builder(Bytes.toBytes("d"), Bytes.toBytes("v"))
          .alias("v")
          .layout(IndexSpec.Layout.BY_ROW)
          .buckets(4)
          .build();

  static final IndexSpec SMALL =
      IndexSpec.builder(Bytes.toBytes("d"), Bytes.toBytes("v"))
          .alias("v")
          .layout(IndexSpec.Layout.BY_ROW)
          .buckets(4)
          .initialCapacity(16) // residue limit: more than 2 and than half the entries
          .build();

  final InMemoryIndexRows rows = new InMemoryIndexRows();
  final AtomicBoolean closing = new AtomicBoolean();
  final FilterBookkeeping books = new FilterBookkeeping(SPEC, rows, "test-region", closing::get);

  @AfterEach
  void free() {
    books.free();
  }

  static byte[] indexRow(String value, String user) {
    return IndexKeyCodec.rowKey(1, ALIAS, Bytes.toBytes(value), Bytes.toBytes(user));
  }

  static Put put(byte[] row) {
    return new Put(row).addColumn(Bytes.toBytes("i"), Bytes.toBytes("c"), new byte[0]);
  }

  boolean mayHold(String value) {
    try (MembershipFilter f = books.filter().membership()) {
      return f.mightContain(IndexKeyCodec.filterKey(ALIAS, Bytes.toBytes(value)));
    }
  }

  /** A mini-batch as the coprocessor runs it: effects computed, rows applied, effects applied. */
  void write(List<Mutation> batch, boolean success) throws Exception {
    FilterBookkeeping.PendingEffects effects = books.beforeWrites(batch);
    if (success) {
      for (Mutation m : batch) {
        if (m instanceof Put) rows.put(m.getRow(), new byte[0]);
        else rows.delete(m.getRow());
      }
    }
    books.afterWrites(effects, success);
  }

  @Test
  void buildCountsEveryRowThenTheFilterIsReady() {
    rows.put(indexRow("a", "r1"), new byte[0]);
    rows.put(indexRow("b", "r2"), new byte[0]);
    assertFalse(books.filter().isReady());
    books.build();
    assertTrue(books.filter().isReady());
    assertEquals(2, books.filter().stats().adds());
    assertTrue(mayHold("a") && mayHold("b"));
  }

  @Test
  void onlyNewRowsAreCounted() throws Exception {
    books.build();
    byte[] r1 = indexRow("a", "r1");
    write(List.of(put(r1)), true);
    write(List.of(put(r1)), true); // the same index row again: not a second count
    assertEquals(1, books.filter().stats().adds());
  }

  /**
   * Deletes are not read: whether their row was there is unknown (a resent call deletes it twice),
   * so they are never uncounted, only tallied as residue; a compaction past the residue limit
   * counts the rows again and the deleted value becomes impossible.
   */
  @Test
  void deletesAreNotReadAndLeaveResidueUntilACompaction() throws Exception {
    FilterBookkeeping smallBooks = new FilterBookkeeping(SMALL, rows, "small", closing::get);
    try {
      smallBooks.build();
      byte[] r1 = indexRow("a", "r1");
      byte[] r2 = indexRow("b", "r2");
      for (byte[] row : List.of(r1, r2)) {
        smallBooks.afterWrites(smallBooks.beforeWrites(List.of(put(row))), true);
        rows.put(row, new byte[0]);
      }
      int reads = rows.existenceReads;
      for (byte[] row : List.of(r1, indexRow("a", "absent"), r1)) { // the last one is a resend
        FilterBookkeeping.PendingEffects effects =
            smallBooks.beforeWrites(List.of(new Delete(row)));
        rows.delete(row);
        smallBooks.afterWrites(effects, true);
      }
      assertEquals(reads, rows.existenceReads, "no delete read the index");
      BucketFilter f = smallBooks.filter();
      assertEquals(0, f.stats().removes(), "nothing uncounted");
      assertEquals(3, f.unappliedRemoves());
      assertTrue(f.mightContain(IndexKeyCodec.filterKey(ALIAS, Bytes.toBytes("a"))));
      assertTrue(f.needsCompaction(), "3 > 16 / 8 and > half of the 1 entry left");
      assertEquals(0, f.entries(), "the planner's count fell with the deletes of absent rows");
      assertEquals(OptionalLong.of(1), smallBooks.compactIfNeeded(), "counted the one row left");
      assertEquals(0, f.unappliedRemoves());
      assertEquals(1, f.entries(), "and counted again with the filter");
      assertEquals(1, f.estimate(IndexKeyCodec.filterKey(ALIAS, Bytes.toBytes("b"))));
      assertFalse(f.mightContain(IndexKeyCodec.filterKey(ALIAS, Bytes.toBytes("a"))));
      assertTrue(f.mightContain(IndexKeyCodec.filterKey(ALIAS, Bytes.toBytes("b"))));
      assertFalse(f.needsCompaction());
      assertEquals(OptionalLong.empty(), smallBooks.compactIfNeeded(), "none needed");
    } finally {
      smallBooks.free();
    }
  }

  /** Residue below half the entries is not worth a scan of the region's rows. */
  @Test
  void residueBelowHalfTheEntriesAsksNoCompaction() throws Exception {
    FilterBookkeeping smallBooks = new FilterBookkeeping(SMALL, rows, "small", closing::get);
    try {
      smallBooks.build();
      for (int i = 0; i < 12; i++) {
        byte[] row = indexRow("v" + i, "r" + i);
        smallBooks.afterWrites(smallBooks.beforeWrites(List.of(put(row))), true);
        rows.put(row, new byte[0]);
      }
      for (int i = 0; i < 3; i++) {
        byte[] row = indexRow("v" + i, "r" + i);
        FilterBookkeeping.PendingEffects effects =
            smallBooks.beforeWrites(List.of(new Delete(row)));
        rows.delete(row);
        smallBooks.afterWrites(effects, true);
      }
      assertEquals(3, smallBooks.filter().unappliedRemoves());
      assertFalse(smallBooks.filter().needsCompaction(), "3 is not more than half of 9 entries");
    } finally {
      smallBooks.free();
    }
  }

  /**
   * A put of a value new to its data row is counted without reading the index; if the row was there
   * after all (a stale copy, a resend) it is counted twice: more false positives, never a miss. Its
   * delete then leaves the value possible, never impossible.
   */
  @Test
  void newRowPutsAreCountedWithoutAReadAndAtWorstTwice() throws Exception {
    books.build();
    byte[] r1 = indexRow("a", "r1");
    Put fresh = put(r1);
    fresh.setAttribute(IndexCatalog.NEW_INDEX_ROW_ATTR, new byte[] {1});
    write(List.of(fresh), true);
    assertEquals(0, rows.existenceReads, "no read for a new row");
    assertEquals(1, books.filter().stats().adds());
    write(List.of(fresh), true); // resent: counted again
    assertEquals(2, books.filter().stats().adds());
    write(List.of(put(r1)), true); // unmarked (a covered-only rewrite): read, not counted
    assertEquals(1, rows.existenceReads);
    assertEquals(2, books.filter().stats().adds());
    write(List.of(new Delete(r1)), true);
    assertTrue(mayHold("a"), "over-counted: still possible after one delete, a false positive");
  }

  @Test
  void aFailedWriteKeepsItsCountsAndRemovesNothing() throws Exception {
    books.build();
    byte[] r1 = indexRow("a", "r1");
    write(List.of(put(r1)), true);
    byte[] r2 = indexRow("b", "r2");
    write(List.of(put(r2), new Delete(r1)), false);
    assertTrue(mayHold("a"), "the delete did not apply: still counted");
    assertTrue(mayHold("b"), "counted before the write: a superset, never a false negative");
  }

  @Test
  void removesDuringTheBuildAreSkippedNotApplied() throws Exception {
    byte[] r1 = indexRow("a", "r1");
    rows.put(r1, new byte[0]);
    // A delete known to remove a row (a local index's, read under the data row's lock), while the
    // build has not counted r1 yet: uncounting it could hide another row's key.
    FilterBookkeeping.PendingEffects effects =
        books.beforeKnownWrites(List.of(), List.of(r1), List.of(r1));
    rows.delete(r1);
    books.afterWrites(effects, true);
    assertEquals(1, books.filter().skippedRemoves());
    assertEquals(1, books.filter().unappliedRemoves());
    assertEquals(0, books.filter().stats().removes());
  }

  static Put newRowPut(byte[] row) {
    Put put = put(row);
    put.setAttribute(IndexCatalog.NEW_INDEX_ROW_ATTR, new byte[] {1});
    return put;
  }

  /** Three deletes of rows that are not there: residue past {@link #SMALL}'s limit. */
  static void leaveResidue(FilterBookkeeping b) throws Exception {
    for (int i = 0; i < 3; i++) {
      b.afterWrites(b.beforeWrites(List.of(new Delete(indexRow("gone", "g" + i)))), true);
    }
    assertTrue(b.filter().needsCompaction());
  }

  static boolean mayHold(FilterBookkeeping b, String value) {
    return b.filter().mightContain(IndexKeyCodec.filterKey(ALIAS, Bytes.toBytes(value)));
  }

  /**
   * A put is counted before its row is visible. A compaction that starts in between cannot see the
   * row and replaces the filter's counts: it counts the rows of writes still in flight when its
   * scan ends, or the value would be "absent" while the row is there (a false negative).
   */
  @Test
  void aCompactionCountsTheRowsOfWritesInFlight() throws Exception {
    FilterBookkeeping small = new FilterBookkeeping(SMALL, rows, "small", closing::get);
    try {
      small.build();
      byte[] inFlight = indexRow("w", "r1");
      FilterBookkeeping.PendingEffects effects = small.beforeWrites(List.of(newRowPut(inFlight)));
      leaveResidue(small);
      small.compactIfNeeded();
      assertEquals(0, small.filter().unappliedRemoves(), "it compacted");
      assertTrue(mayHold(small, "w"), "counted while its write is in flight");
      rows.put(inFlight, new byte[0]);
      small.afterWrites(effects, true);
      assertTrue(mayHold(small, "w"));
    } finally {
      small.free();
    }
  }

  /**
   * A write applied while the compaction's scan runs (its row not in the scan, its batch no longer
   * in flight when the scan ends) counts its rows again; one applied after the compaction does not.
   */
  @Test
  void aWriteAppliedDuringACompactionCountsItsRowsAgain() throws Exception {
    CountDownLatch scanning = new CountDownLatch(1);
    CountDownLatch written = new CountDownLatch(1);
    AtomicBoolean holdScans = new AtomicBoolean();
    IndexRegionRows heldScans =
        new ScanHookedRows() {
          @Override
          public Iterator<byte[]> filterKeys(BooleanSupplier cancelled) {
            Iterator<byte[]> keys = rows.filterKeys(cancelled); // the rows as the scan starts
            if (!holdScans.get()) return keys;
            return new Iterator<>() {
              @Override
              public boolean hasNext() {
                scanning.countDown();
                await(written);
                return keys.hasNext();
              }

              @Override
              public byte[] next() {
                return keys.next();
              }
            };
          }
        };
    FilterBookkeeping small = new FilterBookkeeping(SMALL, heldScans, "small", closing::get);
    try {
      small.build();
      byte[] row = indexRow("w", "r1");
      FilterBookkeeping.PendingEffects effects = small.beforeWrites(List.of(newRowPut(row)));
      leaveResidue(small);
      holdScans.set(true);
      Thread compaction = new Thread(small::compactIfNeeded);
      compaction.start();
      await(scanning); // the scan has started without the row
      rows.put(row, new byte[0]);
      small.afterWrites(effects, true);
      written.countDown();
      compaction.join(30_000);
      assertEquals(0, small.filter().unappliedRemoves(), "it compacted");
      assertTrue(mayHold(small, "w"), "counted again while the compaction ran");
      assertEquals(1, small.filter().entries(), "in the planner's counts too");
      assertEquals(1, small.filter().estimate(IndexKeyCodec.filterKey(ALIAS, Bytes.toBytes("w"))));

      long adds = small.filter().stats().adds();
      small.afterWrites(small.beforeWrites(List.of(newRowPut(indexRow("later", "r2")))), true);
      assertEquals(adds + 1, small.filter().stats().adds(), "no compaction overlapped it");
    } finally {
      small.free();
    }
  }

  /**
   * The scan fixes its read point when it is opened. A write counted before that, visible only
   * after it and finished before the compaction counted itself as started would be in neither the
   * scan, nor the writes in flight, nor the writes that count again: the compaction must count
   * itself as started before it opens the scan.
   */
  @Test
  void aWriteFinishedAsTheScanOpensIsCounted() throws Exception {
    byte[] row = indexRow("w", "r1");
    AtomicBoolean writeAsTheScanOpens = new AtomicBoolean();
    FilterBookkeeping[] owner = new FilterBookkeeping[1];
    FilterBookkeeping.PendingEffects[] effects = new FilterBookkeeping.PendingEffects[1];
    IndexRegionRows readPointFirst =
        new ScanHookedRows() {
          @Override
          public Iterator<byte[]> filterKeys(BooleanSupplier cancelled) {
            Iterator<byte[]> keys = rows.filterKeys(cancelled); // the read point is fixed here
            if (writeAsTheScanOpens.getAndSet(false)) {
              rows.put(row, new byte[0]); // visible after the read point
              owner[0].afterWrites(effects[0], true);
            }
            return keys;
          }
        };
    FilterBookkeeping small = new FilterBookkeeping(SMALL, readPointFirst, "small", closing::get);
    owner[0] = small;
    try {
      small.build();
      effects[0] = small.beforeWrites(List.of(newRowPut(row)));
      leaveResidue(small);
      writeAsTheScanOpens.set(true);
      small.compactIfNeeded();
      assertFalse(writeAsTheScanOpens.get(), "the write ran as the scan opened");
      assertEquals(0, small.filter().unappliedRemoves(), "it compacted");
      assertTrue(mayHold(small, "w"), "the row is there: the filter must not say absent");
    } finally {
      small.free();
    }
  }

  /** {@link #rows}, with the scan of its filter keys left to the test to hook. */
  abstract class ScanHookedRows implements IndexRegionRows {
    @Override
    public Set<byte[]> existing(Collection<byte[]> keys) throws IOException {
      return rows.existing(keys);
    }

    @Override
    public void scan(byte[] start, byte[] stop, int limit, Consumer<Cell> cells)
        throws IOException {
      rows.scan(start, stop, limit, cells);
    }
  }

  static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("timed out");
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void rebuildAfterBulkLoadCountsLoadedRowsAndWritesCaughtMidSwap() throws Exception {
    books.build();
    BucketFilter before = books.filter();
    byte[] written = indexRow("w", "r1");
    FilterBookkeeping.PendingEffects effects = books.beforeWrites(List.of(put(written)));
    rows.put(indexRow("loaded", "r2"), new byte[0]); // bulk-loaded: no write hook
    books.rebuildAfterBulkLoad(); // its scan ran before `written` became visible
    rows.put(written, new byte[0]);
    books.afterWrites(effects, true);
    assertNotSame(before, books.filter());
    assertTrue(books.filter().isReady());
    assertTrue(mayHold("loaded"), "loaded rows counted");
    assertTrue(mayHold("w"), "the write counted in the old filter is counted in the new one");
  }

  @Test
  void aClosingRegionCancelsTheBuild() {
    rows.put(indexRow("a", "r1"), new byte[0]);
    closing.set(true);
    assertThrows(CancellationException.class, books::build);
    assertFalse(books.filter().isReady(), "routing keeps treating the bucket as unsure");
  }

  @Test
  void onlyTheWritesOfIndexMaintenanceAreFollowed() {
    byte[] row = Bytes.toBytes("r");
    byte[] f = Bytes.toBytes("i");
    assertEquals(null, FilterBookkeeping.unsupported(new Put(row).addColumn(f, f, row)));
    assertEquals(null, FilterBookkeeping.unsupported(new Delete(row)));
    // Family deletes at a timestamp: the fenced deletes of index maintenance (left as residue).
    assertEquals(null, FilterBookkeeping.unsupported(new Delete(row, 1234L)));
    assertEquals(null, FilterBookkeeping.unsupported(new Delete(row).addFamily(f)));
    assertEquals(null, FilterBookkeeping.unsupported(new Delete(row).addFamily(f, 1234L)));
    assertEquals(
        "a Delete of columns or versions",
        FilterBookkeeping.unsupported(new Delete(row).addColumn(f, f)));
    assertEquals(
        "a Delete of columns or versions",
        FilterBookkeeping.unsupported(new Delete(row).addColumns(f, f)));
    assertEquals("a Append", FilterBookkeeping.unsupported(new Append(row).addColumn(f, f, row)));
    assertEquals(
        "a Increment", FilterBookkeeping.unsupported(new Increment(row).addColumn(f, f, 1)));
  }
}
