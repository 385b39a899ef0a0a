package io.scbf.hbase.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.RetriesExhaustedException;
import org.apache.hadoop.hbase.exceptions.RegionMovedException;

/**
 * A table's regions as meta has them now, with the connection's cached locations of their start
 * keys brought in line. After a truncate (or a drop and re-create) the cache may still hold the old
 * region of a start key, and HBase's client then follows the old region's "moved to" records from
 * server to server without reading meta, until the servers forget them two minutes later: each call
 * through the cache retries that long and may fail (differential seed 1031: an awaitIndexed probe
 * stalled 109-129 s, a rebuild's scan gave up after 60 s; seed 1064: a repair's scan, 68 s). The
 * same loop follows a region that moved from one server to another and back and then split
 * (differential seed 1142: each server names the other). Operations that go over every region
 * (index builds, awaitIndexed, verify and repair) start here, one meta read plus one per stale key;
 * a query that met the loop runs again after its tables' cached locations are {@linkplain #drop
 * dropped}.
 */
final class FreshLocations {
  private FreshLocations() {}

  /** The primary regions of {@code table}, their start keys' cached locations refreshed. */
  static List<HRegionLocation> of(Connection connection, TableName table) throws IOException {
    List<HRegionLocation> regions = new ArrayList<>();
    try (RegionLocator locator = connection.getRegionLocator(table)) {
      for (HRegionLocation current : locator.getAllRegionLocations()) {
        if (current.getRegion().getReplicaId() != RegionInfo.DEFAULT_REPLICA_ID) continue;
        regions.add(current);
        byte[] start = current.getRegion().getStartKey();
        HRegionLocation cached = locator.getRegionLocation(start, false);
        if (cached == null
            || !cached.getRegion().getEncodedName().equals(current.getRegion().getEncodedName())
            || !cached.getServerName().equals(current.getServerName())) {
          locator.getRegionLocation(start, true); // reads meta for this key, replacing the entry
        }
      }
    }
    return regions;
  }

  /**
   * True if {@code e} failed on a region's "moved to" record (HBase's client gave up following).
   */
  static boolean movedOn(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof RegionMovedException) return true;
      // Exhausted retries keep only the last attempt as their cause (after the moved records, a
      // region not served at all: differential seed 1314); the others are in the message.
      if (t instanceof RetriesExhaustedException
          && String.valueOf(t.getMessage()).contains(RegionMovedException.class.getSimpleName())) {
        return true;
      }
    }
    return false;
  }

  /** Drops the connection's cached locations of {@code tables}: their next calls read meta. */
  static void drop(Connection connection, Collection<TableName> tables) throws IOException {
    for (TableName table : tables) {
      try (RegionLocator locator = connection.getRegionLocator(table)) {
        locator.clearRegionLocationCache();
      }
    }
  }
}
