package io.scbf.hbase.shared;

import org.apache.hbase.thirdparty.org.apache.commons.cli.CommandLine;
import org.apache.hbase.thirdparty.org.apache.commons.cli.DefaultParser;
import org.apache.hbase.thirdparty.org.apache.commons.cli.MissingArgumentException;
import org.apache.hbase.thirdparty.org.apache.commons.cli.Option;
import org.apache.hbase.thirdparty.org.apache.commons.cli.Options;
import org.apache.hbase.thirdparty.org.apache.commons.cli.ParseException;
import org.apache.hbase.thirdparty.org.apache.commons.cli.UnrecognizedOptionException;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The command-line parser of every scbf tool: Apache Commons CLI, in the copy HBase ships (so the
 * tools need nothing HBase does not have), long options only ({@code --index city}), with errors in
 * the tools' words.
 */
@InterfaceAudience.Private
public final class CommandLines {
  private CommandLines() {}

  /** {@code --name <value>}. */
  public static Option valued(String name, String value, String description) {
    return Option.builder().longOpt(name).hasArg().argName(value).desc(description).build();
  }

  /** {@code --name}, without a value. */
  public static Option flag(String name, String description) {
    return Option.builder().longOpt(name).desc(description).build();
  }

  /**
   * The options and the other arguments of {@code args}, in their order.
   *
   * @throws IllegalArgumentException naming an unknown option or an option without its value
   */
  public static CommandLine parse(Options options, String... args) {
    try {
      // No prefix matching: "--ind" is an unknown option, not --index.
      return DefaultParser.builder().setAllowPartialMatching(false).build().parse(options, args);
    } catch (UnrecognizedOptionException e) {
      throw new IllegalArgumentException("unknown option " + e.getOption(), e);
    } catch (MissingArgumentException e) {
      throw new IllegalArgumentException("--" + e.getOption().getLongOpt() + " needs a value", e);
    } catch (ParseException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }
}
