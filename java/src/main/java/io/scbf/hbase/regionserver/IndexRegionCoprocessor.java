package io.scbf.hbase.regionserver;

import com.google.protobuf.RpcCallback;
import com.google.protobuf.RpcController;
import com.google.protobuf.Service;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.regionserver.batch.Refusals;
import io.scbf.hbase.regionserver.filter.FilterBookkeeping;
import io.scbf.hbase.regionserver.index.IndexRegion;
import io.scbf.hbase.regionserver.index.IndexVersionTracker;
import io.scbf.hbase.regionserver.lookup.IndexLookups;
import io.scbf.hbase.regionserver.region.HRegionRows;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.ServerCalls;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.shared.proto.IndexProtos.IndexLookupService;
import io.scbf.hbase.shared.proto.IndexProtos.LookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RangeLookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RegionLookup;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStatusRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStatusResponse;
import io.scbf.hbase.shared.proto.IndexProtos.ServerLookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.ServerLookupResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HBaseInterfaceAudience;
import org.apache.hadoop.hbase.HConstants.OperationStatusCode;
import org.apache.hadoop.hbase.NotServingRegionException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.coprocessor.CoreCoprocessor;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.ipc.CoprocessorRpcUtils;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.querymatcher.DeleteTracker;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Coprocessor of index-table regions (loaded on every region, inert elsewhere): keeps the bucket
 * filter in step with the index rows and serves the lookup endpoint. All logic is in {@link
 * IndexRegion}; this class only maps HBase hooks and RPCs onto it.
 *
 * <p>{@code @CoreCoprocessor} for the server's services, through which it finds the {@link
 * RegionServerContext}. Without one (IndexRegionServerCoprocessor not loaded) the region stays
 * inert: it never publishes, so routing always asks it, and its lookups fail with an error naming
 * the missing setting.
 */
@CoreCoprocessor
@InterfaceAudience.LimitedPrivate(HBaseInterfaceAudience.CONFIG)
public class IndexRegionCoprocessor extends IndexLookupService
    implements RegionCoprocessor, RegionObserver {
  private static final Logger LOG = LoggerFactory.getLogger(IndexRegionCoprocessor.class);

  private IndexRegion index; // null on regions that are not index regions
  private RegionCoprocessorEnvironment env;
  private TableName dataTable; // the table this index region indexes
  private RegionServerContext context;

  /**
   * Index rows are read by {@link IndexVersionTracker} ({@link Settings#INDEX_VERSION_TRACKER}).
   */
  private boolean fastVersionTracker;

  /** Why this index region cannot serve lookups, or null. */
  private String unavailable;

  /** Effects computed before a mini-batch, applied after it, on the same handler thread. */
  private final ThreadLocal<FilterBookkeeping.PendingEffects> pending = new ThreadLocal<>();

  @Override
  public void start(CoprocessorEnvironment env) {
    if (!(env instanceof RegionCoprocessorEnvironment renv)) return;
    RegionInfo info = renv.getRegionInfo();
    Optional<IndexSpec> spec;
    try {
      spec = IndexCatalog.specOfIndexTable(renv.getRegion().getTableDescriptor());
    } catch (IllegalArgumentException e) {
      disable(renv, "its table's spec attribute is invalid (" + e.getMessage() + ")", null);
      return;
    }
    if (spec.isEmpty()) return;
    this.env = renv;
    String data =
        renv.getRegion().getTableDescriptor().getValue(IndexCatalog.INDEX_DATA_TABLE_ATTR);
    if (data == null) {
      disable(
          renv, "its table names no data table (" + IndexCatalog.INDEX_DATA_TABLE_ATTR + ")", null);
      return;
    }
    this.dataTable = TableName.valueOf(data);
    Optional<RegionServerContext> found = RegionServerContext.of(renv);
    if (found.isEmpty()) {
      disable(
          renv,
          IndexRegionServerCoprocessor.class.getName()
              + " is not loaded on this region server (hbase.coprocessor.regionserver.classes)",
          null);
      return;
    }
    context = found.get();
    fastVersionTracker = context.settings().indexVersionTracker().equals("scbf");
    IndexServices services = context.attach();
    try {
      index =
          new IndexRegion(
              new HRegionRows(renv.getRegion()),
              spec.get(),
              info.getTable().getNameAsString(),
              info.getEncodedName(),
              info.getStartKey(),
              info.getEndKey(),
              IndexCatalog.isBuilding(renv.getRegion().getTableDescriptor()),
              services.indexRegionHost());
    } catch (RuntimeException e) {
      // Never abort the region server over one index (hbase.coprocessor.abortonerror): the
      // region opens, stores what is written to it, never publishes a filter (so routing always
      // asks it) and fails its lookups with the reason: queries fail loudly, none miss a row.
      context.detach(); // stop() will not: there is no index region to close
      disable(renv, "its filter could not be built (" + e + ")", e);
    }
  }

  private void disable(RegionCoprocessorEnvironment renv, String why, Exception cause) {
    unavailable =
        "scbf: index region " + renv.getRegionInfo().getEncodedName() + " is disabled: " + why;
    LOG.error("{}; its lookups fail until the region reopens", unavailable, cause);
    RegionServerContext.of(renv)
        .ifPresent(c -> c.metrics().indexesDisabled(renv.getRegionInfo().getEncodedName(), 1));
  }

  @Override
  public void stop(CoprocessorEnvironment env) {
    if (unavailable != null && env instanceof RegionCoprocessorEnvironment renv) {
      RegionServerContext.of(renv)
          .ifPresent(c -> c.metrics().regionClosed(renv.getRegionInfo().getEncodedName()));
    }
    if (index == null) return;
    index.close(); // normally done in preClose already; idempotent
    index.free();
    context.detach();
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
    if (index != null) index.open();
  }

  @Override
  public void preClose(ObserverContext<RegionCoprocessorEnvironment> c, boolean abortRequested) {
    if (index != null) index.close();
  }

  /**
   * Every scan and compaction of the index family reads its delete markers through HBase's
   * NEW_VERSION_BEHAVIOR tracker (the write fence, docs/design.md); {@link IndexVersionTracker}
   * gives its answers without its cost per row.
   */
  @Override
  public DeleteTracker postInstantiateDeleteTracker(
      ObserverContext<RegionCoprocessorEnvironment> c, DeleteTracker tracker) {
    return fastVersionTracker ? IndexVersionTracker.replacing(tracker) : tracker;
  }

  /** Bulk-loaded index rows bypass prePut: rebuild the filter from the region's rows. */
  @Override
  public void postBulkLoadHFile(
      ObserverContext<RegionCoprocessorEnvironment> c,
      List<Pair<byte[], String>> stagingFamilyPaths,
      Map<byte[], List<Path>> finalPaths) {
    if (index != null && finalPaths != null && !finalPaths.isEmpty()) index.rebuildAfterBulkLoad();
  }

  @Override
  public void preBatchMutate(
      ObserverContext<RegionCoprocessorEnvironment> c, MiniBatchOperationInProgress<Mutation> batch)
      throws IOException {
    if (index == null) return;
    if (!index.isBuilding()) {
      // A client's delete would hide rows from queries (a false negative), its put would add rows
      // no data row holds. Region servers write as the HBase service user; backfills and bulk
      // builds write while the index is building (queries scan meanwhile).
      ServerCalls.requireServer(
          "write to index table "
              + env.getRegionInfo().getTable()
              + " while its index is built (IndexAdmin.repair fixes index rows,"
              + " IndexAdmin.rebuildIndex rebuilds them)");
    }
    List<Mutation> writes = new ArrayList<>(batch.size());
    for (int i = 0; i < batch.size(); i++) {
      if (batch.getOperationStatus(i).getOperationStatusCode() != OperationStatusCode.NOT_RUN) {
        continue;
      }
      String unsupported = FilterBookkeeping.unsupported(batch.getOperation(i));
      if (unsupported != null) {
        Refusals.refuse(
            batch,
            i,
            "scbf: index tables accept only the Puts and family Deletes of index maintenance; "
                + unsupported
                + " would desynchronise the bucket's filter");
        continue;
      }
      writes.add(batch.getOperation(i));
    }
    try {
      pending.set(index.beforeWrites(writes));
    } catch (RuntimeException e) {
      // Never let a bug abort the region server (hbase.coprocessor.abortonerror): fail the write.
      throw new DoNotRetryIOException("scbf: index region bookkeeping failed: " + e, e);
    }
  }

  @Override
  public void postBatchMutateIndispensably(
      ObserverContext<RegionCoprocessorEnvironment> c,
      MiniBatchOperationInProgress<Mutation> batch,
      boolean success) {
    FilterBookkeeping.PendingEffects effects = pending.get();
    if (index == null || effects == null) return;
    pending.remove();
    index.afterWrites(effects, success);
  }

  // ---- IndexLookupService ----

  @Override
  public void lookup(
      RpcController controller, LookupRequest request, RpcCallback<LookupResponse> done) {
    try {
      done.run(lookup(request));
    } catch (IOException | RuntimeException e) {
      fail(controller, done, e);
    }
  }

  @Override
  public void rangeLookup(
      RpcController controller, RangeLookupRequest request, RpcCallback<LookupResponse> done) {
    try {
      requireRead();
      done.run(
          region()
              .rangeLookup(
                  request.getAlias().toByteArray(),
                  request.hasLo() ? request.getLo().toByteArray() : null,
                  request.hasHi() ? request.getHi().toByteArray() : null,
                  request.getLimit(),
                  request.getMaxBytes(),
                  request.hasResumeAfter() ? request.getResumeAfter().toByteArray() : null,
                  request.hasFromKey() ? request.getFromKey().toByteArray() : null,
                  request.hasToKey() ? request.getToKey().toByteArray() : null,
                  reading(request),
                  request.getPacked()));
    } catch (IOException | RuntimeException e) {
      fail(controller, done, e);
    }
  }

  private static IndexLookups.RangeReading reading(RangeLookupRequest request) {
    if (request.getCountOnly()) return IndexLookups.RangeReading.COUNT;
    if (request.getReverse()) return IndexLookups.RangeReading.VALUES_DESCENDING;
    return request.getWithValues()
        ? IndexLookups.RangeReading.VALUES
        : IndexLookups.RangeReading.ENTRIES;
  }

  @Override
  public void regionStatus(
      RpcController controller,
      RegionStatusRequest request,
      RpcCallback<RegionStatusResponse> done) {
    try {
      requireRead();
      IndexRegion r = region();
      if (!request.getAlias().toStringUtf8().equals(r.spec().alias())) {
        throw new DoNotRetryIOException(
            "index region " + r.encodedName() + " serves index '" + r.spec().alias() + "'");
      }
      done.run(r.status());
    } catch (IOException | RuntimeException e) {
      fail(controller, done, e);
    }
  }

  private <T> void fail(RpcController controller, RpcCallback<T> done, Exception e) {
    CoprocessorRpcUtils.setControllerException(
        controller, e instanceof IOException io ? io : unexpected(e));
    done.run(null);
  }

  /** Only asked for what is not already an IOException (as before: env may not be set yet). */
  private IOException unexpected(Exception e) {
    NotServingRegionException closed = ClosingRegions.closedUnder(env.getRegion(), e);
    return closed != null ? closed : new DoNotRetryIOException("scbf lookup failed: " + e, e);
  }

  /**
   * The point lookup of several index regions of this server in one call: a query routed to k
   * buckets makes one call per server instead of k. Each region hosted here answers exactly as its
   * own {@link #lookup} would (with the same READ check); one not open here (moved since the client
   * located it) is answered with nothing, and the client asks it directly. A region-server endpoint
   * would need global ADMIN under HBase's AccessController; this one needs what a lookup needs.
   */
  @Override
  public void lookupMany(
      RpcController controller,
      ServerLookupRequest request,
      RpcCallback<ServerLookupResponse> done) {
    try {
      ServerLookupResponse.Builder out = ServerLookupResponse.newBuilder();
      for (String encoded : request.getEncodedRegionsList()) {
        RegionLookup.Builder answer = RegionLookup.newBuilder().setEncodedRegion(encoded);
        IndexRegionCoprocessor hosted = hostedIndexRegion(encoded);
        if (hosted != null) {
          try {
            answer.setAnswer(hosted.lookup(request.getLookup()));
          } catch (IllegalStateException e) {
            // Closed under the lookup: answered with nothing, as a region not open here is (the
            // client then asks the region where it is).
            if (ClosingRegions.closedUnder(hosted.env.getRegion(), e) == null) throw e;
          }
        }
        out.addRegions(answer);
      }
      done.run(out.build());
    } catch (IOException | RuntimeException e) {
      CoprocessorRpcUtils.setControllerException(
          controller, e instanceof IOException io ? io : new IOException(e.toString(), e));
      done.run(null);
    }
  }

  /** The scbf coprocessor of a region open on this server, or null if it is not open here. */
  private IndexRegionCoprocessor hostedIndexRegion(String encoded) throws DoNotRetryIOException {
    Region region = env.getOnlineRegions().getRegion(encoded);
    if (region == null) return null;
    IndexRegionCoprocessor cp =
        region instanceof HRegion h && h.getCoprocessorHost() != null
            ? h.getCoprocessorHost().findCoprocessor(IndexRegionCoprocessor.class)
            : null;
    if (cp == null || cp.index == null) {
      throw new DoNotRetryIOException("region " + encoded + " is not an scbf index region");
    }
    return cp;
  }

  /** A point lookup of this index region. */
  LookupResponse lookup(LookupRequest request) throws IOException {
    requireRead();
    long start = System.nanoTime();
    LookupResponse answer = pointLookup(request);
    if (context != null) {
      boolean empty =
          answer.getHitsCount() == 0
              && !answer.getFilterAbsent()
              && !answer.getIndexBuilding()
              && !answer.getOverLimit()
              && !request.getEstimateOnly()
              && !request.hasResumeAfter();
      context
          .metrics()
          .lookupDone(
              env.getRegionInfo().getTable().getNameAsString(),
              (System.nanoTime() - start) / 1000,
              empty);
    }
    return answer;
  }

  private LookupResponse pointLookup(LookupRequest request) throws IOException {
    return region()
        .lookup(
            request.getAlias().toByteArray(),
            request.getValue().toByteArray(),
            request.getLimit(),
            request.getMaxBytes(),
            request.hasResumeAfter() ? request.getResumeAfter().toByteArray() : null,
            request.hasFromKey() ? request.getFromKey().toByteArray() : null,
            request.getScanAbove(),
            request.getEstimateOnly());
  }

  /** Lookups answer data row keys and covered values: the caller needs READ on those columns. */
  private void requireRead() throws IOException {
    IndexRegion r = region();
    IndexReadAccess.requireColumns(env.getRegion(), dataTable, r.spec());
  }

  /** The index region this coprocessor serves, or null on other tables' regions. */
  IndexRegion indexRegion() {
    return index;
  }

  private IndexRegion region() throws DoNotRetryIOException {
    if (unavailable != null) throw new DoNotRetryIOException(unavailable);
    if (index == null) {
      throw new DoNotRetryIOException("the scbf lookup endpoint only serves index-table regions");
    }
    return index;
  }
}
