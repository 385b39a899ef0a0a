package io.scbf.hbase.regionserver.eventual;

import com.google.protobuf.RpcCallback;
import com.google.protobuf.RpcController;
import io.scbf.hbase.shared.EventualRecords;
import io.scbf.hbase.shared.proto.IndexProtos.EventualServerService;
import io.scbf.hbase.shared.proto.IndexProtos.WalMark;
import io.scbf.hbase.shared.proto.IndexProtos.WalMarksRequest;
import io.scbf.hbase.shared.proto.IndexProtos.WalMarksResponse;
import io.scbf.hbase.shared.proto.IndexProtos.WalsShippedRequest;
import io.scbf.hbase.shared.proto.IndexProtos.WalsShippedResponse;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.ipc.CoprocessorRpcUtils;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.ReplicationSourceService;
import org.apache.hadoop.hbase.regionserver.wal.AbstractFSWAL;
import org.apache.hadoop.hbase.replication.ReplicationException;
import org.apache.hadoop.hbase.replication.ReplicationQueueStorage;
import org.apache.hadoop.hbase.replication.regionserver.ReplicationSourceInterface;
import org.apache.hadoop.hbase.wal.WAL;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * How far the EVENTUAL peer has shipped this region server's WALs, for awaitIndexed. A probe
 * follows a region's current server; the edits a region took on a server it has since left stay in
 * that server's WAL, shipped in its order. So awaitIndexed marks every live server's WALs at the
 * call (their synced lengths: every acknowledged edit lies within) and waits until each server's
 * source has shipped them that far. The source ships a batch only once the applier has applied it,
 * then records the position in HBase's replication queue storage, which this reads: a WAL no longer
 * queued was shipped whole.
 */
@InterfaceAudience.Private
public final class WalShipping extends EventualServerService {
  /** Set when the coprocessor starts, after HBase has registered this service. */
  private volatile HRegionServer server;

  public void start(HRegionServer server) {
    this.server = server;
  }

  @Override
  public void marks(
      RpcController controller, WalMarksRequest request, RpcCallback<WalMarksResponse> done) {
    try {
      WalMarksResponse.Builder out = WalMarksResponse.newBuilder();
      for (WAL wal : started().getWALs()) {
        // Another WAL implementation (a disabled provider) writes nothing a source ships.
        if (!(wal instanceof AbstractFSWAL<?> fs)) continue;
        Path current = fs.getCurrentFileName();
        if (current == null) continue;
        // Empty once rolled: the file is closed, and shipped whole once it leaves the queue.
        long length = fs.getLogFileSizeIfBeingWritten(current).orElse(Long.MAX_VALUE);
        out.addMarks(WalMark.newBuilder().setWal(current.getName()).setLength(length));
      }
      done.run(out.build());
    } catch (IOException e) {
      CoprocessorRpcUtils.setControllerException(controller, e);
      done.run(null);
    }
  }

  @Override
  public void shipped(
      RpcController controller, WalsShippedRequest request, RpcCallback<WalsShippedResponse> done) {
    try {
      done.run(WalsShippedResponse.newBuilder().setShipped(shipped(request)).build());
    } catch (IOException e) {
      CoprocessorRpcUtils.setControllerException(controller, e);
      done.run(null);
    }
  }

  private boolean shipped(WalsShippedRequest request) throws IOException {
    ReplicationSourceService replication = started().getReplicationSourceService();
    ReplicationSourceInterface source =
        replication == null
            ? null
            : replication.getReplicationManager().getSource(EventualRecords.PEER_ID);
    if (source == null) return true; // no peer: nothing of this server's is to be applied
    ReplicationQueueStorage storage = source.getReplicationQueueStorage();
    ServerName owner = source.getServerWALsBelongTo();
    String queue = source.getQueueId();
    try {
      Set<String> queued = new HashSet<>(storage.getWALsInQueue(owner, queue));
      for (WalMark mark : request.getMarksList()) {
        if (queued.contains(mark.getWal())
            && storage.getWALPosition(owner, queue, mark.getWal()) < mark.getLength()) {
          return false;
        }
      }
      return true;
    } catch (ReplicationException e) {
      throw new IOException("scbf: reading the replication queue of " + owner + " failed", e);
    }
  }

  private HRegionServer started() throws IOException {
    HRegionServer s = server;
    if (s == null) throw new IOException("scbf: the region server is starting; ask again");
    return s;
  }
}
