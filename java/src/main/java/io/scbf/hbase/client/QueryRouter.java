package io.scbf.hbase.client;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.QueryPlan;

/**
 * Where a query's regions come from and which plan it runs: the one interface between the queries
 * and routing, so either side can change alone (docs/design.md, "Routing" and "Query planner").
 */
interface QueryRouter extends AutoCloseable {
  /** The regions of {@code spec} that may hold {@code value}, with its estimate. */
  Routed route(IndexSpec spec, byte[] value);

  /** The plan of a point query returning {@code answer}, from its routing's estimates. */
  QueryPlan plan(QueryPlan.Answer answer, IndexSpec spec, Routed routed);

  /** See {@link QueryPlanner#scanAboveRows}. */
  long scanAboveRows(QueryPlan.Answer answer, boolean local, long tableRows);

  /** See {@link QueryPlanner#planByValue}. */
  QueryPlan planByValue(QueryPlan.Answer answer, long valueRows, long tableRows, int regions);

  /** See {@link QueryPlanner#planRange}. */
  QueryPlan planRange(
      QueryPlan.Answer answer,
      boolean local,
      long rangeRows,
      long tableRows,
      int asked,
      int regions);

  /**
   * The plan of a multi-column query whose most selective condition is estimated at {@code
   * driverRows} (-1: unknown) of {@code tableRows}.
   */
  QueryPlan planAnd(long driverRows, long tableRows, int conditions);

  /** Routes that failed (their queries asked every region). */
  long failures();

  /** Calls made to the master for routing. */
  long masterCalls();

  @Override
  void close();
}
