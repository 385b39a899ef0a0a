package io.scbf.hbase;

import java.util.List;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The master's routing statistics for one global index (or the per-region filters of a local one):
 * what {@link IndexedTable#routingReport} returns. A {@code BY_VALUE} or {@code ORDERED} index
 * publishes nothing (each region answers from its own filter): its report lists no regions.
 *
 * @param servers the filters held per region server
 * @param regions the filter each index region (a local index: each data region) published
 * @param routesServed point-query routes the master answered (all indexes, since it started)
 * @param bucketsAsked buckets those routes named
 * @param bucketsTotal buckets those routes could have named (the routes' selectivity is
 *     bucketsAsked / bucketsTotal)
 * @param statesServed routing copies sent to clients, full or by deltas
 */
@InterfaceAudience.Public
public record RoutingReport(
    List<Server> servers,
    List<Region> regions,
    long routesServed,
    long bucketsAsked,
    long bucketsTotal,
    long statesServed) {

  /** Copies the lists: a report does not change after it is made. */
  public RoutingReport {
    servers = List.copyOf(servers);
    regions = List.copyOf(regions);
  }

  /** The filter bytes published, summed over every region. */
  public long filterBytes() {
    return regions.stream().mapToLong(Region::filterBytes).sum();
  }

  /**
   * One region server's share.
   *
   * @param server the server's name (host,port,startcode)
   * @param regions regions whose filters it published
   * @param filterBytes their size
   */
  @InterfaceAudience.Public
  public record Server(String server, int regions, long filterBytes) {}

  /**
   * One region's published filter.
   *
   * @param indexTable the index table (a local index: the data table) the region belongs to
   * @param encodedRegion the region's encoded name
   * @param server the server that published it
   * @param ready whether routing uses it (false while the region rebuilds its filter: routing then
   *     asks the region every time)
   * @param ageMs milliseconds since the master last heard from the region, or -1 if never
   * @param filterBytes the filter's size
   * @param filters filters in it (a scalable filter grows by adding filters)
   * @param estimatedFpr its estimated false-positive rate at its current fill
   * @param residue counts the filter holds beyond its entries (removals it could not apply: they
   *     cost only re-checks)
   */
  @InterfaceAudience.Public
  public record Region(
      String indexTable,
      String encodedRegion,
      String server,
      boolean ready,
      long ageMs,
      long filterBytes,
      int filters,
      double estimatedFpr,
      long residue) {}
}
