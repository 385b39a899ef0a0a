package io.scbf.hbase.client;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexPlacement;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The re-check of a global index's answer: its data rows read back and kept only if their current
 * value still matches; the index rows found stale are sent to their data regions for removal.
 */
final class Rechecks {
  private static final Logger LOG = LoggerFactory.getLogger(Rechecks.class);

  /** Gets per multi-get of the re-check. */
  private static final int CHUNK = 1000;

  private final Connection connection;
  private final TableName dataTable;
  private final ExecutorService pool;
  private final AtomicLong staleRowsSent = new AtomicLong();

  Rechecks(Connection connection, TableName dataTable, ExecutorService pool) {
    this.connection = connection;
    this.dataTable = dataTable;
    this.pool = pool;
  }

  /** The rows whose current value of {@code spec}'s column(s) satisfies {@code predicate}. */
  List<Result> rows(List<byte[]> rows, IndexSpec spec, Predicate<byte[]> predicate)
      throws IOException {
    return rows(
        rows,
        r -> {
          byte[] v = IndexValues.valueOf(spec, r);
          return v != null && predicate.test(v);
        });
  }

  /**
   * Reads the data rows and keeps those satisfying the predicate. The Gets go in chunks of {@link
   * #CHUNK}, in parallel: a region server stops answering a multi-get once it has read
   * hbase.server.scanner.max.result.size (100 MB) of blocks and the client retries the rest after
   * back-off pauses; one multi-get of a popular value's 100,000 rows took over 30 s, in chunks 2-4
   * s (docs/benchmarks-hbase.md).
   */
  List<Result> rows(List<byte[]> rows, Predicate<Result> predicate) throws IOException {
    List<Result> out = new ArrayList<>(rows.size());
    for (Result r : read(rows)) {
      if (!r.isEmpty() && predicate.test(r)) out.add(r);
    }
    return out;
  }

  /**
   * The rows whose current value of {@code spec}'s column(s) is still the value of the index entry
   * that named them ({@code values}, index form, one per row), in their order: an entry left behind
   * by an update (its cleanup still in flight) is dropped, so a row comes once, at its current
   * value.
   */
  List<Result> rowsAt(List<byte[]> rows, List<byte[]> values, IndexSpec spec) throws IOException {
    List<Result> read = read(rows);
    List<Result> out = new ArrayList<>(rows.size());
    for (int i = 0; i < read.size(); i++) {
      Result r = read.get(i);
      if (!r.isEmpty() && Arrays.equals(IndexValues.valueOf(spec, r), values.get(i))) out.add(r);
    }
    return out;
  }

  /** The rows read by multi-gets, one result per row, in their order (empty: no such row). */
  private List<Result> read(List<byte[]> rows) throws IOException {
    List<Callable<Result[]>> chunks = new ArrayList<>();
    for (int from = 0; from < rows.size(); from += CHUNK) {
      List<Get> gets = new ArrayList<>(CHUNK);
      for (byte[] row : rows.subList(from, Math.min(rows.size(), from + CHUNK))) {
        gets.add(new Get(row));
      }
      chunks.add(
          () -> {
            try (Table table = connection.getTable(dataTable)) {
              return table.get(gets);
            }
          });
    }
    List<Result> out = new ArrayList<>(rows.size());
    for (Result[] chunk : ParallelCalls.all(pool, chunks, "re-check of " + dataTable + " rows")) {
      out.addAll(Arrays.asList(chunk));
    }
    return out;
  }

  /**
   * Index rows that the re-check showed stale (their row no longer holds the value) go to their
   * data regions, which remove each only if it is still stale under the row's index lock; off the
   * query's path, best effort (a failure leaves the row for the next query or a repair).
   */
  void removeStaleInBackground(
      IndexSpec spec, byte[] value, List<byte[]> indexed, List<Result> current) {
    if (current.size() >= indexed.size()) return;
    // An EVENTUAL index's rows behind its data are its applier's to remove (they may be its lag).
    if (spec.consistency() == IndexSpec.Consistency.EVENTUAL) return;
    TreeSet<byte[]> live = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    for (Result r : current) live.add(r.getRow());
    byte[] alias = spec.alias().getBytes(StandardCharsets.UTF_8);
    List<byte[]> stale = new ArrayList<>();
    for (byte[] row : indexed) {
      if (!live.contains(row)) {
        stale.add(
            IndexKeyCodec.rowKey(IndexPlacement.salt(spec, alias, value, row), alias, value, row));
      }
    }
    staleRowsSent.addAndGet(stale.size());
    try {
      pool.execute(
          () -> {
            try {
              RowRepairs.send(connection, dataTable, spec.alias(), stale, List.of());
            } catch (IOException | RuntimeException e) {
              LOG.debug("scbf: removing {} stale index rows failed", stale.size(), e);
            }
          });
    } catch (RejectedExecutionException closed) {
      // The table is closing: the rows stay for the next query or a repair.
    }
  }

  long staleRowsSent() {
    return staleRowsSent.get();
  }
}
