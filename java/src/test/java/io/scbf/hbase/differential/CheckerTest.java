package io.scbf.hbase.differential;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The checker's one allowance for index-only answers that keep rows HBase no longer answers. */
class CheckerTest {
  static Snapshot ahead(String... rows) {
    return new Snapshot(new TreeMap<>(), Set.of(rows));
  }

  @Test
  void extraRowsShowingAFutureCellAreKept() {
    assertTrue(Checker.keptByAFutureCell(List.of("r1"), List.of("r1", "r3"), ahead("r3"), 0));
    assertTrue(
        Checker.keptByAFutureCell(List.of(), List.of("r3 value=B:a0{d:c=x}"), ahead("r3"), 0));
  }

  @Test
  void anythingElseIsStillAFailure() {
    // A row missing from the answer: a false negative is never allowed.
    assertFalse(Checker.keptByAFutureCell(List.of("r1"), List.of("r3"), ahead("r3"), 0));
    // An extra row without a cell stamped in the future.
    assertFalse(Checker.keptByAFutureCell(List.of(), List.of("r3", "r4"), ahead("r3"), 0));
    assertFalse(Checker.keptByAFutureCell(List.of(), List.of("r30{d:c=x}"), ahead("r3"), 0));
    // No extra row: not this allowance's case (the answer differs otherwise).
    assertFalse(Checker.keptByAFutureCell(List.of("r1"), List.of("r1"), ahead("r1"), 0));
  }

  /**
   * Seed 1071: {@code rangeEntries(..., ASCENDING, 1)} answered the kept row (its value first in
   * the order) in the one place, where HBase answers the next row.
   */
  @Test
  void underALimitAKeptRowTakesItsPlaceAndTheRestArePrefixOfTheExpected() {
    String r0 = "r0 value=-9223372036854775808{d:c=c0}";
    String r2 = "r2 value=0{d:c=c1}";
    String r5 = "r5 value=3{d:c=c1}";
    assertTrue(Checker.keptByAFutureCell(List.of(r2), List.of(r0), ahead("r0"), 1));
    assertTrue(Checker.keptByAFutureCell(List.of(r2, r5), List.of(r0, r2), ahead("r0"), 2));
    assertTrue(Checker.keptByAFutureCell(List.of(r2), List.of(r0, r2), ahead("r0"), 3));
    // A row HBase answers left out although the limit had room, or out of order: failures.
    assertFalse(Checker.keptByAFutureCell(List.of(r2), List.of(r0), ahead("r0"), 2));
    assertFalse(Checker.keptByAFutureCell(List.of(r2, r5), List.of(r0, r5), ahead("r0"), 2));
    assertFalse(Checker.keptByAFutureCell(List.of(r2, r5), List.of(r5, r0), ahead("r0"), 2));
    // Without a cell stamped in the future, a row in the place of another is a failure.
    assertFalse(Checker.keptByAFutureCell(List.of(r2), List.of(r0), ahead(), 1));
  }

  /**
   * Seed 1093: {@code find(..., 3)} answered r1 and r10 in row-key order, which the checker, sorting
   * the rendered answers ({@code "r10{..."} sorts before {@code "r1{..."}), took for out of order.
   */
  @Test
  void aLimitedFindIsInRowKeyOrderNotInTheOrderOfItsRenderedRows() {
    Query find = new Query.Point(Query.PointKind.FIND_LIMIT, "ib", "B:b2", 3);
    List<String> hbase = List.of("r1{d:b=b2}", "r10{d:a=a1, d:b=b2}");
    assertTrue(Checker.matches(find, hbase, hbase));
    // Fewer rows than the limit allows: a row left out.
    assertFalse(Checker.matches(find, hbase, List.of("r1{d:b=b2}")));
    Query one = new Query.Point(Query.PointKind.FIND_LIMIT, "ib", "B:b2", 1);
    assertTrue(Checker.matches(one, hbase, List.of("r10{d:a=a1, d:b=b2}")));
    // Out of row-key order, or a row HBase does not answer: failures.
    assertFalse(Checker.matches(find, hbase, List.of("r10{d:a=a1, d:b=b2}", "r1{d:b=b2}")));
    assertFalse(Checker.matches(one, hbase, List.of("r2{d:b=b2}")));
  }

  /**
   * Seed 1090: an entry kept alive by its indexed cell, stamped an hour ahead, still carried a
   * covered column stamped before it, which HBase had expired (the documented limit).
   */
  @Test
  void anEntryKeptByAFutureCellMayShowCoveredColumnsHBaseExpired() {
    Query entries =
        new Query.Explain(new Query.Point(Query.PointKind.FIND_ENTRIES, "ib", "B:b1", 0), true);
    List<String> hbase = List.of("r3{}", "plan: consistent");
    List<String> index = List.of("r3{d:c=c1}", "plan: consistent");
    assertTrue(Checker.coveredKeptByAFutureCell(entries, hbase, index, ahead("r3")));
    // Without a cell stamped ahead, a covered column HBase does not show is a failure.
    assertFalse(Checker.coveredKeptByAFutureCell(entries, hbase, index, ahead()));
    // A covered value other than the one HBase shows, or a row missing: failures.
    assertFalse(
        Checker.coveredKeptByAFutureCell(
            entries, List.of("r3{d:c=c2}"), List.of("r3{d:c=c1}"), ahead("r3")));
    assertFalse(
        Checker.coveredKeptByAFutureCell(
            entries, List.of("r3{}", "r4{}"), List.of("r3{d:c=c1}"), ahead("r3")));
    assertFalse(
        Checker.coveredKeptByAFutureCell(
            entries, List.of("r3{}"), List.of("r4{d:c=c1}"), ahead("r3", "r4")));
  }
}
