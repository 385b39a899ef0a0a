package io.scbf.hbase.shared;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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

  /**
   * {@code args} with its words (a token that does not start with "--" and is no option's value)
   * moved behind a "--", in their order: every option is long, so "-5" or "-x" is a word, where
   * Commons CLI would take it for an unknown short option.
   */
  private static String[] wordsLast(Options options, String[] args) {
    List<String> out = new ArrayList<>(args.length + 1);
    List<String> words = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String token = args[i];
      if (token.equals("--")) {
        words.addAll(Arrays.asList(args).subList(i + 1, args.length));
        break;
      }
      if (!token.startsWith("--")) {
        words.add(token);
        continue;
      }
      out.add(token);
      Option option = options.getOption(token.substring(2));
      boolean valued = option != null && option.hasArg() && !token.contains("=");
      if (valued && i + 1 < args.length && !args[i + 1].startsWith("--")) out.add(args[++i]);
    }
    out.add("--");
    out.addAll(words);
    return out.toArray(new String[0]);
  }

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
      return DefaultParser.builder()
          .setAllowPartialMatching(false)
          .build()
          .parse(options, wordsLast(options, args));
    } catch (UnrecognizedOptionException e) {
      throw new IllegalArgumentException("unknown option " + e.getOption(), e);
    } catch (MissingArgumentException e) {
      throw new IllegalArgumentException("--" + e.getOption().getLongOpt() + " needs a value", e);
    } catch (ParseException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }
}
