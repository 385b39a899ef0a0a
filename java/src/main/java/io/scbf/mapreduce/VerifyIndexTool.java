package io.scbf.mapreduce;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.VerifyReport;
import io.scbf.hbase.shared.CommandLines;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.mapreduce.BuildOptions.UsageException;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.mapreduce.TableMapReduceUtil;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.output.NullOutputFormat;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;
import org.apache.hbase.thirdparty.org.apache.commons.cli.CommandLine;
import org.apache.hbase.thirdparty.org.apache.commons.cli.Options;

/**
 * The verify (and repair) of {@code IndexAdmin.verify} as MapReduce jobs, for tables too large for
 * one client: for each global index, one job with a task per data region (every data row must have
 * its index rows, with its covered values) and one with a task per index region (every index row
 * must be produced by its data row). Repairs go through the data regions, under the rows' index
 * locks, as the client's do.
 *
 * <pre>
 *   HADOOP_CLASSPATH=$(hbase mapredcp):scbf-hbase.jar \
 *     yarn jar scbf-hbase.jar io.scbf.mapreduce.VerifyIndexTool people --index city [--repair]
 * </pre>
 *
 * Exit status: 0 consistent (or repaired), 1 findings (or a job failed), 2 bad arguments.
 */
public final class VerifyIndexTool extends Configured implements Tool {
  static final String USAGE =
      String.join(
          "\n",
          "usage: VerifyIndexTool <table> [--index <alias>] [--repair]",
          "  Compares the global index <alias> (default: every global index) of <table> with its",
          "  data, one map task per data region and per index region.",
          "  --repair  also fix what is found (missing, wrong and stale index rows)",
          "Exit status: 0 consistent (or repaired), 1 findings or a failed job, 2 bad arguments.");

  private static final Options OPTIONS =
      new Options()
          .addOption(CommandLines.valued("index", "alias", "the index to verify"))
          .addOption(CommandLines.flag("repair", "also fix what is found"));

  private final PrintStream out;
  private final PrintStream err;

  public VerifyIndexTool() {
    this(System.out, System.err);
  }

  VerifyIndexTool(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(HBaseConfiguration.create(), new VerifyIndexTool(), args));
  }

  @Override
  public int run(String[] args) throws Exception {
    CommandLine line;
    try {
      line = CommandLines.parse(OPTIONS, args);
    } catch (IllegalArgumentException e) {
      return usage(e.getMessage());
    }
    List<String> tables = line.getArgList();
    if (tables.isEmpty()) return usage("no table given");
    if (tables.size() > 1) return usage("unexpected argument " + tables.get(1));
    String tableName = tables.get(0);
    String alias = line.getOptionValue("index");
    boolean repair = line.hasOption("repair");
    Configuration conf = getConf();
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      TableName table;
      List<IndexSpec> specs;
      try {
        table = TableName.valueOf(tableName);
        specs = globalIndexes(connection, table, alias);
      } catch (UsageException | IllegalArgumentException e) {
        return usage(e.getMessage());
      }
      boolean clean = true;
      for (IndexSpec spec : specs) {
        VerifyReport r;
        try {
          r = verify(conf, table, spec, repair);
        } catch (IOException e) {
          err.println("error: verifying index '" + spec.alias() + "' failed: " + e.getMessage());
          return 1;
        }
        out.println(r);
        clean &= repair || r.isConsistent();
      }
      return clean ? 0 : 1;
    }
  }

  private int usage(String message) {
    err.println("error: " + message);
    err.println(USAGE);
    return 2;
  }

  /** The global indexes to verify: the one named, or all; local entries live with their rows. */
  static List<IndexSpec> globalIndexes(Connection connection, TableName table, String alias)
      throws IOException, UsageException {
    List<IndexSpec> specs;
    try (Admin admin = connection.getAdmin()) {
      if (!admin.tableExists(table)) throw new UsageException("table " + table + " does not exist");
      specs = IndexCatalog.specsOf(admin.getDescriptor(table));
    }
    List<IndexSpec> out = new ArrayList<>();
    for (IndexSpec s : specs) {
      if (alias != null && !s.alias().equals(alias)) continue;
      if (s.isLocal()) {
        if (alias != null) {
          throw new UsageException(
              "index '" + alias + "' is local: its entries are written with their rows");
        }
        continue;
      }
      out.add(s);
    }
    if (out.isEmpty()) {
      throw new UsageException(
          alias == null
              ? "table " + table + " has no global index"
              : "table " + table + " has no index '" + alias + "'");
    }
    return out;
  }

  private VerifyReport verify(Configuration conf, TableName table, IndexSpec spec, boolean repair)
      throws IOException, InterruptedException, ClassNotFoundException {
    Counters data = runPart(conf, table, spec, repair, VerifyMapper.Part.DATA_ROWS, table);
    Counters index =
        runPart(
            conf,
            table,
            spec,
            repair,
            VerifyMapper.Part.INDEX_ROWS,
            IndexCatalog.indexTableName(table, spec.alias()));
    return new VerifyReport(
        table,
        spec.alias(),
        repair,
        sum(data, index, VerifyCounter.DATA_ROWS),
        sum(data, index, VerifyCounter.INDEX_ROWS),
        sum(data, index, VerifyCounter.MISSING),
        sum(data, index, VerifyCounter.WRONG_COVERED),
        sum(data, index, VerifyCounter.STALE),
        sum(data, index, VerifyCounter.WRITTEN),
        sum(data, index, VerifyCounter.REMOVED),
        sum(data, index, VerifyCounter.KEPT_CURRENT),
        List.of(),
        List.of());
  }

  private static long sum(Counters a, Counters b, VerifyCounter c) {
    return a.findCounter(c).getValue() + b.findCounter(c).getValue();
  }

  /** One map-only job over the regions of {@code input}, each task verifying its region's range. */
  private static Counters runPart(
      Configuration conf,
      TableName table,
      IndexSpec spec,
      boolean repair,
      VerifyMapper.Part part,
      TableName input)
      throws IOException, InterruptedException, ClassNotFoundException {
    Job job =
        Job.getInstance(
            conf,
            "scbf verify of '" + spec.alias() + "' " + table + ": " + part.name().toLowerCase());
    job.setJarByClass(VerifyIndexTool.class);
    Configuration jc = job.getConfiguration();
    jc.set(VerifyMapper.TABLE_KEY, table.getNameAsString());
    jc.set(VerifyMapper.ALIAS_KEY, spec.alias());
    jc.setBoolean(VerifyMapper.REPAIR_KEY, repair);
    jc.set(VerifyMapper.PART_KEY, part.name());
    // The tasks read their ranges themselves; the input only splits the table by region.
    Scan splitsOnly = new Scan().setFilter(new FirstKeyOnlyFilter()).setCaching(1);
    TableMapReduceUtil.initTableMapperJob(
        input.getNameAsString(),
        splitsOnly,
        VerifyMapper.class,
        NullWritable.class,
        NullWritable.class,
        job,
        !"local".equals(conf.get("mapreduce.framework.name", "local")));
    job.setNumReduceTasks(0);
    job.setOutputFormatClass(NullOutputFormat.class);
    if (!job.waitForCompletion(true)) {
      throw new IOException(
          "job " + job.getJobName() + " failed: " + job.getStatus().getFailureInfo());
    }
    return job.getCounters();
  }
}
