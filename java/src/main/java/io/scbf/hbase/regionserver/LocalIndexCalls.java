package io.scbf.hbase.regionserver;

import com.google.protobuf.RpcCallback;
import com.google.protobuf.RpcController;
import io.scbf.hbase.regionserver.local.LocalIndex;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.proto.IndexProtos.CurrentFiltersRequest;
import io.scbf.hbase.shared.proto.IndexProtos.CurrentFiltersResponse;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStatusRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStatusResponse;
import java.io.IOException;
import java.util.Map;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.NotServingRegionException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.ipc.CoprocessorRpcUtils;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.Region;

/**
 * The local-index calls of {@link DataTableObserver}'s endpoint: a query of one of the region's
 * local indexes, the read-after-ack check of other regions' current filters, and a region's status.
 * The observer is the endpoint (HBase loads one class for both) and hands each call here with the
 * region's local indexes as they are at the call.
 *
 * @param env null when the observer runs outside a region server (tests)
 * @param context null if IndexRegionServerCoprocessor is not loaded: no metrics then
 * @param indexes the region's local indexes by alias
 * @param unfit why the region cannot keep local index entries, or null
 */
record LocalIndexCalls(
    Region region,
    RegionCoprocessorEnvironment env,
    RegionServerContext context,
    Map<String, LocalIndex> indexes,
    String unfit) {

  void query(
      RpcController controller, LocalQueryRequest request, RpcCallback<LocalQueryResponse> done) {
    try {
      String alias = request.getAlias().toStringUtf8();
      LocalIndex index = localIndex(alias);
      TableName table = region.getRegionInfo().getTable();
      if (request.getAnswer() == LocalQueryRequest.Answer.ROWS) {
        IndexReadAccess.requireTable(region, table, index.spec());
      } else {
        IndexReadAccess.requireColumns(region, table, index.spec());
      }
      long start = System.nanoTime();
      LocalQueryResponse answer = index.query(request);
      if (request.getCheckRegionsCount() > 0 && request.hasValue()) {
        // Read-after-ack for the other regions the client places here (see currentFilters).
        LocalQueryResponse.Builder checked = answer.toBuilder().setChecked(true);
        byte[] value = request.getValue().toByteArray();
        for (String encoded : request.getCheckRegionsList()) {
          if (mustAskNow(encoded, table, alias, value)) checked.addAsk(encoded);
        }
        answer = checked.build();
      }
      if (context != null) {
        boolean empty =
            answer.getHitsCount() == 0
                && answer.getRowsCount() == 0
                && answer.getIndexed()
                && request.hasValue()
                && !request.hasResumeAfter();
        context
            .metrics()
            .lookupDone(
                IndexCatalog.indexTableName(table, alias).getNameAsString(),
                (System.nanoTime() - start) / 1000,
                empty);
      }
      done.run(answer);
    } catch (IOException | RuntimeException e) {
      CoprocessorRpcUtils.setControllerException(controller, failure("query", e));
      done.run(null);
    }
  }

  /** See {@link DataTableObserver#currentFilters}. */
  void currentFilters(
      RpcController controller,
      CurrentFiltersRequest request,
      RpcCallback<CurrentFiltersResponse> done) {
    try {
      String alias = request.getAlias().toStringUtf8();
      LocalIndex index = localIndex(alias);
      TableName table = region.getRegionInfo().getTable();
      IndexReadAccess.requireColumns(region, table, index.spec());
      byte[] value = request.getValue().toByteArray();
      CurrentFiltersResponse.Builder out = CurrentFiltersResponse.newBuilder();
      for (String encoded : request.getEncodedRegionsList()) {
        if (mustAskNow(encoded, table, alias, value)) out.addAsk(encoded);
      }
      done.run(out.build());
    } catch (IOException | RuntimeException e) {
      CoprocessorRpcUtils.setControllerException(controller, failure("currentFilters", e));
      done.run(null);
    }
  }

  /** See {@link #currentFilters}: true unless the region is open here and its filter says no. */
  private boolean mustAskNow(String encoded, TableName table, String alias, byte[] value) {
    Region other = env == null ? null : env.getOnlineRegions().getRegion(encoded);
    if (other == null || !other.getRegionInfo().getTable().equals(table)) return true;
    DataTableObserver cp =
        other instanceof HRegion h && h.getCoprocessorHost() != null
            ? h.getCoprocessorHost().findCoprocessor(DataTableObserver.class)
            : null;
    LocalIndex index = cp == null ? null : cp.localIndexOf(alias);
    if (index == null) return true;
    try {
      return index.mustAskNow(value);
    } catch (IllegalStateException closed) {
      return true; // its filter was freed: the region closed under the call
    }
  }

  /** What this region holds of one of its local indexes ({@code scbf-admin status}). */
  void regionStatus(
      RpcController controller,
      RegionStatusRequest request,
      RpcCallback<RegionStatusResponse> done) {
    try {
      LocalIndex index = localIndex(request.getAlias().toStringUtf8());
      IndexReadAccess.requireColumns(region, region.getRegionInfo().getTable(), index.spec());
      done.run(index.status());
    } catch (IOException | RuntimeException e) {
      CoprocessorRpcUtils.setControllerException(controller, failure("status", e));
      done.run(null);
    }
  }

  /** A local-index call's failure as its caller should see it: retried where the region reopens. */
  private IOException failure(String call, Exception e) {
    if (e instanceof IOException io) return io;
    NotServingRegionException closed = ClosingRegions.closedUnder(region, e);
    return closed != null
        ? closed
        : new DoNotRetryIOException("scbf local index " + call + " failed: " + e, e);
  }

  private LocalIndex localIndex(String alias) throws DoNotRetryIOException {
    LocalIndex index = indexes.get(alias);
    if (index == null) {
      throw new DoNotRetryIOException(
          "scbf: region "
              + region.getRegionInfo().getEncodedName()
              + " of "
              + region.getRegionInfo().getTable()
              + " serves no local index '"
              + alias
              + "'"
              + (unfit != null ? " (" + unfit + ")" : ""));
    }
    return index;
  }
}
