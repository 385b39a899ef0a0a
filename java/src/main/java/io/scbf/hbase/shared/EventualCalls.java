package io.scbf.hbase.shared;

import io.scbf.hbase.shared.proto.IndexProtos.WalMark;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The cluster-wide questions awaitIndexed asks besides its probes. With HBase authorization on,
 * each needs global ADMIN (the peer's configuration, region-server and master endpoints): a client
 * with it asks directly ({@link DirectEventualCalls}), another has a data region of its table ask
 * for it as the HBase service user (a relay that shows WAL names and positions, no data).
 */
@InterfaceAudience.Private
public interface EventualCalls {
  /** True if the EVENTUAL peer exists and ships {@code table}'s edits. */
  boolean ships(TableName table) throws IOException;

  /** The live region servers. */
  List<ServerName> servers() throws IOException;

  /**
   * The server's WALs and their synced lengths now: empty for a server without the service (a
   * release before 0.4, left out during a rolling upgrade); null if it did not answer.
   */
  List<WalMark> marks(ServerName server) throws IOException;

  /** True once the server's EVENTUAL source has shipped each WAL up to its mark. */
  boolean shipped(ServerName server, List<WalMark> marks) throws IOException;

  /** The EVENTUAL peer's queues of dead servers, unclaimed or recovered. */
  List<String> pendingQueues() throws IOException;
}
