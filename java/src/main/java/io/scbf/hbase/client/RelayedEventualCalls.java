package io.scbf.hbase.client;

import com.google.protobuf.ServiceException;
import io.scbf.hbase.shared.EventualCalls;
import io.scbf.hbase.shared.proto.IndexProtos.EventualServersRequest;
import io.scbf.hbase.shared.proto.IndexProtos.EventualShipsRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LocalIndexService;
import io.scbf.hbase.shared.proto.IndexProtos.PendingQueuesRequest;
import io.scbf.hbase.shared.proto.IndexProtos.ServerWalMarksRequest;
import io.scbf.hbase.shared.proto.IndexProtos.ServerWalMarksResponse;
import io.scbf.hbase.shared.proto.IndexProtos.ServerWalsShippedRequest;
import io.scbf.hbase.shared.proto.IndexProtos.WalMark;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Table;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * {@link EventualCalls} relayed by the data table's first region (any reader of the table may ask),
 * for a client that HBase refuses them directly (no global ADMIN).
 */
@InterfaceAudience.Private
final class RelayedEventualCalls implements EventualCalls {
  private final Connection connection;
  private final TableName dataTable;

  RelayedEventualCalls(Connection connection, TableName dataTable) {
    this.connection = connection;
    this.dataTable = dataTable;
  }

  @FunctionalInterface
  private interface Call<T> {
    T on(LocalIndexService.BlockingInterface relay) throws ServiceException;
  }

  private <T> T relay(Call<T> call) throws IOException {
    try (Table data = connection.getTable(dataTable)) {
      return call.on(
          LocalIndexService.newBlockingStub(data.coprocessorService(HConstants.EMPTY_START_ROW)));
    } catch (ServiceException e) {
      throw e.getCause() instanceof IOException io
          ? io
          : new IOException("scbf: relaying awaitIndexed's calls through " + dataTable, e);
    }
  }

  @Override
  public boolean ships(TableName table) throws IOException {
    if (!table.equals(dataTable)) throw new IllegalArgumentException("relayed for " + dataTable);
    return relay(r -> r.eventualShips(null, EventualShipsRequest.getDefaultInstance()).getShips());
  }

  @Override
  public List<ServerName> servers() throws IOException {
    List<String> names =
        relay(
            r ->
                r.eventualServers(null, EventualServersRequest.getDefaultInstance())
                    .getServersList());
    List<ServerName> out = new ArrayList<>(names.size());
    for (String name : names) out.add(ServerName.valueOf(name));
    return out;
  }

  @Override
  public List<WalMark> marks(ServerName server) throws IOException {
    ServerWalMarksResponse answer =
        relay(
            r ->
                r.eventualMarks(
                    null,
                    ServerWalMarksRequest.newBuilder().setServer(server.getServerName()).build()));
    return answer.getAnswered() ? answer.getMarksList() : null;
  }

  @Override
  public boolean shipped(ServerName server, List<WalMark> marks) throws IOException {
    if (marks.isEmpty()) return true;
    return relay(
        r ->
            r.eventualShipped(
                    null,
                    ServerWalsShippedRequest.newBuilder()
                        .setServer(server.getServerName())
                        .addAllMarks(marks)
                        .build())
                .getShipped());
  }

  @Override
  public List<String> pendingQueues() throws IOException {
    return relay(
        r ->
            r.eventualPendingQueues(null, PendingQueuesRequest.getDefaultInstance())
                .getQueuesList());
  }
}
