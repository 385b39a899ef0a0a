package io.scbf.hbase.regionserver.repair;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.regionserver.region.RowBatchReader;
import io.scbf.hbase.regionserver.write.IndexCleanups;
import io.scbf.hbase.regionserver.write.IndexWriter;
import io.scbf.hbase.regionserver.write.RowLocks;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexRowVersions;
import io.scbf.hbase.shared.IndexRows;
import io.scbf.hbase.shared.proto.IndexProtos.RepairRowsResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Repairs index rows of a global index (a verifier's findings), in the data region, under the rows'
 * index locks: an indexed write of the row puts its index rows before its data and holds the same
 * lock throughout, so while the lock is held no index row of the row can be on its way, and what
 * the current data produces is the truth. From a client instead, deleting a "stale" row could
 * remove the index row of a write in flight (a false negative once that write lands), and writing a
 * "missing" one could bring back a value a write has just replaced. Index tables refuse client
 * writes anyway (see {@code IndexRegionCoprocessor}).
 */
@InterfaceAudience.Private
public final class IndexRowRepair {
  /** Rows per request: one request holds that many row locks and reads that many rows. */
  static final int MAX_ROWS = 10_000;

  private IndexRowRepair() {}

  /**
   * Deletes those of {@code staleIndexRows} that the current data of their rows does not produce,
   * and writes the index rows that the current data of {@code dataRows} produces. All rows must be
   * in {@code region}.
   */
  public static RepairRowsResponse repair(
      Region region,
      IndexSpec spec,
      TableName indexTable,
      List<byte[]> staleIndexRows,
      List<byte[]> dataRows,
      RowLocks locks,
      IndexCleanups cleanups,
      IndexWriter writer,
      long lockWaitMs)
      throws IOException {
    if (staleIndexRows.size() + dataRows.size() > MAX_ROWS) {
      throw new DoNotRetryIOException(
          "at most " + MAX_ROWS + " rows per repair request; split the request");
    }
    Set<byte[]> rows = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    byte[] alias = Bytes.toBytes(spec.alias());
    for (byte[] key : staleIndexRows) {
      IndexKeyCodec.Parsed p;
      try {
        p = IndexKeyCodec.parse(key);
      } catch (IllegalArgumentException e) {
        throw new DoNotRetryIOException("not an index row of '" + spec.alias() + "': " + e);
      }
      if (!Arrays.equals(p.alias(), alias)) {
        throw new DoNotRetryIOException(
            "an index row of another index than '" + spec.alias() + "'");
      }
      rows.add(requireInRegion(region, p.userRow()));
    }
    for (byte[] row : dataRows) rows.add(requireInRegion(region, row));
    RowLocks.Held held = locks.lock(rows, lockWaitMs);
    try {
      cleanups.awaitRows(held.rows(), lockWaitMs); // a replaced value's delete may still be due
      IndexRows indexRows = new IndexRows(spec);
      // One scanner for all rows (a Get per row costs its own region and store scanners).
      Map<byte[], List<Cell>> current = RowBatchReader.read(region, rows, indexRows.scan());
      Set<Bytes> produced = new HashSet<>();
      for (List<Cell> cells : current.values()) {
        produced.addAll(indexRows.keysOf(Result.create(cells)));
      }
      // Fenced at the time of the decision, taken under the rows' locks after their data was read:
      // a resend that lands after the locks are released (a timed-out call still running, the
      // region closed and reopened elsewhere meanwhile) masks only index rows written before, never
      // one that a later write of the same value puts at its newer data timestamp.
      long fence = EnvironmentEdgeManager.currentTime();
      List<Mutation> deletes = new ArrayList<>();
      for (byte[] key : staleIndexRows) {
        if (!produced.contains(new Bytes(key))) {
          deletes.add(new Delete(key).addFamily(IndexCatalog.INDEX_FAMILY, fence));
        }
      }
      List<Put> produce = new ArrayList<>();
      for (byte[] row : dataRows) {
        List<Cell> cells = current.get(row); // none: the row holds no indexed or covered column
        if (cells != null) produce.addAll(indexRows.of(Result.create(cells)));
      }
      List<Mutation> puts = new ArrayList<>(overNewerVersions(produce, writer, indexTable));
      String dataTable = region.getRegionInfo().getTable().getNameAsString();
      if (!puts.isEmpty()) {
        writer.write(dataTable, Map.of(indexTable, puts), IndexWriter.Phase.BEFORE_DATA);
      }
      if (!deletes.isEmpty()) {
        writer.write(dataTable, Map.of(indexTable, deletes), IndexWriter.Phase.AFTER_DATA);
      }
      return RepairRowsResponse.newBuilder()
          .setRemoved(deletes.size())
          .setKept(staleIndexRows.size() - deletes.size())
          .setWritten(puts.size())
          .build();
    } finally {
      locks.unlock(held);
    }
  }

  /**
   * The repair's index puts at their data timestamps, as the write path stamps them ({@code
   * IndexUpdatePlanner.indexTimestamp}): the row's next change deletes the old index row at that
   * change's data timestamp, which a client may set before the time of the repair, so a row stamped
   * at the repair's clock would outlive that delete as a stale entry. A missing row's delete marker
   * does not hide the put, however new: index families keep deletes from masking later writes
   * (NEW_VERSION_BEHAVIOR). A version there that is newer than the data (a damaged row stamped by
   * the index server's clock) would hide it, though: such a put is raised to that version's
   * timestamp, where the later write wins; that version was as new already.
   */
  private static List<Put> overNewerVersions(List<Put> puts, IndexWriter writer, TableName table)
      throws IOException {
    if (puts.isEmpty()) return puts;
    long[] newest = IndexRowVersions.newest(writer.connection(), table, puts);
    List<Put> out = new ArrayList<>(puts.size());
    for (int i = 0; i < puts.size(); i++) {
      out.add(newest[i] == IndexRowVersions.NONE ? puts.get(i) : atLeast(puts.get(i), newest[i]));
    }
    return out;
  }

  private static Put atLeast(Put indexPut, long ts) {
    Cell cell = indexPut.getFamilyCellMap().get(IndexCatalog.INDEX_FAMILY).get(0);
    if (cell.getTimestamp() != HConstants.LATEST_TIMESTAMP && cell.getTimestamp() >= ts) {
      return indexPut;
    }
    return new Put(indexPut.getRow(), ts)
        .addColumn(
            IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER, ts, CellUtil.cloneValue(cell));
  }

  private static byte[] requireInRegion(Region region, byte[] row) throws DoNotRetryIOException {
    if (!region.getRegionInfo().containsRow(row)) {
      throw new DoNotRetryIOException(
          "data row "
              + Bytes.toStringBinary(row)
              + " is not in region "
              + region.getRegionInfo().getEncodedName());
    }
    return row;
  }
}
