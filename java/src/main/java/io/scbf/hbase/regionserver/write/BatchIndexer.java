package io.scbf.hbase.regionserver.write;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexWriteException;
import io.scbf.hbase.regionserver.batch.Refusals;
import io.scbf.hbase.regionserver.filter.FilterBookkeeping;
import io.scbf.hbase.regionserver.local.LocalIndex;
import io.scbf.hbase.regionserver.region.RowBatchReader;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexUpdatePlanner;
import io.scbf.hbase.shared.RowState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HConstants.OperationStatusCode;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a data region's indexes in step with its mini-batches. With the row locks of a mini-batch
 * held (HBase's, which are shared for plain batches, plus an exclusive {@link RowLocks} lock per
 * row held until the write is visible), it reads the rows' current indexed and covered values,
 * derives the net index change of each row over the batch ({@link IndexUpdatePlanner}), and
 *
 * <ol>
 *   <li>before the data is written, writes the new index rows: if that fails, the data write fails
 *       with {@link IndexWriteException} and the data rows are unchanged;
 *   <li>once the data is written, visible and its locks released, deletes the index rows of the
 *       replaced values in the background ({@link IndexCleanups}). Deleting them earlier could lose
 *       a row from the index if the data write then failed; a late or failed delete only leaves
 *       stale index rows, which queries drop when they re-check the data rows.
 * </ol>
 *
 * Mutations the index cannot follow fail individually with a clear message. Local index entries are
 * added to the data write's own mini-batch ({@code addOperationsFromCP}: one WAL append, atomic
 * with the row, no RPC).
 */
@InterfaceAudience.Private
public final class BatchIndexer {
  private static final byte[] YES = {1};
  private static final Logger LOG = LoggerFactory.getLogger(BatchIndexer.class);

  /** Named in the refusal when the region server lacks it (it provides the index writer). */
  private static final String REGION_SERVER_COPROCESSOR =
      "io.scbf.hbase.regionserver.IndexRegionServerCoprocessor";

  /** What the write path counts, in the region server's metrics. */
  public interface Metrics {
    /** Rows whose current values were not read (insert-only table, or proven new). */
    void addOldRowReadsSkipped(long rows);

    /** Index rows left stale by index deletes that failed after a data write. */
    void addStaleIndexRows(long rows);
  }

  private final Region region;
  private final IndexUpdatePlanner planner;
  private final Map<IndexSpec, TableName> indexTables;
  private final Map<String, LocalIndex> localIndexes;
  private final String localUnfit;
  private final IndexWriter writer;
  private final IndexCleanups cleanups;
  private final WatchedRows watchedRows;
  private final Metrics metrics;
  private final long rowLockWaitMs;
  private final boolean immutableRows;
  private final RowLocks rowLocks = new RowLocks();

  /** Row locks held from beforeDataWritten to afterBatch (same handler thread). */
  private final ThreadLocal<RowLocks.Held> heldLocks = new ThreadLocal<>();

  /** Filter effects of local entry writes, applied once the mini-batch is done. */
  private final ThreadLocal<List<LocalEffects>> pendingLocal = new ThreadLocal<>();

  private record LocalEffects(LocalIndex index, FilterBookkeeping.PendingEffects effects) {}

  /** Index deletes of the mini-batch, from beforeDataWritten until the data write is done. */
  private final ThreadLocal<Deletes> pendingDeletes = new ThreadLocal<>();

  /** The deletes, registered in afterDataWritten, to send once the row locks are released. */
  private final ThreadLocal<IndexCleanups.Cleanup> readyCleanup = new ThreadLocal<>();

  private record Deletes(Map<TableName, List<Mutation>> byTable, List<Bytes> rows) {}

  /**
   * @param indexTables the index table of each global index
   * @param localIndexes the region's local indexes by alias
   * @param localUnfit why the region cannot keep local index entries (its writes to indexed columns
   *     are refused), or null
   * @param writer null if the region server cannot write indexes (indexed writes are refused);
   *     {@code cleanups} and {@code watchedRows} are then null too
   * @param rowLockWaitMs how long a write waits for a row's index lock (HBase's row lock wait)
   * @param immutableRows the table declares its rows insert-only ({@link
   *     IndexCatalog#IMMUTABLE_ROWS_ATTR})
   */
  public BatchIndexer(
      Region region,
      IndexUpdatePlanner planner,
      Map<IndexSpec, TableName> indexTables,
      Map<String, LocalIndex> localIndexes,
      String localUnfit,
      IndexWriter writer,
      IndexCleanups cleanups,
      WatchedRows watchedRows,
      Metrics metrics,
      long rowLockWaitMs,
      boolean immutableRows) {
    this.region = region;
    this.planner = planner;
    this.indexTables = indexTables;
    this.localIndexes = localIndexes;
    this.localUnfit = localUnfit;
    this.writer = writer;
    this.cleanups = cleanups;
    this.watchedRows = watchedRows;
    this.metrics = metrics;
    this.rowLockWaitMs = rowLockWaitMs;
    this.immutableRows = immutableRows;
  }

  /** The row index locks that writes and repairs of this region take. */
  public RowLocks rowLocks() {
    return rowLocks;
  }

  public long rowLockWaitMs() {
    return rowLockWaitMs;
  }

  /** The index deletes in flight after this region's data writes. */
  public IndexCleanups cleanups() {
    return cleanups;
  }

  /** The index writer, or null if the region server cannot write indexes. */
  public IndexWriter writer() {
    return writer;
  }

  /**
   * Before the data is written, with HBase's row locks held: locks the indexed rows, reads their
   * current values, writes the new global index rows (a failure fails the whole write) and adds the
   * local index entries to the mini-batch; the deletes wait for {@link #afterDataWritten}.
   */
  public void beforeDataWritten(MiniBatchOperationInProgress<Mutation> batch) throws IOException {
    List<Mutation> indexed = new ArrayList<>();
    Map<Bytes, Integer> lastIndexOfRow = new LinkedHashMap<>();
    for (int i = 0; i < batch.size(); i++) {
      if (batch.getOperationStatus(i).getOperationStatusCode() != OperationStatusCode.NOT_RUN)
        continue;
      Mutation m = batch.getOperation(i);
      if (!planner.concernsIndex(m)) continue;
      try {
        planner.checkSupported(m);
        indexed.add(m);
        lastIndexOfRow.put(new Bytes(m.getRow()), i);
      } catch (DoNotRetryIOException e) {
        // SANITY_CHECK_FAILURE reaches the client as FailedSanityCheckException with our message
        // on both the single-mutation and the multi path (FAILURE is dropped on the first).
        Refusals.refuse(batch, i, e.getMessage());
      }
    }
    if (indexed.isEmpty()) return;
    if (localUnfit != null)
      throw new DoNotRetryIOException("scbf: " + localUnfit + "; the write was not applied");
    if (writer == null) {
      throw new DoNotRetryIOException(
          "scbf: this region server does not load "
              + REGION_SERVER_COPROCESSOR
              + " (hbase.coprocessor.regionserver"
              + ".classes), so it cannot maintain the indexes of "
              + region.getRegionInfo().getTable()
              + "; the write was not applied");
    }
    // Exclusive per row until the index deletes are written and the data is visible: only then
    // may the next writer of the row read its current values.
    RowLocks.Held held =
        rowLocks.lock(indexed.stream().map(Mutation::getRow).toList(), rowLockWaitMs);
    heldLocks.set(held);
    // An earlier write's deletes must land before this write's puts (see IndexCleanups).
    cleanups.awaitRows(held.rows(), rowLockWaitMs);

    // Insert-only tables: a Put never replaces an indexed value, so there is nothing to read,
    // unless it writes part of a composite index's tuple (the rest may be there already); nor is
    // there for rows that the watched-rows filter proves new. A delete marker stamped at or above
    // an insert-only Put still masks it, so those Puts read the markers (not the values).
    boolean putsOnly = indexed.stream().allMatch(m -> m instanceof Put);
    boolean insertOnly = immutableRows && putsOnly;
    List<Mutation> unproven =
        indexed.stream().filter(m -> !watchedRows.provesAbsent(m.getRow())).toList();
    List<Mutation> toRead = unproven;
    List<Mutation> markersOnly = List.of();
    if (insertOnly) {
      Map<Boolean, List<Mutation>> byTuple =
          unproven.stream().collect(Collectors.partitioningBy(planner::writesPartOfATuple));
      toRead = byTuple.get(true);
      markersOnly = byTuple.get(false);
    }
    if (toRead.size() < indexed.size())
      metrics.addOldRowReadsSkipped(indexed.size() - toRead.size());
    Map<byte[], RowState> current = new TreeMap<>(Bytes.BYTES_COMPARATOR);
    if (!toRead.isEmpty()) current.putAll(read(toRead));
    if (!markersOnly.isEmpty()) {
      storedMarkers(markersOnly)
          .forEach((row, m) -> current.putIfAbsent(row, RowState.of(List.of(), m)));
    }
    // Before the data is written, under the rows' locks: the next writer of a row must read it
    // (a Delete's too: the markers it leaves may mask that writer's puts).
    watchedRows.add(indexed.stream().map(Mutation::getRow).toList());
    Map<Bytes, RowStates> rows = new LinkedHashMap<>();
    Set<Bytes> refused = new HashSet<>();
    Map<Bytes, List<Mutation>> byRow = new LinkedHashMap<>();
    for (Mutation m : indexed) {
      byRow.computeIfAbsent(new Bytes(m.getRow()), r -> new ArrayList<>()).add(m);
    }
    for (Map.Entry<Bytes, List<Mutation>> e : byRow.entrySet()) {
      try {
        planner.checkOneBatchFamilyMarkers(e.getValue(), this::newVersionBehavior);
      } catch (IndexUpdatePlanner.UnfollowableDeletesException unfollowable) {
        Refusals.refuseRow(batch, e.getKey().get(), unfollowable.getMessage());
        refused.add(e.getKey());
      }
    }
    for (Mutation m : indexed) {
      Bytes row = new Bytes(m.getRow());
      if (refused.contains(row)) continue;
      RowStates states =
          rows.computeIfAbsent(
              row, r -> new RowStates(current.getOrDefault(r.get(), RowState.EMPTY)));
      try {
        states.after = planner.apply(states.after, m);
      } catch (IndexUpdatePlanner.MaskedPutException masked) {
        Refusals.refuseRow(batch, row.get(), masked.getMessage());
        rows.remove(row);
        refused.add(row);
      }
    }

    Map<TableName, List<Mutation>> puts = new LinkedHashMap<>();
    Map<TableName, List<Mutation>> deletes = new LinkedHashMap<>();
    Set<Bytes> rowsWithDeletes = new LinkedHashSet<>();
    Map<LocalIndex, LocalIndex.Changes> localEntries = new LinkedHashMap<>();
    long now = EnvironmentEdgeManager.currentTime();
    for (Map.Entry<Bytes, RowStates> e : rows.entrySet()) {
      List<IndexUpdatePlanner.IndexMutation> rowChanges;
      try {
        rowChanges = planner.diff(e.getKey().get(), e.getValue().before, e.getValue().after);
      } catch (IndexUpdatePlanner.KeyTooLongException tooLong) {
        Refusals.refuseRow(batch, e.getKey().get(), tooLong.getMessage());
        continue;
      }
      List<Mutation> entryRows = new ArrayList<>();
      for (IndexUpdatePlanner.IndexMutation im : rowChanges) {
        if (im.spec().isLocal()) {
          LocalIndex local = localIndexes.get(im.spec().alias());
          LocalIndex.Changes changes =
              localEntries.computeIfAbsent(local, l -> new LocalIndex.Changes());
          byte[] key = im.mutation().getRow();
          changes.touched.add(key);
          if (im.mutation() instanceof Delete) {
            changes.deleted.add(key);
          } else if (im.createsRow()) {
            changes.created.add(key); // a covered-only change rewrites an existing entry
          }
          entryRows.add(local.physical(im.mutation(), entryTimestamp(im.mutation(), now)));
          continue;
        }
        boolean delete = im.mutation() instanceof Delete;
        // The index region counts it without reading whether it exists (see FilterBookkeeping).
        if (im.createsRow()) im.mutation().setAttribute(IndexCatalog.NEW_INDEX_ROW_ATTR, YES);
        (delete ? deletes : puts)
            .computeIfAbsent(indexTables.get(im.spec()), t -> new ArrayList<>())
            .add(im.mutation());
        if (delete) rowsWithDeletes.add(e.getKey());
      }
      // Written with the row's own mutation: same WAL entry, visible at the same time.
      if (!entryRows.isEmpty()) {
        batch.addOperationsFromCP(
            lastIndexOfRow.get(e.getKey()), entryRows.toArray(new Mutation[0]));
      }
    }
    if (!localEntries.isEmpty()) {
      List<LocalEffects> effects = new ArrayList<>();
      pendingLocal.set(effects);
      for (Map.Entry<LocalIndex, LocalIndex.Changes> e : localEntries.entrySet()) {
        effects.add(new LocalEffects(e.getKey(), e.getKey().beforeWrites(e.getValue())));
      }
    }
    if (puts.isEmpty() && deletes.isEmpty()) return;
    puts =
        PastStampedIndexRows.raiseRewrites(
            writer.connection(),
            puts,
            now,
            m -> m.getAttribute(IndexCatalog.NEW_INDEX_ROW_ATTR) != null);
    writer.write(
        region.getRegionInfo().getTable().getNameAsString(), puts, IndexWriter.Phase.BEFORE_DATA);
    if (!deletes.isEmpty()) pendingDeletes.set(new Deletes(deletes, List.copyOf(rowsWithDeletes)));
  }

  /**
   * A local entry's timestamp: a put's is its data cell's (so it expires with it under the family's
   * TTL); a delete's is now, or the replacement's if that is later (a client-supplied timestamp in
   * the future), so it masks the replaced entry whichever of the two it was written at (entries
   * written before 0.4 carry the write's time). Local deletes are written in the data row's own
   * mini-batch, so none can arrive late.
   */
  private static long entryTimestamp(Mutation indexMutation, long now) {
    long ts = IndexUpdatePlanner.timestampOf(indexMutation);
    if (ts == HConstants.LATEST_TIMESTAMP) return now;
    return indexMutation instanceof Delete ? Math.max(now, ts) : ts;
  }

  /**
   * The data is written: from now on the old index rows are stale. Registered under the row locks,
   * so that the next writer of these rows waits for the deletes.
   */
  public void afterDataWritten() {
    Deletes deletes = pendingDeletes.get();
    if (deletes == null) return;
    pendingDeletes.remove();
    readyCleanup.set(cleanups.register(deletes.rows(), () -> sendDeletes(deletes.byTable())));
  }

  private void sendDeletes(Map<TableName, List<Mutation>> deletes) {
    try {
      deletes =
          PastStampedIndexRows.raiseDeletes(
              writer.connection(), deletes, EnvironmentEdgeManager.currentTime());
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "scbf: reading the index rows of deletes stamped in the past failed; they go out at"
              + " their own timestamps: {}",
          e.getMessage());
    }
    try {
      writer.write(
          region.getRegionInfo().getTable().getNameAsString(),
          deletes,
          IndexWriter.Phase.AFTER_DATA);
    } catch (IndexWriteException | RuntimeException e) {
      // The data write stands; the old index rows stay as stale rows that queries re-check away.
      metrics.addStaleIndexRows(deletes.values().stream().mapToLong(List::size).sum());
      LOG.warn(
          "scbf: index deletes after a data write failed; stale index rows remain: {}",
          e.getMessage());
    }
  }

  /**
   * The mini-batch is over, written ({@code success}) or not: local filters follow what was
   * written, the rows are unlocked, and the registered index deletes start.
   */
  public void afterBatch(boolean success) {
    pendingDeletes.remove(); // the data write failed before postBatchMutate: keep the old rows
    IndexCleanups.Cleanup cleanup = readyCleanup.get();
    readyCleanup.remove();
    try {
      List<LocalEffects> local = pendingLocal.get();
      if (local != null) {
        pendingLocal.remove();
        for (LocalEffects e : local) e.index().afterWrites(e.effects(), success);
      }
    } finally {
      releaseLocks();
      // Registered cleanups always start: the next writers of their rows wait for them to end.
      if (cleanup != null) cleanups.start(cleanup);
    }
  }

  private void releaseLocks() {
    RowLocks.Held held = heldLocks.get();
    if (held != null) {
      heldLocks.remove();
      rowLocks.unlock(held);
    }
  }

  /**
   * Latest visible version of every watched column of the mutations' rows, read together (one
   * region scanner for the mini-batch, not a Get per row); rows without any are absent.
   */
  private Map<byte[], RowState> read(List<Mutation> mutations) throws IOException {
    Scan scan = new Scan().readVersions(1);
    for (IndexSpec.Column col : planner.watchedColumns())
      scan.addColumn(col.family(), col.qualifier());
    Map<byte[], List<Cell>> cells =
        RowBatchReader.read(region, mutations.stream().map(Mutation::getRow).toList(), scan);
    Map<byte[], RowState.StoredMarkers> markers = storedMarkers(mutations);
    Map<byte[], RowState> states = new TreeMap<>(Bytes.BYTES_COMPARATOR);
    cells.forEach(
        (row, rowCells) ->
            states.put(
                row,
                RowState.of(rowCells, markers.getOrDefault(row, RowState.StoredMarkers.NONE))));
    markers.forEach((row, m) -> states.putIfAbsent(row, RowState.of(List.of(), m)));
    return states;
  }

  /**
   * The delete markers the region holds that could mask a put of the mutations: those at or above
   * the lowest timestamp at which they put a watched column, in families whose markers mask later
   * writes (without NEW_VERSION_BEHAVIOR). A raw scan of that time range only: with timestamps from
   * the server's clock it is empty, and HBase skips the store files that end below it.
   */
  private Map<byte[], RowState.StoredMarkers> storedMarkers(List<Mutation> mutations)
      throws IOException {
    long lowest = Long.MAX_VALUE;
    Set<byte[]> families = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    List<byte[]> rows = new ArrayList<>();
    for (Mutation m : mutations) {
      boolean puts = false;
      for (Map.Entry<byte[], List<Cell>> e : m.getFamilyCellMap().entrySet()) {
        if (!planner.watchesFamily(e.getKey()) || newVersionBehavior(e.getKey())) continue;
        for (Cell c : e.getValue()) {
          if (c.getType() == Cell.Type.Put) {
            lowest = Math.min(lowest, c.getTimestamp());
            families.add(e.getKey());
            puts = true;
          }
        }
      }
      if (puts) rows.add(m.getRow());
    }
    if (rows.isEmpty()) return Map.of();
    Scan scan = new Scan().setRaw(true).readAllVersions().setTimeRange(lowest, Long.MAX_VALUE);
    for (byte[] f : families) scan.addFamily(f);
    Map<byte[], RowState.StoredMarkers> out = new TreeMap<>(Bytes.BYTES_COMPARATOR);
    RowBatchReader.read(region, rows, scan)
        .forEach((row, cells) -> out.put(row, planner.markers(cells)));
    return out;
  }

  private boolean newVersionBehavior(byte[] family) {
    ColumnFamilyDescriptor cf = region.getTableDescriptor().getColumnFamily(family);
    return cf != null && cf.isNewVersionBehavior();
  }

  /** A row's state before the mini-batch and after the batch's mutations so far. */
  private static final class RowStates {
    final RowState before;
    RowState after;

    RowStates(RowState before) {
      this.before = before;
      this.after = before;
    }
  }
}
