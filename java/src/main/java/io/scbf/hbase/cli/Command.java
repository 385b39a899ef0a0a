package io.scbf.hbase.cli;

import io.scbf.hbase.IndexAdmin;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import org.apache.hadoop.hbase.client.Connection;

/**
 * One subcommand of {@link ScbfAdmin}: its name, the arguments it takes, its help, and what it
 * does.
 *
 * @param synopsis the arguments after the name, as the usage line shows them
 * @param summary one line for the command list
 * @param help the {@code --help} text after the usage line
 * @param flags the options without a value it accepts
 * @param options the options with a value it accepts
 */
record Command(
    String name,
    String synopsis,
    String summary,
    String help,
    List<String> flags,
    List<String> options,
    Action action) {

  /** What the command does; returns the exit status. */
  interface Action {
    int run(Session session, Args args) throws IOException, UsageException;
  }

  /** What every command runs with: the cluster connection and the two output streams. */
  record Session(Connection connection, PrintStream out, PrintStream err) {
    IndexAdmin admin() {
      return new IndexAdmin(connection);
    }
  }

  String usage() {
    return "usage: scbf-admin " + name + " " + synopsis;
  }
}
