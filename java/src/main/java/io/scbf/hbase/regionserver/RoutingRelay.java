package io.scbf.hbase.regionserver;

import com.google.protobuf.ServiceException;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRoutingService;
import io.scbf.hbase.shared.proto.IndexProtos.RouteRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateResponse;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.regionserver.Region;

/**
 * The master's routing calls, relayed by a data region for readers of its table. With HBase
 * authorization on, every master endpoint call needs global ADMIN, which readers lack: without the
 * relay they would ask every bucket. The region checks what an index read needs (READ on the
 * index's columns, {@link IndexReadAccess}) and asks the master as the HBase service user. Only the
 * indexes of this region's table can be asked about, so the relay shows a reader nothing its grants
 * do not already let it read. Clients use it only after the master refused them, and only to
 * refresh their routing copy (not per query), so it adds a hop to few calls.
 */
final class RoutingRelay {
  private RoutingRelay() {}

  static RoutingStateResponse routingState(
      Region region, List<IndexSpec> specs, IndexServices services, RoutingStateRequest request)
      throws IOException {
    authorize(region, specs, request.getIndexTable(), request.getRegionsOf());
    try (Admin admin = services.connection().getAdmin()) {
      return IndexRoutingService.newBlockingStub(admin.coprocessorService())
          .routingState(null, request);
    } catch (ServiceException e) {
      throw unwrap(e);
    }
  }

  static RouteResponse route(
      Region region, List<IndexSpec> specs, IndexServices services, RouteRequest request)
      throws IOException {
    authorize(region, specs, request.getIndexTable(), request.getRegionsOf());
    try (Admin admin = services.connection().getAdmin()) {
      return IndexRoutingService.newBlockingStub(admin.coprocessorService()).route(null, request);
    } catch (ServiceException e) {
      throw unwrap(e);
    }
  }

  /**
   * The request must name an index of this region's table (a local one routed over this table's
   * regions), and the caller must be allowed to read it.
   */
  private static void authorize(
      Region region, List<IndexSpec> specs, String indexTable, String regionsOf)
      throws IOException {
    TableName data = region.getRegionInfo().getTable();
    for (IndexSpec spec : specs) {
      if (!IndexCatalog.indexTableName(data, spec.alias()).getNameAsString().equals(indexTable)) {
        continue;
      }
      String expected = spec.isLocal() ? data.getNameAsString() : "";
      if (!expected.equals(regionsOf)) break;
      IndexReadAccess.requireColumns(region, data, spec);
      return;
    }
    throw new DoNotRetryIOException(
        "scbf: table " + data + " has no index " + indexTable + " routed as asked");
  }

  private static IOException unwrap(ServiceException e) {
    return e.getCause() instanceof IOException io
        ? io
        : new IOException("scbf: routing relay: " + e.getMessage(), e);
  }
}
