package io.scbf.hbase.client;

import com.google.protobuf.ServiceException;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRoutingService;
import io.scbf.hbase.shared.proto.IndexProtos.LocalIndexService;
import io.scbf.hbase.shared.proto.IndexProtos.RouteRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateResponse;
import java.io.IOException;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's routing calls, through the caller's connection; once the master refused this caller
 * (with HBase authorization on, master endpoint calls need global ADMIN, which readers lack),
 * relayed by a data region of the table, which needs only READ on the index's columns.
 */
final class MasterRoutingCalls implements RoutingCache.Master {
  private static final Logger LOG = LoggerFactory.getLogger(MasterRoutingCalls.class);

  private final Admin admin;
  private final Connection connection;
  private final TableName dataTable;
  private volatile boolean relayed;

  MasterRoutingCalls(Admin admin, Connection connection, TableName dataTable) {
    this.admin = admin;
    this.connection = connection;
    this.dataTable = dataTable;
  }

  private interface Call<S, T> {
    T on(S stub) throws ServiceException;
  }

  @Override
  public RoutingStateResponse routingState(RoutingStateRequest request) throws Exception {
    return call(m -> m.routingState(null, request), r -> r.routingState(null, request));
  }

  @Override
  public RouteResponse route(RouteRequest request) throws Exception {
    return call(m -> m.route(null, request), r -> r.route(null, request));
  }

  private <T> T call(
      Call<IndexRoutingService.BlockingInterface, T> master,
      Call<LocalIndexService.BlockingInterface, T> relay)
      throws IOException {
    if (!relayed) {
      try {
        return master.on(IndexRoutingService.newBlockingStub(admin.coprocessorService()));
      } catch (ServiceException e) {
        IOException cause = Rpcs.unwrap(e);
        if (!(cause instanceof AccessDeniedException)) throw cause;
        LOG.debug(
            "scbf: the master refused routing to this caller; relaying through {}", dataTable);
        relayed = true;
      }
    }
    try (Table t = connection.getTable(dataTable)) {
      return relay.on(
          LocalIndexService.newBlockingStub(t.coprocessorService(HConstants.EMPTY_START_ROW)));
    } catch (ServiceException e) {
      throw Rpcs.unwrap(e);
    }
  }
}
