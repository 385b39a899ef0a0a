package io.scbf.mapreduce;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.mapreduce.BuildOptions.UsageException;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * Builds scbf indexes of the rows already in a data table with MapReduce, for indexes defined with
 * {@code IndexAdmin.defineIndex} (no client-side backfill):
 *
 * <pre>
 *   HADOOP_CLASSPATH=$(hbase mapredcp):scbf-hbase.jar \
 *     yarn jar scbf-hbase.jar io.scbf.mapreduce.BuildIndexTool people --index city
 * </pre>
 *
 * One job per index (see {@link IndexBuildJob}); then it marks the index built (queries stop
 * scanning the data table) and waits until the master's routing reflects the rebuilt bucket filters
 * ({@link RoutingWait}). Safe to re-run and to run while the table is written (docs/bulk-build.md).
 * Exit status: 0 built, 1 failed, 2 bad arguments, table or index.
 */
public final class BuildIndexTool extends Configured implements Tool {
  static final int EXIT_OK = 0;
  static final int EXIT_FAILED = 1;
  static final int EXIT_USAGE = 2;

  private final PrintStream out;
  private final PrintStream err;

  public BuildIndexTool() {
    this(System.out, System.err);
  }

  BuildIndexTool(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(HBaseConfiguration.create(), new BuildIndexTool(), args));
  }

  @Override
  public int run(String[] args) throws Exception {
    BuildOptions options;
    try {
      options = BuildOptions.parse(args);
    } catch (UsageException e) {
      err.println("error: " + e.getMessage());
      err.println(BuildOptions.USAGE);
      return EXIT_USAGE;
    }
    Configuration conf = getConf();
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      TableName table;
      List<IndexSpec> specs;
      try {
        table = TableName.valueOf(options.table());
        specs = selectIndexes(connection, table, options);
      } catch (UsageException | IllegalArgumentException e) {
        err.println("error: " + e.getMessage());
        return EXIT_USAGE;
      }
      Path staging =
          options.mode() == BuildOptions.Mode.HFILES ? staging(conf, table, options) : null;
      for (IndexSpec spec : specs) {
        if (!build(conf, connection, table, spec, options, staging)) return EXIT_FAILED;
      }
      return EXIT_OK;
    }
  }

  private boolean build(
      Configuration conf,
      Connection connection,
      TableName table,
      IndexSpec spec,
      BuildOptions options,
      Path staging)
      throws Exception {
    TableName target = IndexCatalog.regionsOf(table, spec);
    IndexBuildJob job = new IndexBuildJob(conf, connection, table, spec);
    long start = System.nanoTime();
    Counters counters;
    try {
      counters =
          options.mode() == BuildOptions.Mode.HFILES
              ? job.runHFiles(new Path(staging, spec.alias()))
              : job.runPuts();
    } catch (IOException e) {
      err.println(
          "error: building index '"
              + spec.alias()
              + "' of "
              + table
              + " failed: "
              + e.getMessage());
      return false;
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long rows = counters.findCounter(BuildCounter.ROWS_READ).getValue();
    long invalid = counters.findCounter(BuildCounter.ROWS_INVALID_VALUE).getValue();
    out.printf(
        "index '%s' of %s -> %s (%s%s): %d rows read, %d without the column%s, %d index rows"
            + " (%d bytes) in %.1f s (%.0f rows/s)%n",
        spec.alias(),
        table,
        target,
        spec.isLocal() ? "local, " : "",
        options.mode().name().toLowerCase(),
        rows,
        counters.findCounter(BuildCounter.ROWS_WITHOUT_VALUE).getValue(),
        spec.isTyped() ? ", " + invalid + " with a value not of its type" : "",
        counters.findCounter(BuildCounter.INDEX_ROWS_WRITTEN).getValue(),
        counters.findCounter(BuildCounter.INDEX_BYTES_WRITTEN).getValue(),
        seconds,
        rows / seconds);
    if (invalid > 0) {
      err.printf(
          "warning: index '%s': %d rows hold a value that is not of their indexed column's type"
              + " (%s) and are not indexed; each map task's log names its first %d%n",
          spec.alias(), invalid, spec.types(), IndexRowMapper.INVALID_LOGGED);
    }
    // Every row with a valid value is indexed: queries may use the index instead of scanning.
    new IndexAdmin(connection).markBuilt(table, spec.alias());
    if (spec.routedByKey()) {
      // No routing to wait for: each query asks the value's region, which reads its rows.
      return true;
    }
    if (!RoutingWait.await(connection, table, spec, options.routingTimeoutMs())) {
      err.println(
          "error: index '"
              + spec.alias()
              + "' is built, but the master's routing did not"
              + " reflect every bucket's or region's filter within "
              + options.routingTimeoutMs() / 1000
              + " s;"
              + " strict queries see the rows; check the index region servers' logs");
      return false;
    }
    out.printf("index '%s': routing reflects every bucket%n", spec.alias());
    return true;
  }

  /**
   * The indexes to build: the one named, or all but the local indexes already built (their regions
   * keep their entries themselves); a clear error for a missing table or index, or for a local
   * index that cannot be built here (built already, or asked for as puts: client writes to its
   * entry family are refused).
   */
  static List<IndexSpec> selectIndexes(Connection connection, TableName table, BuildOptions options)
      throws IOException, UsageException {
    TableDescriptor data;
    try (Admin admin = connection.getAdmin()) {
      if (!admin.tableExists(table)) throw new UsageException("table " + table + " does not exist");
      data = admin.getDescriptor(table);
    }
    List<IndexSpec> specs = IndexCatalog.specsOf(data);
    if (specs.isEmpty()) {
      throw new UsageException(
          "table "
              + table
              + " has no scbf index to build; define one first (IndexAdmin.defineIndex)");
    }
    List<IndexSpec> selected;
    if (options.index().isEmpty()) {
      selected =
          specs.stream()
              .filter(s -> !s.isLocal() || IndexCatalog.isLocalBuilding(data, s.alias()))
              .toList();
      if (selected.isEmpty()) {
        throw new UsageException("every index of table " + table + " is local and built already");
      }
    } else {
      String alias = options.index().get();
      selected = specs.stream().filter(s -> s.alias().equals(alias)).toList();
      if (selected.isEmpty()) {
        throw new UsageException(
            "table "
                + table
                + " has no index '"
                + alias
                + "'; its indexes: "
                + String.join(", ", specs.stream().map(IndexSpec::alias).toList()));
      }
      if (selected.get(0).isLocal() && !IndexCatalog.isLocalBuilding(data, alias)) {
        throw new UsageException(
            "local index '"
                + alias
                + "' of "
                + table
                + " is built: its regions keep its entries (this tool builds a local index"
                + " defined with IndexAdmin.defineIndex)");
      }
    }
    for (IndexSpec spec : selected) {
      if (options.mode() == BuildOptions.Mode.HFILES) continue;
      if (spec.isLocal()) {
        throw new UsageException(
            "index '" + spec.alias() + "' is local: its entries are built with --mode hfiles");
      }
      // A built index's regions refuse client Puts (only the data regions' own writes, repairs
      // and rebuilds may touch its rows), so a Puts job would fail in its mappers.
      TableDescriptor index;
      try (Admin admin = connection.getAdmin()) {
        index = admin.getDescriptor(IndexCatalog.indexTableName(table, spec.alias()));
      }
      if (!IndexCatalog.isBuilding(index)) {
        throw new UsageException(
            "index '"
                + spec.alias()
                + "' of "
                + table
                + " is built: its regions take no client Puts; build it again with --mode"
                + " hfiles (the default), or rebuild it (scbf-admin rebuild "
                + table
                + " "
                + spec.alias()
                + ")");
      }
    }
    return selected;
  }

  /** The HFile staging directory: given, or a fresh one under hbase.fs.tmp.dir. */
  private static Path staging(Configuration conf, TableName table, BuildOptions options)
      throws IOException {
    Path dir =
        options
            .output()
            .map(Path::new)
            .orElseGet(
                () ->
                    new Path(
                        conf.get(
                            HConstants.TEMPORARY_FS_DIRECTORY_KEY,
                            HConstants.DEFAULT_TEMPORARY_HDFS_DIRECTORY),
                        "scbf-bulk-build/"
                            + table.getNameAsString().replace(':', '_')
                            + "-"
                            + System.currentTimeMillis()));
    FileSystem fs = dir.getFileSystem(conf);
    return fs.makeQualified(dir);
  }
}
