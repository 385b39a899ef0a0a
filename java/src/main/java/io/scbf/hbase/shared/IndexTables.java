package io.scbf.hbase.shared;

import io.scbf.hbase.IndexSpec;
import java.io.IOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The admin operations on global index tables, shared by {@code IndexAdmin} (clients) and the
 * master's lifecycle observer, which runs them when the data table is created, deleted, truncated,
 * restored or cloned.
 */
@InterfaceAudience.Private
public final class IndexTables {
  private IndexTables() {}

  /**
   * Creates the index table of {@code spec}: one region per bucket ({@code BY_ROW}) or salted
   * stream ({@code ORDERED}), or its first {@code buckets()} regions over the slots ({@code
   * BY_VALUE}); its rows expire with those of the data table {@code data} ({@link
   * IndexCatalog#indexTtl}).
   */
  public static void create(Admin admin, TableDescriptor data, IndexSpec spec, boolean building)
      throws IOException {
    TableDescriptor index =
        IndexCatalog.indexTableDescriptor(
            data.getTableName(), spec, building, IndexCatalog.indexTtl(data, spec));
    if (spec.buckets() == 1) {
      admin.createTable(index);
    } else if (spec.layout() == IndexSpec.Layout.BY_VALUE) {
      admin.createTable(index, IndexKeyCodec.slotSplitKeys(spec.buckets()));
    } else {
      admin.createTable(index, IndexKeyCodec.splitKeys(spec.buckets()));
    }
  }

  /** Deletes the table if it exists (disabling it first). */
  public static void delete(Admin admin, TableName table) throws IOException {
    if (!admin.tableExists(table)) return;
    if (!admin.isTableDisabled(table)) admin.disableTable(table);
    admin.deleteTable(table);
  }

  /**
   * Removes every row, keeping the region boundaries (the buckets, or a {@code BY_VALUE} index's
   * split points); the table is enabled afterwards.
   */
  public static void truncate(Admin admin, TableName table) throws IOException {
    if (!admin.isTableDisabled(table)) admin.disableTable(table);
    admin.truncateTable(table, true);
    if (admin.isTableDisabled(table)) admin.enableTable(table);
  }

  /** Marks the index building or built; its regions reopen and read the mark. */
  public static void setBuilding(Admin admin, TableName indexTable, boolean building)
      throws IOException {
    TableDescriptor index = admin.getDescriptor(indexTable);
    if (IndexCatalog.isBuilding(index) != building) {
      admin.modifyTable(IndexCatalog.withBuilding(index, building));
    }
  }
}
