package io.scbf.hbase.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.proto.IndexProtos.LocalIndexService;
import io.scbf.hbase.shared.proto.IndexProtos.RepairRowsRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RepairRowsResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;

/**
 * Sends a global index's suspect rows to the data regions that hold their data rows, which repair
 * them under the rows' index locks (the region's {@code repairRows}): index rows believed stale are
 * deleted only if the data, re-read there, does not produce them (the client's belief may be a
 * write in flight), and rows believed to lack their index rows get the index rows their current
 * data produces. Index tables refuse client writes, so this is the only way a client repairs one.
 */
final class RowRepairs {
  /** Rows per call, below the region's limit of 10,000. */
  private static final int ROWS_PER_CALL = 2_000;

  private RowRepairs() {}

  /** What the regions did: index rows removed, found current after all, and written. */
  record Outcome(long removed, long kept, long written) {}

  /**
   * @param staleIndexRows index rows believed stale
   * @param dataRows data rows believed to lack an index row, or to have a wrong covered value
   */
  static Outcome send(
      Connection connection,
      TableName dataTable,
      String alias,
      List<byte[]> staleIndexRows,
      List<byte[]> dataRows)
      throws IOException {
    Map<String, List<RepairRowsRequest.Builder>> byRegion = new LinkedHashMap<>();
    Map<String, byte[]> aRowOf = new LinkedHashMap<>();
    long removed = 0, kept = 0, written = 0;
    try (RegionLocator locator = connection.getRegionLocator(dataTable);
        Table data = connection.getTable(dataTable)) {
      for (byte[] key : staleIndexRows) {
        byte[] row = IndexKeyCodec.parse(key).userRow();
        request(byRegion, aRowOf, locator, alias, row).addIndexRows(ByteString.copyFrom(key));
      }
      for (byte[] row : dataRows) {
        request(byRegion, aRowOf, locator, alias, row).addDataRows(ByteString.copyFrom(row));
      }
      for (Map.Entry<String, List<RepairRowsRequest.Builder>> e : byRegion.entrySet()) {
        for (RepairRowsRequest.Builder request : e.getValue()) {
          RepairRowsResponse r;
          try {
            r =
                LocalIndexService.newBlockingStub(data.coprocessorService(aRowOf.get(e.getKey())))
                    .repairRows(null, request.build());
          } catch (ServiceException se) {
            throw Rpcs.unwrap(se);
          }
          removed += r.getRemoved();
          kept += r.getKept();
          written += r.getWritten();
        }
      }
    }
    return new Outcome(removed, kept, written);
  }

  /** The request of the region holding {@code row} that still has room for one more row. */
  private static RepairRowsRequest.Builder request(
      Map<String, List<RepairRowsRequest.Builder>> byRegion,
      Map<String, byte[]> aRowOf,
      RegionLocator locator,
      String alias,
      byte[] row)
      throws IOException {
    String region = locator.getRegionLocation(row).getRegion().getEncodedName();
    aRowOf.putIfAbsent(region, row);
    List<RepairRowsRequest.Builder> requests =
        byRegion.computeIfAbsent(region, r -> new ArrayList<>());
    RepairRowsRequest.Builder last = requests.isEmpty() ? null : requests.get(requests.size() - 1);
    if (last == null || last.getIndexRowsCount() + last.getDataRowsCount() >= ROWS_PER_CALL) {
      last = RepairRowsRequest.newBuilder().setAlias(ByteString.copyFromUtf8(alias));
      requests.add(last);
    }
    return last;
  }
}
