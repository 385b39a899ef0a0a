package io.scbf.mapreduce;

import io.scbf.hbase.shared.CommandLines;
import java.util.List;
import java.util.Optional;
import org.apache.hbase.thirdparty.org.apache.commons.cli.CommandLine;
import org.apache.hbase.thirdparty.org.apache.commons.cli.Options;

/**
 * The command line of {@link BuildIndexTool}: which data table, which index (all when absent), how
 * to write the index rows, and where the HFiles go.
 */
record BuildOptions(
    String table,
    Optional<String> index,
    Mode mode,
    Optional<String> output,
    long routingTimeoutMs) {

  static final String USAGE =
      String.join(
          "\n",
          "usage: BuildIndexTool <table> [--index <alias>] [--mode hfiles|puts] [--output <dir>]",
          "                      [--routing-timeout <seconds>]",
          "  Builds the scbf index <alias> (default: every index) of the existing rows of <table>.",
          "  --mode hfiles   write HFiles and bulk-load them into the index table (default)",
          "  --mode puts     write the index rows as puts (map-only; slower, no HFile staging)",
          "  --output <dir>  staging directory for the HFiles, on the cluster's file system; it must",
          "                  not exist (default: <hbase.fs.tmp.dir>/scbf-bulk-build/<table>-<time>)",
          "  --routing-timeout <seconds>  how long to wait for the master's routing to reflect the",
          "                  new filters (default 60)",
          "Exit status: 0 built, 1 a job or the load failed, 2 bad arguments, table or index.");

  static final long DEFAULT_ROUTING_TIMEOUT_MS = 60_000;

  /** How index rows reach the index table. */
  enum Mode {
    HFILES,
    PUTS
  }

  /** Thrown for a command line that cannot be run; the message says why. */
  static final class UsageException extends Exception {
    UsageException(String message) {
      super(message);
    }
  }

  private static final Options OPTIONS =
      new Options()
          .addOption(CommandLines.valued("index", "alias", "the index to build"))
          .addOption(CommandLines.valued("mode", "hfiles|puts", "how index rows are written"))
          .addOption(CommandLines.valued("output", "dir", "staging directory for the HFiles"))
          .addOption(
              CommandLines.valued("routing-timeout", "seconds", "wait for the master's routing"));

  static BuildOptions parse(String... args) throws UsageException {
    CommandLine line;
    try {
      line = CommandLines.parse(OPTIONS, args);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    List<String> tables = line.getArgList();
    if (tables.isEmpty() || tables.get(0).isEmpty()) throw new UsageException("no table given");
    if (tables.size() > 1) {
      throw new UsageException("more than one table given: " + String.join(", ", tables));
    }
    Mode mode = line.hasOption("mode") ? mode(line.getOptionValue("mode")) : Mode.HFILES;
    String output = line.getOptionValue("output");
    if (output != null && mode == Mode.PUTS) {
      throw new UsageException("--output only applies to --mode hfiles");
    }
    long timeoutMs =
        line.hasOption("routing-timeout")
            ? seconds(line.getOptionValue("routing-timeout")) * 1000
            : DEFAULT_ROUTING_TIMEOUT_MS;
    return new BuildOptions(
        tables.get(0),
        Optional.ofNullable(line.getOptionValue("index")),
        mode,
        Optional.ofNullable(output),
        timeoutMs);
  }

  private static Mode mode(String s) throws UsageException {
    return switch (s) {
      case "hfiles" -> Mode.HFILES;
      case "puts" -> Mode.PUTS;
      default -> throw new UsageException("--mode must be hfiles or puts, got '" + s + "'");
    };
  }

  private static long seconds(String s) throws UsageException {
    try {
      long v = Long.parseLong(s);
      if (v >= 0) return v;
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException(
        "--routing-timeout must be a whole number of seconds >= 0, got '" + s + "'");
  }
}
