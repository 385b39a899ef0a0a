package io.scbf.hbase.master;

import com.google.protobuf.Service;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.EventualPeer;
import io.scbf.hbase.shared.EventualRecords;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexTables;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HBaseInterfaceAudience;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.SnapshotDescription;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableState;
import org.apache.hadoop.hbase.coprocessor.CoreCoprocessor;
import org.apache.hadoop.hbase.coprocessor.HasMasterServices;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessor;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.MasterObserver;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.master.MasterServices;
import org.apache.hadoop.hbase.replication.ReplicationPeerConfig;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a data table's global index tables follow it through the master's table operations, so that
 * none leaves an index that misses rows, an orphaned index table, or a table that cannot be
 * written:
 *
 * <ul>
 *   <li>create (a descriptor that declares global indexes, e.g. copied from another table): its
 *       index tables are created with it (empty, like the table);
 *   <li>delete: its index tables are deleted with it;
 *   <li>modify: a data family's TTL is carried to the index tables and local index families of its
 *       indexes (their rows expire with the data); raising the TTL or MIN_VERSIONS of an indexed
 *       family that has a TTL, and changing its NEW_VERSION_BEHAVIOR, are refused ({@link
 *       IndexedFamilyAlters});
 *   <li>truncate: its index tables are emptied first, and marked built once the truncate is done;
 *   <li>snapshot restore and clone: the snapshot holds the data regions only, so the restored or
 *       cloned table's index tables are emptied or created and marked <em>building</em>: queries
 *       scan the data table until {@code IndexAdmin.rebuildIndex} has indexed the rows again.
 * </ul>
 *
 * Local indexes need none of this: their entries live in the data regions and follow them.
 *
 * <p>The operations run from the master's RPC handler of the user's request, through the master's
 * own connection, before the request's procedure starts; each waits for its own procedures. A table
 * whose name ends in {@code __idx_<alias>} but that is not an index of the data table is never
 * touched: the request fails instead.
 */
@CoreCoprocessor
@InterfaceAudience.LimitedPrivate(HBaseInterfaceAudience.CONFIG)
public class IndexLifecycleObserver implements MasterCoprocessor, MasterObserver {
  private static final Logger LOG = LoggerFactory.getLogger(IndexLifecycleObserver.class);

  /** Answers awaitIndexed which EVENTUAL queues crashed servers left. */
  private final EventualQueues eventualQueues = new EventualQueues();

  @Override
  public void start(CoprocessorEnvironment env) {
    if (env instanceof HasMasterServices m) eventualQueues.start(m.getMasterServices());
  }

  /**
   * Asked by HBase before {@link #start}: the service is there from the first, answers once
   * started.
   */
  @Override
  public Iterable<Service> getServices() {
    return List.of(eventualQueues);
  }

  @Override
  public Optional<MasterObserver> getMasterObserver() {
    return Optional.of(this);
  }

  @Override
  public void preCreateTable(
      ObserverContext<MasterCoprocessorEnvironment> ctx, TableDescriptor desc, RegionInfo[] regions)
      throws IOException {
    MasterServices master = master(ctx);
    if (master.getTableDescriptors().get(desc.getTableName()) != null) {
      return; // the create fails (table exists): leave that table's indexes alone
    }
    requireShipped(master, desc);
    try (Admin admin = ctx.getEnvironment().getConnection().getAdmin()) {
      for (IndexSpec spec : globalSpecs(desc)) {
        createFresh(admin, master, desc, spec, false); // empty, like the table
      }
    }
  }

  /** A table created with local indexes: their families get the TTL of their data families. */
  @Override
  public TableDescriptor preCreateTableRegionsInfos(
      ObserverContext<MasterCoprocessorEnvironment> ctx, TableDescriptor desc) {
    return IndexCatalog.withLocalTtls(desc);
  }

  /**
   * Index rows expire with their data (family TTL): a data family's TTL change is carried to its
   * indexes. Raising the TTL or MIN_VERSIONS of an indexed family that has a TTL, and changing its
   * NEW_VERSION_BEHAVIOR, are refused ({@link IndexedFamilyAlters}). Local index families change in
   * the same modify; a global index table's TTL is lowered only once the data table's modify is
   * done (its rows may outlive their data meanwhile: stale rows, which queries re-check away), and
   * one found shorter than its data's is raised before it, so no index row ever expires before its
   * data.
   */
  @Override
  public TableDescriptor preModifyTable(
      ObserverContext<MasterCoprocessorEnvironment> ctx,
      TableName table,
      TableDescriptor current,
      TableDescriptor next)
      throws IOException {
    requireShipped(master(ctx), next);
    List<String> refused = IndexedFamilyAlters.problems(current, next);
    if (!refused.isEmpty()) {
      throw new DoNotRetryIOException(
          "scbf: table " + table + " not modified: " + String.join("; ", refused));
    }
    MasterServices master = master(ctx);
    List<IndexSpec> specs = globalSpecs(next);
    if (!specs.isEmpty()) {
      try (Admin admin = ctx.getEnvironment().getConnection().getAdmin()) {
        for (IndexSpec spec : specs) {
          TableName index = IndexCatalog.indexTableName(table, spec.alias());
          TableDescriptor td = master.getTableDescriptors().get(index);
          if (td == null || !IndexCatalog.isOwnIndexTable(td, table)) continue;
          int ttl = IndexCatalog.indexTtl(next, spec);
          if (ttl > IndexCatalog.ttlOf(td)) {
            LOG.info("scbf: index table {} follows {}: TTL {} s", index, table, ttl);
            admin.modifyTable(IndexCatalog.withTtl(td, ttl));
          }
        }
      }
    }
    return IndexCatalog.withLocalTtls(next);
  }

  @Override
  public void postCompletedModifyTableAction(
      ObserverContext<MasterCoprocessorEnvironment> ctx,
      TableName table,
      TableDescriptor old,
      TableDescriptor current)
      throws IOException {
    MasterServices master = master(ctx);
    List<IndexSpec> specs = globalSpecs(current);
    if (specs.isEmpty()) return;
    // Runs in a procedure worker: do not wait for the index table's reopen there.
    try (Admin admin = ctx.getEnvironment().getConnection().getAdmin()) {
      for (IndexSpec spec : specs) {
        TableName index = IndexCatalog.indexTableName(table, spec.alias());
        TableDescriptor td = master.getTableDescriptors().get(index);
        if (td == null || !IndexCatalog.isOwnIndexTable(td, table)) continue;
        int ttl = IndexCatalog.indexTtl(current, spec);
        if (ttl < IndexCatalog.ttlOf(td)) {
          LOG.info("scbf: index table {} follows {}: TTL {} s", index, table, ttl);
          admin.modifyTableAsync(IndexCatalog.withTtl(td, ttl));
        }
      }
    }
  }

  @Override
  public void preDeleteTable(ObserverContext<MasterCoprocessorEnvironment> ctx, TableName table)
      throws IOException {
    MasterServices master = master(ctx);
    TableDescriptor desc = master.getTableDescriptors().get(table);
    if (desc == null || !isDisabled(master, table)) return; // the delete will fail
    try (Admin admin = ctx.getEnvironment().getConnection().getAdmin()) {
      for (TableName index : ownIndexTables(master, table, globalSpecs(desc))) {
        LOG.info("scbf: deleting index table {} with its data table {}", index, table);
        IndexTables.delete(admin, index);
      }
    }
  }

  /**
   * A deleted table leaves the EVENTUAL peer, and its record goes: otherwise the peer would list a
   * table that no longer exists, and a table created again under its name would inherit records of
   * rows it never had. Done once the table is gone (before, the master refuses to take a table with
   * EVENTUAL indexes out of the peer), in the delete's procedure, so the client's deleteTable
   * returns after it; a failure is logged, not thrown: the table is deleted either way.
   */
  @Override
  public void postCompletedDeleteTableAction(
      ObserverContext<MasterCoprocessorEnvironment> ctx, TableName table) {
    Connection connection = ctx.getEnvironment().getConnection();
    try (Admin admin = connection.getAdmin()) {
      EventualPeer.stopShipping(admin, table);
      long removed = EventualRecords.forget(connection, table, null);
      if (removed > 0)
        LOG.info("scbf: removed {} record cells of deleted table {}", removed, table);
    } catch (IOException e) {
      LOG.warn(
          "scbf: deleted table {} may still be listed by replication peer {} or hold rows in {}:"
              + " remove them by hand (remove_peer_tableCFs; delete the rows prefixed by the table"
              + " name): {}",
          table,
          EventualRecords.PEER_ID,
          EventualRecords.TABLE,
          e.toString());
    }
  }

  @Override
  public void preTruncateTable(ObserverContext<MasterCoprocessorEnvironment> ctx, TableName table)
      throws IOException {
    MasterServices master = master(ctx);
    TableDescriptor desc = master.getTableDescriptors().get(table);
    if (desc == null || !isDisabled(master, table)) return; // the truncate will fail
    try (Admin admin = ctx.getEnvironment().getConnection().getAdmin()) {
      for (TableName index : ownIndexTables(master, table, globalSpecs(desc))) {
        // Building first: if the data truncate then fails, queries scan instead of missing rows.
        emptyAsBuilding(admin, index);
      }
    }
  }

  @Override
  public void postCompletedTruncateTableAction(
      ObserverContext<MasterCoprocessorEnvironment> ctx, TableName table) throws IOException {
    MasterServices master = master(ctx);
    TableDescriptor desc = master.getTableDescriptors().get(table);
    if (desc == null) return;
    // Both are empty: the index holds every row. Runs in a procedure worker: do not wait for the
    // reopen there; until it is done, queries scan.
    try (Admin admin = ctx.getEnvironment().getConnection().getAdmin()) {
      for (TableName index : ownIndexTables(master, table, globalSpecs(desc))) {
        TableDescriptor td = admin.getDescriptor(index);
        if (IndexCatalog.isBuilding(td)) {
          admin.modifyTableAsync(IndexCatalog.withBuilding(td, false));
        }
      }
    }
  }

  @Override
  public void preRestoreSnapshot(
      ObserverContext<MasterCoprocessorEnvironment> ctx,
      SnapshotDescription snapshot,
      TableDescriptor desc)
      throws IOException {
    MasterServices master = master(ctx);
    TableName table = desc.getTableName();
    if (!isDisabled(master, table)) return; // the restore will fail
    try (Admin admin = ctx.getEnvironment().getConnection().getAdmin()) {
      for (IndexSpec spec : globalSpecs(desc)) {
        TableName index = IndexCatalog.indexTableName(table, spec.alias());
        TableDescriptor td = master.getTableDescriptors().get(index);
        if (td != null
            && IndexCatalog.isOwnIndexTable(td, table)
            && IndexCatalog.indexTableSpec(spec).equals(specOf(td))) {
          emptyAsBuilding(admin, index);
          // The restored family's TTL, which may differ from the table's before the restore.
          TableDescriptor emptied = admin.getDescriptor(index);
          int ttl = IndexCatalog.indexTtl(desc, spec);
          if (IndexCatalog.ttlOf(emptied) != ttl) {
            admin.modifyTable(IndexCatalog.withTtl(emptied, ttl));
          }
        } else {
          createFresh(admin, master, desc, spec, true);
        }
        warnBuilding(table, spec, "restored from snapshot " + snapshot.getName());
      }
    }
  }

  @Override
  public void postRestoreSnapshot(
      ObserverContext<MasterCoprocessorEnvironment> ctx,
      SnapshotDescription snapshot,
      TableDescriptor desc)
      throws IOException {
    // Indexes the table had but the snapshot does not: their index tables are orphans now.
    MasterServices master = master(ctx);
    Set<TableName> kept =
        globalSpecs(desc).stream()
            .map(s -> IndexCatalog.indexTableName(desc.getTableName(), s.alias()))
            .collect(Collectors.toSet());
    try (Admin admin = ctx.getEnvironment().getConnection().getAdmin()) {
      for (TableDescriptor td : master.getTableDescriptors().getAll().values()) {
        if (IndexCatalog.isOwnIndexTable(td, desc.getTableName())
            && !kept.contains(td.getTableName())) {
          LOG.info(
              "scbf: deleting index table {}: the restored {} has no such index",
              td.getTableName(),
              desc.getTableName());
          IndexTables.delete(admin, td.getTableName());
        }
      }
    }
  }

  @Override
  public void preCloneSnapshot(
      ObserverContext<MasterCoprocessorEnvironment> ctx,
      SnapshotDescription snapshot,
      TableDescriptor desc)
      throws IOException {
    MasterServices master = master(ctx);
    if (master.getTableDescriptors().get(desc.getTableName()) != null) return; // will fail
    try (Admin admin = ctx.getEnvironment().getConnection().getAdmin()) {
      for (IndexSpec spec : globalSpecs(desc)) {
        createFresh(admin, master, desc, spec, true);
        warnBuilding(desc.getTableName(), spec, "cloned from snapshot " + snapshot.getName());
      }
    }
  }

  private static void warnBuilding(TableName table, IndexSpec spec, String why) {
    LOG.warn(
        "scbf: global index '{}' of {} ({}) is building: queries on it scan the table until"
            + " IndexAdmin.rebuildIndex({}, \"{}\") (or BuildIndexTool) has indexed its rows",
        spec.alias(),
        table,
        why,
        table,
        spec.alias());
  }

  /** Marks an index table building, then removes its rows (keeping its bucket regions). */
  private static void emptyAsBuilding(Admin admin, TableName index) throws IOException {
    IndexTables.setBuilding(admin, index, true);
    IndexTables.truncate(admin, index);
  }

  /**
   * Creates the index table of {@code spec}, replacing one left from an earlier table of that name;
   * refuses the request if a table with the index table's name exists that is not such an index
   * table.
   */
  private static void createFresh(
      Admin admin, MasterServices master, TableDescriptor data, IndexSpec spec, boolean building)
      throws IOException {
    TableName dataTable = data.getTableName();
    TableName index = IndexCatalog.indexTableName(dataTable, spec.alias());
    TableDescriptor td = master.getTableDescriptors().get(index);
    if (td != null) {
      if (!IndexCatalog.isOwnIndexTable(td, dataTable)) {
        throw new DoNotRetryIOException(
            "scbf: "
                + dataTable
                + " declares global index '"
                + spec.alias()
                + "', but table "
                + index
                + " exists and is not an index of "
                + dataTable
                + "; rename one of them");
      }
      LOG.info("scbf: deleting index table {} left from an earlier {}", index, dataTable);
      IndexTables.delete(admin, index);
    }
    IndexTables.create(admin, data, spec, building);
  }

  /** Index tables of the specs that exist and belong to {@code dataTable}. */
  private static List<TableName> ownIndexTables(
      MasterServices master, TableName dataTable, List<IndexSpec> specs) throws IOException {
    List<TableName> out = new ArrayList<>();
    for (TableName index : IndexCatalog.globalIndexTables(dataTable, specs)) {
      TableDescriptor td = master.getTableDescriptors().get(index);
      if (td != null && IndexCatalog.isOwnIndexTable(td, dataTable)) out.add(index);
    }
    return out;
  }

  private static IndexSpec specOf(TableDescriptor indexTable) {
    try {
      return IndexCatalog.specOfIndexTable(indexTable).orElse(null);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** Valid global specs; invalid attributes are the validator's business. */
  private static List<IndexSpec> globalSpecs(TableDescriptor desc) {
    return IndexCatalog.readSpecs(desc).valid().stream().filter(s -> !s.isLocal()).toList();
  }

  private static boolean isDisabled(MasterServices master, TableName table) throws IOException {
    return master.getTableStateManager().isTableState(table, TableState.State.DISABLED);
  }

  /** Removing the EVENTUAL peer would leave its tables' EVENTUAL indexes unmaintained. */
  @Override
  public void preRemoveReplicationPeer(
      ObserverContext<MasterCoprocessorEnvironment> ctx, String peerId) throws IOException {
    if (!EventualRecords.PEER_ID.equals(peerId)) return;
    MasterServices master = master(ctx);
    Optional<ReplicationPeerConfig> current =
        master.getReplicationPeerManager().getPeerConfig(peerId);
    if (current.isEmpty() || current.get().getTableCFsMap() == null) return;
    for (TableName table : current.get().getTableCFsMap().keySet()) {
      refuseIfEventual(master, table, "removing replication peer " + peerId);
    }
  }

  /** A table with EVENTUAL indexes must stay shipped, whole, by the EVENTUAL peer. */
  @Override
  public void preUpdateReplicationPeerConfig(
      ObserverContext<MasterCoprocessorEnvironment> ctx, String peerId, ReplicationPeerConfig next)
      throws IOException {
    if (!EventualRecords.PEER_ID.equals(peerId)) return;
    MasterServices master = master(ctx);
    Optional<ReplicationPeerConfig> current =
        master.getReplicationPeerManager().getPeerConfig(peerId);
    if (current.isEmpty() || current.get().getTableCFsMap() == null) return;
    for (TableName table : current.get().getTableCFsMap().keySet()) {
      List<String> families =
          next.getTableCFsMap() == null ? null : next.getTableCFsMap().get(table);
      boolean whole =
          next.getTableCFsMap() != null
              && next.getTableCFsMap().containsKey(table)
              && (families == null || families.isEmpty());
      if (!whole) refuseIfEventual(master, table, "changing replication peer " + peerId);
    }
  }

  private static void refuseIfEventual(MasterServices master, TableName table, String what)
      throws IOException {
    TableDescriptor td = master.getTableDescriptors().get(table);
    if (td == null) return;
    for (IndexSpec spec : IndexCatalog.readSpecs(td).valid()) {
      if (spec.consistency() == IndexSpec.Consistency.EVENTUAL) {
        throw new DoNotRetryIOException(
            "scbf: "
                + what
                + " would stop shipping "
                + table
                + ", whose index '"
                + spec.alias()
                + "' is EVENTUAL (maintained from those edits); switch it to STRONG or drop it"
                + " first (IndexAdmin.setConsistency, dropIndex)");
      }
    }
  }

  /**
   * An EVENTUAL index is maintained only from the replication peer's shipped edits: a descriptor
   * declaring one for a table the peer does not ship (written by hand, not by {@code IndexAdmin},
   * which adds the table to the peer first) would leave every write unindexed.
   */
  private static void requireShipped(MasterServices master, TableDescriptor desc)
      throws DoNotRetryIOException {
    for (IndexSpec spec : IndexCatalog.readSpecs(desc).valid()) {
      if (spec.consistency() != IndexSpec.Consistency.EVENTUAL) continue;
      Optional<ReplicationPeerConfig> peer =
          master.getReplicationPeerManager().getPeerConfig(EventualRecords.PEER_ID);
      if (peer.isPresent() && peer.get().needToReplicate(desc.getTableName())) return;
      throw new DoNotRetryIOException(
          "scbf: index '"
              + spec.alias()
              + "' of "
              + desc.getTableName()
              + " is EVENTUAL, but replication peer "
              + EventualRecords.PEER_ID
              + " does not ship the table: create or switch EVENTUAL indexes with IndexAdmin"
              + " (createIndex, setConsistency), which adds the table to the peer first");
    }
  }

  private static MasterServices master(ObserverContext<MasterCoprocessorEnvironment> ctx) {
    return ((HasMasterServices) ctx.getEnvironment()).getMasterServices();
  }
}
