package io.scbf.hbase.shared;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
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
}
