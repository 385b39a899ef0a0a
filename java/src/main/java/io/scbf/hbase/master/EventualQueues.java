package io.scbf.hbase.master;

import com.google.protobuf.RpcCallback;
import com.google.protobuf.RpcController;
import io.scbf.hbase.shared.EventualRecords;
import io.scbf.hbase.shared.proto.IndexProtos.EventualMasterService;
import io.scbf.hbase.shared.proto.IndexProtos.PendingQueuesRequest;
import io.scbf.hbase.shared.proto.IndexProtos.PendingQueuesResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.ipc.CoprocessorRpcUtils;
import org.apache.hadoop.hbase.master.MasterServices;
import org.apache.hadoop.hbase.replication.ReplicationException;
import org.apache.hadoop.hbase.replication.ReplicationQueueInfo;
import org.apache.hadoop.hbase.replication.ReplicationQueueStorage;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The EVENTUAL peer's queues that awaitIndexed's probes cannot cover. A probe follows the edits of
 * the server that now hosts a region; the edits a crashed server acknowledged are shipped from its
 * queue, which the master hands to a live server only after the region has reopened elsewhere (the
 * crash procedure claims queues after it assigns regions). Until such a queue is drained and
 * removed, its edits may not be applied: awaitIndexed waits until none is left.
 */
@InterfaceAudience.Private
final class EventualQueues extends EventualMasterService {
  /** Set when the coprocessor starts, after HBase has registered this service. */
  private volatile MasterServices master;

  void start(MasterServices master) {
    this.master = master;
  }

  @Override
  public void pendingQueues(
      RpcController controller,
      PendingQueuesRequest request,
      RpcCallback<PendingQueuesResponse> done) {
    MasterServices master = this.master;
    try {
      if (master == null) throw new IOException("scbf: the master is starting; ask again");
      done.run(
          PendingQueuesResponse.newBuilder()
              .addAllQueues(
                  pending(
                      master.getReplicationPeerManager().getQueueStorage(),
                      master.getServerManager()::isServerOnline))
              .build());
    } catch (IOException e) {
      CoprocessorRpcUtils.setControllerException(controller, e);
      done.run(null);
    }
  }

  /**
   * The EVENTUAL peer's queues owned by a server that is not online (not yet claimed) or recovered
   * from one (claimed, still shipping), as "server queue-id".
   */
  static List<String> pending(ReplicationQueueStorage storage, Predicate<ServerName> online)
      throws IOException {
    List<String> out = new ArrayList<>();
    try {
      for (ServerName server : storage.getListOfReplicators()) {
        for (String queue : storage.getAllQueues(server)) {
          ReplicationQueueInfo info = new ReplicationQueueInfo(queue);
          if (!info.getPeerId().equals(EventualRecords.PEER_ID)) continue;
          if (info.isQueueRecovered() || !online.test(server)) out.add(server + " " + queue);
        }
      }
    } catch (ReplicationException e) {
      throw new IOException("scbf: reading the replication queues failed", e);
    }
    return out;
  }
}
