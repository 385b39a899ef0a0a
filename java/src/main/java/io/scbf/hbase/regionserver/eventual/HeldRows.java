package io.scbf.hbase.regionserver.eventual;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.regionserver.write.IndexWriter;
import io.scbf.hbase.shared.EventualRecords;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rows of a shipped batch whose table could not be applied (disabled, being deleted or
 * truncated, an index table offline), set aside in the record table so that the batch is
 * acknowledged and the rest of the server's queue, other tables' edits, moves on. The applier
 * derives a row's index rows from its current data, never from the edit, so the row key is all it
 * needs to apply the row later: {@link #drain} applies held rows of enabled tables from their data
 * then, drops those of tables that no longer exist (their indexes went with them), and leaves those
 * of disabled tables until they are enabled. awaitIndexed waits until its table holds none. See
 * docs/design.md, "EVENTUAL indexes".
 */
@InterfaceAudience.Private
public final class HeldRows {
  private static final Logger LOG = LoggerFactory.getLogger(HeldRows.class);

  /** A failing table is reported at most this often; the metric counts every row. */
  private static final long LOG_EVERY_MS = 10_000;

  /** Rows read, applied and released at a time. */
  private static final int PAGE = EventualApplier.CHUNK_ROWS;

  /** Reads a table's index specs as the endpoint does. */
  public interface Specs {
    List<IndexSpec> of(TableName table) throws IOException;
  }

  private final IndexWriter.ConnectionSource connections;
  private final EventualApplier applier;
  private final Specs specs;
  private final EventualLag lag;

  /**
   * Tables whose rows this server holds: their next edits are held at once, without an attempt that
   * could take the index operation timeout for each batch.
   */
  private final Set<TableName> failing = ConcurrentHashMap.newKeySet();

  private final AtomicLong lastLog = new AtomicLong();
  private final AtomicLong heldSinceLog = new AtomicLong();

  public HeldRows(
      IndexWriter.ConnectionSource connections,
      EventualApplier applier,
      Specs specs,
      EventualLag lag) {
    this.connections = connections;
    this.applier = applier;
    this.specs = specs;
    this.lag = lag;
  }

  /** True while rows of {@code table} are held here and not yet applied by {@link #drain}. */
  public boolean failing(TableName table) {
    return failing.contains(table);
  }

  /**
   * Sets {@code rows} aside, durably: only then may the batch holding their edits be acknowledged.
   *
   * @param cause why they could not be applied, or null if the table is held already
   */
  public void hold(TableName table, Collection<byte[]> rows, Throwable cause) throws IOException {
    if (rows.isEmpty()) return;
    List<Put> puts = new ArrayList<>(rows.size());
    byte[] hold = EventualRecords.holdQualifier();
    for (byte[] row : rows) {
      puts.add(
          new Put(EventualRecords.heldRow(table, row))
              .addColumn(EventualRecords.FAMILY, hold, EventualRecords.value()));
    }
    try (Table records = connections.get().getTable(EventualRecords.TABLE)) {
      records.put(puts);
    }
    failing.add(table);
    lag.held(rows.size());
    long held = heldSinceLog.addAndGet(rows.size());
    long now = EnvironmentEdgeManager.currentTime();
    long last = lastLog.get();
    if ((cause != null || now - last >= LOG_EVERY_MS) && lastLog.compareAndSet(last, now)) {
      heldSinceLog.addAndGet(-held);
      LOG.warn(
          "scbf: {} rows of {} set aside in {} to be applied once it can be (other tables' edits"
              + " go on): {}",
          held,
          table,
          EventualRecords.TABLE,
          cause == null ? "it still fails" : cause.toString());
    }
  }

  /**
   * Applies the held rows of every enabled table from their current data and releases them; drops
   * those of tables that no longer exist. A table that still fails keeps its rows for the next
   * call.
   */
  public void drain() throws IOException {
    Set<TableName> seen = new TreeSet<>();
    try (Admin admin = connections.get().getAdmin();
        Table records = connections.get().getTable(EventualRecords.TABLE)) {
      byte[] from = EventualRecords.heldStart();
      while (true) {
        Scan first =
            new Scan()
                .withStartRow(from)
                .withStopRow(EventualRecords.heldStop())
                .addFamily(EventualRecords.FAMILY)
                .setLimit(1)
                .setCaching(1);
        TableName table;
        try (ResultScanner s = records.getScanner(first)) {
          Result r = s.next();
          if (r == null) break;
          table = EventualRecords.heldTableOf(r.getRow());
        }
        seen.add(table);
        from = EventualRecords.heldAfter(table);
        try {
          if (drain(admin, records, table)) failing.remove(table);
        } catch (InterruptedIOException e) {
          throw e;
        } catch (IOException | RuntimeException e) {
          LOG.debug("scbf: held rows of {} still fail: {}", table, e.toString());
        }
      }
    }
    failing.retainAll(seen); // a deleted table's rows may have been removed with its record
  }

  /** True once {@code table} holds no row this call saw. */
  private boolean drain(Admin admin, Table records, TableName table) throws IOException {
    boolean exists = admin.tableExists(table);
    if (exists && !admin.isTableEnabled(table)) return false;
    List<IndexSpec> tableSpecs = exists ? specs.of(table) : List.of();
    Scan scan =
        new Scan()
            .setRowPrefixFilter(EventualRecords.heldPrefix(table))
            .addFamily(EventualRecords.FAMILY)
            .setCaching(PAGE);
    try (ResultScanner s = records.getScanner(scan)) {
      while (true) {
        Result[] page = s.next(PAGE);
        if (page.length == 0) return true;
        List<byte[]> rows = new ArrayList<>(page.length);
        List<Delete> release = new ArrayList<>(page.length);
        for (Result r : page) {
          rows.add(EventualRecords.heldDataRow(table, r.getRow()));
          // Exactly the holds read: a row held again meanwhile has a new qualifier and stays.
          Delete d = new Delete(r.getRow());
          for (Cell c : r.rawCells()) {
            d.addColumn(EventualRecords.FAMILY, CellUtil.cloneQualifier(c), c.getTimestamp());
          }
          release.add(d);
        }
        if (exists) applier.apply(table, tableSpecs, rows);
        records.delete(release);
        lag.released(rows.size());
      }
    }
  }
}
