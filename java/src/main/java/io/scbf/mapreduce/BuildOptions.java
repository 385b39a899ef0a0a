package io.scbf.mapreduce;

import java.util.Optional;

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

  static BuildOptions parse(String... args) throws UsageException {
    String table = null;
    String index = null;
    String output = null;
    Mode mode = Mode.HFILES;
    long timeoutMs = DEFAULT_ROUTING_TIMEOUT_MS;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--index" -> index = value(args, ++i, a);
        case "--output" -> output = value(args, ++i, a);
        case "--mode" -> mode = mode(value(args, ++i, a));
        case "--routing-timeout" -> timeoutMs = seconds(value(args, ++i, a)) * 1000;
        default -> {
          if (a.startsWith("-")) throw new UsageException("unknown option " + a);
          if (table != null)
            throw new UsageException("more than one table given: " + table + ", " + a);
          table = a;
        }
      }
    }
    if (table == null || table.isEmpty()) throw new UsageException("no table given");
    if (output != null && mode == Mode.PUTS) {
      throw new UsageException("--output only applies to --mode hfiles");
    }
    return new BuildOptions(
        table, Optional.ofNullable(index), mode, Optional.ofNullable(output), timeoutMs);
  }

  private static String value(String[] args, int i, String option) throws UsageException {
    if (i >= args.length || args[i].startsWith("--")) {
      throw new UsageException(option + " needs a value");
    }
    return args[i];
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
