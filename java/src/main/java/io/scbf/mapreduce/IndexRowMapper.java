package io.scbf.mapreduce;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexRows;
import java.io.IOException;
import java.util.List;
import java.util.function.Function;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.mapreduce.TableMapper;
import org.apache.hadoop.mapreduce.Counter;

/**
 * One data row in, its index rows out (keyed by index row key), counted. The index rows come from
 * {@link IndexRows}: the same bytes the data-table observer writes for the row.
 */
public class IndexRowMapper extends TableMapper<ImmutableBytesWritable, Put> {
  /** Job configuration key holding the encoded {@link IndexSpec} to build. */
  static final String SPEC_KEY = "scbf.bulk-build.index.spec";

  private IndexRows indexRows;

  /** Where emitted index rows go: the map context, or a list in unit tests. */
  interface Sink {
    void write(ImmutableBytesWritable key, Put indexRow) throws IOException, InterruptedException;
  }

  @Override
  protected void setup(Context context) {
    String spec = context.getConfiguration().get(SPEC_KEY);
    if (spec == null) throw new IllegalStateException(SPEC_KEY + " is not set in the job");
    indexRows = new IndexRows(IndexSpec.decode(spec));
  }

  @Override
  protected void map(ImmutableBytesWritable key, Result row, Context context)
      throws IOException, InterruptedException {
    emit(indexRows, row, context::write, context::getCounter);
  }

  static void emit(IndexRows indexRows, Result row, Sink out, Function<Enum<?>, Counter> counters)
      throws IOException, InterruptedException {
    counters.apply(BuildCounter.ROWS_READ).increment(1);
    counters.apply(BuildCounter.DATA_BYTES_READ).increment(Result.getTotalSizeOfCells(row));
    List<Put> puts = indexRows.of(row);
    if (puts.isEmpty()) {
      counters.apply(BuildCounter.ROWS_WITHOUT_VALUE).increment(1);
      return;
    }
    for (Put put : puts) {
      long bytes = 0;
      for (List<Cell> cells : put.getFamilyCellMap().values()) {
        for (Cell c : cells) bytes += c.getRowLength() + c.getValueLength();
      }
      out.write(new ImmutableBytesWritable(put.getRow()), put);
      counters.apply(BuildCounter.INDEX_ROWS_WRITTEN).increment(1);
      counters.apply(BuildCounter.INDEX_BYTES_WRITTEN).increment(bytes);
    }
  }
}
