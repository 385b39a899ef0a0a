package io.scbf.hbase.client;

import io.scbf.hbase.QueryTrace;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;

/**
 * A point query's routing: the route with the value's estimate (null if the query is strict or
 * routing failed), and its time.
 */
record Routed(RouteResponse route, long micros, boolean failed) {
  /** A strict query's: not routed, so every region is asked. */
  static final Routed STRICT = new Routed(null, 0, false);

  int unsure() {
    return route == null ? 0 : route.getUnsureRegions();
  }

  QueryTrace.Routing trace() {
    return new QueryTrace.Routing(route != null, failed, micros);
  }
}
