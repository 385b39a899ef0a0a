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
}
