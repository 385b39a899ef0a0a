package io.scbf.hbase.shared;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The timestamps index rows hold now, read before a write that must land at or above them (a
 * past-stamped delete or rewrite, a repair's put, the EVENTUAL applier's deletes): one multi-get
 * per index table.
 */
@InterfaceAudience.Private
public final class IndexRowVersions {
  /** The version of an index row that holds none. */
  public static final long NONE = Long.MIN_VALUE;

  private IndexRowVersions() {}

  /** The newest timestamp of each mutation's index row in {@code table}, or {@link #NONE}. */
  public static long[] newest(
      Connection connection, TableName table, List<? extends Mutation> mutations)
      throws IOException {
    List<Get> gets = new ArrayList<>(mutations.size());
    for (Mutation m : mutations) {
      gets.add(
          new Get(m.getRow()).addColumn(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER));
    }
    Result[] there;
    try (Table index = connection.getTable(table)) {
      there = index.get(gets);
    }
    long[] newest = new long[mutations.size()];
    for (int i = 0; i < newest.length; i++) {
      Cell cell =
          there[i].getColumnLatestCell(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER);
      newest[i] = cell == null ? NONE : cell.getTimestamp();
    }
    return newest;
  }

  /**
   * Each of {@code writes} (index puts and family deletes, in order) stamped at least at the newest
   * version its index row in {@code table} holds: a write below it would be hidden (a put) or miss
   * it (a delete).
   */
  public static List<Mutation> raise(
      Connection connection, TableName table, List<? extends Mutation> writes) throws IOException {
    long[] newest = newest(connection, table, writes);
    List<Mutation> out = new ArrayList<>(writes.size());
    for (int i = 0; i < newest.length; i++) {
      Mutation m = writes.get(i);
      out.add(newest[i] <= IndexUpdatePlanner.timestampOf(m) ? m : at(m, newest[i]));
    }
    return out;
  }

  private static Mutation at(Mutation write, long ts) {
    Mutation raised;
    if (write instanceof Delete) {
      raised = new Delete(write.getRow()).addFamily(IndexCatalog.INDEX_FAMILY, ts);
    } else {
      Put put = new Put(write.getRow(), ts);
      for (List<Cell> cells : write.getFamilyCellMap().values()) {
        for (Cell c : cells) {
          put.addColumn(
              CellUtil.cloneFamily(c), CellUtil.cloneQualifier(c), ts, CellUtil.cloneValue(c));
        }
      }
      raised = put.setDurability(write.getDurability());
    }
    write.getAttributesMap().forEach(raised::setAttribute);
    return raised;
  }
}
