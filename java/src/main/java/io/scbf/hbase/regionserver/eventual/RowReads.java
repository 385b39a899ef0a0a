package io.scbf.hbase.regionserver.eventual;

import io.scbf.hbase.regionserver.region.RowBatchReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.function.Function;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.RegionReplicaUtil;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The applier's reads of rows' current cells (data rows, record rows): from the region itself when
 * this server holds it, one region scanner per region for all of a chunk's rows, as the synchronous
 * path reads; by RPC otherwise. A source usually ships the edits of regions its own server holds,
 * so most reads stay local: profiles of the applier showed most of its CPU in the region servers'
 * handlers serving its multi-gets, one region and store scanner per row. What is read is the same
 * either way (the same columns and versions, at the region's current read point, once the writes in
 * flight there are visible); a region closing meanwhile fails the read, and the batch is applied
 * again.
 */
@InterfaceAudience.Private
final class RowReads {
  private final Function<TableName, List<? extends Region>> localRegions;

  /**
   * @param localRegions the regions of a table this server holds
   */
  RowReads(Function<TableName, List<? extends Region>> localRegions) {
    this.localRegions = localRegions;
  }

  /**
   * The cells {@code template} selects in each of {@code rows}, in their order (an empty result for
   * a row without such cells).
   */
  Map<Bytes, Result> read(Table table, Collection<byte[]> rows, Scan template) throws IOException {
    List<? extends Region> regions = localRegions.apply(table.getName());
    Map<Region, List<byte[]>> local = new LinkedHashMap<>();
    List<byte[]> remote = new ArrayList<>();
    for (byte[] row : rows) {
      Region holder = null;
      for (Region r : regions) {
        if (RegionReplicaUtil.isDefaultReplica(r.getRegionInfo())
            && r.getRegionInfo().containsRow(row)) {
          holder = r;
          break;
        }
      }
      if (holder == null) remote.add(row);
      else local.computeIfAbsent(holder, h -> new ArrayList<>()).add(row);
    }
    Map<Bytes, Result> found = new LinkedHashMap<>();
    for (Map.Entry<Region, List<byte[]>> e : local.entrySet()) {
      // A region writes and syncs its WAL before its memstore, and makes the write visible only
      // after that: the source can ship an edit its region does not show yet, and a read then
      // would index the row as it was before it. Wait for the region's writes in flight. A region
      // elsewhere shows every edit this server's WAL holds of it: it was closed here (a close
      // waits for them) or reopened from this WAL after a crash.
      if (e.getKey() instanceof HRegion region) region.getMVCC().await();
      for (Map.Entry<byte[], List<Cell>> row :
          RowBatchReader.read(e.getKey(), e.getValue(), template).entrySet()) {
        found.put(new Bytes(row.getKey()), Result.create(row.getValue()));
      }
    }
    if (!remote.isEmpty()) {
      List<Get> gets = new ArrayList<>(remote.size());
      for (byte[] row : remote) gets.add(get(row, template));
      Result[] results = table.get(gets);
      for (int i = 0; i < results.length; i++) found.put(new Bytes(remote.get(i)), results[i]);
    }
    Map<Bytes, Result> out = new LinkedHashMap<>();
    for (byte[] row : rows) {
      Bytes key = new Bytes(row);
      out.put(key, found.getOrDefault(key, Result.EMPTY_RESULT));
    }
    return out;
  }

  /** The Get of one row that reads what {@code template} does. */
  private static Get get(byte[] row, Scan template) throws IOException {
    Get get = new Get(row).readVersions(template.getMaxVersions());
    for (Map.Entry<byte[], NavigableSet<byte[]>> f : template.getFamilyMap().entrySet()) {
      if (f.getValue() == null || f.getValue().isEmpty()) {
        get.addFamily(f.getKey());
      } else {
        for (byte[] q : f.getValue()) get.addColumn(f.getKey(), q);
      }
    }
    return get;
  }
}
