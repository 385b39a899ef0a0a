package io.scbf.hbase.regionserver;

import com.google.protobuf.Service;
import io.scbf.hbase.regionserver.eventual.WalShipping;
import io.scbf.hbase.regionserver.write.IndexWriteEndpoint;
import java.util.List;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.HBaseInterfaceAudience;
import org.apache.hadoop.hbase.coprocessor.CoreCoprocessor;
import org.apache.hadoop.hbase.coprocessor.HasRegionServerServices;
import org.apache.hadoop.hbase.coprocessor.RegionServerCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionServerCoprocessorEnvironment;
import org.apache.hadoop.hbase.ipc.RpcScheduler;
import org.apache.hadoop.hbase.ipc.RpcServerInterface;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The region-server coprocessor (one per server, loaded from {@code
 * hbase.coprocessor.regionserver.classes}): creates the server's {@link RegionServerContext} and
 * registers its metrics. The region coprocessors find the context through it. It also serves the
 * index writes of data region servers ({@link IndexWriteEndpoint}) and awaitIndexed's questions
 * about its WALs ({@link WalShipping}).
 */
@CoreCoprocessor
@InterfaceAudience.LimitedPrivate(HBaseInterfaceAudience.CONFIG)
public class IndexRegionServerCoprocessor implements RegionServerCoprocessor {
  private volatile RegionServerContext context;
  // HBase registers a region-server coprocessor's services before it starts it.
  private final IndexWriteEndpoint writes = new IndexWriteEndpoint();
  private final WalShipping shipping = new WalShipping();

  @Override
  public void start(CoprocessorEnvironment env) {
    if (!(env instanceof RegionServerCoprocessorEnvironment rsEnv)) return;
    RegionServerMetrics metrics = new RegionServerMetrics();
    RegionServerContext created =
        new RegionServerContext(rsEnv.getServerName(), env.getConfiguration(), metrics);
    RpcServerInterface rpc =
        env instanceof HasRegionServerServices h
            ? h.getRegionServerServices().getRpcServer()
            : null;
    metrics.register(
        rsEnv.getMetricRegistryForRegionServer(),
        created::servicesOrNull,
        () -> {
          RpcScheduler scheduler = rpc == null ? null : rpc.getScheduler();
          return scheduler instanceof IndexRpcSchedulerFactory.IndexRpcScheduler s
              ? s.indexCalls()
              : 0;
        });
    writes.start(rsEnv.getOnlineRegions());
    if (env instanceof HasRegionServerServices h
        && h.getRegionServerServices() instanceof HRegionServer rs) {
      shipping.start(rs);
    }
    context = created;
  }

  /**
   * {@link IndexWriteEndpoint}: index rows from the data region servers, one call per server;
   * {@link WalShipping}: how far the EVENTUAL peer has shipped this server's WALs.
   */
  @Override
  public Iterable<Service> getServices() {
    return List.of(writes, shipping);
  }

  /** Null before {@link #start} and on a host that is not a region server's. */
  RegionServerContext context() {
    return context;
  }
}
