package io.scbf.hbase.regionserver;

import org.apache.hadoop.hbase.NotServingRegionException;
import org.apache.hadoop.hbase.regionserver.Region;

/**
 * A call that failed because its region closed under it (a split, merge or move closes the native
 * state a lookup or query was reading) fails as HBase's own calls to a closing region do: with
 * NotServingRegionException, which clients retry where the region reopens.
 */
final class ClosingRegions {
  private ClosingRegions() {}

  /** The exception to answer {@code e} with if {@code region} closed under it, else null. */
  static NotServingRegionException closedUnder(Region region, Exception e) {
    if (!(e instanceof IllegalStateException) || !(region.isClosing() || region.isClosed())) {
      return null;
    }
    NotServingRegionException out =
        new NotServingRegionException(
            region.getRegionInfo().getRegionNameAsString() + " closed during an scbf call");
    out.initCause(e);
    return out;
  }
}
