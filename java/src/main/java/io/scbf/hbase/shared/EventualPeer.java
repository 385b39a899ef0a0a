package io.scbf.hbase.shared;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.replication.ReplicationPeerConfig;
import org.apache.hadoop.hbase.replication.ReplicationPeerDescription;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The replication peer {@link EventualRecords#PEER_ID} as clients and the master see it: which data
 * tables it ships to the applier, and taking one out (a table's last EVENTUAL index switched or
 * dropped, or the table deleted). Adding a table stays with the client, which creates the record
 * table and seeds it.
 */
@InterfaceAudience.Private
public final class EventualPeer {
  private EventualPeer() {}

  /** The peer's configuration, or null if there is no such peer. */
  public static ReplicationPeerConfig config(Admin admin) throws IOException {
    for (ReplicationPeerDescription d : admin.listReplicationPeers()) {
      if (d.getPeerId().equals(EventualRecords.PEER_ID)) return d.getPeerConfig();
    }
    return null;
  }

  /** True if the peer exists and ships {@code table}'s edits. */
  public static boolean ships(Admin admin, TableName table) throws IOException {
    ReplicationPeerConfig config = config(admin);
    return config != null && config.needToReplicate(table);
  }

  /** Stops shipping {@code table}'s edits; removes the peer once it ships no table. */
  public static void stopShipping(Admin admin, TableName table) throws IOException {
    if (!ships(admin, table)) return;
    EventualPeerLock.holding(
        admin,
        () -> {
          ReplicationPeerConfig config = config(admin);
          if (config == null || !config.needToReplicate(table)) return;
          Map<TableName, List<String>> tables = config.getTableCFsMap();
          if (tables == null || tables.size() <= 1) {
            admin.removeReplicationPeer(EventualRecords.PEER_ID);
          } else {
            Map<TableName, List<String>> rest = new HashMap<>(tables);
            rest.remove(table);
            admin.updateReplicationPeerConfig(
                EventualRecords.PEER_ID,
                ReplicationPeerConfig.newBuilder(config).setTableCFsMap(rest).build());
          }
        });
  }
}
