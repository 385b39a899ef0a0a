package io.scbf.hbase.shared;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexSpec.Column;
import io.scbf.hbase.IndexValues;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The index rows of existing data rows: exactly the puts the data-table observer writes when a row
 * with these latest values is first written ({@link IndexUpdatePlanner#diff} from the empty row).
 * Shared by the client-side backfill ({@code IndexAdmin.createIndex}), the verify and the MapReduce
 * bulk build, so all write or expect the same bytes as streaming writes.
 */
@InterfaceAudience.Private
public final class IndexRows {
  private final IndexSpec spec;
  private final IndexUpdatePlanner planner;

  public IndexRows(IndexSpec spec) {
    this.spec = spec;
    this.planner = new IndexUpdatePlanner(List.of(spec));
  }

  /** A scan of the latest version of the columns the index reads (indexed and covered). */
  public Scan scan() {
    Scan scan = new Scan().readVersions(1);
    for (Column c : IndexValues.watchedColumns(spec)) scan.addColumn(c.family(), c.qualifier());
    return scan;
  }

  /** A read of one data row's columns the index reads, as {@link #scan()} reads them. */
  public Get get(byte[] row) {
    Get get = new Get(row); // one version, as the scan reads
    for (Column c : IndexValues.watchedColumns(spec)) get.addColumn(c.family(), c.qualifier());
    return get;
  }

  /** The keys of the index rows a data row read by {@link #get} or {@link #scan()} produces. */
  public Set<Bytes> keysOf(Result row) {
    Set<Bytes> keys = new HashSet<>();
    if (row.isEmpty()) return keys;
    for (Put p : of(row)) keys.add(new Bytes(p.getRow()));
    return keys;
  }

  /**
   * Why a data row read by {@link #scan()} has no index row although it holds an indexed column: a
   * value that is not one of its column's declared type (the message names the column and type);
   * null if every indexed value it holds is valid. Writes of such values are refused, so these rows
   * were written before the index existed; builds report them rather than index them.
   */
  public String invalidValue(Result row) {
    for (Column c : spec.columns()) {
      byte[] v = row.getValue(c.family(), c.qualifier());
      String invalid = v == null ? null : IndexValues.invalidValue(spec, c, v);
      if (invalid != null) return invalid;
    }
    return null;
  }

  /**
   * The index puts of one data row read by {@link #scan()}: none if it lacks the indexed column or
   * holds an invalid value ({@link #invalidValue}).
   */
  public List<Put> of(Result row) {
    RowState.Builder state = RowState.builder();
    for (Cell cell : row.rawCells()) {
      state.put(
          new Column(CellUtil.cloneFamily(cell), CellUtil.cloneQualifier(cell)),
          CellUtil.cloneValue(cell),
          cell.getTimestamp());
    }
    List<Put> puts = new ArrayList<>(1);
    for (IndexUpdatePlanner.IndexMutation m :
        planner.diff(row.getRow(), RowState.EMPTY, state.build())) {
      puts.add((Put) m.mutation()); // from the empty row, the diff only ever puts
    }
    return puts;
  }
}
