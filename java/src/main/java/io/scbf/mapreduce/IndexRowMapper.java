package io.scbf.mapreduce;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexRows;
import io.scbf.hbase.shared.LocalIndexKeys;
import java.io.IOException;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.mapreduce.TableMapper;
import org.apache.hadoop.hbase.mapreduce.TableSplit;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.mapreduce.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One data row in, its index rows out (keyed by row key), counted. The index rows come from {@link
 * IndexRows}: the same bytes the data-table observer writes for the row. For a local index they are
 * the entries of the mapper's data region ({@link LocalIndexKeys} under the region's start key),
 * and the mapper ends with the region's build marker, so the region trusts the loaded entries when
 * the index is marked built.
 */
public class IndexRowMapper extends TableMapper<ImmutableBytesWritable, Put> {
  private static final Logger LOG = LoggerFactory.getLogger(IndexRowMapper.class);

  /** Rows with an invalid value each task names in its log, at most: the counter has them all. */
  static final int INVALID_LOGGED = 10;

  /** Job configuration key holding the encoded {@link IndexSpec} to build. */
  static final String SPEC_KEY = "scbf.bulk-build.index.spec";

  private IndexRows indexRows;
  private UnaryOperator<Put> form = UnaryOperator.identity();
  private Put marker; // local indexes: written last, once every entry of the region is out

  /** Where emitted index rows go: the map context, or a list in unit tests. */
  interface Sink {
    void write(ImmutableBytesWritable key, Put indexRow) throws IOException, InterruptedException;
  }

  @Override
  protected void setup(Context context) {
    String encoded = context.getConfiguration().get(SPEC_KEY);
    if (encoded == null) throw new IllegalStateException(SPEC_KEY + " is not set in the job");
    IndexSpec spec = IndexSpec.decode(encoded);
    indexRows = new IndexRows(spec);
    if (spec.isLocal()) {
      // One split per data region (TableInputFormat over a whole-table scan): its bounds are the
      // region's.
      TableSplit region = (TableSplit) context.getInputSplit();
      LocalIndexKeys keys = new LocalIndexKeys(region.getStartRow());
      byte[] family = IndexCatalog.localFamily(spec.alias());
      form = localEntries(keys, family);
      marker = keys.markerPut(family, region.getEndRow());
    } else {
      form = IndexRowMapper::atWriterTime;
    }
  }

  /**
   * A global index row at the HFile writer's time instead of its data cell's: a bulk-loaded cell is
   * then newer than any delete a write made before the load, as local entries are (below). Such
   * rows expire a TTL after the build rather than with their data cell: stale rows until then.
   */
  static Put atWriterTime(Put indexPut) {
    Put put = new Put(indexPut.getRow());
    for (Cell c : indexPut.getFamilyCellMap().get(IndexCatalog.INDEX_FAMILY)) {
      put.addColumn(
          IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER, CellUtil.cloneValue(c));
    }
    return put;
  }

  /**
   * Index puts to the entries of a region with these keys. Their time is the HFile writer's (the
   * latest timestamp), so no delete a write made before the load can hide one: at worst an entry of
   * a value replaced meanwhile stays, a stale entry that queries re-check away.
   */
  static UnaryOperator<Put> localEntries(LocalIndexKeys keys, byte[] family) {
    return put -> (Put) keys.entry(put, family, HConstants.LATEST_TIMESTAMP);
  }

  @Override
  protected void map(ImmutableBytesWritable key, Result row, Context context)
      throws IOException, InterruptedException {
    emit(indexRows, form, row, context::write, context::getCounter);
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    if (marker != null) context.write(new ImmutableBytesWritable(marker.getRow()), marker);
  }

  static void emit(
      IndexRows indexRows,
      UnaryOperator<Put> form,
      Result row,
      Sink out,
      Function<Enum<?>, Counter> counters)
      throws IOException, InterruptedException {
    counters.apply(BuildCounter.ROWS_READ).increment(1);
    counters.apply(BuildCounter.DATA_BYTES_READ).increment(Result.getTotalSizeOfCells(row));
    List<Put> puts = indexRows.of(row);
    if (puts.isEmpty()) {
      String invalid = indexRows.invalidValue(row);
      if (invalid == null) {
        counters.apply(BuildCounter.ROWS_WITHOUT_VALUE).increment(1);
        return;
      }
      Counter invalidRows = counters.apply(BuildCounter.ROWS_INVALID_VALUE);
      invalidRows.increment(1);
      if (invalidRows.getValue() <= INVALID_LOGGED) {
        LOG.warn("scbf: row {} is not indexed: {}", Bytes.toStringBinary(row.getRow()), invalid);
      }
      return;
    }
    for (Put indexPut : puts) {
      Put put = form.apply(indexPut);
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
