package io.scbf.hbase.client;

import io.scbf.hbase.RoutingReport;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStats;
import io.scbf.hbase.shared.proto.IndexProtos.ServerStats;
import io.scbf.hbase.shared.proto.IndexProtos.StatsResponse;
import org.apache.yetus.audience.InterfaceAudience;

/** The master's routing statistics (a protobuf message) as the public {@link RoutingReport}. */
@InterfaceAudience.Private
public final class RoutingReports {
  private RoutingReports() {}

  public static RoutingReport of(StatsResponse stats) {
    return new RoutingReport(
        stats.getServersList().stream().map(RoutingReports::server).toList(),
        stats.getRegionsList().stream().map(RoutingReports::region).toList(),
        stats.getRoutesServed(),
        stats.getBucketsAsked(),
        stats.getBucketsTotal(),
        stats.getStatesServed());
  }

  private static RoutingReport.Server server(ServerStats s) {
    return new RoutingReport.Server(s.getServer(), s.getRegions(), s.getFilterBytes());
  }

  private static RoutingReport.Region region(RegionStats r) {
    return new RoutingReport.Region(
        r.getIndexTable(),
        r.getEncodedRegion(),
        r.getServer(),
        r.getReady(),
        r.getAgeMs(),
        r.getFilterBytes(),
        r.getFilters(),
        r.getEstimatedFpr(),
        r.getResidue());
  }
}
