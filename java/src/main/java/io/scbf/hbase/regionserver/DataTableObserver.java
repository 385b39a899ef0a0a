package io.scbf.hbase.regionserver;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexWriteException;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexUpdatePlanner;
import io.scbf.hbase.shared.RowState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HConstants.OperationStatusCode;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.coprocessor.CoreCoprocessor;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.OperationStatus;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Data-table observer (loaded on every region, inert on tables without indexes). With the row locks
 * of a mini-batch held (HBase's, which are shared for plain batches, plus an exclusive {@link
 * RowLockStripes} lock per row held until the write is visible), it reads the rows' current indexed
 * and covered values, derives the net index change of each row over the batch ({@link
 * IndexUpdatePlanner}), and
 *
 * <ol>
 *   <li>before the data is written (preBatchMutate), writes the new index rows: if that fails, the
 *       data write fails with {@link IndexWriteException} and the data rows are unchanged;
 *   <li>after the data is written and before it becomes visible or the row locks are released
 *       (postBatchMutate), deletes the index rows of the replaced values. Deleting them earlier
 *       could lose a row from the index if the data write then failed; a failure here only leaves
 *       stale index rows, which queries drop when they re-check the data rows.
 * </ol>
 *
 * Mutations the index cannot follow fail individually with a clear message.
 */
@CoreCoprocessor
public class DataTableObserver implements RegionCoprocessor, RegionObserver {
  private static final Logger LOG = LoggerFactory.getLogger(DataTableObserver.class);

  private IndexUpdatePlanner planner; // null on tables without indexes
  private Map<IndexSpec, TableName> indexTables;

  /** Null if IndexRegionServerCoprocessor is not loaded: indexed writes are then refused. */
  private RegionServerContext context;

  private IndexWriter writer;
  private Region region;

  /** Why every write to this region is refused, or null (set when start failed unexpectedly). */
  private String refusal;

  private final ThreadLocal<Map<TableName, List<Mutation>>> pendingDeletes = new ThreadLocal<>();

  /** Row locks held from preBatchMutate to postBatchMutateIndispensably (same handler thread). */
  private final ThreadLocal<int[]> heldLocks = new ThreadLocal<>();

  private final RowLockStripes rowLocks = new RowLockStripes(1024);
  private long rowLockWaitMs;

  @Override
  public void start(CoprocessorEnvironment env) {
    if (!(env instanceof RegionCoprocessorEnvironment renv)) return;
    region = renv.getRegion();
    context = RegionServerContext.of(renv).orElse(null);
    try {
      open(renv);
    } catch (RuntimeException e) {
      // A bug here must not abort the region server (hbase.coprocessor.abortonerror), nor let
      // writes bypass the indexes: refuse every write to this region with the reason instead.
      refusal = "scbf: the index observer of region " + encodedName() + " failed to start: " + e;
      LOG.error("{}; every write to the region is refused until it reopens", refusal, e);
    }
  }

  private void open(RegionCoprocessorEnvironment renv) {
    IndexCatalog.Specs read = IndexCatalog.readSpecs(region.getTableDescriptor());
    // Clients read the same attributes the same way and never query an index whose spec is
    // invalid, so ignoring it here cannot cause a false negative.
    read.invalid()
        .forEach(
            (attr, why) ->
                LOG.error(
                    "scbf: table {} attribute {} is not a valid index spec; that index is"
                        + " disabled (drop and recreate it): {}",
                    region.getRegionInfo().getTable(),
                    attr,
                    why));
    if (context != null) context.metrics().indexesDisabled(encodedName(), read.invalid().size());
    List<IndexSpec> specs = read.valid();
    if (specs.isEmpty()) return;
    planner = new IndexUpdatePlanner(specs);
    indexTables = new LinkedHashMap<>();
    TableName data = region.getRegionInfo().getTable();
    for (IndexSpec s : specs) indexTables.put(s, IndexCatalog.indexTableName(data, s.alias()));
    rowLockWaitMs = renv.getConfiguration().getLong("hbase.rowlock.wait.duration", 30_000);
    if (context == null) {
      LOG.error(
          "scbf: writes to the indexed columns of {} are refused on this region server: {}"
              + " is not loaded (hbase.coprocessor.regionserver.classes)",
          encodedName(),
          IndexRegionServerCoprocessor.class.getName());
      return;
    }
    IndexServices services = context.attach();
    try {
      writer = new IndexWriter(services);
    } catch (RuntimeException e) {
      context.detach(); // stop() detaches only when a writer exists
      throw e;
    }
  }

  private String encodedName() {
    return region.getRegionInfo().getEncodedName();
  }

  @Override
  public void stop(CoprocessorEnvironment env) {
    if (context == null || region == null) return;
    context.metrics().regionClosed(encodedName());
    if (writer != null) context.detach();
  }

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public void preBatchMutate(
      ObserverContext<RegionCoprocessorEnvironment> c, MiniBatchOperationInProgress<Mutation> batch)
      throws IOException {
    if (refusal != null) throw new IndexWriteException(refusal + "; the write was not applied");
    if (planner == null) return;
    try {
      writeIndexPuts(batch);
    } catch (RuntimeException e) {
      // Never let a bug abort the region server (hbase.coprocessor.abortonerror): fail the write.
      throw new IndexWriteException(
          "scbf: index maintenance failed, the write was not applied: " + e, e);
    }
  }

  private void writeIndexPuts(MiniBatchOperationInProgress<Mutation> batch) throws IOException {
    List<Mutation> indexed = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      if (batch.getOperationStatus(i).getOperationStatusCode() != OperationStatusCode.NOT_RUN)
        continue;
      Mutation m = batch.getOperation(i);
      if (!planner.concernsIndex(m)) continue;
      try {
        planner.checkSupported(m);
        indexed.add(m);
      } catch (DoNotRetryIOException e) {
        // SANITY_CHECK_FAILURE reaches the client as FailedSanityCheckException with our message
        // on both the single-mutation and the multi path (FAILURE is dropped on the first).
        batch.setOperationStatus(
            i, new OperationStatus(OperationStatusCode.SANITY_CHECK_FAILURE, e.getMessage()));
      }
    }
    if (indexed.isEmpty()) return;
    if (writer == null) {
      throw new IndexWriteException(
          "scbf: this region server does not load "
              + IndexRegionServerCoprocessor.class.getName()
              + " (hbase.coprocessor.regionserver"
              + ".classes), so it cannot maintain the indexes of "
              + region.getRegionInfo().getTable()
              + "; the write was not applied");
    }
    // Exclusive per row until the index deletes are written and the data is visible: only then
    // may the next writer of the row read its current values.
    heldLocks.set(rowLocks.lock(indexed.stream().map(Mutation::getRow).toList(), rowLockWaitMs));

    Map<byte[], RowState> current = read(indexed);
    Map<Bytes, RowStates> rows = new LinkedHashMap<>();
    for (Mutation m : indexed) {
      RowStates states =
          rows.computeIfAbsent(
              new Bytes(m.getRow()),
              r -> new RowStates(current.getOrDefault(r.get(), RowState.EMPTY)));
      states.after = planner.apply(states.after, m);
    }

    Map<TableName, List<Mutation>> puts = new LinkedHashMap<>();
    Map<TableName, List<Mutation>> deletes = new LinkedHashMap<>();
    for (Map.Entry<Bytes, RowStates> e : rows.entrySet()) {
      for (IndexUpdatePlanner.IndexMutation im :
          planner.diff(e.getKey().get(), e.getValue().before, e.getValue().after)) {
        (im.mutation() instanceof Delete ? deletes : puts)
            .computeIfAbsent(indexTables.get(im.spec()), t -> new ArrayList<>())
            .add(im.mutation());
      }
    }
    writer.write(
        region.getRegionInfo().getTable().getNameAsString(), puts, IndexWriter.Phase.BEFORE_DATA);
    if (!deletes.isEmpty()) pendingDeletes.set(deletes);
  }

  /**
   * Rejects increments of watched columns before HBase computes them (it would fail less clearly).
   */
  @Override
  public Result preIncrement(
      ObserverContext<RegionCoprocessorEnvironment> c, Increment increment, WALEdit edit)
      throws IOException {
    if (planner != null) planner.checkSupported(increment);
    return null;
  }

  @Override
  public Result preAppend(
      ObserverContext<RegionCoprocessorEnvironment> c, Append append, WALEdit edit)
      throws IOException {
    if (planner != null) planner.checkSupported(append);
    return null;
  }

  @Override
  public void postBatchMutate(
      ObserverContext<RegionCoprocessorEnvironment> c,
      MiniBatchOperationInProgress<Mutation> batch) {
    Map<TableName, List<Mutation>> deletes = pendingDeletes.get();
    if (deletes == null) return;
    pendingDeletes.remove();
    try {
      writer.write(
          region.getRegionInfo().getTable().getNameAsString(),
          deletes,
          IndexWriter.Phase.AFTER_DATA);
    } catch (IndexWriteException | RuntimeException e) {
      // The data write stands; the old index rows stay as stale rows that queries re-check away.
      context.metrics().addStaleIndexRows(deletes.values().stream().mapToLong(List::size).sum());
      LOG.warn(
          "scbf: index deletes after a data write failed; stale index rows remain: {}",
          e.getMessage());
    }
  }

  @Override
  public void postBatchMutateIndispensably(
      ObserverContext<RegionCoprocessorEnvironment> c,
      MiniBatchOperationInProgress<Mutation> batch,
      boolean success) {
    pendingDeletes.remove(); // the data write failed before postBatchMutate: keep the old rows
    releaseLocks();
  }

  private void releaseLocks() {
    int[] held = heldLocks.get();
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
    Map<byte[], RowState> states = new TreeMap<>(Bytes.BYTES_COMPARATOR);
    for (Map.Entry<byte[], List<Cell>> row : cells.entrySet()) {
      RowState.Builder b = RowState.builder();
      for (Cell cell : row.getValue()) {
        IndexSpec.Column col =
            new IndexSpec.Column(CellUtil.cloneFamily(cell), CellUtil.cloneQualifier(cell));
        b.put(col, CellUtil.cloneValue(cell), cell.getTimestamp());
      }
      states.put(row.getKey(), b.build());
    }
    return states;
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
