package io.scbf.hbase.regionserver.write;

import com.google.protobuf.RpcCallback;
import com.google.protobuf.RpcController;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.ServerCalls;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRegionWrites;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRowMutation;
import io.scbf.hbase.shared.proto.IndexProtos.IndexWriteRequest;
import io.scbf.hbase.shared.proto.IndexProtos.IndexWriteResponse;
import io.scbf.hbase.shared.proto.IndexProtos.IndexWriteService;
import io.scbf.hbase.shared.proto.IndexProtos.RegionWriteFailure;
import java.io.IOException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HConstants.OperationStatusCode;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.ipc.CoprocessorRpcUtils;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.OnlineRegions;
import org.apache.hadoop.hbase.regionserver.OperationStatus;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.wal.WAL;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Applies the index rows of one data mini-batch to every index region of this server it names, in
 * one call: each region's rows are applied (bookkeeping hooks included) with their WAL append
 * deferred, then every WAL written is synced once before the answer. Sent one region at a time
 * through HBase's multi, each region's part would wait for its own WAL sync; one call per region in
 * parallel would cost a call, a handler and a sync each. Rows of a region that failed are reported
 * (the writer re-locates and resends them: index writes are idempotent); an answer without a
 * failure means every row is durable.
 */
@InterfaceAudience.Private
public final class IndexWriteEndpoint extends IndexWriteService {
  private volatile OnlineRegions regions; // null until the coprocessor starts

  public void start(OnlineRegions regions) {
    this.regions = regions;
  }

  @Override
  public void write(
      RpcController controller, IndexWriteRequest request, RpcCallback<IndexWriteResponse> done) {
    try {
      ServerCalls.requireServer("write index rows through " + IndexWriteService.class.getName());
      IndexWriteResponse.Builder response = IndexWriteResponse.newBuilder();
      Set<WAL> written = Collections.newSetFromMap(new IdentityHashMap<>());
      for (IndexRegionWrites writes : request.getRegionsList()) {
        RegionWriteFailure failure = apply(writes, written);
        if (failure != null) response.addFailures(failure);
      }
      for (WAL wal : written) wal.sync();
      done.run(response.build());
    } catch (IOException | RuntimeException e) {
      // A failed sync leaves every region of the call in doubt: the writer resends them all.
      CoprocessorRpcUtils.setControllerException(
          controller, e instanceof IOException io ? io : new IOException(e.toString(), e));
      done.run(null);
    }
  }

  private RegionWriteFailure apply(IndexRegionWrites writes, Set<WAL> written)
      throws AccessDeniedException {
    String encoded = writes.getEncodedRegion();
    OnlineRegions online = regions;
    Region region = online == null ? null : online.getRegion(encoded);
    if (region == null) return failure(encoded, "not online on this server", true);
    if (!isIndexTable(region)) {
      throw new AccessDeniedException(
          "scbf: region " + encoded + " is not an index table's; index writes refused");
    }
    Mutation[] mutations = new Mutation[writes.getMutationsCount()];
    for (int i = 0; i < mutations.length; i++) {
      mutations[i] = toMutation(writes.getMutations(i));
      mutations[i].setDurability(Durability.ASYNC_WAL); // synced once for the whole call
    }
    OperationStatus[] statuses;
    try {
      statuses = region.batchMutate(mutations);
    } catch (IOException e) {
      return failure(encoded, e.toString(), true); // closing, too busy, moved: try again
    }
    if (region instanceof HRegion h && h.getWAL() != null) written.add(h.getWAL());
    for (OperationStatus s : statuses) {
      if (s.getOperationStatusCode() != OperationStatusCode.SUCCESS) {
        boolean retriable = s.getOperationStatusCode() != OperationStatusCode.SANITY_CHECK_FAILURE;
        return failure(encoded, s.getOperationStatusCode() + ": " + s.getExceptionMsg(), retriable);
      }
    }
    return null;
  }

  /**
   * By the attribute alone: decoding the spec on every call was ~2% of an indexed write's CPU. A
   * table whose spec does not decode has its index coprocessor disabled, and only region servers
   * may call here.
   */
  private static boolean isIndexTable(Region region) {
    return region.getTableDescriptor().getValue(IndexCatalog.INDEX_SPEC_ATTR) != null;
  }

  static Mutation toMutation(IndexRowMutation m) {
    byte[] row = m.getRow().toByteArray();
    long ts = m.hasTimestamp() ? m.getTimestamp() : HConstants.LATEST_TIMESTAMP;
    if (!m.hasValue()) {
      // At a timestamp: masks only index rows up to it, never a newer put of the same row.
      return m.hasTimestamp()
          ? new Delete(row).addFamily(IndexCatalog.INDEX_FAMILY, ts)
          : new Delete(row);
    }
    Put put =
        new Put(row)
            .addColumn(
                IndexCatalog.INDEX_FAMILY,
                IndexCatalog.INDEX_QUALIFIER,
                ts,
                m.getValue().toByteArray());
    if (m.getNewRow()) put.setAttribute(IndexCatalog.NEW_INDEX_ROW_ATTR, new byte[] {1});
    return put;
  }

  private static RegionWriteFailure failure(String encoded, String message, boolean retriable) {
    return RegionWriteFailure.newBuilder()
        .setEncodedRegion(encoded)
        .setMessage(message)
        .setRetriable(retriable)
        .build();
  }
}
