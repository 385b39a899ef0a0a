package io.scbf.hbase.regionserver.eventual;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexSpec.Column;
import io.scbf.hbase.IndexValues;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Which WAL cells can change a table's global index rows: a cell of a column some global index
 * watches (indexed, covered or in its WHERE), or a family delete of a family holding one. The
 * applier reads only those columns, so a row whose edit touched none of them has the same index
 * rows before and after it (YCSB's updates write one field of ten: most edits of an indexed table
 * are such). Local indexes are the data region's own business.
 */
@InterfaceAudience.Private
public final class WatchedCells {
  private final Set<Column> columns = new HashSet<>();
  private final Set<Bytes> families = new HashSet<>();

  public WatchedCells(List<IndexSpec> specs) {
    for (IndexSpec s : specs) {
      if (s.isLocal()) continue;
      for (Column c : IndexValues.watchedColumns(s)) {
        columns.add(c);
        families.add(new Bytes(c.family()));
      }
    }
  }

  /** True if {@code cell} (a data cell of a WAL edit: a put or a delete marker) may matter. */
  public boolean touches(Cell cell) {
    byte[] family = CellUtil.cloneFamily(cell);
    if (PrivateCellUtil.isDeleteFamily(cell) || PrivateCellUtil.isDeleteFamilyVersion(cell)) {
      return families.contains(new Bytes(family));
    }
    return columns.contains(new Column(family, CellUtil.cloneQualifier(cell)));
  }
}
