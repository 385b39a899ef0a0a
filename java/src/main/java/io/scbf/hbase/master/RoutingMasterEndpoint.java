package io.scbf.hbase.master;

import com.google.protobuf.RpcCallback;
import com.google.protobuf.RpcController;
import com.google.protobuf.Service;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.ServerCalls;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRoutingService;
import io.scbf.hbase.shared.proto.IndexProtos.PublishRequest;
import io.scbf.hbase.shared.proto.IndexProtos.PublishResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RouteRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateResponse;
import io.scbf.hbase.shared.proto.IndexProtos.StatsRequest;
import io.scbf.hbase.shared.proto.IndexProtos.StatsResponse;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HBaseInterfaceAudience;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.CoreCoprocessor;
import org.apache.hadoop.hbase.coprocessor.HasMasterServices;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessor;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessorEnvironment;
import org.apache.hadoop.hbase.ipc.CoprocessorRpcUtils;
import org.apache.hadoop.hbase.master.MasterServices;
import org.apache.hadoop.hbase.master.RegionState;
import org.apache.hadoop.hbase.master.assignment.RegionStateNode;
import org.apache.hadoop.hbase.metrics.Gauge;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Master endpoint: receives the index regions' filters and answers routing and stats requests. All
 * logic is in {@link RoutingTable}; this class wires it to the master's view of region assignments
 * and server liveness (hence {@link CoreCoprocessor}, which grants MasterServices).
 */
@CoreCoprocessor
@InterfaceAudience.LimitedPrivate(HBaseInterfaceAudience.CONFIG)
public class RoutingMasterEndpoint extends IndexRoutingService implements MasterCoprocessor {
  private static final Logger LOG = LoggerFactory.getLogger(RoutingMasterEndpoint.class);
  private RoutingTable table;

  /** The routing table, for tests in this package; null before start. */
  RoutingTable table() {
    return table;
  }

  @Override
  public void start(CoprocessorEnvironment env) {
    if (!(env instanceof MasterCoprocessorEnvironment menv)) return;
    MasterServices master = ((HasMasterServices) menv).getMasterServices();
    Settings settings = Settings.from(env.getConfiguration());
    table =
        new RoutingTable(
            new MasterClusterView(master),
            settings.routeStaleMs(),
            settings.routeSlicedMinRegions(),
            RoutingTable.SNAPSHOT_MS,
            true);
    registerMetrics(menv.getMetricRegistryForMaster());
  }

  @Override
  public void stop(CoprocessorEnvironment env) {
    if (table != null) table.close();
  }

  @Override
  public Iterable<Service> getServices() {
    return List.of(this);
  }

  /**
   * Only region servers publish: a filter from anyone else could tell routing that a bucket lacks a
   * value it holds (a false negative for every routed query).
   */
  @Override
  public void publish(
      RpcController controller, PublishRequest request, RpcCallback<PublishResponse> done) {
    try {
      ServerCalls.requireServer("publish index routing state");
    } catch (AccessDeniedException e) {
      LOG.warn(
          "scbf: refused a routing publication of {} regions: {}",
          request.getRegionsCount(),
          e.getMessage());
      CoprocessorRpcUtils.setControllerException(controller, e);
      done.run(null);
      return;
    }
    done.run(table.publish(request, System.currentTimeMillis()));
  }

  @Override
  public void route(
      RpcController controller, RouteRequest request, RpcCallback<RouteResponse> done) {
    TableName regionsOf = regionsOf(request.getIndexTable(), request.getRegionsOf(), controller);
    // On an error the answer must still be a complete message (HBase serializes it before it
    // reports the controller's exception); the caller gets the exception, not this message.
    done.run(
        regionsOf == null
            ? RouteResponse.newBuilder().setTotalRegions(0).setUnsureRegions(0).build()
            : table.route(
                request.getIndexTable(),
                regionsOf,
                request.getFilterKey().toByteArray(),
                System.currentTimeMillis()));
  }

  @Override
  public void routingState(
      RpcController controller,
      RoutingStateRequest request,
      RpcCallback<RoutingStateResponse> done) {
    TableName regionsOf = regionsOf(request.getIndexTable(), request.getRegionsOf(), controller);
    done.run(
        regionsOf == null
            ? null
            : table.routingState(
                request.getIndexTable(),
                regionsOf,
                request.getHeldList(),
                System.currentTimeMillis()));
  }

  /**
   * The table whose regions carry the index's bitmaps: {@code regionsOf} (local indexes) or the
   * index table itself. Null, with a clear error on the controller, if the name is not a table
   * name.
   */
  private static TableName regionsOf(String index, String regionsOf, RpcController controller) {
    String name = regionsOf.isEmpty() ? index : regionsOf;
    try {
      return TableName.valueOf(name);
    } catch (IllegalArgumentException e) {
      CoprocessorRpcUtils.setControllerException(
          controller,
          new DoNotRetryIOException("scbf routing: not a table name: '" + name + "'", e));
      return null;
    }
  }

  @Override
  public void stats(
      RpcController controller, StatsRequest request, RpcCallback<StatsResponse> done) {
    done.run(
        table.stats(
            request.hasIndexTable() ? request.getIndexTable() : null, System.currentTimeMillis()));
  }

  private void registerMetrics(MetricRegistry registry) {
    gauge(registry, "scbfRoutesServed", table.routesServed::get);
    gauge(registry, "scbfBucketsAsked", table.bucketsAsked::get);
    gauge(registry, "scbfBucketsTotal", table.bucketsTotal::get);
    gauge(registry, "scbfUnsureRegions", table.unsureAnswers::get);
    gauge(registry, "scbfRoutingFilterBytes", table::filterBytes);
    gauge(registry, "scbfRoutingStatesServed", table.statesServed::get);
    gauge(registry, "scbfPublishedBytesReceived", table.bytesReceived::get);
    gauge(registry, "scbfRoutesSliced", table.slicedRoutesServed::get);
    gauge(registry, "scbfRoutingSlicedBytes", table::slicedBytes);
    gauge(registry, "scbfRoutingSnapshots", table.snapshotsBuilt::get);
    gauge(registry, "scbfRoutingSnapshotsFull", table.snapshotsFull::get);
    gauge(registry, "scbfRoutingSnapshotRegionsRead", table.snapshotRegionsRead::get);
  }

  /** Replaces a gauge left by an earlier master in this JVM (the registry outlives it). */
  private static void gauge(MetricRegistry registry, String name, Gauge<Long> gauge) {
    registry.remove(name);
    registry.register(name, gauge);
  }

  /** Region assignments and server liveness, from the master's in-memory state. */
  private record MasterClusterView(MasterServices master) implements RoutingTable.ClusterView {
    @Override
    public List<RegionInfo> regionsOf(TableName table) {
      return master.getAssignmentManager().getRegionStates().getRegionsOfTable(table);
    }

    /**
     * By encoded name (a hash map), not by region name (a sorted map), and with no copy of the
     * state: a snapshot of a sliced index asks this for every region of the index.
     */
    @Override
    public ServerName openOn(RegionInfo region) {
      RegionStateNode node =
          master
              .getAssignmentManager()
              .getRegionStates()
              .getRegionStateNodeFromEncodedRegionName(region.getEncodedName());
      return node != null && node.isInState(RegionState.State.OPEN)
          ? node.getRegionLocation()
          : null;
    }

    @Override
    public boolean isOnline(ServerName server) {
      return master.getServerManager().isServerOnline(server);
    }

    @Override
    public boolean isBuilding(TableName table) {
      try {
        TableDescriptor td = master.getTableDescriptors().get(table);
        return td != null && IndexCatalog.isBuilding(td);
      } catch (IOException e) {
        return true; // unknown: every region is a candidate
      }
    }
  }
}
