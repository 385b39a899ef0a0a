package io.scbf.hbase.regionserver;

import io.scbf.hbase.IndexWriteException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;

/**
 * Writes index mutations on the index RPC priority ({@link IndexRpcSchedulerFactory}, set by the
 * connection's {@link IndexRpcControllerFactory}) and turns any failure into a clear {@link
 * IndexWriteException}.
 *
 * <p>The mutations are sent as one batch per index region, the batches in parallel (on the region
 * server's index writer pool, the last one in the calling thread). One batch for all regions would
 * be applied region after region by the receiving server, each region's part waiting for its own
 * WAL sync; in parallel, the syncs of the regions sharing a WAL are grouped. The locations come
 * from the connection's cache; a stale one only costs the batch its normal re-location and retry.
 */
final class IndexWriter {
  /**
   * When index mutations are written relative to their data write; it decides what a failure means.
   */
  enum Phase {
    /** Index puts before the data write: a failure fails the data write, which is not applied. */
    BEFORE_DATA,
    /** Index deletes after the data write: a failure leaves stale index rows, the write stands. */
    AFTER_DATA
  }

  private final IndexServices services;

  IndexWriter(IndexServices services) {
    this.services = services;
  }

  private record RegionBatch(TableName table, List<Mutation> mutations) {}

  /** Writes every mutation or throws {@link IndexWriteException}; returns when all are durable. */
  void write(String dataTable, Map<TableName, List<Mutation>> byIndexTable, Phase phase)
      throws IndexWriteException {
    Connection connection;
    List<RegionBatch> batches = new ArrayList<>();
    try {
      connection = services.connection();
      for (Map.Entry<TableName, List<Mutation>> e : byIndexTable.entrySet()) {
        Map<String, List<Mutation>> byRegion = new LinkedHashMap<>();
        try (RegionLocator locator = connection.getRegionLocator(e.getKey())) {
          for (Mutation m : e.getValue()) {
            byRegion
                .computeIfAbsent(
                    locator.getRegionLocation(m.getRow()).getRegion().getEncodedName(),
                    r -> new ArrayList<>())
                .add(m);
          }
        }
        for (List<Mutation> mutations : byRegion.values())
          batches.add(new RegionBatch(e.getKey(), mutations));
      }
    } catch (IOException ex) {
      throw failure(
          dataTable,
          byIndexTable.keySet().toString(),
          byIndexTable.values().stream().mapToInt(List::size).sum(),
          phase,
          ex);
    }
    if (batches.isEmpty()) return;
    List<Future<?>> others = new ArrayList<>(batches.size() - 1);
    for (RegionBatch b : batches.subList(0, batches.size() - 1)) {
      others.add(
          services
              .indexWriters()
              .submit(
                  () -> {
                    send(connection, b);
                    return null;
                  }));
    }
    // Every batch ends (written or failed) before this returns or throws: a data write that fails
    // leaves no index write of its own still in flight once its row locks are released.
    Exception first = null;
    RegionBatch failed = null;
    RegionBatch last = batches.get(batches.size() - 1);
    try {
      send(connection, last);
    } catch (IOException | InterruptedException ex) {
      first = ex;
      failed = last;
    }
    for (int i = 0; i < others.size(); i++) {
      try {
        getUninterruptibly(others.get(i));
      } catch (ExecutionException ex) {
        if (first == null) {
          first = ex.getCause() instanceof Exception cause ? cause : ex;
          failed = batches.get(i);
        }
      }
    }
    if (first != null) {
      if (first instanceof InterruptedException || first instanceof InterruptedIOException) {
        Thread.currentThread().interrupt();
      }
      throw failure(dataTable, failed.table().toString(), failed.mutations().size(), phase, first);
    }
  }

  private static void send(Connection connection, RegionBatch b)
      throws IOException, InterruptedException {
    try (Table table = connection.getTable(b.table())) {
      table.batch(b.mutations(), new Object[b.mutations().size()]);
    }
  }

  private static void getUninterruptibly(Future<?> f) throws ExecutionException {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          f.get();
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) Thread.currentThread().interrupt();
    }
  }

  private static IndexWriteException failure(
      String dataTable, String indexTable, int count, Phase phase, Exception cause) {
    String outcome =
        phase == Phase.BEFORE_DATA
            ? "so the write to " + dataTable + " was not applied (data rows unchanged)"
            : "after the write to "
                + dataTable
                + " was applied (it stands; the replaced values' index"
                + " rows remain as stale rows, which queries re-check away)";
    return new IndexWriteException(
        "scbf: writing "
            + count
            + " index mutation(s) to "
            + indexTable
            + " failed, "
            + outcome
            + ": "
            + cause,
        cause);
  }
}
