package io.scbf.hbase.regionserver.eventual;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexSpec.Column;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.regionserver.write.IndexWriter;
import io.scbf.hbase.shared.EventualRecords;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexRowVersions;
import io.scbf.hbase.shared.IndexRows;
import io.scbf.hbase.shared.IndexUpdatePlanner;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Brings the global indexes of a set of data rows to the rows' current data, in any order and any
 * number of times: the EVENTUAL mode's applier (called by the replication endpoint with the rows of
 * shipped WAL edits, and by nothing else). Per row and index: read the row's current watched cells
 * and the record of the index rows written for it, record the index rows the current data produces,
 * put them (at their data cells' timestamp, as the synchronous path does), then delete the recorded
 * index rows the data no longer produces with family markers fenced at the replacement (the newer
 * of the recorded row's timestamp and the current indexed cells'), and their record columns the
 * same way.
 *
 * <p>Two appliers may handle one row at once (a region moved: the old server's WAL and the new
 * one's are shipped by different sources). Each round reads the record before the data, so a
 * recorded index row is one whose data was written before this applier read the data (it only
 * deletes rows the data has moved past); recording before writing makes every index row an applier
 * writes visible to any applier that reads the record afterwards; and each applier reads the row
 * again once done and goes round again if it changed, deleting also the index rows it wrote itself
 * (an index family masks only the puts that landed before a delete, so a put that lands after
 * another applier's delete is its writer's to remove). Either an applier sees the newer data, or
 * the newer data's applier read the record after it wrote it. The fences keep a late delete from
 * masking a newer write of the same value.
 *
 * <p>A row that still changed after {@link #MAX_ROUNDS} rounds (a writer rewriting it without
 * pause) gets one more round that reads the record and the data and puts the index rows the data
 * produces, deleting nothing, and the batch succeeds. Every delete of this applier landed before
 * that read, so a newer row it masked is either produced by the data read, and put again after it,
 * or produced only by a later write, whose applier reads the data after that write and puts it
 * after these deletes: no row is left out. What this applier leaves for others is only rows that
 * may be stale: its puts of data since replaced. The edits that changed the row after its reads are
 * newer WAL edits of the row, shipped after this batch by this queue, whose applier reads the
 * record after this one wrote it and deletes them; if another source ships them (the region moved,
 * a dead server's queue) and read the record earlier, a stale row (a false positive, which every
 * query re-checks away and verify reports) stays until the row's next write. See docs/design.md,
 * "EVENTUAL indexes".
 */
@InterfaceAudience.Private
public final class EventualApplier {
  /**
   * Rounds per call while a row keeps changing under the applier; then one last round that only
   * puts, and the row's newer edits finish it (see the class comment).
   */
  static final int MAX_ROUNDS = 8;

  /**
   * Rows per read and write: a replication batch may hold up to 25,000 edits, whose index writes in
   * one piece could outlast the index operation timeout, and then be retried whole, forever.
   */
  static final int CHUNK_ROWS = 1000;

  private final IndexWriter.ConnectionSource connections;
  private final IndexWriter writer;
  private final ExecutorService chunks;
  private final RowReads reads;

  /**
   * @param chunks runs a batch's chunks of rows in parallel (their rows are distinct, so they do
   *     not interfere): a backlog is applied at several times one chunk's round trips
   * @param localRegions the regions of a table this server holds, read without RPCs
   */
  public EventualApplier(
      IndexWriter.ConnectionSource connections,
      IndexWriter writer,
      ExecutorService chunks,
      Function<TableName, List<? extends Region>> localRegions) {
    this.connections = connections;
    this.writer = writer;
    this.chunks = chunks;
    this.reads = new RowReads(localRegions);
  }

  /** Applies the current data of {@code rows} to the global indexes in {@code specs}. */
  public void apply(TableName dataTable, List<IndexSpec> specs, Collection<byte[]> rows)
      throws IOException {
    List<IndexSpec> global = specs.stream().filter(s -> !s.isLocal()).toList();
    if (global.isEmpty() || rows.isEmpty()) return;
    List<byte[]> all = new ArrayList<>(rows);
    List<Future<?>> running = new ArrayList<>();
    for (int from = 0; from < all.size(); from += CHUNK_ROWS) {
      List<byte[]> chunk = all.subList(from, Math.min(all.size(), from + CHUNK_ROWS));
      running.add(
          chunks.submit(
              () -> {
                applyChunk(dataTable, global, chunk);
                return null;
              }));
    }
    IOException failed = null;
    for (Future<?> f : running) {
      try {
        f.get(); // all of them, so that none still runs when the batch is sent again
      } catch (ExecutionException e) {
        if (failed == null) {
          failed =
              e.getCause() instanceof IOException io
                  ? io
                  : new IOException("scbf: applying " + dataTable + " failed", e.getCause());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("scbf: interrupted applying " + dataTable);
      }
    }
    if (failed != null) throw failed;
  }

  private void applyChunk(TableName dataTable, List<IndexSpec> global, List<byte[]> rows)
      throws IOException {
    Set<byte[]> pending = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    pending.addAll(rows);
    Map<IndexSpec, IndexRows> derivations = new LinkedHashMap<>();
    for (IndexSpec s : global) derivations.put(s, new IndexRows(s));
    Scan watched = new Scan().readVersions(1);
    for (IndexSpec s : global) {
      for (Column c : IndexValues.watchedColumns(s)) watched.addColumn(c.family(), c.qualifier());
    }
    Map<Bytes, Map<Bytes, Long>> written = new HashMap<>(); // record row -> index rows put
    try (Table data = connections.get().getTable(dataTable);
        Table records = connections.get().getTable(EventualRecords.TABLE)) {
      for (int round = 0; round < MAX_ROUNDS; round++) {
        Map<Bytes, Result> recorded = readRecords(records, dataTable, pending);
        Map<Bytes, Result> current = reads.read(data, pending, watched);
        applyOnce(dataTable, derivations, current, recorded, written, records, true);
        Map<Bytes, Result> again = reads.read(data, pending, watched);
        pending.clear();
        for (Map.Entry<Bytes, Result> e : again.entrySet()) {
          if (!sameCells(current.get(e.getKey()), e.getValue())) pending.add(e.getKey().get());
        }
        if (pending.isEmpty()) return;
      }
      // Failing the batch instead would resend it for as long as a writer keeps the row moving,
      // and hold up every edit behind it on this WAL, other tables' too.
      Map<Bytes, Result> recorded = readRecords(records, dataTable, pending);
      Map<Bytes, Result> current = reads.read(data, pending, watched);
      applyOnce(dataTable, derivations, current, recorded, written, records, false);
    }
  }

  private void applyOnce(
      TableName dataTable,
      Map<IndexSpec, IndexRows> derivations,
      Map<Bytes, Result> current,
      Map<Bytes, Result> recorded,
      Map<Bytes, Map<Bytes, Long>> written,
      Table records,
      boolean deletes)
      throws IOException {
    List<Put> recordPuts = new ArrayList<>();
    List<Delete> recordDeletes = new ArrayList<>();
    // Puts and deletes in one write: they never touch the same index row (an index row's key
    // holds its data row, whose produced rows are kept, not deleted).
    Map<TableName, List<Mutation>> indexWrites = new LinkedHashMap<>();
    Map<TableName, List<Mutation>> eventualDeletes = new LinkedHashMap<>();
    for (Map.Entry<Bytes, Result> e : current.entrySet()) {
      byte[] row = e.getKey().get();
      Result cells = e.getValue();
      byte[] recordRow = EventualRecords.rowKey(dataTable, row);
      Result record = recorded.get(new Bytes(recordRow));
      Map<Bytes, Long> ownPuts =
          written.computeIfAbsent(new Bytes(recordRow), r -> new HashMap<>());
      for (Map.Entry<IndexSpec, IndexRows> d : derivations.entrySet()) {
        IndexSpec spec = d.getKey();
        TableName indexTable = IndexCatalog.indexTableName(dataTable, spec.alias());
        Map<Bytes, Long> members = EventualRecords.members(record, spec.alias());
        ownPuts.forEach(
            (member, ts) -> {
              byte[] key = EventualRecords.indexRowOf(spec.alias(), member.get());
              if (key != null) members.merge(new Bytes(key), ts, Math::max);
            });
        List<Put> produced = cells.isEmpty() ? List.of() : producedOrNone(d.getValue(), cells);
        Set<Bytes> keep = new HashSet<>();
        for (Put produce : produced) {
          keep.add(new Bytes(produce.getRow()));
          // A rewrite of a recorded index row must not sort below it: when a covered column was
          // deleted, the current cells are older than the row they replace (the synchronous path
          // stamps it with the delete marker, which a read does not return). Same timestamp: the
          // later write wins.
          Put p =
              atLeast(produce, members.getOrDefault(new Bytes(produce.getRow()), Long.MIN_VALUE));
          long ts = IndexUpdatePlanner.timestampOf(p);
          ownPuts.put(new Bytes(EventualRecords.member(spec.alias(), p.getRow())), ts);
          recordPuts.add(
              new Put(recordRow)
                  .addColumn(
                      EventualRecords.FAMILY,
                      EventualRecords.member(spec.alias(), p.getRow()),
                      ts,
                      EventualRecords.value()));
          indexWrites.computeIfAbsent(indexTable, t -> new ArrayList<>()).add(p);
        }
        long replacement = newestIndexedCell(spec, cells);
        List<Mutation> specDeletes =
            spec.consistency() == IndexSpec.Consistency.EVENTUAL
                ? eventualDeletes.computeIfAbsent(indexTable, t -> new ArrayList<>())
                : indexWrites.computeIfAbsent(indexTable, t -> new ArrayList<>());
        for (Map.Entry<Bytes, Long> m : members.entrySet()) {
          if (!deletes || keep.contains(m.getKey())) continue;
          long fence = Math.max(m.getValue(), replacement);
          specDeletes.add(new Delete(m.getKey().get()).addFamily(IndexCatalog.INDEX_FAMILY, fence));
          recordDeletes.add(
              new Delete(recordRow)
                  .addColumns(
                      EventualRecords.FAMILY,
                      EventualRecords.member(spec.alias(), m.getKey().get()),
                      fence));
        }
      }
    }
    // An EVENTUAL index's deletes, raised to the newest versions their index rows hold: a record
    // carries the time its data cells gave, and the index row may hold a later one. The STRONG
    // path stamps a rewrite after a covered column's delete at the delete's time (rewrittenAt);
    // the switch to EVENTUAL records such a row at its version, but a row the STRONG path lifted
    // while the switch ran is recorded by this applier at its cells' time (differential seed
    // 1183: the row's delete, fenced at the record's time, missed the entry for good). Safe: the
    // index row is one the data as read no longer produces; a newer applier's put of it that the
    // raised delete masks is put again, as the row changed since this round read it (see the
    // class comment). STRONG indexes are left as they were: their writers are not appliers, and
    // their own deletes are raised where they are sent (PastStampedIndexRows).
    for (Map.Entry<TableName, List<Mutation>> e : eventualDeletes.entrySet()) {
      indexWrites
          .computeIfAbsent(e.getKey(), t -> new ArrayList<>())
          .addAll(IndexRowVersions.raise(connections.get(), e.getKey(), e.getValue()));
    }
    // The record first: an index row nobody has recorded could never be deleted.
    if (!recordPuts.isEmpty()) records.put(recordPuts);
    String table = dataTable.getNameAsString();
    if (!indexWrites.isEmpty()) writer.write(table, indexWrites, IndexWriter.Phase.APPLIER);
    if (!recordDeletes.isEmpty()) records.delete(recordDeletes);
  }

  /**
   * The index rows of a data row; none if a value cannot be indexed (a key over HBase's limit): the
   * synchronous path refuses such a write, which here was acknowledged already.
   */
  private static List<Put> producedOrNone(IndexRows derivation, Result cells) {
    try {
      return derivation.of(cells);
    } catch (IndexUpdatePlanner.KeyTooLongException e) {
      return List.of();
    }
  }

  /** {@code put}, or the same cells at {@code ts} if it is stamped earlier. */
  private static Put atLeast(Put put, long ts) {
    if (IndexUpdatePlanner.timestampOf(put) >= ts) return put;
    Put later = new Put(put.getRow());
    for (List<Cell> cells : put.getFamilyCellMap().values()) {
      for (Cell c : cells) {
        later.addColumn(
            CellUtil.cloneFamily(c), CellUtil.cloneQualifier(c), ts, CellUtil.cloneValue(c));
      }
    }
    put.getAttributesMap().forEach(later::setAttribute);
    return later.setDurability(put.getDurability());
  }

  /** The newest timestamp of the row's indexed cells, or Long.MIN_VALUE if it has none. */
  private static long newestIndexedCell(IndexSpec spec, Result cells) {
    long ts = Long.MIN_VALUE;
    for (Column c : spec.columns()) {
      Cell cell = cells.getColumnLatestCell(c.family(), c.qualifier());
      if (cell != null) ts = Math.max(ts, cell.getTimestamp());
    }
    return ts;
  }

  private Map<Bytes, Result> readRecords(Table records, TableName dataTable, Set<byte[]> rows)
      throws IOException {
    List<byte[]> keys = new ArrayList<>(rows.size());
    for (byte[] row : rows) keys.add(EventualRecords.rowKey(dataTable, row));
    return reads.read(records, keys, new Scan().addFamily(EventualRecords.FAMILY));
  }

  private static boolean sameCells(Result a, Result b) {
    Cell[] x = a == null ? new Cell[0] : a.rawCells();
    Cell[] y = b == null ? new Cell[0] : b.rawCells();
    if (x == null) x = new Cell[0];
    if (y == null) y = new Cell[0];
    if (x.length != y.length) return false;
    for (int k = 0; k < x.length; k++) {
      if (!CellUtil.equals(x[k], y[k])
          || x[k].getTimestamp() != y[k].getTimestamp()
          || !Arrays.equals(CellUtil.cloneValue(x[k]), CellUtil.cloneValue(y[k]))) {
        return false;
      }
    }
    return true;
  }
}
