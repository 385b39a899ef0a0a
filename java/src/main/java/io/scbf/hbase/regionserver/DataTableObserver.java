package io.scbf.hbase.regionserver;

import com.google.protobuf.ByteString;
import com.google.protobuf.RpcCallback;
import com.google.protobuf.RpcController;
import com.google.protobuf.Service;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexWriteException;
import io.scbf.hbase.regionserver.index.IndexRegionHost;
import io.scbf.hbase.regionserver.index.IndexVersionTracker;
import io.scbf.hbase.regionserver.local.LocalFamilies;
import io.scbf.hbase.regionserver.local.LocalIndex;
import io.scbf.hbase.regionserver.repair.IndexRowRepair;
import io.scbf.hbase.regionserver.write.BatchIndexer;
import io.scbf.hbase.regionserver.write.BulkLoads;
import io.scbf.hbase.regionserver.write.EventualProbes;
import io.scbf.hbase.regionserver.write.EventualWrites;
import io.scbf.hbase.regionserver.write.IndexCleanups;
import io.scbf.hbase.regionserver.write.IndexWriter;
import io.scbf.hbase.regionserver.write.RowLocks;
import io.scbf.hbase.regionserver.write.WatchedRows;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexUpdatePlanner;
import io.scbf.hbase.shared.UndoableDeletes;
import io.scbf.hbase.shared.proto.IndexProtos.CurrentFiltersRequest;
import io.scbf.hbase.shared.proto.IndexProtos.CurrentFiltersResponse;
import io.scbf.hbase.shared.proto.IndexProtos.EventualProbeRequest;
import io.scbf.hbase.shared.proto.IndexProtos.EventualProbeResponse;
import io.scbf.hbase.shared.proto.IndexProtos.EventualServersRequest;
import io.scbf.hbase.shared.proto.IndexProtos.EventualServersResponse;
import io.scbf.hbase.shared.proto.IndexProtos.EventualShipsRequest;
import io.scbf.hbase.shared.proto.IndexProtos.EventualShipsResponse;
import io.scbf.hbase.shared.proto.IndexProtos.IndexesRequest;
import io.scbf.hbase.shared.proto.IndexProtos.IndexesResponse;
import io.scbf.hbase.shared.proto.IndexProtos.LocalIndexService;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryResponse;
import io.scbf.hbase.shared.proto.IndexProtos.PendingQueuesRequest;
import io.scbf.hbase.shared.proto.IndexProtos.PendingQueuesResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStatusRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStatusResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RepairRowsRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RepairRowsResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RouteRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateResponse;
import io.scbf.hbase.shared.proto.IndexProtos.ServerWalMarksRequest;
import io.scbf.hbase.shared.proto.IndexProtos.ServerWalMarksResponse;
import io.scbf.hbase.shared.proto.IndexProtos.ServerWalsShippedRequest;
import io.scbf.hbase.shared.proto.IndexProtos.WalsShippedResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HBaseInterfaceAudience;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.CoreCoprocessor;
import org.apache.hadoop.hbase.coprocessor.HasRegionServerServices;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.ipc.CoprocessorRpcUtils;
import org.apache.hadoop.hbase.ipc.RpcServer;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.querymatcher.DeleteTracker;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Data-table observer (loaded on every region, inert on tables without indexes). With the row locks
 * of a mini-batch held (HBase's, which are shared for plain batches, plus an exclusive {@link
 * RowLocks} lock per row held until the write is visible), it reads the rows' current indexed and
 * covered values, derives the net index change of each row over the batch ({@link
 * IndexUpdatePlanner}), and
 *
 * <ol>
 *   <li>before the data is written (preBatchMutate), writes the new index rows: if that fails, the
 *       data write fails with {@link IndexWriteException} and the data rows are unchanged;
 *   <li>once the data is written, visible and its locks released, deletes the index rows of the
 *       replaced values in the background ({@link IndexCleanups}). Deleting them earlier could lose
 *       a row from the index if the data write then failed; a late or failed delete only leaves
 *       stale index rows, which queries drop when they re-check the data rows.
 * </ol>
 *
 * Mutations the index cannot follow fail individually with a clear message.
 *
 * <p>Local indexes ({@link IndexSpec#isLocal()}) need none of this round trip: their entries are
 * added to the data write's own mini-batch ({@code addOperationsFromCP}: one WAL append, atomic
 * with the row, no RPC) and each region keeps their filters ({@link LocalIndex}); this observer
 * also serves their queries ({@link LocalIndexService}, answered by {@link LocalIndexCalls}) and
 * hides their families from clients.
 */
@CoreCoprocessor
@InterfaceAudience.LimitedPrivate(HBaseInterfaceAudience.CONFIG)
public class DataTableObserver extends LocalIndexService
    implements RegionCoprocessor, RegionObserver {
  private static final Logger LOG = LoggerFactory.getLogger(DataTableObserver.class);

  private IndexUpdatePlanner planner; // null on tables without indexes

  /** The EVENTUAL indexes' checks (see {@link EventualWrites}); null if the table has none. */
  private IndexUpdatePlanner eventualChecks;

  private Map<IndexSpec, TableName> indexTables;

  /** Null if IndexRegionServerCoprocessor is not loaded: indexed writes are then refused. */
  private RegionServerContext context;

  /** Time the current mini-batch (this handler thread's) spent in index work before its write. */
  private final ThreadLocal<Long> indexWorkNanos = ThreadLocal.withInitial(() -> 0L);

  private Region region;

  private RegionCoprocessorEnvironment env;

  /** The write path of an indexed table (null on tables without indexes). */
  private BatchIndexer indexer;

  /**
   * The local indexes of this region by alias (empty if none, or if the server context is missing).
   */
  private Map<String, LocalIndex> localIndexes = Map.of();

  private List<IndexSpec> localSpecs = List.of();

  /** The local index families read through {@link IndexVersionTracker}; null: HBase's tracker. */
  private List<byte[]> fastTrackerFamilies;

  /** Why this region cannot keep local index entries, or null. */
  private String localUnfit;

  /** Why every write to this region is refused, or null (set when start failed unexpectedly). */
  private String refusal;

  /** Rows that may hold watched columns: writes of rows it proves absent read nothing. */
  private WatchedRows watchedRows;

  private IndexServices services;

  @Override
  public void start(CoprocessorEnvironment env) {
    if (!(env instanceof RegionCoprocessorEnvironment renv)) return;
    region = renv.getRegion();
    this.env = renv;
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
    // Only an index an earlier release defined can be here: the master refuses new ones.
    for (String risk : UndoableDeletes.problems(null, region.getTableDescriptor())) {
      LOG.warn(
          "scbf: table {}: {}; it may miss rows HBase shows again after a compaction: drop the"
              + " index or set KEEP_DELETED_CELLS => FALSE",
          region.getRegionInfo().getTable(),
          risk);
    }
    List<IndexSpec> specs = read.valid();
    if (specs.isEmpty()) return;
    TableDescriptor descriptor = region.getTableDescriptor();
    planner =
        new IndexUpdatePlanner(
            specs, s -> IndexCatalog.indexTtl(descriptor, s) != HConstants.FOREVER);
    // EVENTUAL indexes are applied from the WAL: the write path only checks their writes.
    List<IndexSpec> eventual =
        specs.stream().filter(s -> s.consistency() == IndexSpec.Consistency.EVENTUAL).toList();
    eventualChecks = eventual.isEmpty() ? null : new IndexUpdatePlanner(eventual);
    IndexUpdatePlanner synchronous =
        eventual.isEmpty()
            ? planner
            : new IndexUpdatePlanner(
                specs.stream().filter(s -> !eventual.contains(s)).toList(),
                s -> IndexCatalog.indexTtl(descriptor, s) != HConstants.FOREVER);
    indexTables = new LinkedHashMap<>();
    TableName data = region.getRegionInfo().getTable();
    for (IndexSpec s : specs) {
      if (!s.isLocal()) indexTables.put(s, IndexCatalog.indexTableName(data, s.alias()));
    }
    localSpecs = specs.stream().filter(IndexSpec::isLocal).toList();
    if (!localSpecs.isEmpty()) {
      localUnfit = LocalIndex.unfit(region);
      if (localUnfit != null)
        LOG.error("scbf: {}; writes to its indexed columns are refused", localUnfit);
      if (context != null && context.settings().indexVersionTracker().equals("scbf")) {
        fastTrackerFamilies =
            localSpecs.stream().map(spec -> IndexCatalog.localFamily(spec.alias())).toList();
      }
    }
    long rowLockWaitMs = renv.getConfiguration().getLong("hbase.rowlock.wait.duration", 30_000);
    boolean immutableRows = IndexCatalog.hasImmutableRows(region.getTableDescriptor());
    if (context == null) {
      LOG.error(
          "scbf: writes to the indexed columns of {} are refused on this region server: {}"
              + " is not loaded (hbase.coprocessor.regionserver.classes)",
          encodedName(),
          IndexRegionServerCoprocessor.class.getName());
      indexer =
          new BatchIndexer(
              region,
              synchronous,
              indexTables,
              localIndexes,
              localUnfit,
              null,
              null,
              null,
              null,
              rowLockWaitMs,
              immutableRows);
      return;
    }
    IndexServices services = context.attach();
    try {
      IndexWriter writer =
          new IndexWriter(
              context.settings(),
              services::connection,
              services.indexWriters(),
              services.indexCallsInFlight(),
              context.metrics()::indexWaited,
              this::serverStops);
      IndexCleanups cleanups = new IndexCleanups(services.indexCleanup());
      watchedRows = new WatchedRows(context.settings().watchedRowsMax());
      this.services = services;
      if (localUnfit == null) {
        Map<String, LocalIndex> locals = new LinkedHashMap<>();
        String encoded = encodedName();
        IndexRegionHost host = services.indexRegionHost();
        for (IndexSpec s : localSpecs) {
          locals.put(
              s.alias(),
              new LocalIndex(
                  region,
                  s,
                  host,
                  () -> renv.getOnlineRegions().getRegion(encoded) == region,
                  context.metrics()::addLocalEntriesBuilt));
        }
        localIndexes = locals;
      }
      indexer =
          new BatchIndexer(
              region,
              synchronous,
              indexTables,
              localIndexes,
              localUnfit,
              writer,
              cleanups,
              watchedRows,
              context.metrics(),
              rowLockWaitMs,
              immutableRows);
    } catch (RuntimeException e) {
      localIndexes.values().forEach(LocalIndex::free);
      localIndexes = Map.of();
      if (watchedRows != null) watchedRows.close();
      this.services = null; // detached here, not again in stop()
      context.detach();
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
    for (LocalIndex l : localIndexes.values()) {
      l.close(); // normally done in preClose already; idempotent
      l.free();
    }
    if (watchedRows != null) watchedRows.close();
    if (services != null) context.detach();
  }

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public Iterable<Service> getServices() {
    return List.of(this);
  }

  @Override
  public void postOpen(ObserverContext<RegionCoprocessorEnvironment> c) {
    localIndexes.values().forEach(LocalIndex::open);
    if (watchedRows != null) {
      services
          .watchedRowsBuilder()
          .execute(
              () -> {
                try {
                  watchedRows.build(
                      region,
                      planner.watchedColumns(),
                      () -> region.isClosing() || region.isClosed());
                  LOG.debug(
                      "scbf: watched rows of {} ready: {}", encodedName(), watchedRows.isOn());
                } catch (IOException | RuntimeException e) {
                  // Only an optimisation is lost: writes keep reading old values.
                  LOG.debug("scbf: watched rows of {} not built: {}", encodedName(), e.toString());
                }
              });
    }
  }

  /**
   * Bulk-loaded cells bypass every write hook, so an HFile in a family that holds an indexed or
   * covered column (or a local index's entries) would leave rows the index does not know: refused
   * before anything is loaded. Families the indexes do not watch load as usual.
   */
  @Override
  public void preBulkLoadHFile(
      ObserverContext<RegionCoprocessorEnvironment> c, List<Pair<byte[], String>> familyPaths)
      throws IOException {
    if (planner == null || familyPaths == null) return;
    for (Pair<byte[], String> fp : familyPaths) {
      String refused =
          BulkLoads.refusal(planner.specs(), region.getTableDescriptor(), fp.getFirst());
      if (refused != null) {
        throw new DoNotRetryIOException(
            "scbf: bulk load into " + region.getRegionInfo().getTable() + " refused: " + refused);
      }
    }
  }

  @Override
  public void preClose(ObserverContext<RegionCoprocessorEnvironment> c, boolean abortRequested) {
    localIndexes.values().forEach(LocalIndex::close);
    awaitCleanups();
  }

  /**
   * Writes that ran after {@link #preClose} (those of the close's pre-flush) may have started
   * cleanups; the region is closed now, so none can start any more, and its next server opens it
   * only once this returns. The timestamp fence keeps a late delete harmless anyway (see
   * IndexUpdatePlanner#replacedAt); this keeps the common case in order.
   */
  @Override
  public void postClose(ObserverContext<RegionCoprocessorEnvironment> c, boolean abortRequested) {
    if (!abortRequested) awaitCleanups();
  }

  /** A server that stops waits for its cleanups this long at most (see awaitCleanups). */
  private static final long STOPPING_SERVER_CLEANUP_WAIT_MS = 1000;

  private boolean serverStops() {
    return env instanceof HasRegionServerServices h && h.getRegionServerServices().isStopped();
  }

  private void awaitCleanups() {
    // The next server of this region must not put an index row that one of these deletes would
    // then remove (see IndexCleanups). Bounded by the index connection's operation timeout, after
    // which the deletes' calls have ended anyway. A server that stops closes its index regions as
    // well, and a delete bound for one of them cannot land before the server has gone: waiting out
    // the timeout held every graceful stop ~20 s (a rolling restart's). So a stopping server waits
    // briefly, for deletes bound elsewhere; the fence keeps one that lands late harmless, and one
    // that never lands leaves a stale index row, as a crash does, which queries re-check away and
    // verify repairs.
    IndexCleanups cleanups = indexer == null ? null : indexer.cleanups();
    if (cleanups == null) return;
    boolean serverStops = serverStops();
    long timeoutMs =
        serverStops
            ? STOPPING_SERVER_CLEANUP_WAIT_MS
            : context.settings().indexOperationTimeoutMs() + 1000L;
    if (!cleanups.awaitAll(timeoutMs)) {
      LOG.warn(
          "scbf: region {} closes with index deletes of {} rows still in flight{}",
          encodedName(),
          cleanups.rowsInFlight(),
          serverStops ? " (its server stops: they may leave stale index rows, see verify)" : "");
    }
  }

  /**
   * Client reads never see local index families. HBase has already replaced "every family" by the
   * table's families when these hooks run, so the families are taken out of every client read.
   */
  @Override
  public void preScannerOpen(ObserverContext<RegionCoprocessorEnvironment> c, Scan scan)
      throws IOException {
    if (!localSpecs.isEmpty() && RpcServer.isInRpcCallContext())
      LocalFamilies.hide(localSpecs, scan.getFamilyMap(), region);
  }

  @Override
  public void preGetOp(ObserverContext<RegionCoprocessorEnvironment> c, Get get, List<Cell> result)
      throws IOException {
    if (!localSpecs.isEmpty() && RpcServer.isInRpcCallContext())
      LocalFamilies.hide(localSpecs, get.getFamilyMap(), region);
  }

  /**
   * Local index families keep HBase's {@code NEW_VERSION_BEHAVIOR} fence as index tables do, and
   * are read through the same cheaper tracker; the table's other families keep HBase's.
   */
  @Override
  public DeleteTracker postInstantiateDeleteTracker(
      ObserverContext<RegionCoprocessorEnvironment> c, DeleteTracker tracker) {
    return fastTrackerFamilies == null
        ? tracker
        : IndexVersionTracker.replacing(tracker, fastTrackerFamilies);
  }

  // ---- LocalIndexService ----

  @Override
  public void query(
      RpcController controller, LocalQueryRequest request, RpcCallback<LocalQueryResponse> done) {
    localCalls().query(controller, request, done);
  }

  /**
   * Read-after-ack for routed queries: of the listed regions of this table, those a query of the
   * value must ask by the filters they hold now ({@link LocalIndex#mustAskNow}), not the ones they
   * last published. A listed region not open here (moved, split, merged, closing) is named too: the
   * client asks its key range wherever it is now. Needs what a query of the index's columns needs;
   * it reveals no more than that query would (whether a region may hold the value).
   */
  @Override
  public void currentFilters(
      RpcController controller,
      CurrentFiltersRequest request,
      RpcCallback<CurrentFiltersResponse> done) {
    localCalls().currentFilters(controller, request, done);
  }

  /** What this region holds of one of its local indexes ({@code scbf-admin status}). */
  @Override
  public void regionStatus(
      RpcController controller,
      RegionStatusRequest request,
      RpcCallback<RegionStatusResponse> done) {
    localCalls().regionStatus(controller, request, done);
  }

  /** The local-index calls over the region's local indexes as they are now. */
  private LocalIndexCalls localCalls() {
    return new LocalIndexCalls(region, env, context, localIndexes, localUnfit);
  }

  /** One of this region's local indexes, or null: for another region's {@link LocalIndexCalls}. */
  LocalIndex localIndexOf(String alias) {
    return localIndexes.get(alias);
  }

  /**
   * A verifier's findings: stale index rows removed, and the index rows of rows with missing or
   * wrong ones written again, under the rows' index locks (see {@link IndexRowRepair}).
   */
  @Override
  public void repairRows(
      RpcController controller, RepairRowsRequest request, RpcCallback<RepairRowsResponse> done) {
    try {
      String alias = request.getAlias().toStringUtf8();
      IndexSpec spec =
          indexTables == null
              ? null
              : indexTables.keySet().stream()
                  .filter(s -> s.alias().equals(alias))
                  .findFirst()
                  .orElse(null);
      if (spec == null) {
        throw new DoNotRetryIOException(
            "scbf: " + region.getRegionInfo().getTable() + " has no global index '" + alias + "'");
      }
      if (spec.consistency() == IndexSpec.Consistency.EVENTUAL) {
        // Its writes take no index lock here, so a repair's delete could mask a value written
        // back meanwhile; its applier removes replaced rows itself, fenced at their data.
        throw new DoNotRetryIOException(
            "scbf: index '"
                + alias
                + "' is EVENTUAL: its applier removes stale rows once caught up; to repair it,"
                + " switch it to STRONG first (IndexAdmin.setConsistency)");
      }
      if (indexer.writer() == null) {
        throw new DoNotRetryIOException(
            "scbf: region " + encodedName() + " cannot maintain its indexes on this server");
      }
      IndexReadAccess.requireColumns(region, region.getRegionInfo().getTable(), spec);
      List<byte[]> stale = new ArrayList<>(request.getIndexRowsCount());
      request.getIndexRowsList().forEach(r -> stale.add(r.toByteArray()));
      List<byte[]> rows = new ArrayList<>(request.getDataRowsCount());
      request.getDataRowsList().forEach(r -> rows.add(r.toByteArray()));
      RepairRowsResponse repaired =
          IndexRowRepair.repair(
              region,
              spec,
              indexTables.get(spec),
              stale,
              rows,
              indexer.rowLocks(),
              indexer.cleanups(),
              indexer.writer(),
              indexer.rowLockWaitMs());
      context.metrics().addStaleIndexRowsRemoved(repaired.getRemoved());
      done.run(repaired);
    } catch (IOException | RuntimeException e) {
      CoprocessorRpcUtils.setControllerException(
          controller,
          e instanceof IOException io
              ? io
              : new DoNotRetryIOException("scbf index row repair failed: " + e, e));
      done.run(null);
    }
  }

  /** The master's routing state of one of this table's indexes, for its readers. */
  @Override
  public void routingState(
      RpcController controller,
      RoutingStateRequest request,
      RpcCallback<RoutingStateResponse> done) {
    try {
      done.run(RoutingRelay.routingState(region, relaySpecs(), relayServices(), request));
    } catch (IOException e) {
      CoprocessorRpcUtils.setControllerException(controller, e);
      done.run(null);
    }
  }

  /** The master's route of one value of one of this table's indexes, for its readers. */
  @Override
  public void route(
      RpcController controller, RouteRequest request, RpcCallback<RouteResponse> done) {
    try {
      done.run(RoutingRelay.route(region, relaySpecs(), relayServices(), request));
    } catch (IOException e) {
      CoprocessorRpcUtils.setControllerException(controller, e);
      done.run(null);
    }
  }

  /**
   * Writes an awaitIndexed probe into this region's WAL (see {@link EventualProbes}): any reader of
   * the table may ask, as the marker changes nothing but tells the writer when its edits are
   * indexed.
   */
  @Override
  public void eventualProbe(
      RpcController controller,
      EventualProbeRequest request,
      RpcCallback<EventualProbeResponse> done) {
    try {
      IndexReadAccess.requireSomeRead(region, region.getRegionInfo().getTable());
      if (!(region instanceof HRegion h)) {
        throw new DoNotRetryIOException("scbf: region " + encodedName() + " has no WAL to probe");
      }
      done.run(EventualProbeResponse.newBuilder().setProbe(EventualProbes.write(h)).build());
    } catch (IOException e) {
      CoprocessorRpcUtils.setControllerException(controller, e);
      done.run(null);
    }
  }

  @Override
  public void eventualShips(
      RpcController controller,
      EventualShipsRequest request,
      RpcCallback<EventualShipsResponse> done) {
    relayEventual(controller, done, EventualRelay::ships);
  }

  @Override
  public void eventualServers(
      RpcController controller,
      EventualServersRequest request,
      RpcCallback<EventualServersResponse> done) {
    relayEventual(controller, done, EventualRelay::servers);
  }

  @Override
  public void eventualMarks(
      RpcController controller,
      ServerWalMarksRequest request,
      RpcCallback<ServerWalMarksResponse> done) {
    relayEventual(controller, done, r -> r.marks(request));
  }

  @Override
  public void eventualShipped(
      RpcController controller,
      ServerWalsShippedRequest request,
      RpcCallback<WalsShippedResponse> done) {
    relayEventual(controller, done, r -> r.shipped(request));
  }

  @Override
  public void eventualPendingQueues(
      RpcController controller,
      PendingQueuesRequest request,
      RpcCallback<PendingQueuesResponse> done) {
    relayEventual(controller, done, EventualRelay::pendingQueues);
  }

  @FunctionalInterface
  private interface RelayCall<T> {
    T on(EventualRelay relay) throws IOException;
  }

  /** awaitIndexed's cluster-wide calls for readers of this table (see {@link EventualRelay}). */
  private <T> void relayEventual(RpcController controller, RpcCallback<T> done, RelayCall<T> call) {
    try {
      done.run(call.on(new EventualRelay(region, relayServices())));
    } catch (IOException e) {
      CoprocessorRpcUtils.setControllerException(controller, e);
      done.run(null);
    }
  }

  private List<IndexSpec> relaySpecs() {
    return planner == null ? List.of() : planner.specs();
  }

  private IndexServices relayServices() throws DoNotRetryIOException {
    if (services == null) {
      throw new DoNotRetryIOException(
          "scbf: region " + encodedName() + " cannot relay cluster calls on this server");
    }
    return services;
  }

  /** The table's scbf attributes and families, for readers who may not get its descriptor. */
  @Override
  public void indexes(
      RpcController controller, IndexesRequest request, RpcCallback<IndexesResponse> done) {
    try {
      IndexReadAccess.requireSomeRead(region, region.getRegionInfo().getTable());
      TableDescriptor td = region.getTableDescriptor();
      IndexesResponse.Builder out = IndexesResponse.newBuilder();
      td.getValues()
          .forEach(
              (k, v) -> {
                String key = Bytes.toString(k.get());
                if (key.startsWith(IndexCatalog.ATTR_PREFIX)) {
                  out.addAttributeKeys(key).addAttributeValues(Bytes.toString(v.get()));
                }
              });
      for (ColumnFamilyDescriptor f : td.getColumnFamilies()) {
        out.addFamilies(ByteString.copyFrom(f.getName()));
      }
      done.run(out.build());
    } catch (IOException e) {
      CoprocessorRpcUtils.setControllerException(controller, e);
      done.run(null);
    }
  }

  @Override
  public void preBatchMutate(
      ObserverContext<RegionCoprocessorEnvironment> c, MiniBatchOperationInProgress<Mutation> batch)
      throws IOException {
    if (refusal != null) throw new DoNotRetryIOException(refusal + "; the write was not applied");
    if (planner == null) return;
    if (!localSpecs.isEmpty() && RpcServer.isInRpcCallContext())
      LocalFamilies.refuseWrites(localSpecs, batch);
    long start = System.nanoTime();
    try {
      if (eventualChecks != null) {
        EventualWrites.refuseUnsupported(
            eventualChecks, region.getTableDescriptor().getDurability(), batch);
      }
      indexer.beforeDataWritten(batch);
      indexWorkNanos.set(System.nanoTime() - start);
    } catch (RuntimeException e) {
      // Never let a bug abort the region server (hbase.coprocessor.abortonerror): fail the write.
      throw new DoNotRetryIOException(
          "scbf: index maintenance failed, the write was not applied: " + e, e);
    }
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
    if (indexer != null) indexer.afterDataWritten();
  }

  @Override
  public void postBatchMutateIndispensably(
      ObserverContext<RegionCoprocessorEnvironment> c,
      MiniBatchOperationInProgress<Mutation> batch,
      boolean success) {
    if (indexer == null) return;
    long start = System.nanoTime();
    indexer.afterBatch(success);
    long before = indexWorkNanos.get();
    indexWorkNanos.set(0L);
    if (context != null && before > 0) {
      context
          .metrics()
          .indexWriteDone(
              region.getRegionInfo().getTable().getNameAsString(),
              (before + System.nanoTime() - start) / 1000);
    }
  }
}
