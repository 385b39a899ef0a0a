package io.scbf.hbase.client;

import com.google.protobuf.ServiceException;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexSpec.Column;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexRows;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRoutingService;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStats;
import io.scbf.hbase.shared.proto.IndexProtos.StatsRequest;
import io.scbf.hbase.shared.proto.IndexProtos.StatsResponse;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
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
  private static final int BATCH = 1000;

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
    for (Column c : spec.watchedColumns()) {
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
      if (existing.columns().equals(spec.columns()) && !isMigration(existing, spec)) {
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
   * A {@code BY_VALUE} global index created beside a {@code BY_ROW} one on the same columns: the
   * way to move an index to the new layout online (queries by column keep using the {@code BY_ROW}
   * one until it is dropped).
   */
  private static boolean isMigration(IndexSpec existing, IndexSpec created) {
    return !existing.isLocal()
        && !created.isLocal()
        && existing.layout() == IndexSpec.Layout.BY_ROW
        && created.layout() == IndexSpec.Layout.BY_VALUE;
  }

  /** How long {@link #awaitLocalEntries} waits for the data regions to build a local index. */
  private static final long LOCAL_BUILD_WAIT_MS = 30 * 60_000L;

  /**
   * Waits until every region of the table has published a ready filter of the local index, i.e. has
   * built its entries (each region builds them when it reopens with the index). Queries are
   * complete before that too (a region without its entries scans its rows), only slower.
   */
  public void awaitLocalEntries(TableName dataTable, IndexSpec spec) throws IOException {
    String index = IndexCatalog.indexTableName(dataTable, spec.alias()).getNameAsString();
    long deadline = System.currentTimeMillis() + LOCAL_BUILD_WAIT_MS;
    try (Admin admin = connection.getAdmin();
        RegionLocator locator = connection.getRegionLocator(dataTable)) {
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
          if (r.getReady()) regions.remove(r.getEncodedRegion());
        }
        if (regions.isEmpty()) return;
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

  /** Writes the index rows of the rows already in the data table. */
  public void backfill(TableName dataTable, IndexSpec spec) throws IOException {
    IndexRows indexRows = new IndexRows(spec);
    try (Table data = connection.getTable(dataTable);
        Table index = connection.getTable(IndexCatalog.indexTableName(dataTable, spec.alias()));
        ResultScanner rows = data.getScanner(indexRows.scan().setCaching(BATCH))) {
      List<Mutation> batch = new ArrayList<>(BATCH);
      for (Result r : rows) {
        batch.addAll(indexRows.of(r));
        if (batch.size() >= BATCH) flush(index, batch);
      }
      flush(index, batch);
    }
  }

  private static void flush(Table index, List<Mutation> batch) throws IOException {
    if (batch.isEmpty()) return;
    try {
      index.batch(batch, new Object[batch.size()]);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("index backfill interrupted");
    }
    batch.clear();
  }
}
