package io.scbf.hbase.regionserver;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexRows;
import io.scbf.hbase.shared.proto.IndexProtos.StaleRowsResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Removes index rows of a global index that their data row no longer produces (a verifier's "stale"
 * finding), in the data region, under the rows' index locks: an indexed write of the row puts its
 * index rows before its data and holds the same lock throughout, so while the lock is held no index
 * row of the row can be on its way, and a row the current data does not produce is truly stale.
 * Deleting from a client instead could remove the index row of a write in flight (a false negative
 * once that write lands).
 */
final class StaleIndexRows {
  private StaleIndexRows() {}

  /**
   * Deletes those of {@code indexRows} (all of rows in {@code region}) that the rows' current data
   * does not produce.
   */
  static StaleRowsResponse remove(
      Region region,
      IndexSpec spec,
      TableName indexTable,
      List<byte[]> indexRows,
      RowLocks locks,
      IndexCleanups cleanups,
      IndexWriter writer,
      long lockWaitMs)
      throws IOException {
    Set<byte[]> dataRows = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    byte[] alias = Bytes.toBytes(spec.alias());
    for (byte[] key : indexRows) {
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
      if (!region.getRegionInfo().containsRow(p.userRow())) {
        throw new DoNotRetryIOException(
            "data row "
                + Bytes.toStringBinary(p.userRow())
                + " is not in region "
                + region.getRegionInfo().getEncodedName());
      }
      dataRows.add(p.userRow());
    }
    RowLocks.Held held = locks.lock(dataRows, lockWaitMs);
    try {
      cleanups.awaitRows(held.rows(), lockWaitMs); // a replaced value's delete may still be due
      Set<Bytes> produced = new HashSet<>();
      IndexRows rows = new IndexRows(spec);
      for (byte[] row : dataRows) produced.addAll(rows.keysOf(region.get(rows.get(row))));
      List<Mutation> deletes = new ArrayList<>();
      for (byte[] key : indexRows) {
        if (!produced.contains(new Bytes(key))) deletes.add(new Delete(key));
      }
      if (!deletes.isEmpty()) {
        writer.write(
            region.getRegionInfo().getTable().getNameAsString(),
            Map.of(indexTable, deletes),
            IndexWriter.Phase.AFTER_DATA);
      }
      return StaleRowsResponse.newBuilder()
          .setRemoved(deletes.size())
          .setKept(indexRows.size() - deletes.size())
          .build();
    } finally {
      locks.unlock(held);
    }
  }
}
