package io.scbf.mapreduce;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexRows;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.mapreduce.HFileOutputFormat2;
import org.apache.hadoop.hbase.mapreduce.TableMapReduceUtil;
import org.apache.hadoop.hbase.tool.BulkLoadHFiles;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

/**
 * The MapReduce job building one index of one data table: one mapper per data region ({@link
 * IndexRowMapper}), then either
 *
 * <ul>
 *   <li>HFiles: {@link HFileOutputFormat2} sorts the index rows into one HFile set per index region
 *       (its total-order partitioner and sort reducer: HFiles must be sorted, and a data region's
 *       index rows spread over every bucket), which {@link BulkLoadHFiles} then moves into the
 *       index regions; each region's observer rebuilds its filter from its rows on the load; or
 *   <li>puts: map-only, the mappers write the index rows as puts, which the index regions count
 *       into their filters as they do streaming index writes.
 * </ul>
 *
 * <p>A local index's entries live in the data table's regions: its job writes HFiles of the index's
 * family for the data table's regions, and loads them there (puts would be refused: client writes
 * to the entry family are).
 */
final class IndexBuildJob {
  private static final int SCAN_CACHING = 500;

  private final Configuration conf;
  private final Connection connection;
  private final TableName dataTable;
  private final IndexSpec spec;

  /** Where the index rows go: the index table, or the data table for a local index. */
  private final TableName target;

  IndexBuildJob(Configuration conf, Connection connection, TableName dataTable, IndexSpec spec) {
    this.conf = conf;
    this.connection = connection;
    this.dataTable = dataTable;
    this.spec = spec;
    this.target = IndexCatalog.regionsOf(dataTable, spec);
  }

  /** Runs the job writing puts (global indexes only); returns its counters, or throws. */
  Counters runPuts() throws IOException, InterruptedException, ClassNotFoundException {
    if (spec.isLocal()) throw new IllegalStateException("local entries are built as HFiles");
    Job job = newJob("puts");
    TableMapReduceUtil.initTableReducerJob(
        target.getNameAsString(), null, job, null, null, null, null, shipDependencyJars());
    job.setNumReduceTasks(0);
    return complete(job);
  }

  /** Runs the job writing HFiles under {@code staging}, bulk-loads them, removes what is left. */
  Counters runHFiles(Path staging)
      throws IOException, InterruptedException, ClassNotFoundException {
    Job job = newJob("hfiles");
    try (Table table = connection.getTable(target);
        RegionLocator regions = connection.getRegionLocator(target)) {
      HFileOutputFormat2.configureIncrementalLoad(job, table.getDescriptor(), regions);
    }
    FileOutputFormat.setOutputPath(job, staging);
    Counters counters = complete(job);
    BulkLoadHFiles.create(conf).bulkLoad(target, staging);
    FileSystem fs = staging.getFileSystem(conf);
    fs.delete(
        staging, true); // the load moved the HFiles; only empty family dirs and _SUCCESS remain
    return counters;
  }

  private Job newJob(String mode) throws IOException {
    Job job =
        Job.getInstance(
            conf,
            "scbf bulk index build of '"
                + spec.alias()
                + "' "
                + dataTable
                + " -> "
                + target
                + " ("
                + mode
                + ")");
    job.setJarByClass(IndexBuildJob.class);
    job.getConfiguration().set(IndexRowMapper.SPEC_KEY, spec.encode());
    // Whole-table scan: don't churn the region servers' block caches.
    Scan scan = new IndexRows(spec).scan().setCaching(SCAN_CACHING).setCacheBlocks(false);
    TableMapReduceUtil.initTableMapperJob(
        dataTable.getNameAsString(),
        scan,
        IndexRowMapper.class,
        ImmutableBytesWritable.class,
        Put.class,
        job,
        shipDependencyJars());
    return job;
  }

  /**
   * On YARN the tasks need the HBase and scbf jars (tmpjars); the local job runner runs in this
   * JVM, which has them already, and building jars from class directories would only cost time.
   */
  private boolean shipDependencyJars() {
    return !"local".equals(conf.get("mapreduce.framework.name", "local"));
  }

  private static Counters complete(Job job)
      throws IOException, InterruptedException, ClassNotFoundException {
    if (!job.waitForCompletion(true)) {
      throw new IOException(
          "job " + job.getJobName() + " failed: " + job.getStatus().getFailureInfo());
    }
    return job.getCounters();
  }
}
