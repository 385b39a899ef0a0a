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
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
  private static final Logger LOG = LoggerFactory.getLogger(WalShipping.class);

  /**
   * The protobuf WAL's magic, "PWAL" since HBase 0.96: 2.6 names it in {@code
   * AbstractProtobufWALReader}, 2.5 in {@code ProtobufLogReader}, so it is spelled here once.
   */
  private static final byte[] PB_WAL_MAGIC = {'P', 'W', 'A', 'L'};

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
      Set<String> marked = new HashSet<>();
      for (WAL wal : started().getWALs()) {
        // Another WAL implementation (a disabled provider) writes nothing a source ships.
        if (!(wal instanceof AbstractFSWAL<?> fs)) continue;
        Path current = fs.getCurrentFileName();
        if (current == null) continue;
        marked.add(current.getName());
        // Empty once rolled: the file is closed, and shipped whole once it leaves the queue.
        long length = fs.getLogFileSizeIfBeingWritten(current).orElse(Long.MAX_VALUE);
        // A WAL without an entry has nothing to ship, and its source records no position in it.
        FileSystem files = current.getFileSystem(started().getConfiguration());
        if (length <= headerEnd(files, current)) continue;
        out.addMarks(WalMark.newBuilder().setWal(current.getName()).setLength(length));
      }
      // The rolled WALs still queued, whole: the source ships them before the current one, but a
      // current WAL holding only its header is not marked, and then nothing else would wait for
      // them (edits of regions that moved away before the roll).
      for (String rolled : queuedWals()) {
        if (marked.add(rolled)) {
          out.addMarks(WalMark.newBuilder().setWal(rolled).setLength(Long.MAX_VALUE));
        }
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

  /** This server's own WALs queued for the EVENTUAL peer now (none without the peer). */
  private List<String> queuedWals() throws IOException {
    ReplicationSourceInterface source = source();
    if (source == null) return List.of();
    try {
      return source
          .getReplicationQueueStorage()
          .getWALsInQueue(source.getServerWALsBelongTo(), source.getQueueId());
    } catch (ReplicationException e) {
      throw new IOException("scbf: reading the replication queue failed", e);
    }
  }

  private ReplicationSourceInterface source() throws IOException {
    ReplicationSourceService replication = started().getReplicationSourceService();
    return replication == null
        ? null
        : replication.getReplicationManager().getSource(EventualRecords.PEER_ID);
  }

  private boolean shipped(WalsShippedRequest request) throws IOException {
    ReplicationSourceInterface source = source();
    if (source == null) return true; // no peer: nothing of this server's is to be applied
    ReplicationQueueStorage storage = source.getReplicationQueueStorage();
    ServerName owner = source.getServerWALsBelongTo();
    String queue = source.getQueueId();
    try {
      Set<String> queued = new HashSet<>(storage.getWALsInQueue(owner, queue));
      for (WalMark mark : request.getMarksList()) {
        if (!queued.contains(mark.getWal())) continue;
        long position = storage.getWALPosition(owner, queue, mark.getWal());
        if (position < mark.getLength()) {
          LOG.debug(
              "scbf: {} of queue {} shipped to {}, not yet to {}",
              mark.getWal(),
              queue,
              position,
              mark.getLength());
          return false;
        }
      }
      return true;
    } catch (ReplicationException e) {
      throw new IOException("scbf: reading the replication queue of " + owner + " failed", e);
    }
  }

  /**
   * Where a WAL's first entry starts: after its magic and its length-delimited header, as both of
   * HBase's protobuf WAL writers write them. 0 if the file does not read as one (then it is marked
   * whole: awaited until shipped).
   */
  static long headerEnd(FileSystem files, Path wal) throws IOException {
    try (FSDataInputStream in = files.open(wal)) {
      byte[] magic = new byte[PB_WAL_MAGIC.length];
      in.readFully(magic);
      if (!Arrays.equals(magic, PB_WAL_MAGIC)) return 0;
      int size = 0;
      int varint = 0;
      for (int shift = 0; ; shift += 7) {
        int b = in.readUnsignedByte();
        varint++;
        size |= (b & 0x7f) << shift;
        if ((b & 0x80) == 0) break;
        if (shift >= 28) return 0;
      }
      return magic.length + varint + (long) size;
    } catch (EOFException | FileNotFoundException partOrGone) {
      return 0;
    }
  }

  private HRegionServer started() throws IOException {
    HRegionServer s = server;
    if (s == null) throw new IOException("scbf: the region server is starting; ask again");
    return s;
  }
}
