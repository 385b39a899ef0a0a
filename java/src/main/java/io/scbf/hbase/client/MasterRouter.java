package io.scbf.hbase.client;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.TableName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes with the master's routing state (a client copy refreshed in the background, {@link
 * RoutingCache}) and plans with {@link QueryPlanner}. If the master cannot be asked, the query asks
 * every region instead (never fewer than routing would have): the answer is complete, only slower.
 * The first such failure is logged at WARN with its cause, later ones at DEBUG.
 */
final class MasterRouter implements QueryRouter {
  private static final Logger LOG = LoggerFactory.getLogger(MasterRouter.class);

  private final TableName dataTable;
  private final RoutingCache routing;
  private final QueryPlanner planner;
  private final AtomicLong failures = new AtomicLong();

  MasterRouter(TableName dataTable, RoutingCache.Master master, Settings settings) {
    this.dataTable = dataTable;
    this.routing =
        new RoutingCache(
            master,
            settings,
            "scbf-routing-" + dataTable.getQualifierAsString(),
            NativeRouting.available(dataTable));
    this.planner = new QueryPlanner(settings);
  }

  @Override
  public Routed route(IndexSpec spec, byte[] value) {
    long start = System.nanoTime();
    String index = IndexCatalog.indexTableName(dataTable, spec.alias()).getNameAsString();
    // A local index's candidates are regions of the data table; a global one's, of its own.
    RouteResponse r =
        routing.route(
            index,
            spec.isLocal() ? dataTable.getNameAsString() : null,
            IndexKeyCodec.filterKey(spec.alias().getBytes(StandardCharsets.UTF_8), value));
    if (r == null) logFailure(index);
    return new Routed(r, (System.nanoTime() - start) / 1000, r == null);
  }

  private void logFailure(String index) {
    if (failures.getAndIncrement() == 0) {
      LOG.warn(
          "scbf: no routing for {} (the master did not answer within {}; see"
              + " scbf.client.routing.*), asking every region (logged once per table;"
              + " later ones at DEBUG)",
          index,
          Settings.CLIENT_ROUTING_WAIT_MS);
    } else {
      LOG.debug("scbf: no routing for {}, asking every region", index);
    }
  }

  @Override
  public QueryPlan plan(QueryPlan.Answer answer, IndexSpec spec, Routed routed) {
    return planner.plan(
        answer,
        spec.isLocal(),
        routed.route(),
        routed.failed()
            ? "routing unavailable: no estimate"
            : spec.routedByKey()
                ? spec.layout() + " index: one region per value, no estimate"
                : "strict: not routed, no estimate");
  }

  @Override
  public long scanAboveRows(QueryPlan.Answer answer, boolean local, long tableRows) {
    return planner.scanAboveRows(answer, local, tableRows);
  }

  @Override
  public QueryPlan planRange(
      QueryPlan.Answer answer,
      boolean local,
      long rangeRows,
      long tableRows,
      int asked,
      int regions) {
    return planner.planRange(answer, local, rangeRows, tableRows, asked, regions);
  }

  @Override
  public QueryPlan planByValue(
      QueryPlan.Answer answer, long valueRows, long tableRows, int regions) {
    return planner.planByValue(answer, valueRows, tableRows, regions);
  }

  @Override
  public QueryPlan planAnd(long driverRows, long tableRows, int conditions) {
    return planner.planAnd(driverRows, tableRows, conditions);
  }

  @Override
  public long failures() {
    return failures.get();
  }

  @Override
  public long masterCalls() {
    return routing.masterCalls();
  }

  @Override
  public void close() {
    routing.close();
  }
}
