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
    assertTrue(Checker.keptByAFutureCell(List.of("r1"), List.of("r1", "r3"), ahead("r3")));
    assertTrue(Checker.keptByAFutureCell(List.of(), List.of("r3 value=B:a0{d:c=x}"), ahead("r3")));
  }

  @Test
  void anythingElseIsStillAFailure() {
    // A row missing from the answer: a false negative is never allowed.
    assertFalse(Checker.keptByAFutureCell(List.of("r1"), List.of("r3"), ahead("r3")));
    // An extra row without a cell stamped in the future.
    assertFalse(Checker.keptByAFutureCell(List.of(), List.of("r3", "r4"), ahead("r3")));
    assertFalse(Checker.keptByAFutureCell(List.of(), List.of("r30{d:c=x}"), ahead("r3")));
    // No extra row: not this allowance's case (the answer differs otherwise).
    assertFalse(Checker.keptByAFutureCell(List.of("r1"), List.of("r1"), ahead("r1")));
  }
}
