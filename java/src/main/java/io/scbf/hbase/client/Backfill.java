package io.scbf.hbase.client;

import io.scbf.hbase.BuildProgress;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.DaemonThreads;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexRows;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.Size;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the index rows of the rows already in a data table: one task per data region (its key
 * range as the region had it when the job started: later splits and moves only change which server
 * answers), {@code threads} at a time, with progress. The first failure stops the others and is
 * thrown; the index then stays building (queries scan) and the job can be run again. Rows whose
 * typed indexed column holds a value not of its type are not indexed: counted in the progress, and
 * the first {@link #INVALID_SAMPLES} named in the log.
 */
final class Backfill {
  private static final Logger LOG = LoggerFactory.getLogger(Backfill.class);

  /** Rows not indexed for an invalid value that the log names, at most. */
  static final int INVALID_SAMPLES = 10;

  /** Index mutations per batch, and rows per scanner round trip. */
  static final int BATCH = 1000;

  private final Connection connection;
  private final int threads;

  Backfill(Connection connection, int threads) {
    this.connection = connection;
    this.threads = threads;
  }

  private record Part(byte[] start, byte[] stop, long bytes) {}

  BuildProgress run(TableName dataTable, IndexSpec spec, BuildProgress.Listener listener)
      throws IOException {
    List<Part> parts = parts(dataTable);
    ProgressTracker tracker =
        new ProgressTracker(
            "backfill " + spec.alias() + " of " + dataTable,
            parts.stream().mapToLong(Part::bytes).toArray(),
            listener);
    IndexRows indexRows = new IndexRows(spec);
    List<String> invalid = Collections.synchronizedList(new ArrayList<>());
    TableName indexTable = IndexCatalog.indexTableName(dataTable, spec.alias());
    ExecutorService pool =
        Executors.newFixedThreadPool(
            Math.max(1, Math.min(threads, parts.size())),
            DaemonThreads.named("scbf-backfill-" + spec.alias()));
    try {
      CompletionService<Void> tasks = new ExecutorCompletionService<>(pool);
      for (int i = 0; i < parts.size(); i++) {
        int part = i;
        tasks.submit(
            () -> {
              backfill(parts.get(part), part, dataTable, indexTable, indexRows, tracker, invalid);
              return null;
            });
      }
      for (int i = 0; i < parts.size(); i++) tasks.take().get(); // the first failure, at once
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) throw io;
      if (cause instanceof RuntimeException re) throw re;
      throw new IOException("backfill of index '" + spec.alias() + "' failed", cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("backfill of index '" + spec.alias() + "' interrupted");
    } finally {
      pool.shutdownNow();
    }
    BuildProgress done = tracker.finish();
    if (done.invalidRows() > 0) {
      LOG.warn(
          "scbf: backfill of index '{}' of {} did not index {} rows: an indexed column holds a"
              + " value not of its declared type (written before the index existed). The first:"
              + " {}",
          spec.alias(),
          dataTable,
          done.invalidRows(),
          String.join("; ", invalid));
    }
    return done;
  }

  private void backfill(
      Part part,
      int partIndex,
      TableName dataTable,
      TableName indexTable,
      IndexRows indexRows,
      ProgressTracker t,
      List<String> invalid)
      throws IOException {
    try (Table data = connection.getTable(dataTable);
        Table index = connection.getTable(indexTable)) {
      KeySpan span = KeySpan.of(data, part.start(), part.stop());
      try (ResultScanner rows =
          data.getScanner(
              indexRows
                  .scan()
                  .withStartRow(part.start())
                  .withStopRow(part.stop())
                  .setCaching(BATCH))) {
        List<Mutation> batch = new ArrayList<>(BATCH);
        long read = 0;
        for (Result r : rows) {
          read++;
          List<Put> puts = indexRows.of(r);
          if (puts.isEmpty()) noteInvalid(r, indexRows, t, invalid);
          batch.addAll(puts);
          if (batch.size() >= BATCH) {
            write(index, batch);
            t.rows(read);
            t.partAt(partIndex, span.at(r.getRow()));
            read = 0;
          }
        }
        write(index, batch);
        t.rows(read);
      }
    }
    t.partDone(partIndex);
  }

  private static void noteInvalid(
      Result row, IndexRows indexRows, ProgressTracker t, List<String> invalid) {
    String why = indexRows.invalidValue(row);
    if (why == null) return; // the row lacks an indexed column
    t.invalidRows(1);
    synchronized (invalid) {
      if (invalid.size() < INVALID_SAMPLES) {
        invalid.add(Bytes.toStringBinary(row.getRow()) + " (" + why + ")");
      }
    }
  }

  private static void write(Table index, List<Mutation> batch) throws IOException {
    if (batch.isEmpty()) return;
    try {
      index.batch(batch, new Object[batch.size()]);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("index backfill interrupted");
    }
    batch.clear();
  }

  /** The table's regions as key ranges, with their store sizes (0 where the cluster has none). */
  private List<Part> parts(TableName dataTable) throws IOException {
    List<HRegionLocation> locations = FreshLocations.of(connection, dataTable);
    Map<String, Long> sizes = new HashMap<>();
    Set<ServerName> servers = new HashSet<>();
    for (HRegionLocation l : locations)
      if (l.getServerName() != null) servers.add(l.getServerName());
    try (Admin admin = connection.getAdmin()) {
      for (ServerName server : servers) {
        for (RegionMetrics m : admin.getRegionMetrics(server, dataTable)) {
          long bytes =
              (long)
                  (m.getStoreFileSize().get(Size.Unit.BYTE)
                      + m.getMemStoreSize().get(Size.Unit.BYTE));
          sizes.put(Bytes.toStringBinary(m.getRegionName()), bytes);
        }
      }
    }
    List<Part> parts = new ArrayList<>();
    for (HRegionLocation l : locations) {
      parts.add(
          new Part(
              l.getRegion().getStartKey(),
              l.getRegion().getEndKey(),
              sizes.getOrDefault(Bytes.toStringBinary(l.getRegion().getRegionName()), 0L)));
    }
    return parts;
  }
}
