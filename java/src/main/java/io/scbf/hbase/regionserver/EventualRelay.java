package io.scbf.hbase.regionserver;

import io.scbf.hbase.shared.DirectEventualCalls;
import io.scbf.hbase.shared.proto.IndexProtos.EventualServersResponse;
import io.scbf.hbase.shared.proto.IndexProtos.EventualShipsResponse;
import io.scbf.hbase.shared.proto.IndexProtos.PendingQueuesResponse;
import io.scbf.hbase.shared.proto.IndexProtos.ServerWalMarksRequest;
import io.scbf.hbase.shared.proto.IndexProtos.ServerWalMarksResponse;
import io.scbf.hbase.shared.proto.IndexProtos.ServerWalsShippedRequest;
import io.scbf.hbase.shared.proto.IndexProtos.WalMark;
import io.scbf.hbase.shared.proto.IndexProtos.WalsShippedResponse;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.regionserver.Region;

/**
 * awaitIndexed's cluster-wide calls ({@link io.scbf.hbase.shared.EventualCalls}), relayed by a data
 * region for readers of its table, who lack the global ADMIN HBase requires of them. The region
 * checks that the caller reads the table (as for its probe) and asks as the HBase service user.
 * What it tells is whether the peer ships this table, the live servers, WAL names, lengths and
 * shipping positions, and the names of dead servers' queues: no data.
 */
final class EventualRelay {
  private final Region region;
  private final DirectEventualCalls calls;

  EventualRelay(Region region, IndexServices services) throws IOException {
    IndexReadAccess.requireSomeRead(region, region.getRegionInfo().getTable());
    this.region = region;
    this.calls = new DirectEventualCalls(services.connection());
  }

  EventualShipsResponse ships() throws IOException {
    return EventualShipsResponse.newBuilder()
        .setShips(calls.ships(region.getRegionInfo().getTable()))
        .build();
  }

  EventualServersResponse servers() throws IOException {
    EventualServersResponse.Builder out = EventualServersResponse.newBuilder();
    for (ServerName s : calls.servers()) out.addServers(s.getServerName());
    return out.build();
  }

  ServerWalMarksResponse marks(ServerWalMarksRequest request) throws IOException {
    List<WalMark> marks = calls.marks(ServerName.valueOf(request.getServer()));
    ServerWalMarksResponse.Builder out = ServerWalMarksResponse.newBuilder();
    return (marks == null ? out.setAnswered(false) : out.setAnswered(true).addAllMarks(marks))
        .build();
  }

  WalsShippedResponse shipped(ServerWalsShippedRequest request) throws IOException {
    boolean shipped =
        calls.shipped(ServerName.valueOf(request.getServer()), request.getMarksList());
    return WalsShippedResponse.newBuilder().setShipped(shipped).build();
  }

  PendingQueuesResponse pendingQueues() throws IOException {
    return PendingQueuesResponse.newBuilder().addAllQueues(calls.pendingQueues()).build();
  }
}
