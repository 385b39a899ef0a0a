package io.scbf.hbase.cli;

import io.scbf.hbase.IndexExpression;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.CommandLines;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.org.apache.commons.cli.CommandLine;
import org.apache.hbase.thirdparty.org.apache.commons.cli.Option;
import org.apache.hbase.thirdparty.org.apache.commons.cli.Options;

/**
 * One command's arguments after its name: positional words, flags ({@code --strict}) and options
 * with a value ({@code --limit 10}), parsed by {@link CommandLines} (Commons CLI). Each command
 * declares which it takes, so a misspelt option is a usage error rather than a silently ignored
 * word; {@code --} ends the options (for a word that starts with a dash and is not a number).
 */
final class Args {
  private final List<String> words;
  private final List<String[]> options = new ArrayList<>();
  private final List<String> flags = new ArrayList<>();

  private Args(List<String> words) {
    this.words = words;
  }

  /**
   * @param flagNames options without a value this command accepts ({@code --name})
   * @param optionNames options with a value this command accepts (may repeat)
   */
  static Args parse(List<String> args, List<String> flagNames, List<String> optionNames)
      throws UsageException {
    Options declared = new Options();
    for (String f : flagNames) declared.addOption(CommandLines.flag(f.substring(2), null));
    for (String o : optionNames)
      declared.addOption(CommandLines.valued(o.substring(2), "value", null));
    CommandLine line;
    try {
      line = CommandLines.parse(declared, args.toArray(new String[0]));
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    Args a = new Args(line.getArgList());
    for (Option o : line.getOptions()) {
      String name = "--" + o.getLongOpt();
      if (o.hasArg()) {
        a.options.add(new String[] {name, o.getValue()});
      } else {
        a.flags.add(name);
      }
    }
    return a;
  }

  /** The positional words, which must be exactly {@code names} (used in the message). */
  List<String> words(String... names) throws UsageException {
    if (words.size() != names.length) {
      throw new UsageException(
          "expected " + String.join(" ", names) + ", got " + words.size() + " argument(s)");
    }
    return words;
  }

  int wordCount() {
    return words.size();
  }

  boolean flag(String name) {
    return flags.contains(name);
  }

  /** Options in command-line order, as {name, value} pairs. */
  List<String[]> options() {
    return options;
  }

  String option(String name, String fallback) {
    String value = fallback;
    for (String[] o : options) if (o[0].equals(name)) value = o[1];
    return value;
  }

  int intOption(String name, int fallback) throws UsageException {
    String text = option(name, null);
    if (text == null) return fallback;
    try {
      int value = Integer.parseInt(text);
      if (value <= 0) throw new NumberFormatException();
      return value;
    } catch (NumberFormatException e) {
      throw new UsageException(name + " needs a positive integer, got '" + text + "'");
    }
  }

  static TableName table(String name) throws UsageException {
    try {
      return TableName.valueOf(name);
    } catch (IllegalArgumentException e) {
      throw new UsageException("invalid table name '" + name + "': " + e.getMessage());
    }
  }

  /** FAMILY:QUALIFIER as {family, qualifier}. */
  static byte[][] column(String text) throws UsageException {
    int colon = text.indexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new UsageException("expected FAMILY:QUALIFIER, got '" + text + "'");
    }
    return new byte[][] {
      Bytes.toBytes(text.substring(0, colon)), Bytes.toBytes(text.substring(colon + 1))
    };
  }

  /** A column and its type as the command line names them; type null if not named. */
  record TypedColumn(byte[][] column, IndexSpec.ValueType type) {
    IndexSpec.ValueType typeOr(IndexSpec.ValueType fallback) {
      return type == null ? fallback : type;
    }
  }

  /**
   * FAMILY:QUALIFIER[:TYPE]: a last colon separates a type only if what follows it names one, so a
   * qualifier that itself ends in ":long" is written with its type, e.g. {@code d:x:long:bytes}.
   */
  static TypedColumn typedColumn(String text) throws UsageException {
    int last = text.lastIndexOf(':');
    if (last > text.indexOf(':')) {
      String suffix = text.substring(last + 1);
      for (IndexSpec.ValueType t : IndexSpec.ValueType.values()) {
        if (t.text().equalsIgnoreCase(suffix)) {
          return new TypedColumn(column(text.substring(0, last)), t);
        }
      }
    }
    return new TypedColumn(column(text), null);
  }

  /**
   * A value typed on the command line as a column of {@code type} holds it ({@code Bytes.toBytes}
   * of the Java type: {@code -5}, {@code 1.50}, {@code NaN}); a {@code BYTES} value as {@code
   * Bytes.toBytesBinary} reads it ({@code \x00} for a byte).
   */
  static byte[] value(IndexSpec.ValueType type, String text) throws UsageException {
    try {
      return switch (type) {
        case BYTES -> Bytes.toBytesBinary(text);
        case STRING -> Bytes.toBytes(text);
        case INT -> Bytes.toBytes(Integer.parseInt(text));
        case LONG -> Bytes.toBytes(Long.parseLong(text));
        case FLOAT -> Bytes.toBytes(Float.parseFloat(text));
        case DOUBLE -> Bytes.toBytes(Double.parseDouble(text));
        case BIG_DECIMAL -> Bytes.toBytes(new BigDecimal(text));
      };
    } catch (NumberFormatException e) {
      throw new UsageException("'" + text + "' is not a " + type.text() + " value");
    }
  }

  /**
   * The alias {@code create} gives an index without {@code --alias}: its (first) qualifier, each
   * run of characters an alias cannot hold made one {@code _} ({@code e-mail} gives {@code
   * e_mail}). Refused rather than cut when that is not an alias, so that two long qualifiers cannot
   * silently end up with one alias.
   */
  static String defaultAlias(byte[] qualifier) throws UsageException {
    String text = Bytes.toString(qualifier);
    String alias = text.replaceAll("[^A-Za-z0-9_]+", "_").replaceAll("^_+|_+$", "");
    if (alias.isEmpty() || alias.length() > 32) {
      throw new UsageException(
          "the qualifier '"
              + Bytes.toStringBinary(qualifier)
              + "' makes no index alias ([A-Za-z0-9_]{1,32}): give --alias");
    }
    return alias;
  }

  /** The spec of {@code create COLUMN [options]}. */
  static IndexSpec spec(String column, Args a) throws UsageException {
    TypedColumn first = typedColumn(column);
    IndexSpec.Builder b = IndexSpec.builder(first.column()[0], first.column()[1]);
    if (a.option("--alias", null) == null) b.alias(defaultAlias(first.column()[1]));
    try {
      String type = a.option("--type", null);
      if (type != null && first.type() != null) {
        throw new UsageException("give the type of " + column + " once: --type or :TYPE");
      }
      b.type(
          type == null
              ? first.typeOr(IndexSpec.ValueType.BYTES)
              : IndexSpec.ValueType.ofText(type));
      if (a.flag("--local")) b.local();
      if (a.flag("--eventual")) b.consistency(IndexSpec.Consistency.EVENTUAL);
      int layouts =
          (a.flag("--by-value") ? 1 : 0)
              + (a.flag("--by-row") ? 1 : 0)
              + (a.flag("--ordered") ? 1 : 0);
      if (layouts > 1) {
        throw new UsageException("--by-value, --by-row and --ordered exclude each other");
      }
      if (a.flag("--by-value")) b.layout(IndexSpec.Layout.BY_VALUE);
      if (a.flag("--by-row")) b.layout(IndexSpec.Layout.BY_ROW);
      if (a.flag("--ordered")) b.layout(IndexSpec.Layout.ORDERED);
      for (String[] o : a.options()) {
        switch (o[0]) {
          case "--alias" -> b.alias(o[1]);
          case "--buckets" -> b.buckets(Integer.parseInt(o[1]));
          case "--fpp" -> b.fpp(Double.parseDouble(o[1]));
          case "--type" -> {} // above: it types the first column wherever it stands
          case "--then" -> {
            TypedColumn then = typedColumn(o[1]);
            b.thenColumn(
                then.column()[0], then.column()[1], then.typeOr(IndexSpec.ValueType.BYTES));
          }
          case "--covered" -> {
            byte[][] covered = column(o[1]);
            b.covered(covered[0], covered[1]);
          }
          case "--expression" -> b.expression(IndexExpression.parse(o[1]));
          case "--where" -> b.where(WhereCondition.parse(o[1]));
          default -> throw new UsageException("unknown option " + o[0]);
        }
      }
      return b.build();
    } catch (IllegalArgumentException e) { // includes NumberFormatException
      throw new UsageException(e.getMessage());
    }
  }
}
