package io.scbf.hbase.client;

import com.google.protobuf.ServiceException;
import io.scbf.hbase.BuildProgress;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexSpec.Column;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.shared.UndoableDeletes;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRoutingService;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStats;
import io.scbf.hbase.shared.proto.IndexProtos.StatsRequest;
import io.scbf.hbase.shared.proto.IndexProtos.StatsResponse;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The client side of building an index: the checks before one is defined, the backfill of a global
 * index from the rows already in the table, and the wait for a local index's regions to build their
 * entries.
 */
@InterfaceAudience.Private
public final class IndexBuilds {

  private final Connection connection;

  public IndexBuilds(Connection connection) {
    this.connection = connection;
  }

  /**
   * Throws IllegalArgumentException if {@code spec} does not fit the data table described by {@code
   * data}: a local index's family taken, an unknown family, or an alias or column already indexed.
   */
  public static void validate(TableDescriptor data, IndexSpec spec) {
    if (spec.isLocal()) {
      if (data.hasColumnFamily(IndexCatalog.localFamily(spec.alias()))) {
        throw new IllegalArgumentException(
            "table "
                + data.getTableName()
                + " already has a column family '"
                + Bytes.toString(IndexCatalog.localFamily(spec.alias()))
                + "', which local index '"
                + spec.alias()
                + "' needs; choose another alias");
      }
    }
    for (Column c : IndexValues.watchedColumns(spec)) {
      if (!data.hasColumnFamily(c.family())) {
        throw new IllegalArgumentException(
            "table "
                + data.getTableName()
                + " has no column family '"
                + Bytes.toStringBinary(c.family())
                + "' (column "
                + c
                + ")");
      }
      String notIndexable = UndoableDeletes.whyNotIndexable(data.getColumnFamily(c.family()));
      if (notIndexable != null) {
        throw new IllegalArgumentException(
            "index '"
                + spec.alias()
                + "' of "
                + data.getTableName()
                + " would read column "
                + c
                + ", but "
                + notIndexable);
      }
    }
    IndexCatalog.Specs read = IndexCatalog.readSpecs(data);
    String invalid = read.invalid().get(IndexCatalog.DATA_ATTR_PREFIX + spec.alias());
    if (invalid != null) {
      throw new IllegalArgumentException(
          "table "
              + data.getTableName()
              + " has an invalid spec under alias '"
              + spec.alias()
              + "' ("
              + invalid
              + "); drop it first");
    }
    for (IndexSpec existing : read.valid()) {
      if (existing.alias().equals(spec.alias())) {
        throw new IllegalArgumentException(
            "table "
                + data.getTableName()
                + " already has an index"
                + " with alias '"
                + spec.alias()
                + "' (on "
                + existing.columns()
                + ")");
      }
      // An expression or partial index indexes other values than the column's own: it may sit
      // beside the column's index (or another expression's).
      if (existing.columns().equals(spec.columns())
          && java.util.Objects.equals(existing.expression(), spec.expression())
          && existing.where().equals(spec.where())
          && !isMigration(existing, spec)) {
        throw new IllegalArgumentException(
            (spec.isComposite() ? "columns " : "column ")
                + spec.columnsText()
                + " of "
                + data.getTableName()
                + " is already indexed as '"
                + existing.alias()
                + "'");
      }
    }
  }

  /**
   * A global index created beside an older layout's on the same columns ({@code BY_VALUE} beside
   * {@code BY_ROW}, {@code ORDERED} beside either): the way to move an index to a newer layout
   * online (queries by column keep using the older one until it is dropped).
   */
  private static boolean isMigration(IndexSpec existing, IndexSpec created) {
    return !existing.isLocal()
        && !created.isLocal()
        && existing.layout().ordinal() < created.layout().ordinal();
  }

  /** How long {@link #awaitLocalEntries} waits for the data regions to build a local index. */
  private static final long LOCAL_BUILD_WAIT_MS = 30 * 60_000L;

  /**
   * Waits until every region of the table has published a ready filter of the local index, i.e. has
   * built its entries (each region builds them when it reopens with the index). Queries are
   * complete before that too (a region without its entries scans its rows), only slower.
   */
  public BuildProgress awaitLocalEntries(
      TableName dataTable, IndexSpec spec, BuildProgress.Listener listener) throws IOException {
    String index = IndexCatalog.indexTableName(dataTable, spec.alias()).getNameAsString();
    long deadline = System.currentTimeMillis() + LOCAL_BUILD_WAIT_MS;
    try (Admin admin = connection.getAdmin();
        RegionLocator locator = connection.getRegionLocator(dataTable)) {
      // Regions build their own entries: progress is in regions (rows are not reported).
      int regionsAtStart = locator.getAllRegionLocations().size();
      ProgressTracker tracker =
          new ProgressTracker(
              "local build " + spec.alias() + " of " + dataTable,
              new long[regionsAtStart],
              listener);
      Set<String> readySeen = new HashSet<>();
      while (true) {
        Set<String> regions = new HashSet<>();
        for (HRegionLocation l : locator.getAllRegionLocations()) {
          regions.add(l.getRegion().getEncodedName());
        }
        StatsResponse stats;
        try {
          stats =
              IndexRoutingService.newBlockingStub(admin.coprocessorService())
                  .stats(null, StatsRequest.newBuilder().setIndexTable(index).build());
        } catch (ServiceException e) {
          throw new IOException(
              "local index '"
                  + spec.alias()
                  + "' is defined, but its build progress could not"
                  + " be read from the master: "
                  + e.getMessage(),
              e);
        }
        for (RegionStats r : stats.getRegionsList()) {
          if (r.getReady() && regions.remove(r.getEncodedRegion())) {
            // Regions split during the build add daughters: counted as the last part, not past it.
            if (readySeen.add(r.getEncodedRegion())) {
              tracker.partDone(Math.min(readySeen.size(), regionsAtStart) - 1);
            }
          }
        }
        if (regions.isEmpty()) return tracker.finish();
        if (System.currentTimeMillis() > deadline) {
          throw new IOException(
              "local index '"
                  + spec.alias()
                  + "' of "
                  + dataTable
                  + ": "
                  + regions.size()
                  + " region(s) still building after "
                  + LOCAL_BUILD_WAIT_MS / 1000
                  + " s; queries are complete meanwhile (those regions scan their rows)");
        }
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("waiting for local index build interrupted");
        }
      }
    }
  }

  /**
   * Writes the index rows of the rows already in the data table, {@code scbf.client.build.threads}
   * data regions at a time, reporting to {@code listener}.
   */
  public BuildProgress backfill(
      TableName dataTable, IndexSpec spec, BuildProgress.Listener listener) throws IOException {
    int threads = Settings.from(connection.getConfiguration()).clientBuildThreads();
    return new Backfill(connection, threads).run(dataTable, spec, listener);
  }
}
