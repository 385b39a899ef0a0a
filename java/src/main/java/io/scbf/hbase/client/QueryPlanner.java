package io.scbf.hbase.client;

import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.QueryPlan.Answer;
import io.scbf.hbase.QueryPlan.Kind;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RowEstimate;

/**
 * Chooses a point query's plan by cost: the index plan costs per row of the value (an index entry,
 * plus reading the row back to re-check it for {@link Answer#ROWS}: a client multi-get for a global
 * index, a read inside the data region for a local one, several times cheaper), the scan per row of
 * the table. Both run in parallel, so the per-row costs are measured end to end on a cluster
 * (docs/benchmarks-hbase.md, "Planner"); they are settings ({@code scbf.planner.*}). Without an
 * estimate (strict queries, no routing, no counts published yet) the index plan runs, as it did
 * before the planner existed: it is never wrong, only slower for popular values.
 */
final class QueryPlanner {
  private final boolean costBased;
  private final double scanRowUs;
  private final double entryUs;
  private final double fetchRowUs;
  private final double localRowUs;

  QueryPlanner(Settings settings) {
    this.costBased = settings.planner().equals("cost");
    this.scanRowUs = settings.plannerScanRowUs();
    this.entryUs = settings.plannerIndexEntryUs();
    this.fetchRowUs = settings.plannerFetchRowUs();
    this.localRowUs = settings.plannerLocalRowUs();
  }

  /**
   * The plan for a point query whose route (with the value's estimate) is {@code route}, or null if
   * the query is not routed ({@code why} says why).
   */
  QueryPlan plan(Answer answer, boolean local, RouteResponse route, String why) {
    Kind index = answer == Answer.ROWS ? Kind.INDEX_LOOKUP : Kind.INDEX_ONLY;
    int asked = route == null ? -1 : route.getCandidatesCount();
    int total = route == null ? -1 : route.getTotalRegions();
    if (!costBased) {
      return unestimated(index, answer, asked, total, Settings.PLANNER + " = index");
    }
    if (route == null) return unestimated(index, answer, asked, total, why);
    RowEstimate e = route.getEstimate();
    if (!route.hasEstimate() || e.getRegionsCounted() == 0) {
      return unestimated(index, answer, asked, total, "no value counts published yet: the index");
    }
    // Regions routing is unsure of have no counts: assume they hold the same share.
    double scale = (double) Math.max(total, e.getRegionsCounted()) / e.getRegionsCounted();
    long bound = Math.round(e.getBoundRows() * scale);
    long rows =
        Math.round((e.getHeavyRows() + (e.getBoundRows() - e.getHeavyRows()) / 2.0) * scale);
    long tableRows = Math.round(e.getEntries() * scale);
    return costed(index, answer, local, rows, bound, tableRows, asked, asked, total, "");
  }

  /** The index plan's cost per row of the value: its entry, and reading the row back for ROWS. */
  private double indexRowUs(Answer answer, boolean local) {
    return entryUs + (answer != Answer.ROWS ? 0 : local ? localRowUs : fetchRowUs);
  }

  /**
   * The cheaper of the index plan ({@code rows} at {@link #indexRowUs}) and a scan of {@code
   * tableRows}; {@code indexAsked} regions are asked if the index runs, {@code scanAsked} if not.
   */
  private QueryPlan costed(
      Kind index,
      Answer answer,
      boolean local,
      long rows,
      long bound,
      long tableRows,
      int indexAsked,
      int scanAsked,
      int total,
      String why) {
    double indexMs = rows * indexRowUs(answer, local) / 1000;
    double scanMs = tableRows * scanRowUs / 1000;
    boolean scan = scanMs < indexMs;
    return new QueryPlan(
        scan ? Kind.DATA_SCAN : index,
        answer,
        rows,
        bound,
        tableRows,
        scan ? scanAsked : indexAsked,
        total,
        indexMs,
        scanMs,
        (scan ? "a scan is cheaper" : "the index is cheaper") + why);
  }

  /**
   * The rows of one value or range above which scanning a table of {@code tableRows} costs less
   * than the index plan ({@code local}: a local index's, whose rows are read in their regions): a
   * {@code BY_VALUE} region that estimates more answers only its estimate. 0 (no limit) when the
   * table's size is unknown or the planner is not cost-based.
   */
  long scanAboveRows(Answer answer, boolean local, long tableRows) {
    if (!costBased || tableRows <= 0) return 0;
    return Math.max(1, (long) (tableRows * scanRowUs / indexRowUs(answer, local)));
  }

  /**
   * The plan of a point query on a {@code BY_VALUE} index from its region's estimate of the value's
   * rows ({@code valueRows}) and the table's rows (the region's entries times the index's regions).
   */
  QueryPlan planByValue(Answer answer, long valueRows, long tableRows, int regions) {
    return planByKey(
        answer, false, valueRows, tableRows, 1, regions, "the value's region estimated its rows");
  }

  /**
   * The plan of a range from the entries its {@code asked} regions counted in it ({@code
   * rangeRows}) and the table's rows ({@code local}: on a local index).
   */
  QueryPlan planRange(
      Answer answer, boolean local, long rangeRows, long tableRows, int asked, int regions) {
    return planByKey(
        answer,
        local,
        rangeRows,
        tableRows,
        asked,
        regions,
        "the range's regions counted its entries");
  }

  private QueryPlan planByKey(
      Answer answer,
      boolean local,
      long rows,
      long tableRows,
      int asked,
      int regions,
      String source) {
    Kind index = answer == Answer.ROWS ? Kind.INDEX_LOOKUP : Kind.INDEX_ONLY;
    if (!costBased) {
      return unestimated(index, answer, asked, regions, Settings.PLANNER + " = index");
    }
    return costed(
        index,
        answer,
        local,
        rows,
        rows,
        tableRows,
        asked,
        // A scan asks every data region; of a global index's regions, none.
        local ? regions : 0,
        regions,
        " (" + source + ")");
  }

  /**
   * The plan of an AND of {@code conditions} conditions whose most selective one is estimated at
   * {@code driverRows} rows (-1: unknown): the index plan reads its keys and re-checks its rows by
   * client reads, the scan plan reads the table ({@code tableRows}, -1: unknown).
   */
  QueryPlan planAnd(long driverRows, long tableRows, int conditions) {
    String what = "AND of " + conditions + " conditions";
    if (!costBased) {
      return unestimated(
          Kind.INDEX_LOOKUP, Answer.ROWS, -1, -1, what + "; " + Settings.PLANNER + " = index");
    }
    if (driverRows < 0 || tableRows < 0) {
      return unestimated(Kind.INDEX_LOOKUP, Answer.ROWS, -1, -1, what + "; no estimate: the index");
    }
    double indexMs = driverRows * (entryUs + fetchRowUs) / 1000;
    double scanMs = tableRows * scanRowUs / 1000;
    boolean scan = scanMs < indexMs;
    return new QueryPlan(
        scan ? Kind.DATA_SCAN : Kind.INDEX_LOOKUP,
        Answer.ROWS,
        driverRows,
        -1,
        tableRows,
        -1,
        -1,
        indexMs,
        scanMs,
        what + (scan ? ": a scan is cheaper" : ": the index is cheaper"));
  }

  /** A plan chosen without estimates. */
  private static QueryPlan unestimated(
      Kind kind, Answer answer, int regionsAsked, int regionsTotal, String reason) {
    return new QueryPlan(
        kind, answer, -1, -1, -1, regionsAsked, regionsTotal, Double.NaN, Double.NaN, reason);
  }
}
