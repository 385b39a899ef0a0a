package io.scbf.hbase.regionserver.lookup;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.scbf.HotscoreCache;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.regionserver.region.InMemoryIndexRows;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexPlacement;
import io.scbf.hbase.shared.PackedHits;
import io.scbf.hbase.shared.proto.IndexProtos.IndexHit;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class IndexLookupsTest {
  private static final IndexLookups.RangeReading ENTRIES = IndexLookups.RangeReading.ENTRIES;

  static final int BUCKET = 3;
  static final byte[] ALIAS = Bytes.toBytes("city");
  static final IndexSpec SPEC =
      IndexSpec.builder(Bytes.toBytes("f"), Bytes.toBytes("city"))
          .alias("city")
          .layout(IndexSpec.Layout.BY_ROW)
          .build();

  final InMemoryIndexRows rows = new InMemoryIndexRows();
  final HotscoreCache cache = HotscoreCache.builder().capacityBytes(1 << 20).build();
  final IndexLookups lookups =
      new IndexLookups(rows, cache, SPEC, BUCKET, new byte[] {BUCKET}, new byte[] {BUCKET + 1});

  @AfterEach
  void close() {
    cache.close();
  }

  static byte[] indexRow(String value, String userRow) {
    return IndexKeyCodec.rowKey(BUCKET, ALIAS, Bytes.toBytes(value), Bytes.toBytes(userRow));
  }

  /** The user rows of an answer, packed or as messages. */
  static List<String> users(LookupResponse r) throws IOException {
    return PackedHits.of(r).stream().map(h -> Bytes.toString(h.row())).toList();
  }

  /** Each hit of an answer as text: row, value and covered values (packed or messages alike). */
  static List<String> hits(LookupResponse r) throws IOException {
    return PackedHits.of(r).stream()
        .map(
            h ->
                Bytes.toStringBinary(h.row())
                    + "|"
                    + (h.value() == null ? "-" : Bytes.toStringBinary(h.value()))
                    + "|"
                    + (h.covered() == null ? "-" : Bytes.toStringBinary(h.covered())))
        .toList();
  }

  @Test
  void pointLookupScansOnceThenAnswersFromTheCache() throws Exception {
    rows.put(indexRow("Nanjing", "r1"), Bytes.toBytes("covered-1"));
    rows.put(indexRow("Nanjing", "r2"), new byte[0]);
    rows.put(indexRow("Nanjing2", "r3"), new byte[0]); // a longer value must not match the prefix
    rows.put(indexRow("Beijing", "r4"), new byte[0]);

    LookupResponse first = lookups.lookup(Bytes.toBytes("Nanjing"), true);
    assertEquals(List.of("r1", "r2"), users(first));
    assertFalse(first.getCacheHit());
    assertTrue(first.getRegionReady());
    IndexHit covered = first.getHits(0);
    assertArrayEquals(Bytes.toBytes("covered-1"), covered.getCovered().toByteArray());
    assertFalse(first.getHits(1).hasCovered(), "empty value: nothing covered");

    LookupResponse second = lookups.lookup(Bytes.toBytes("Nanjing"), false);
    assertEquals(users(first), users(second));
    assertTrue(second.getCacheHit());
    assertFalse(second.getRegionReady(), "readiness is the caller's, not the cached one");
    assertEquals(1, rows.scans, "the second lookup did not scan");
    assertEquals(2, lookups.count());
    assertEquals(1, lookups.cacheHits());
  }

  @Test
  void aWriteInvalidatesItsValueOnly() throws Exception {
    rows.put(indexRow("a", "r1"), new byte[0]);
    rows.put(indexRow("b", "r2"), new byte[0]);
    lookups.lookup(Bytes.toBytes("a"), true);
    lookups.lookup(Bytes.toBytes("b"), true);

    byte[] added = indexRow("a", "r9");
    rows.put(added, new byte[0]);
    lookups.invalidate(List.of(added));

    LookupResponse a = lookups.lookup(Bytes.toBytes("a"), true);
    assertFalse(a.getCacheHit(), "invalidated");
    assertEquals(List.of("r1", "r9"), users(a));
    assertTrue(lookups.lookup(Bytes.toBytes("b"), true).getCacheHit(), "other values stay cached");
  }

  @Test
  void aWriteRacingWithAMissNeverLeavesAStaleEntry() throws Exception {
    byte[] late = indexRow("v", "late");
    // The write lands (and invalidates) between the lookup's scan and its cache put.
    InMemoryIndexRows racing =
        new InMemoryIndexRows() {
          @Override
          public void scan(
              byte[] start,
              byte[] stop,
              int limit,
              java.util.function.Consumer<org.apache.hadoop.hbase.Cell> c) {
            super.scan(start, stop, limit, c);
            if (scans == 1) {
              put(late, new byte[0]);
              racingLookups.invalidate(List.of(late));
            }
          }
        };
    racingLookups =
        new IndexLookups(racing, cache, SPEC, BUCKET, new byte[] {BUCKET}, new byte[] {BUCKET + 1});
    assertEquals(List.of(), users(racingLookups.lookup(Bytes.toBytes("v"), true)));
    LookupResponse next = racingLookups.lookup(Bytes.toBytes("v"), true);
    assertFalse(next.getCacheHit(), "the answer computed before the write was not kept");
    assertEquals(List.of("late"), users(next));
  }

  IndexLookups racingLookups;

  @Test
  void forgetAllDropsEveryCachedAnswer() throws Exception {
    rows.put(indexRow("a", "r1"), new byte[0]);
    lookups.lookup(Bytes.toBytes("a"), true);
    rows.put(indexRow("a", "bulk"), new byte[0]); // arrives without invalidate (a bulk load)
    lookups.forgetAll();
    LookupResponse r = lookups.lookup(Bytes.toBytes("a"), true);
    assertFalse(r.getCacheHit());
    assertEquals(List.of("bulk", "r1"), users(r));
  }

  @Test
  void rangeLookupIsHalfOpenAndNeverCached() throws Exception {
    for (String v : List.of("10", "20", "30", "40")) rows.put(indexRow(v, "row" + v), new byte[0]);
    LookupResponse r = lookups.rangeLookup(Bytes.toBytes("20"), Bytes.toBytes("40"), true);
    assertEquals(List.of("row20", "row30"), users(r));
    assertEquals(4, users(lookups.rangeLookup(null, null, true)).size(), "unbounded");
    assertFalse(lookups.rangeLookup(null, null, true).getCacheHit());
    assertEquals(3, rows.scans);
  }

  @Test
  void packedPagesCarryTheHitsAndResumePointsOfMessagePages() throws Exception {
    for (int i = 0; i < 60; i++) {
      String v = String.format("%02d", i % 20);
      rows.put(indexRow(v, "row" + i), i % 3 == 0 ? new byte[0] : Bytes.toBytes("covered-" + i));
    }
    for (IndexLookups.RangeReading reading : List.of(ENTRIES, IndexLookups.RangeReading.VALUES)) {
      for (int pageBytes : new int[] {IndexLookups.PAGE_BYTES, 40}) {
        List<List<String>> byForm = new ArrayList<>();
        for (boolean packed : new boolean[] {false, true}) {
          List<String> read = new ArrayList<>();
          int pages = 0;
          byte[] resume = null;
          do {
            LookupResponse page =
                lookups.rangeLookup(
                    Bytes.toBytes("03"),
                    Bytes.toBytes("17"),
                    7,
                    pageBytes,
                    resume,
                    null,
                    null,
                    reading,
                    packed,
                    true);
            assertEquals(packed ? 0 : PackedHits.count(page), page.getHitsCount());
            assertTrue(PackedHits.count(page) > 0 && PackedHits.count(page) <= 7);
            pages++;
            read.addAll(hits(page));
            resume = page.hasResumeAfter() ? page.getResumeAfter().toByteArray() : null;
          } while (resume != null);
          assertEquals(42, read.size(), "values 03..16, three rows each");
          // 40-byte pages hold 1-3 hits: paged by bytes in both forms.
          assertTrue(pageBytes == 40 ? pages >= 14 : pages == 6, pages + " pages");
          byForm.add(read);
        }
        assertEquals(byForm.get(0), byForm.get(1), reading + ", pages of " + pageBytes + " bytes");
      }
    }
  }

  @Test
  void aMalformedPackedAnswerIsAnErrorNotAWrongHit() {
    LookupResponse truncated =
        LookupResponse.newBuilder()
            .setPackedHits(ByteString.copyFrom(new byte[] {5, 'a', 'b'}))
            .setPackedCount(1)
            .build();
    IOException e = assertThrows(IOException.class, () -> PackedHits.of(truncated));
    assertTrue(e.getMessage().contains("malformed packed index answer"), e.getMessage());
    LookupResponse trailing =
        LookupResponse.newBuilder()
            .setPackedHits(ByteString.copyFrom(new byte[] {1, 'a', 0, 0, 9}))
            .setPackedCount(1)
            .build();
    assertThrows(IOException.class, () -> PackedHits.of(trailing));
  }

  /** Every page of a paged lookup of {@code value}, in order. */
  List<List<String>> pages(String value, int limit) throws Exception {
    List<List<String>> out = new ArrayList<>();
    byte[] resume = null;
    do {
      LookupResponse page =
          lookups.lookup(Bytes.toBytes(value), limit, IndexLookups.PAGE_BYTES, resume, null, true);
      out.add(users(page));
      resume = page.hasResumeAfter() ? page.getResumeAfter().toByteArray() : null;
    } while (resume != null);
    return out;
  }

  @Test
  void pagedLookupsResumeAfterTheLastRowAndOnlyCompleteAnswersAreCached() throws Exception {
    for (int i = 0; i < 5; i++) rows.put(indexRow("v", "r" + i), new byte[0]);
    rows.put(indexRow("v2", "r0"), new byte[0]);
    assertEquals(List.of(List.of("r0", "r1"), List.of("r2", "r3"), List.of("r4")), pages("v", 2));
    assertFalse(lookups.lookup(Bytes.toBytes("v"), true).getCacheHit(), "no page was cached");
    // The answer is cached now: a first page comes from the cache, sliced.
    LookupResponse first =
        lookups.lookup(Bytes.toBytes("v"), 3, IndexLookups.PAGE_BYTES, null, null, true);
    assertTrue(first.getCacheHit());
    assertEquals(List.of("r0", "r1", "r2"), users(first));
    assertEquals("r2", Bytes.toString(first.getResumeAfter().toByteArray()));
    assertEquals(List.of(List.of("r0", "r1", "r2", "r3", "r4")), pages("v", 5));
    assertEquals(List.of(List.of()), pages("absent", 2));
  }

  @Test
  void aPageStopsAtItsByteBudgetWhateverItsLimit() throws Exception {
    for (int i = 0; i < 6; i++) rows.put(indexRow("big", "r" + i), new byte[1 << 20]);
    List<List<String>> pages = pages("big", 100);
    assertEquals(List.of("r0", "r1", "r2", "r3"), pages.get(0), "4 MiB of 1 MiB covered values");
    assertEquals(List.of("r4", "r5"), pages.get(1));
    assertEquals(2, pages.size());
  }

  @Test
  void aListFormLookupIsPagedByBytesOnlyWithinBounds() throws Exception {
    for (int i = 0; i < 3; i++) rows.put(indexRow("big", "r" + i), new byte[100 << 10]);
    int budget = IndexLookups.pageBytes(150 << 10);
    LookupResponse first =
        lookups.lookup(Bytes.toBytes("big"), Integer.MAX_VALUE, budget, null, null, true);
    assertEquals(List.of("r0", "r1"), users(first), "stopped once 150 KiB were reached");
    LookupResponse rest =
        lookups.lookup(
            Bytes.toBytes("big"),
            Integer.MAX_VALUE,
            budget,
            first.getResumeAfter().toByteArray(),
            null,
            true);
    assertEquals(List.of("r2"), users(rest));
    assertFalse(rest.hasResumeAfter());
    assertEquals(IndexLookups.PAGE_BYTES, IndexLookups.pageBytes(0));
    assertEquals(IndexLookups.MIN_PAGE_BYTES, IndexLookups.pageBytes(1));
    assertEquals(IndexLookups.MAX_PAGE_BYTES, IndexLookups.pageBytes(Integer.MAX_VALUE));
  }

  @Test
  void aByValueRegionReadsARangeInEachOfItsSlotsWithinTheAskedKeys() throws Exception {
    IndexSpec spec =
        IndexSpec.builder(Bytes.toBytes("f"), Bytes.toBytes("city"))
            .alias("city")
            .layout(IndexSpec.Layout.BY_VALUE)
            .build();
    byte[] start = {64}, end = {(byte) 128};
    IndexLookups region = new IndexLookups(rows, cache, spec, 0, start, end);
    TreeMap<String, Integer> expected = new TreeMap<>();
    for (int v = 0; v < 400; v++) {
      byte[] value = Bytes.toBytes(String.format("v%03d", v));
      int slot = IndexPlacement.salt(spec, ALIAS, value, new byte[0]);
      if (slot < 64 || slot >= 128) continue; // another region's rows
      rows.put(IndexKeyCodec.rowKey(slot, ALIAS, value, Bytes.toBytes("r" + v)), new byte[0]);
      if (v >= 100 && v < 300) expected.put("r" + v, slot);
    }
    byte[] lo = Bytes.toBytes("v100"), hi = Bytes.toBytes("v300");
    LookupResponse all = region.rangeLookup(lo, hi, true);
    assertEquals(new TreeSet<>(expected.keySet()), new TreeSet<>(users(all)));
    assertArrayEquals(end, all.getRegionEnd().toByteArray(), "the answer names the region's end");
    // In pages of 7, then from a key inside the region: only the rows from there on.
    List<String> paged = new ArrayList<>();
    byte[] resume = null;
    do {
      LookupResponse page =
          region.rangeLookup(
              lo, hi, 7, IndexLookups.PAGE_BYTES, resume, null, null, ENTRIES, false, true);
      paged.addAll(users(page));
      resume = page.hasResumeAfter() ? page.getResumeAfter().toByteArray() : null;
    } while (resume != null);
    assertEquals(users(all), paged, "pages continue across slots in key order");
    byte[] from = {96};
    List<String> tail =
        users(region.rangeLookup(lo, hi, 0, 0, null, from, null, ENTRIES, false, true));
    List<String> head =
        users(region.rangeLookup(lo, hi, 0, 0, null, null, from, ENTRIES, false, true));
    assertEquals(expected.size(), tail.size() + head.size());
    for (String r : tail) assertTrue(expected.get(r) >= 96, r);
    for (String r : head) assertTrue(expected.get(r) < 96, r);
    // A point lookup of a value of this region, from a key past its rows: nothing.
    byte[] value = Bytes.toBytes("v" + expected.firstKey().substring(1));
    assertEquals(1, users(region.lookup(value, true)).size());
    assertEquals(
        0,
        users(region.lookup(value, 0, IndexLookups.PAGE_BYTES, null, end, true)).size(),
        "rows before from_key were answered by the regions before");
  }
}
