package io.scbf.hbase.client;

import com.google.protobuf.ServiceException;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.DirectEventualCalls;
import io.scbf.hbase.shared.EventualCalls;
import io.scbf.hbase.shared.EventualPeer;
import io.scbf.hbase.shared.EventualPeerLock;
import io.scbf.hbase.shared.EventualRecords;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexRowVersions;
import io.scbf.hbase.shared.IndexRows;
import io.scbf.hbase.shared.IndexUpdatePlanner;
import io.scbf.hbase.shared.proto.IndexProtos.EventualProbeRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LocalIndexService;
import io.scbf.hbase.shared.proto.IndexProtos.WalMark;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.replication.ReplicationLoadSource;
import org.apache.hadoop.hbase.replication.ReplicationPeerConfig;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's share of the EVENTUAL mode: the replication peer that covers the data tables with
 * EVENTUAL indexes (added with the first, removed with the last), the record table, seeding the
 * record of an index about to become EVENTUAL, and waiting until the applier has caught up.
 */
@InterfaceAudience.Private
public final class EventualMode {
  private static final Logger LOG = LoggerFactory.getLogger(EventualMode.class);

  /** The endpoint's class, named in the peer (a server class: by name, not by reference). */
  static final String ENDPOINT = "io.scbf.hbase.regionserver.EventualIndexEndpoint";

  private static final int SEED_BATCH = 1000;

  private EventualMode() {}

  /**
   * Makes the peer ship {@code table}'s edits (all families: the endpoint reads the rows it needs),
   * creating the record table and the peer on first use. Edits written from here on reach the
   * applier.
   */
  public static void cover(Admin admin, TableName table) throws IOException {
    if (!admin.tableExists(EventualRecords.TABLE)) {
      try {
        admin.createTable(EventualRecords.tableDescriptor());
      } catch (org.apache.hadoop.hbase.TableExistsException raced) {
        // created by a concurrent call
      }
    }
    fenceRecords(admin);
    EventualPeerLock.holding(
        admin,
        () -> {
          ReplicationPeerConfig config = EventualPeer.config(admin);
          if (config == null) {
            Map<TableName, List<String>> tables = new HashMap<>();
            tables.put(table, null);
            admin.addReplicationPeer(
                EventualRecords.PEER_ID,
                ReplicationPeerConfig.newBuilder()
                    .setReplicationEndpointImpl(ENDPOINT)
                    .setReplicateAllUserTables(false)
                    .setTableCFsMap(tables)
                    .build());
          } else if (!config.needToReplicate(table)) {
            Map<TableName, List<String>> tables = new HashMap<>(config.getTableCFsMap());
            tables.put(table, null);
            admin.updateReplicationPeerConfig(
                EventualRecords.PEER_ID,
                ReplicationPeerConfig.newBuilder(config).setTableCFsMap(tables).build());
          }
        });
  }

  /**
   * Gives a record table created before 0.4 its fence (see {@link
   * EventualRecords#tableDescriptor}), before the seed that follows writes records at the
   * timestamps of earlier deletes. Online: the regions reopen with the family's new setting;
   * records already masked stay masked, as before.
   */
  private static void fenceRecords(Admin admin) throws IOException {
    TableDescriptor records = admin.getDescriptor(EventualRecords.TABLE);
    if (!EventualRecords.needsFence(records)) return;
    admin.modifyColumnFamily(
        EventualRecords.TABLE,
        EventualRecords.familyDescriptor(records.getColumnFamily(EventualRecords.FAMILY)));
  }

  /**
   * The EVENTUAL peer's backlog as the region servers last reported it (every few seconds).
   *
   * @param sources the replication sources of the peer that reported (0: none yet)
   * @param lagMs the largest replication lag over them: how far the EVENTUAL indexes may be behind
   * @param queuedWals WAL files still queued for the peer
   */
  public record Backlog(int sources, long lagMs, long queuedWals) {
    @Override
    public String toString() {
      if (sources == 0) return "peer " + EventualRecords.PEER_ID + " reports no source yet";
      return String.format(
          "peer %s, %d sources: replication lag up to %,d ms, %d WAL files queued (region server"
              + " metric scbfEventualLagMs: the batch being applied)",
          EventualRecords.PEER_ID, sources, lagMs, queuedWals);
    }
  }

  /** Reads the {@link Backlog} from the cluster's metrics (one call to the master). */
  public static Backlog backlog(Admin admin) throws IOException {
    long lagMs = 0;
    long queued = 0;
    int sources = 0;
    for (ServerMetrics server :
        admin
            .getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS))
            .getLiveServerMetrics()
            .values()) {
      for (ReplicationLoadSource source : server.getReplicationLoadSourceList()) {
        if (!source.getPeerID().equals(EventualRecords.PEER_ID)) continue;
        sources++;
        lagMs = Math.max(lagMs, source.getReplicationLag());
        queued += source.getSizeOfLogQueue();
      }
    }
    return new Backlog(sources, lagMs, queued);
  }

  /**
   * Records, for every data row, the index rows its current data produces: what the applier needs
   * to find an update's old entry. Run after {@link #cover} (from then on the applier records every
   * row written) and while the index is still STRONG (its rows match the data), so no index row
   * escapes the record: rows written meanwhile are recorded by the applier, with fences that mask
   * this scan's older versions.
   *
   * @return the rows recorded
   */
  public static long seed(Connection connection, TableName dataTable, IndexSpec spec)
      throws IOException {
    IndexRows rows = new IndexRows(spec);
    long seeded = 0;
    // A scan through stale cached locations can loop between two servers for minutes (seed 1208).
    TableName indexTable = IndexCatalog.indexTableName(dataTable, spec.alias());
    FreshLocations.of(connection, dataTable);
    FreshLocations.of(connection, indexTable);
    try (Table data = connection.getTable(dataTable);
        Table records = connection.getTable(EventualRecords.TABLE);
        ResultScanner scanner = data.getScanner(rows.scan().setCaching(SEED_BATCH))) {
      List<byte[]> dataRows = new ArrayList<>(SEED_BATCH);
      List<Put> indexRows = new ArrayList<>(SEED_BATCH);
      for (Result r : scanner) {
        List<Put> produced;
        try {
          produced = rows.of(r);
        } catch (IndexUpdatePlanner.KeyTooLongException notIndexed) {
          continue;
        }
        for (Put p : produced) {
          dataRows.add(r.getRow());
          indexRows.add(p);
        }
        if (indexRows.size() >= SEED_BATCH) {
          seeded += record(connection, records, dataTable, indexTable, spec, dataRows, indexRows);
          dataRows.clear();
          indexRows.clear();
        }
      }
      if (!indexRows.isEmpty()) {
        seeded += record(connection, records, dataTable, indexTable, spec, dataRows, indexRows);
      }
    }
    return seeded;
  }

  /**
   * Records {@code indexRows} (of {@code dataRows}, one each), each at the newer of its data cells'
   * timestamp and the version its index row holds: a STRONG rewrite after a covered column's delete
   * stamps the row above its cells (differential seed 1183: a delete fenced at the cells' time,
   * later, missed it), and the applier stamps its rewrites and deletes at least at the record's.
   */
  private static int record(
      Connection connection,
      Table records,
      TableName dataTable,
      TableName indexTable,
      IndexSpec spec,
      List<byte[]> dataRows,
      List<Put> indexRows)
      throws IOException {
    long[] newest = IndexRowVersions.newest(connection, indexTable, indexRows);
    List<Put> batch = new ArrayList<>(indexRows.size());
    for (int i = 0; i < indexRows.size(); i++) {
      Put p = indexRows.get(i);
      batch.add(
          new Put(EventualRecords.rowKey(dataTable, dataRows.get(i)))
              .addColumn(
                  EventualRecords.FAMILY,
                  EventualRecords.member(spec.alias(), p.getRow()),
                  Math.max(IndexUpdatePlanner.timestampOf(p), newest[i]),
                  EventualRecords.value()));
    }
    records.put(batch);
    return batch.size();
  }

  /**
   * {@link #await} if the peer ships {@code dataTable} (it has EVENTUAL indexes, or is switching);
   * true at once otherwise. A caller that HBase refuses the cluster-wide calls (no global ADMIN)
   * has a data region of the table relay them ({@link EventualCalls}): READ and WRITE on the table
   * and on the record table suffice.
   */
  public static boolean awaitIfShipped(Connection connection, TableName dataTable, long timeoutMs)
      throws IOException {
    EventualCalls calls = new DirectEventualCalls(connection);
    boolean ships;
    try {
      ships = calls.ships(dataTable);
    } catch (AccessDeniedException denied) {
      calls = new RelayedEventualCalls(connection, dataTable);
      ships = calls.ships(dataTable);
    }
    return !ships || await(connection, calls, dataTable, timeoutMs);
  }

  /**
   * Waits until the applier has applied every edit each data region of {@code dataTable} had
   * written when this call started: each region writes a probe marker into its WAL, and the applier
   * records a probe once the edits before it are durable in the indexes; then until no queue of a
   * crashed server is left (the master's {@code pendingQueues}), as the edits such a server took
   * are behind no probe.
   *
   * @return false if {@code timeoutMs} passed first
   */
  public static boolean await(Connection connection, TableName dataTable, long timeoutMs)
      throws IOException {
    return await(connection, new DirectEventualCalls(connection), dataTable, timeoutMs);
  }

  private static boolean await(
      Connection connection, EventualCalls calls, TableName dataTable, long timeoutMs)
      throws IOException {
    long began = System.currentTimeMillis();
    long deadline = began + timeoutMs;
    Map<ServerName, List<WalMark>> marks = markWals(calls);
    long marked = System.currentTimeMillis();
    List<Long> probes = new ArrayList<>();
    try (Table data = connection.getTable(dataTable)) {
      for (HRegionLocation region : FreshLocations.of(connection, dataTable)) {
        byte[] start = region.getRegion().getStartKey();
        probes.add(
            LocalIndexService.newBlockingStub(data.coprocessorService(start))
                .eventualProbe(null, EventualProbeRequest.getDefaultInstance())
                .getProbe());
      }
    } catch (ServiceException e) {
      throw new IOException("scbf: probing the regions of " + dataTable + " failed", e);
    }
    LOG.debug(
        "scbf: awaitIndexed of {}: WALs marked in {} ms, {} regions probed in {} ms",
        dataTable,
        marked - began,
        probes.size(),
        System.currentTimeMillis() - marked);
    List<Get> gets = new ArrayList<>();
    for (long id : probes) gets.add(new Get(EventualRecords.probeRow(id)));
    try (Table records = connection.getTable(EventualRecords.TABLE)) {
      long pause = 5;
      while (true) {
        Result[] seen = records.get(gets);
        List<Get> missing = new ArrayList<>();
        List<Delete> done = new ArrayList<>();
        for (int i = 0; i < seen.length; i++) {
          if (seen[i].isEmpty()) {
            missing.add(gets.get(i));
          } else {
            done.add(new Delete(gets.get(i).getRow()));
          }
        }
        if (!done.isEmpty()) records.delete(done);
        gets = missing;
        if (gets.isEmpty()) break;
        if (System.currentTimeMillis() >= deadline) {
          return timedOut(dataTable, gets.size() + " of " + probes.size() + " probes unrecorded");
        }
        pause = pause(pause, dataTable);
      }
    }
    if (!awaitShipped(calls, marks, deadline, dataTable)) return false;
    // The probes followed each region's current server; what a crashed server acknowledged is
    // shipped from the queue it left, claimed after its regions reopened elsewhere.
    long pause = 5;
    while (!calls.pendingQueues().isEmpty()) {
      if (System.currentTimeMillis() >= deadline) {
        return timedOut(dataTable, "queues left by crashed servers: " + calls.pendingQueues());
      }
      pause = pause(pause, dataTable);
    }
    // Rows whose table could not be applied when shipped were set aside, not applied, before
    // their batch was acknowledged; they are released once applied from the table's data.
    try (Table records = connection.getTable(EventualRecords.TABLE)) {
      pause = 5;
      while (EventualRecords.holds(records, dataTable)) {
        if (System.currentTimeMillis() >= deadline) return timedOut(dataTable, "rows held");
        pause = pause(pause, dataTable);
      }
    }
    return true;
  }

  /**
   * Every live region server's WALs and their synced lengths now ({@link
   * io.scbf.hbase.regionserver.eventual.WalShipping}): the edits of regions that have moved since
   * are in their old server's WAL, which no probe follows. A server that does not answer (stopping,
   * aborting) maps to null: {@link #awaitShipped} asks it again, or sees it leave.
   */
  private static Map<ServerName, List<WalMark>> markWals(EventualCalls calls) throws IOException {
    Map<ServerName, List<WalMark>> marks = new HashMap<>();
    for (ServerName server : calls.servers()) marks.put(server, calls.marks(server));
    return marks;
  }

  /**
   * Waits until each marked server has shipped its WALs up to its marks, or has left the cluster (a
   * server gone is no longer online for the master, and its queue is then claimed by another and
   * waited for as a pending queue). A server that did not answer is asked again: marks taken later
   * cover at least as much.
   */
  private static boolean awaitShipped(
      EventualCalls calls, Map<ServerName, List<WalMark>> marks, long deadline, TableName dataTable)
      throws IOException {
    for (Map.Entry<ServerName, List<WalMark>> m : marks.entrySet()) {
      ServerName server = m.getKey();
      List<WalMark> serverMarks = m.getValue();
      long pause = 5;
      while (true) {
        if (serverMarks == null) serverMarks = calls.marks(server);
        if (serverMarks != null && calls.shipped(server, serverMarks)) break;
        if (!calls.servers().contains(server)) break;
        if (System.currentTimeMillis() >= deadline) {
          return timedOut(
              dataTable, "WALs of " + server + " not shipped up to " + describe(serverMarks));
        }
        pause = pause(pause, dataTable);
      }
    }
    return true;
  }

  /** Logs (DEBUG) what an await that timed out was still waiting for; returns false. */
  private static boolean timedOut(TableName dataTable, String waitingFor) {
    LOG.debug("scbf: awaitIndexed of {} timed out waiting for {}", dataTable, waitingFor);
    return false;
  }

  private static String describe(List<WalMark> marks) {
    if (marks == null) return "marks not read";
    List<String> out = new ArrayList<>();
    for (WalMark m : marks) out.add(m.getWal() + "@" + m.getLength());
    return out.toString();
  }

  private static long pause(long ms, TableName dataTable) throws InterruptedIOException {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted awaiting the index of " + dataTable);
    }
    return Math.min(100, ms * 2);
  }
}
