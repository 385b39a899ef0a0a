package io.scbf.hbase;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.proto.IndexProtos.LocalIndexService;
import io.scbf.hbase.shared.proto.IndexProtos.StaleRowsRequest;
import io.scbf.hbase.shared.proto.IndexProtos.StaleRowsResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;

/**
 * Sends index rows believed stale to the data regions that hold their rows, which delete each only
 * if, re-read under the row's index lock, the data does not produce it (see the region's {@code
 * removeStale}): the client's belief may be a write in flight.
 */
final class StaleRows {
  private StaleRows() {}

  /** What the regions did: rows removed, and rows they found current after all. */
  record Outcome(long removed, long kept) {}

  static Outcome remove(
      Connection connection, TableName dataTable, String alias, List<byte[]> indexRows)
      throws IOException {
    Map<String, StaleRowsRequest.Builder> byRegion = new LinkedHashMap<>();
    Map<String, byte[]> aRowOf = new LinkedHashMap<>();
    long removed = 0, kept = 0;
    try (RegionLocator locator = connection.getRegionLocator(dataTable);
        Table data = connection.getTable(dataTable)) {
      for (byte[] key : indexRows) {
        byte[] row = IndexKeyCodec.parse(key).userRow();
        String region = locator.getRegionLocation(row).getRegion().getEncodedName();
        byRegion
            .computeIfAbsent(
                region, r -> StaleRowsRequest.newBuilder().setAlias(ByteString.copyFromUtf8(alias)))
            .addIndexRows(ByteString.copyFrom(key));
        aRowOf.putIfAbsent(region, row);
      }
      for (Map.Entry<String, StaleRowsRequest.Builder> e : byRegion.entrySet()) {
        StaleRowsResponse r;
        try {
          r =
              LocalIndexService.newBlockingStub(data.coprocessorService(aRowOf.get(e.getKey())))
                  .removeStale(null, e.getValue().build());
        } catch (ServiceException se) {
          throw se.getCause() instanceof IOException io ? io : new IOException(se);
        }
        removed += r.getRemoved();
        kept += r.getKept();
      }
    }
    return new Outcome(removed, kept);
  }
}
