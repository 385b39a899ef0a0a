package io.scbf.mapreduce;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.RoutingReport;
import io.scbf.hbase.shared.IndexCatalog;
import java.io.IOException;
import java.io.InterruptedIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;

/**
 * Waits until the master's routing holds, for every bucket of an index (every data region, for a
 * local index), a ready filter published after the build's rows were counted: the build is then
 * acknowledged like a write whose bucket has published. The index regions count loaded rows before
 * the load returns (puts: in prePut; HFiles: the rebuild inside the bulk-load call), so any
 * publication received after this wait started carries them. Durations only (the master's "age"
 * against our elapsed time), so clock skew between this client and the master does not matter.
 */
final class RoutingWait {
  private static final long POLL_MS = 200;

  private RoutingWait() {}

  /** True once routing reflects the build, false if {@code timeoutMs} passed first. */
  static boolean await(Connection connection, TableName dataTable, IndexSpec spec, long timeoutMs)
      throws IOException {
    String indexTable = IndexCatalog.indexTableName(dataTable, spec.alias()).getNameAsString();
    long start = System.nanoTime();
    try (IndexedTable table = new IndexedTable(connection, dataTable)) {
      while (true) {
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        RoutingReport stats = table.routingReport(spec.alias());
        int regions = spec.isLocal() ? dataRegions(connection, dataTable) : spec.buckets();
        if (reflectsBuild(stats, indexTable, regions, elapsedMs)) return true;
        if (elapsedMs >= timeoutMs) return false;
        try {
          Thread.sleep(POLL_MS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while waiting for the scbf routing");
        }
      }
    }
  }

  /** A local index has a filter per data region (read again on every poll: regions split). */
  private static int dataRegions(Connection connection, TableName dataTable) throws IOException {
    try (RegionLocator locator = connection.getRegionLocator(dataTable)) {
      return locator.getAllRegionLocations().size();
    }
  }

  /**
   * Every bucket (or local index region) ready, and last heard from after the wait started (age
   * below elapsed time).
   */
  static boolean reflectsBuild(
      RoutingReport stats, String indexTable, int buckets, long elapsedMs) {
    int fresh = 0;
    for (RoutingReport.Region r : stats.regions()) {
      if (!r.indexTable().equals(indexTable)) continue;
      if (!r.ready() || r.ageMs() >= elapsedMs) return false;
      fresh++;
    }
    return fresh == buckets;
  }
}
