package io.scbf.hbase.cli;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.VerifyReport;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStats;
import io.scbf.hbase.shared.proto.IndexProtos.StatsResponse;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HBaseInterfaceAudience;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The operator's command line for scbf indexes, on the cluster of the HBase configuration found on
 * the class path:
 *
 * <pre>
 *   java -cp "$(hbase classpath):scbf-hbase.jar" io.scbf.hbase.cli.ScbfAdmin COMMAND ...
 * </pre>
 *
 * Exit status: 0 done (verify: the index is consistent), 1 failed (verify: findings), 2 usage.
 */
@InterfaceAudience.LimitedPrivate(HBaseInterfaceAudience.TOOLS)
public final class ScbfAdmin {
  static final int OK = 0;
  static final int FAILED = 1;
  static final int USAGE = 2;

  static final String HELP =
      String.join(
          "\n",
          "usage: ScbfAdmin COMMAND TABLE [ARGS]",
          "  list TABLE                       indexes of the table",
          "  describe TABLE ALIAS             spec, state, and routing figures of one index",
          "  create TABLE FAMILY:QUALIFIER [--alias A] [--buckets N] [--fpp P] [--local | --by-value]",
          "         [--then FAMILY:QUALIFIER]... [--covered FAMILY:QUALIFIER]...",
          "                                   create an index over the existing rows (--then:"
              + " the next column of a composite index)",
          "  drop TABLE ALIAS                 remove an index",
          "  verify TABLE ALIAS               compare a global index with the data (exit 1 if not"
              + " equal)",
          "  repair TABLE ALIAS               verify and fix missing and stale index rows",
          "  rebuild TABLE ALIAS              re-index every row (e.g. after a snapshot restore)");

  private ScbfAdmin() {}

  public static void main(String[] args) throws IOException {
    Configuration conf = HBaseConfiguration.create();
    int status;
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      status = run(connection, args, System.out, System.err);
    }
    System.exit(status);
  }

  static int run(Connection connection, String[] args, PrintStream out, PrintStream err) {
    if (args.length < 2) {
      err.println(HELP);
      return USAGE;
    }
    IndexAdmin admin = new IndexAdmin(connection);
    TableName table = TableName.valueOf(args[1]);
    List<String> rest = Arrays.asList(args).subList(2, args.length);
    try {
      switch (args[0]) {
        case "list":
          for (IndexSpec s : admin.listIndexes(table)) out.println(line(admin, table, s));
          return OK;
        case "describe":
          return describe(connection, admin, table, alias(rest), out);
        case "create":
          admin.createIndex(table, Specs.parse(rest));
          out.println("created: " + rest);
          return OK;
        case "drop":
          admin.dropIndex(table, alias(rest));
          out.println("dropped index '" + alias(rest) + "' of " + table);
          return OK;
        case "verify":
          {
            VerifyReport r = admin.verify(table, alias(rest));
            print(r, out);
            return r.isConsistent() ? OK : FAILED;
          }
        case "repair":
          print(admin.repair(table, alias(rest)), out);
          return OK;
        case "rebuild":
          admin.rebuildIndex(table, alias(rest));
          out.println("rebuilt index '" + alias(rest) + "' of " + table);
          return OK;
        default:
          err.println("unknown command '" + args[0] + "'\n" + HELP);
          return USAGE;
      }
    } catch (Specs.UsageException e) {
      err.println("error: " + e.getMessage() + "\n" + HELP);
      return USAGE;
    } catch (IOException | RuntimeException e) {
      err.println("error: " + e.getMessage());
      return FAILED;
    }
  }

  private static String alias(List<String> rest) throws Specs.UsageException {
    if (rest.size() != 1) throw new Specs.UsageException("expected one index alias");
    return rest.get(0);
  }

  private static String line(IndexAdmin admin, TableName table, IndexSpec s) throws IOException {
    return String.format(
        "%-16s %-24s %s%s",
        s.alias(),
        s.columnsText(),
        s.isLocal()
            ? "local"
            : s.layout() == IndexSpec.Layout.BY_VALUE
                ? "global, by value (splits as it grows)"
                : "global, " + s.buckets() + " buckets",
        admin.isBuilding(table, s.alias()) ? ", BUILDING (queries scan)" : "");
  }

  private static int describe(
      Connection connection, IndexAdmin admin, TableName table, String alias, PrintStream out)
      throws IOException {
    IndexSpec spec =
        admin.listIndexes(table).stream()
            .filter(s -> s.alias().equals(alias))
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "table " + table + " has no index '" + alias + "'"));
    out.println(line(admin, table, spec));
    out.printf(
        "  fpp %s, initial capacity %d per filter, covered %s%n",
        spec.fpp(), spec.initialCapacity(), spec.covered());
    StatsResponse stats;
    try (IndexedTable t = new IndexedTable(connection, table)) {
      stats = t.routingStats(spec.alias());
    }
    long bytes = 0, residue = 0;
    int ready = 0;
    double fprMax = 0;
    for (RegionStats r : stats.getRegionsList()) {
      bytes += r.getFilterBytes();
      residue += r.getResidue();
      if (r.getReady()) ready++;
      fprMax = Math.max(fprMax, r.getEstimatedFpr());
    }
    out.printf(
        "  routing: %d regions published, %d ready; filters %d bytes; estimated fpr max %.2g;"
            + " residue %d%n",
        stats.getRegionsCount(), ready, bytes, fprMax, residue);
    return OK;
  }

  private static void print(VerifyReport r, PrintStream out) {
    out.println(r);
    r.missingSamples().forEach(k -> out.println("  missing: " + k));
    r.staleSamples().forEach(k -> out.println("  stale:   " + k));
  }

  /** Parses the arguments of {@code create}. */
  static final class Specs {
    private Specs() {}

    static final class UsageException extends Exception {
      UsageException(String message) {
        super(message);
      }
    }

    static IndexSpec parse(List<String> args) throws UsageException {
      if (args.isEmpty()) throw new UsageException("create needs FAMILY:QUALIFIER");
      byte[][] column = column(args.get(0));
      IndexSpec.Builder b = IndexSpec.builder(column[0], column[1]);
      try {
        for (int i = 1; i < args.size(); i++) {
          String option = args.get(i);
          if (option.equals("--local")) {
            b.local();
            continue;
          }
          if (option.equals("--by-value")) {
            b.layout(IndexSpec.Layout.BY_VALUE);
            continue;
          }
          if (i + 1 >= args.size()) throw new UsageException(option + " needs a value");
          String value = args.get(++i);
          switch (option) {
            case "--alias" -> b.alias(value);
            case "--buckets" -> b.buckets(Integer.parseInt(value));
            case "--fpp" -> b.fpp(Double.parseDouble(value));
            case "--then" -> {
              byte[][] c = column(value);
              b.thenColumn(c[0], c[1]);
            }
            case "--covered" -> {
              byte[][] c = column(value);
              b.covered(c[0], c[1]);
            }
            default -> throw new UsageException("unknown option " + option);
          }
        }
        return b.build();
      } catch (IllegalArgumentException e) { // includes NumberFormatException
        throw new UsageException(e.getMessage());
      }
    }

    private static byte[][] column(String text) throws UsageException {
      int colon = text.indexOf(':');
      if (colon <= 0 || colon == text.length() - 1) {
        throw new UsageException("expected FAMILY:QUALIFIER, got '" + text + "'");
      }
      return new byte[][] {
        Bytes.toBytes(text.substring(0, colon)), Bytes.toBytes(text.substring(colon + 1))
      };
    }
  }
}
