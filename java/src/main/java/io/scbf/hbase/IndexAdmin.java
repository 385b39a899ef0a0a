package io.scbf.hbase;

import io.scbf.hbase.client.EventualMode;
import io.scbf.hbase.client.IndexBuilds;
import io.scbf.hbase.client.IndexVerifier;
import io.scbf.hbase.shared.EventualPeer;
import io.scbf.hbase.shared.EventualRecords;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexTables;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotEnabledException;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Creates, drops and lists the indexes of a data table.
 *
 * <p>For a local index, {@link #createIndex} adds the index's column family to the data table (the
 * regions reopen and build their entries from their rows) and waits until every region has.
 *
 * <p>For a global index, {@link #createIndex} creates the index table (its first regions: {@link
 * IndexSpec#buckets()}) marked building, records the index in the data table's descriptor (the data
 * regions reopen with the index known to their observer), indexes the rows already in the table and
 * then marks the index built. While it is building, queries scan the data table: a backfill that
 * fails part-way leaves a slow index, never one that misses rows ({@link #rebuildIndex} finishes
 * it). Rows written while the backfill runs are indexed by the observer; a backfilled row that a
 * concurrent write has just changed or deleted leaves a stale index row, which queries drop when
 * they re-check the data row.
 */
@InterfaceAudience.Public
public final class IndexAdmin {
  private final Connection connection;
  private final IndexBuilds builds;

  public IndexAdmin(Connection connection) {
    this.connection = Objects.requireNonNull(connection, "connection");
    this.builds = new IndexBuilds(connection);
  }

  /**
   * @throws IllegalArgumentException if the spec does not fit the table (unknown family, alias or
   *     column already indexed, index table already present)
   * @throws TableNotFoundException if the data table does not exist
   */
  public void createIndex(TableName dataTable, IndexSpec spec) throws IOException {
    createIndex(dataTable, spec, BuildProgress.Listener.NONE);
  }

  /**
   * {@link #createIndex(TableName, IndexSpec)}, reporting its progress to {@code listener}: a
   * global index's backfill ({@code scbf.client.build.threads} data regions at a time) in rows and
   * regions, a local index's build in regions done.
   *
   * @return the last report (totals and time)
   */
  public BuildProgress createIndex(
      TableName dataTable, IndexSpec spec, BuildProgress.Listener listener) throws IOException {
    requireEnabled(dataTable, "create index '" + spec.alias() + "' on");
    if (spec.consistency() == IndexSpec.Consistency.EVENTUAL) {
      // Built as a STRONG index (the backfill's races are the synchronous path's), then switched.
      try (Admin admin = connection.getAdmin()) {
        IndexBuilds.validate(admin.getDescriptor(dataTable), spec); // before the peer covers it
        EventualMode.cover(admin, dataTable);
      }
      BuildProgress done =
          createIndex(dataTable, spec.withConsistency(IndexSpec.Consistency.STRONG), listener);
      setConsistency(dataTable, spec.alias(), IndexSpec.Consistency.EVENTUAL);
      return done;
    }
    define(dataTable, spec, false);
    if (spec.isLocal()) return builds.awaitLocalEntries(dataTable, spec, listener);
    BuildProgress done = builds.backfill(dataTable, spec, listener);
    setBuilding(dataTable, spec, false);
    return done;
  }

  /**
   * Indexes every row of the table again and then lets queries use the index: for a global index
   * left building (a {@code createIndex} that failed part-way, a snapshot restore or clone, see
   * docs/user-guide.md, "How an index is kept"). Queries stay complete meanwhile (they scan). Safe
   * to run while the table is written.
   *
   * @throws IllegalArgumentException if the table has no such global index
   */
  public void rebuildIndex(TableName dataTable, String alias) throws IOException {
    rebuildIndex(dataTable, alias, BuildProgress.Listener.NONE);
  }

  /**
   * {@link #rebuildIndex(TableName, String)}, reporting its progress to {@code listener}.
   *
   * @return the last report (totals and time)
   */
  public BuildProgress rebuildIndex(
      TableName dataTable, String alias, BuildProgress.Listener listener) throws IOException {
    requireEnabled(dataTable, "rebuild index '" + alias + "' of");
    IndexSpec spec = globalSpec(dataTable, alias);
    if (spec.consistency() == IndexSpec.Consistency.EVENTUAL) {
      // Rebuilt as STRONG (its record would not know the backfilled rows), then switched back.
      try (Admin admin = connection.getAdmin()) {
        EventualMode.cover(admin, dataTable); // a clone's or restore's table is not shipped yet
        IndexSpec strong = spec.withConsistency(IndexSpec.Consistency.STRONG);
        admin.modifyTable(IndexCatalog.withIndex(admin.getDescriptor(dataTable), strong));
      }
      BuildProgress done = rebuildIndex(dataTable, alias, listener);
      setConsistency(dataTable, alias, IndexSpec.Consistency.EVENTUAL);
      return done;
    }
    setBuilding(dataTable, spec, true);
    BuildProgress done = builds.backfill(dataTable, spec, listener);
    setBuilding(dataTable, spec, false);
    return done;
  }

  /**
   * Lets queries use an index whose rows are all indexed (by {@link #rebuildIndex}, or by {@code
   * io.scbf.mapreduce.BuildIndexTool} after {@link #defineIndex}). A global index's regions reopen
   * and build their filters; until each has published, routing asks it. A local index's data
   * regions reopen, keep the entries the bulk build loaded for them (its markers) and build the
   * entries of any region the build did not cover (split or merged since) from their rows.
   */
  public void markBuilt(TableName dataTable, String alias) throws IOException {
    IndexSpec spec = spec(dataTable, alias);
    if (!spec.isLocal()) {
      setBuilding(dataTable, spec, false);
      return;
    }
    try (Admin admin = connection.getAdmin()) {
      TableDescriptor data = admin.getDescriptor(dataTable);
      if (IndexCatalog.isLocalBuilding(data, alias)) {
        admin.modifyTable(IndexCatalog.withLocalBuilding(data, alias, false));
      }
    }
  }

  /**
   * Compares a global index with its data table: index rows missing, with wrong covered values, or
   * stale (see {@link VerifyReport}). Reads both tables once; safe while the table is written (a
   * write in flight can show up as a finding).
   */
  public VerifyReport verify(TableName dataTable, String alias) throws IOException {
    return new IndexVerifier(connection, dataTable, globalSpec(dataTable, alias)).run(false);
  }

  /**
   * {@link #verify}, fixing what it finds: writes the missing index rows and has the data regions
   * remove the stale ones, each re-checked under its row's index lock first.
   */
  public VerifyReport repair(TableName dataTable, String alias) throws IOException {
    return new IndexVerifier(connection, dataTable, globalSpec(dataTable, alias)).run(true);
  }

  /**
   * The first half of {@link #verify} (or {@link #repair}, if {@code repair}) on part of the table:
   * the data rows in [{@code start}, {@code stop}) must have their index rows. For a MapReduce
   * verify ({@code io.scbf.mapreduce.VerifyIndexTool}), one task per data region; the report counts
   * only this part.
   */
  public VerifyReport verifyDataRows(
      TableName dataTable, String alias, byte[] start, byte[] stop, boolean repair)
      throws IOException {
    return verifyDataRows(dataTable, alias, start, stop, repair, BuildProgress.Listener.NONE);
  }

  /** {@link #verifyDataRows}, reporting rows read to {@code listener} (a task's progress). */
  public VerifyReport verifyDataRows(
      TableName dataTable,
      String alias,
      byte[] start,
      byte[] stop,
      boolean repair,
      BuildProgress.Listener listener)
      throws IOException {
    return new IndexVerifier(connection, dataTable, globalSpec(dataTable, alias))
        .run(repair, new IndexVerifier.Range(start, stop), null, listener);
  }

  /**
   * The second half of {@link #verify} (or {@link #repair}) on part of the index: the index rows in
   * [{@code start}, {@code stop}) must be produced by their data rows. One task per index region.
   */
  public VerifyReport verifyIndexRows(
      TableName dataTable, String alias, byte[] start, byte[] stop, boolean repair)
      throws IOException {
    return verifyIndexRows(dataTable, alias, start, stop, repair, BuildProgress.Listener.NONE);
  }

  /** {@link #verifyIndexRows}, reporting rows read to {@code listener} (a task's progress). */
  public VerifyReport verifyIndexRows(
      TableName dataTable,
      String alias,
      byte[] start,
      byte[] stop,
      boolean repair,
      BuildProgress.Listener listener)
      throws IOException {
    return new IndexVerifier(connection, dataTable, globalSpec(dataTable, alias))
        .run(repair, null, new IndexVerifier.Range(start, stop), listener);
  }

  /**
   * True while an index is being built: queries then scan the data table (a local index: each data
   * region scans its rows).
   */
  public boolean isBuilding(TableName dataTable, String alias) throws IOException {
    IndexSpec spec = spec(dataTable, alias);
    try (Admin admin = connection.getAdmin()) {
      if (spec.isLocal())
        return IndexCatalog.isLocalBuilding(admin.getDescriptor(dataTable), alias);
      return IndexCatalog.isBuilding(
          admin.getDescriptor(IndexCatalog.indexTableName(dataTable, alias)));
    }
  }

  private void setBuilding(TableName dataTable, IndexSpec spec, boolean building)
      throws IOException {
    try (Admin admin = connection.getAdmin()) {
      IndexTables.setBuilding(
          admin, IndexCatalog.indexTableName(dataTable, spec.alias()), building);
    }
  }

  private IndexSpec globalSpec(TableName dataTable, String alias) throws IOException {
    IndexSpec spec = spec(dataTable, alias);
    if (spec.isLocal()) {
      throw new IllegalArgumentException(
          "index '"
              + alias
              + "' of "
              + dataTable
              + " is local: its regions build its entries themselves");
    }
    return spec;
  }

  private IndexSpec spec(TableName dataTable, String alias) throws IOException {
    for (IndexSpec s : listIndexes(dataTable)) {
      if (s.alias().equals(alias)) return s;
    }
    throw new IllegalArgumentException("table " + dataTable + " has no index '" + alias + "'");
  }

  private void requireEnabled(TableName dataTable, String what) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      if (!admin.tableExists(dataTable)) throw new TableNotFoundException(dataTable);
      if (!admin.isTableEnabled(dataTable)) {
        throw new TableNotEnabledException(
            "cannot "
                + what
                + " table "
                + dataTable
                + ": it is not enabled, so its rows cannot be read; enable it first");
      }
    }
  }

  /**
   * {@link #createIndex} without the backfill: rows written from now on are indexed, the rows
   * already in the table are not. For large tables, whose index {@code
   * io.scbf.mapreduce.BuildIndexTool} then builds in bulk on the cluster's MapReduce instead of
   * through this client (or through the region servers, for a local index). The index stays
   * building (queries scan) until {@link #markBuilt}.
   *
   * @throws IllegalArgumentException as {@link #createIndex}
   * @throws TableNotFoundException if the data table does not exist
   */
  public void defineIndex(TableName dataTable, IndexSpec spec) throws IOException {
    define(dataTable, spec, true);
  }

  /**
   * Records the index; {@code building}: a local index's regions leave its entries to the bulk
   * build (see {@link IndexCatalog#LOCAL_BUILDING_ATTR_PREFIX}) instead of building them.
   */
  private void define(TableName dataTable, IndexSpec spec, boolean building) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      TableDescriptor data = admin.getDescriptor(dataTable);
      IndexBuilds.validate(data, spec);
      if (spec.isLocal()) {
        // The regions reopen with the index (and build its entries, unless building).
        admin.modifyTable(
            IndexCatalog.withLocalBuilding(
                IndexCatalog.withIndex(data, spec), spec.alias(), building));
        return;
      }
      TableName indexTable = IndexCatalog.indexTableName(dataTable, spec.alias());
      if (admin.tableExists(indexTable)) {
        throw new IllegalArgumentException(
            "index table " + indexTable + " already exists; drop it" + " or choose another alias");
      }
      IndexTables.create(admin, data, spec, true);
      admin.modifyTable(IndexCatalog.withIndex(data, spec));
    }
  }

  /**
   * Splits an {@code ORDERED} index's regions so that each of {@code values} (as the column holds
   * them, e.g. {@code Bytes.toBytes(0L)}) starts a region, in every salted stream: Phoenix's {@code
   * SPLIT ON} for an index, for ranges spread over regions from the start rather than once the
   * index has grown. Waits for each split (at most a minute each).
   *
   * @throws IllegalArgumentException if the index is not {@code ORDERED} or a value is not of the
   *     column's type
   */
  public void splitIndexAt(TableName dataTable, String alias, byte[]... values) throws IOException {
    IndexSpec spec = null;
    for (IndexSpec s : listIndexes(dataTable)) {
      if (s.alias().equals(alias)) spec = s;
    }
    if (spec == null) {
      throw new IllegalArgumentException("table " + dataTable + " has no index '" + alias + "'");
    }
    if (spec.layout() != IndexSpec.Layout.ORDERED) {
      throw new IllegalArgumentException(
          "index '" + alias + "' is " + spec.layout() + ": only ORDERED indexes split at values");
    }
    TreeSet<byte[]> keys = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    byte[] aliasBytes = alias.getBytes(StandardCharsets.UTF_8);
    for (byte[] v : values) {
      byte[] form = IndexValues.indexForm(spec, v);
      for (int s = 0; s < spec.buckets(); s++) {
        keys.add(IndexKeyCodec.valuePrefix(s, aliasBytes, form));
      }
    }
    TableName indexTable = IndexCatalog.indexTableName(dataTable, alias);
    try (Admin admin = connection.getAdmin();
        RegionLocator locator = connection.getRegionLocator(indexTable)) {
      for (byte[] key : keys) {
        HRegionLocation at = locator.getRegionLocation(key, true);
        if (Bytes.equals(at.getRegion().getStartKey(), key)) continue; // already a boundary
        try {
          admin.splitRegionAsync(at.getRegion().getRegionName(), key).get(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted splitting " + indexTable);
        } catch (ExecutionException | TimeoutException e) {
          throw new IOException(
              "splitting " + indexTable + " at " + Bytes.toStringBinary(key) + " failed", e);
        }
      }
    }
  }

  /**
   * Removes the index from the data table's descriptor, then deletes its index table; the last
   * EVENTUAL index of the table also takes the table out of the replication peer (and the peer goes
   * with the last table).
   */
  public void dropIndex(TableName dataTable, String alias) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      TableDescriptor data = admin.getDescriptor(dataTable);
      // By attribute, not by decoded spec: an attribute that does not decode must be droppable.
      if (data.getValue(IndexCatalog.DATA_ATTR_PREFIX + alias) == null) {
        throw new IllegalArgumentException("table " + dataTable + " has no index '" + alias + "'");
      }
      TableDescriptor without = IndexCatalog.withoutIndex(data, alias);
      admin.modifyTable(without);
      IndexTables.delete(admin, IndexCatalog.indexTableName(dataTable, alias));
      if (!hasEventual(without)) {
        EventualPeer.stopShipping(admin, dataTable);
        EventualRecords.forget(connection, dataTable, null);
      } else {
        EventualRecords.forget(connection, dataTable, alias);
      }
    }
  }

  /**
   * Switches a global index between {@link IndexSpec.Consistency#STRONG} and {@link
   * IndexSpec.Consistency#EVENTUAL} online, without a rebuild. To EVENTUAL: the table joins the
   * replication peer (so every write from then on reaches the applier), the record of each row's
   * index rows is seeded from the data (one scan of the indexed columns), then the data regions
   * reopen with the index EVENTUAL; writes in flight finish under STRONG. To STRONG: the data
   * regions reopen with the index STRONG, then this call waits (up to {@code timeoutMs}) until the
   * applier has applied every write made before the switch; only then is the index strong again
   * (read-after-ack), and the table leaves the peer if no EVENTUAL index remains.
   *
   * @throws IllegalArgumentException if the table has no such index, or it is local (always strong)
   * @throws IOException if the backlog was not applied within {@code timeoutMs} (the index is then
   *     STRONG for new writes; {@link #awaitIndexed} tells when the rest is applied)
   */
  public void setConsistency(
      TableName dataTable, String alias, IndexSpec.Consistency consistency, long timeoutMs)
      throws IOException {
    Objects.requireNonNull(consistency, "consistency");
    requireEnabled(dataTable, "switch index '" + alias + "' of");
    IndexSpec spec = spec(dataTable, alias);
    if (spec.isLocal() && consistency == IndexSpec.Consistency.EVENTUAL) {
      throw new IllegalArgumentException(
          "index '" + alias + "' is local: it is written with its data, always STRONG");
    }
    if (spec.consistency() == consistency) return;
    try (Admin admin = connection.getAdmin()) {
      if (consistency == IndexSpec.Consistency.EVENTUAL) {
        EventualMode.cover(admin, dataTable);
        EventualMode.seed(connection, dataTable, spec);
        admin.modifyTable(
            IndexCatalog.withIndex(
                admin.getDescriptor(dataTable), spec.withConsistency(consistency)));
        return;
      }
      TableDescriptor strong =
          IndexCatalog.withIndex(admin.getDescriptor(dataTable), spec.withConsistency(consistency));
      admin.modifyTable(strong);
      if (!EventualMode.await(connection, dataTable, timeoutMs)) {
        throw new IOException(
            "index '"
                + alias
                + "' of "
                + dataTable
                + " is STRONG for new writes, but writes made before the switch were not all"
                + " indexed within "
                + timeoutMs
                + " ms; awaitIndexed tells when they are");
      }
      if (!hasEventual(strong)) {
        EventualPeer.stopShipping(admin, dataTable);
        EventualRecords.forget(connection, dataTable, null);
      }
    }
  }

  /** {@link #setConsistency(TableName, String, IndexSpec.Consistency, long)} waiting a minute. */
  public void setConsistency(TableName dataTable, String alias, IndexSpec.Consistency consistency)
      throws IOException {
    setConsistency(dataTable, alias, consistency, DEFAULT_AWAIT_MS);
  }

  /**
   * Waits until every write acknowledged before this call is in the table's EVENTUAL indexes
   * (returns at once for a table without one): for a writer that must read its own writes through
   * an index. Bounded by the applier's lag (the {@code scbfEventualLagMs} metric) plus a few polls.
   *
   * @return false if {@code timeoutMs} passed first
   */
  public boolean awaitIndexed(TableName dataTable, long timeoutMs) throws IOException {
    return EventualMode.awaitIfShipped(connection, dataTable, timeoutMs);
  }

  private static final long DEFAULT_AWAIT_MS = 60_000;

  private static boolean hasEventual(TableDescriptor data) {
    return IndexCatalog.readSpecs(data).valid().stream()
        .anyMatch(s -> s.consistency() == IndexSpec.Consistency.EVENTUAL);
  }

  /**
   * Declares the table's rows insert-only, or not (see {@link IndexCatalog#IMMUTABLE_ROWS_ATTR}):
   * indexed Puts then skip reading the rows' current values.
   */
  public void setImmutableRows(TableName dataTable, boolean immutable) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      TableDescriptor data = admin.getDescriptor(dataTable);
      TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(data);
      if (immutable) {
        b.setValue(IndexCatalog.IMMUTABLE_ROWS_ATTR, "true");
      } else {
        b.removeValue(IndexCatalog.IMMUTABLE_ROWS_ATTR);
      }
      admin.modifyTable(b.build());
    }
  }

  /** The table's valid indexes (attributes that do not hold a valid spec are left out). */
  public List<IndexSpec> listIndexes(TableName dataTable) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      return IndexCatalog.readSpecs(admin.getDescriptor(dataTable)).valid();
    }
  }
}
