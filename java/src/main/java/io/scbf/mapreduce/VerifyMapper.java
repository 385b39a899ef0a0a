package io.scbf.mapreduce;

import io.scbf.hbase.BuildProgress;
import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.VerifyReport;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.mapreduce.TableMapper;
import org.apache.hadoop.hbase.mapreduce.TableSplit;
import org.apache.hadoop.io.NullWritable;

/**
 * One region's share of a verify: the data rows of a data region (their index rows must be there)
 * or the index rows of an index region (their data rows must produce them), checked (and repaired)
 * by {@link IndexAdmin#verifyDataRows} / {@link IndexAdmin#verifyIndexRows} over the split's key
 * range, in chunks, exactly as the one-client verify does. The task reads its range itself, so it
 * does not consume the record reader's rows.
 */
public class VerifyMapper extends TableMapper<NullWritable, NullWritable> {
  static final String TABLE_KEY = "scbf.verify.table";
  static final String ALIAS_KEY = "scbf.verify.alias";
  static final String REPAIR_KEY = "scbf.verify.repair";
  static final String PART_KEY = "scbf.verify.part";

  /** Which half of the verify a job runs. */
  enum Part {
    DATA_ROWS,
    INDEX_ROWS
  }

  @Override
  public void run(Context context) throws IOException {
    Configuration conf = context.getConfiguration();
    TableName table = TableName.valueOf(conf.get(TABLE_KEY));
    String alias = conf.get(ALIAS_KEY);
    boolean repair = conf.getBoolean(REPAIR_KEY, false);
    TableSplit split = (TableSplit) context.getInputSplit();
    // A task that reads its range itself reports no records: without this, a long region would
    // look hung and be killed at the task timeout.
    BuildProgress.Listener progress =
        p -> {
          context.setStatus(p.toString());
          context.progress();
        };
    VerifyReport r;
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      IndexAdmin admin = new IndexAdmin(connection);
      byte[] start = split.getStartRow();
      byte[] end = split.getEndRow();
      r =
          Part.valueOf(conf.get(PART_KEY)) == Part.DATA_ROWS
              ? admin.verifyDataRows(table, alias, start, end, repair, progress)
              : admin.verifyIndexRows(table, alias, start, end, repair, progress);
    }
    context.getCounter(VerifyCounter.DATA_ROWS).increment(r.dataRows());
    context.getCounter(VerifyCounter.INDEX_ROWS).increment(r.indexRows());
    context.getCounter(VerifyCounter.MISSING).increment(r.missing());
    context.getCounter(VerifyCounter.WRONG_COVERED).increment(r.wrongCovered());
    context.getCounter(VerifyCounter.STALE).increment(r.stale());
    context.getCounter(VerifyCounter.WRITTEN).increment(r.written());
    context.getCounter(VerifyCounter.REMOVED).increment(r.removed());
    context.getCounter(VerifyCounter.KEPT_CURRENT).increment(r.keptCurrent());
  }
}
