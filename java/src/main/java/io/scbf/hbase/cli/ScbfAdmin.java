package io.scbf.hbase.cli;

import io.scbf.hbase.cli.Command.Session;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HBaseInterfaceAudience;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The operator's command line for scbf indexes, a Hadoop {@link Tool}: generic options ({@code -D
 * key=value}, {@code -conf file}) come before the command. Started by {@code scripts/scbf-admin},
 * which puts {@code hbase classpath} beside the jar:
 *
 * <pre>
 *   scbf-admin [-D key=value]... COMMAND [ARGS]     scbf-admin COMMAND --help
 * </pre>
 *
 * Exit status: {@link #OK} 0, {@link #FINDINGS} 1 (verify found differences), {@link #USAGE} 2 (a
 * command line it cannot run, an unknown table or index), {@link #CLUSTER} 3 (the cluster failed
 * the request or could not be reached).
 */
@InterfaceAudience.LimitedPrivate(HBaseInterfaceAudience.TOOLS)
public final class ScbfAdmin extends Configured implements Tool {
  static final int OK = 0;
  static final int FINDINGS = 1;
  static final int USAGE = 2;
  static final int CLUSTER = 3;

  private static final List<Command> COMMANDS = commands();

  private static List<Command> commands() {
    List<Command> all = new ArrayList<>(IndexCommands.all());
    all.addAll(QueryCommands.all());
    return List.copyOf(all);
  }

  public ScbfAdmin() {}

  /** Keeps the signature of earlier releases ({@code throws IOException}) for callers' code. */
  public static void main(String[] args) throws IOException {
    int status;
    try {
      status = ToolRunner.run(HBaseConfiguration.create(), new ScbfAdmin(), args);
    } catch (IOException e) {
      throw e;
    } catch (Exception e) { // ToolRunner declares Exception; nothing here throws another kind
      throw new IOException(e);
    }
    System.exit(status);
  }

  /** After ToolRunner took the generic options out of {@code args}. */
  @Override
  public int run(String[] args) throws IOException {
    Configuration conf = getConf() == null ? HBaseConfiguration.create() : getConf();
    Integer answered = withoutCluster(args, System.out, System.err);
    if (answered != null) return answered;
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      return execute(connection, args, System.out, System.err);
    } catch (IOException e) {
      System.err.println("error: cannot connect to the cluster: " + e.getMessage());
      return CLUSTER;
    }
  }

  /** Runs one command line on {@code connection}; returns the exit status. */
  static int run(Connection connection, String[] args, PrintStream out, PrintStream err) {
    Integer answered = withoutCluster(args, out, err);
    return answered != null ? answered : execute(connection, args, out, err);
  }

  /** Runs a command line that names a command (withoutCluster answered the others). */
  private static int execute(
      Connection connection, String[] args, PrintStream out, PrintStream err) {
    Command command = find(args[0]);
    List<String> rest = Arrays.asList(args).subList(1, args.length);
    try {
      Args parsed = Args.parse(rest, command.flags(), command.options());
      return command.action().run(new Session(connection, out, err), parsed);
    } catch (UsageException e) {
      err.println("error: " + e.getMessage() + "\n" + command.usage());
      return USAGE;
    } catch (TableNotFoundException e) {
      err.println("error: no such table: " + e.getMessage());
      return USAGE;
    } catch (IllegalArgumentException e) { // an index that does not exist, a spec that does not fit
      err.println("error: " + e.getMessage());
      return USAGE;
    } catch (IOException | RuntimeException e) {
      err.println("error: " + e);
      return CLUSTER;
    }
  }

  /**
   * Answers the command lines that need no cluster: none, {@code help [COMMAND]}, {@code --help},
   * {@code COMMAND --help}, an unknown command. Their exit status, or null for a command to run.
   */
  private static Integer withoutCluster(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0) {
      err.println(overview());
      return USAGE;
    }
    String first = args[0];
    if (first.equals("help") || first.equals("--help") || first.equals("-h")) {
      Command c = args.length > 1 ? find(args[1]) : null;
      out.println(c == null ? overview() : help(c));
      return OK;
    }
    Command c = find(first);
    if (c == null) {
      err.println("error: unknown command '" + first + "'\n" + overview());
      return USAGE;
    }
    if (Arrays.asList(args).contains("--help")) {
      out.println(help(c));
      return OK;
    }
    return null;
  }

  private static Command find(String name) {
    return COMMANDS.stream().filter(c -> c.name().equals(name)).findFirst().orElse(null);
  }

  private static String help(Command c) {
    return c.usage() + "\n" + c.summary() + ".\n" + c.help();
  }

  static String overview() {
    StringBuilder b =
        new StringBuilder(
            "usage: scbf-admin [-D key=value]... [-conf FILE] COMMAND [ARGS]   (COMMAND --help for"
                + " details)\n");
    for (Command c : COMMANDS) b.append(String.format("  %-14s %s%n", c.name(), c.summary()));
    b.append("exit status: 0 ok, 1 findings (verify), 2 usage or unknown table/index, 3 cluster")
        .append(" error");
    return b.toString();
  }
}
