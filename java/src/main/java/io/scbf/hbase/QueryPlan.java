package io.scbf.hbase;

import org.apache.yetus.audience.InterfaceAudience;

/**
 * The plan of a point query and the estimates it was chosen by: what {@link IndexedTable#explain}
 * returns and {@link QueryTrace#plan()} records. Estimates come from the value counts the index
 * regions publish with their routing bitmaps (see docs/design.md, "Query planner"); -1 (or NaN for
 * a cost) means unknown.
 *
 * @param kind what the query does
 * @param answer what the query returns
 * @param estimatedRows the value's estimated rows: its counts in the candidate regions where it is
 *     heavy, plus half the bound of the others
 * @param boundRows an upper bound on the value's rows (exceeded only when a region's threshold fell
 *     since the value's last write there)
 * @param tableRows the index's entries in the whole table (about the rows a scan reads)
 * @param regionsAsked buckets (global index) or data regions (local index) the index plan asks
 * @param regionsTotal buckets or data regions of the index
 * @param indexCostMs the index plan's estimated cost
 * @param scanCostMs the scan plan's estimated cost
 * @param reason why this plan
 */
@InterfaceAudience.Public
public record QueryPlan(
    Kind kind,
    Answer answer,
    long estimatedRows,
    long boundRows,
    long tableRows,
    int regionsAsked,
    int regionsTotal,
    double indexCostMs,
    double scanCostMs,
    String reason) {

  public enum Kind {
    /** Index lookups in the candidate regions, then the rows re-checked (read back). */
    INDEX_LOOKUP,
    /** Index lookups answer alone (row keys or covered values, not re-checked). */
    INDEX_ONLY,
    /** A parallel scan of the data table's regions, the value tested in the region servers. */
    DATA_SCAN
  }

  /** What a point query returns: {@code find}, {@code findRowKeys}, {@code findEntries}. */
  public enum Answer {
    ROWS,
    ROW_KEYS,
    ENTRIES
  }

  @Override
  public String toString() {
    String costs =
        Double.isNaN(indexCostMs)
            ? "no estimate"
            : String.format(
                "~%,d rows (at most ~%,d) of ~%,d; index %.1f ms vs scan %.1f ms",
                estimatedRows, boundRows, tableRows, indexCostMs, scanCostMs);
    return String.format(
        "%s (%s): regions %d/%d, %s: %s", kind, answer, regionsAsked, regionsTotal, costs, reason);
  }
}
