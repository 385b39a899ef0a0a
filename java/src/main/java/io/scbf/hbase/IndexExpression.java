package io.scbf.hbase;

import io.scbf.hbase.shared.JsonFields;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * What an expression index ({@link IndexSpec.Builder#expression}) indexes instead of its column's
 * bytes: one of a fixed library of deterministic functions of the column's value, or a chain of
 * them ({@link #then}), evaluated in the region servers (no user code runs there). A value the
 * expression cannot compute (text that is not UTF-8, a JSON document that is malformed or lacks the
 * path, a number of the wrong size) leaves the row unindexed; the write itself never fails.
 *
 * <ul>
 *   <li>{@link #lower()}, {@link #upper()}: the UTF-8 text in lower or upper case ({@link
 *       Locale#ROOT}): {@code Alice@Example.COM} is indexed as {@code alice@example.com}.
 *   <li>{@link #prefix(int)}: the first {@code chars} characters (code points, not bytes) of the
 *       text, all of it if shorter.
 *   <li>{@link #reverse()}: the text's characters in reverse order: a suffix query becomes a prefix
 *       one ({@code reverse().then(prefix(4))} indexes the reversed last 4 characters).
 *   <li>{@link #jsonPath(String)}: one scalar field of a JSON document ({@code $.user.email},
 *       {@code $.tags[0]}) as UTF-8 text (a number as written, a boolean as {@code true}/{@code
 *       false}); only as the first function of a chain.
 *   <li>{@link #truncate(long)}: a {@code Bytes.toBytes(long)} (a timestamp in milliseconds, a
 *       number) rounded down to a multiple of {@code unit}: {@code truncate(3_600_000)} is the
 *       hour. Alone only; index it with {@link IndexSpec.ValueType#LONG} for ranges in numeric
 *       order.
 * </ul>
 *
 * <p>A query names the index's alias and gives the expression's value ({@code
 * IndexedTable.find("email_lc", Bytes.toBytes("alice@example.com"))}). Immutable; its {@link
 * #text()} form ({@code lower,prefix(3)}) is stored in the index spec and read by {@link
 * #parse(String)}.
 */
@InterfaceAudience.Public
public final class IndexExpression {
  /** Functions in one chain, at most. */
  public static final int MAX_STEPS = 8;

  /** Largest {@link #prefix(int)}: an index key holds the value, and HBase limits keys. */
  public static final int MAX_PREFIX = 4096;

  private static final Pattern STEP = Pattern.compile("([a-z]+)(?:\\((.*)\\))?");

  private enum Kind {
    LOWER,
    UPPER,
    PREFIX,
    REVERSE,
    JSON,
    TRUNCATE
  }

  private record Step(Kind kind, long n, String path, List<Object> segments) {
    String text() {
      return switch (kind) {
        case PREFIX, TRUNCATE -> kind.name().toLowerCase(Locale.ROOT) + "(" + n + ")";
        case JSON -> "json(" + path + ")";
        default -> kind.name().toLowerCase(Locale.ROOT);
      };
    }
  }

  private final List<Step> steps;
  private final String text;

  private IndexExpression(List<Step> steps) {
    if (steps.size() > MAX_STEPS) {
      throw new IllegalArgumentException(
          "an index expression chains at most " + MAX_STEPS + " functions");
    }
    for (int i = 0; i < steps.size(); i++) {
      Kind k = steps.get(i).kind();
      if (k == Kind.JSON && i > 0) {
        throw new IllegalArgumentException(
            "jsonPath reads a JSON document: it can only be the first function of an expression");
      }
      if (k == Kind.TRUNCATE && steps.size() > 1) {
        throw new IllegalArgumentException(
            "truncate works on a Bytes.toBytes(long) value: it cannot be chained with the text"
                + " functions");
      }
    }
    this.steps = List.copyOf(steps);
    StringBuilder sb = new StringBuilder();
    for (Step s : steps) sb.append(sb.length() > 0 ? "," : "").append(s.text());
    this.text = sb.toString();
  }

  private static IndexExpression of(Kind kind) {
    return new IndexExpression(List.of(new Step(kind, 0, null, null)));
  }

  /** The UTF-8 text in lower case ({@link Locale#ROOT}). */
  public static IndexExpression lower() {
    return of(Kind.LOWER);
  }

  /** The UTF-8 text in upper case ({@link Locale#ROOT}). */
  public static IndexExpression upper() {
    return of(Kind.UPPER);
  }

  /** The first {@code chars} characters of the UTF-8 text (all of it if shorter). */
  public static IndexExpression prefix(int chars) {
    if (chars < 1 || chars > MAX_PREFIX) {
      throw new IllegalArgumentException(
          "prefix takes 1.." + MAX_PREFIX + " characters, got " + chars);
    }
    return new IndexExpression(List.of(new Step(Kind.PREFIX, chars, null, null)));
  }

  /** The UTF-8 text's characters in reverse order. */
  public static IndexExpression reverse() {
    return of(Kind.REVERSE);
  }

  /**
   * The scalar at {@code path} of the JSON document in the column: {@code $} then names ({@code
   * .name}, letters, digits, {@code _} and {@code -}) and array positions ({@code [0]}).
   */
  public static IndexExpression jsonPath(String path) {
    return new IndexExpression(List.of(new Step(Kind.JSON, 0, path, JsonFields.parsePath(path))));
  }

  /**
   * A {@code Bytes.toBytes(long)} rounded down (towards negative infinity) to a multiple of unit.
   * The lowest bucket, whose multiple is below {@code Long.MIN_VALUE} unless unit divides 2^63, is
   * cut short there as the highest is at {@code Long.MAX_VALUE}: its values truncate to {@code
   * Long.MIN_VALUE}.
   */
  public static IndexExpression truncate(long unit) {
    if (unit < 1) throw new IllegalArgumentException("truncate needs a unit >= 1, got " + unit);
    return new IndexExpression(List.of(new Step(Kind.TRUNCATE, unit, null, null)));
  }

  /** This expression, then {@code next} on its result: {@code lower().then(prefix(3))}. */
  public IndexExpression then(IndexExpression next) {
    if (next == null) throw new IllegalArgumentException("next must not be null");
    List<Step> all = new ArrayList<>(steps);
    all.addAll(next.steps);
    return new IndexExpression(all);
  }

  /** True if the result is a {@code Bytes.toBytes(long)} ({@link #truncate}); else UTF-8 text. */
  public boolean producesLong() {
    return steps.get(0).kind() == Kind.TRUNCATE;
  }

  /**
   * The expression's value of a column value, as {@code Bytes.toBytes} writes it; null if it has
   * none (the row is not indexed).
   */
  public byte[] apply(byte[] raw) {
    if (raw == null) return null;
    if (producesLong()) {
      if (raw.length != Long.BYTES) return null;
      long v = ByteBuffer.wrap(raw).getLong();
      long below = Math.floorMod(v, steps.get(0).n());
      // The lowest bucket's multiple may lie below Long.MIN_VALUE: subtracting would wrap it to the
      // top of the range, out of numeric order.
      long truncated = v < Long.MIN_VALUE + below ? Long.MIN_VALUE : v - below;
      return ByteBuffer.allocate(Long.BYTES).putLong(truncated).array();
    }
    String s = utf8(raw);
    for (Step step : steps) {
      if (s == null) return null;
      s =
          switch (step.kind()) {
            case LOWER -> s.toLowerCase(Locale.ROOT);
            case UPPER -> s.toUpperCase(Locale.ROOT);
            case PREFIX ->
                s.substring(
                    0,
                    s.offsetByCodePoints(
                        0, (int) Math.min(step.n(), s.codePointCount(0, s.length()))));
            case REVERSE -> new StringBuilder(s).reverse().toString();
            case JSON -> JsonFields.scalar(s, step.segments());
            case TRUNCATE -> throw new IllegalStateException("truncate is never chained");
          };
    }
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  /** Strict UTF-8: bytes that are not text have no text value. */
  private static String utf8(byte[] raw) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(raw))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /** The stored form: the functions, comma-separated ({@code lower,prefix(3)}). */
  public String text() {
    return text;
  }

  /**
   * Inverse of {@link #text()}: {@code lower}, {@code upper}, {@code reverse}, {@code prefix(N)},
   * {@code json($.path)}, {@code truncate(N)}, comma-separated.
   *
   * @throws IllegalArgumentException naming the function or path that is not one
   */
  public static IndexExpression parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("an index expression must name a function");
    }
    IndexExpression out = null;
    for (String part : text.split(",", -1)) {
      IndexExpression step = parseStep(part.trim());
      out = out == null ? step : out.then(step);
    }
    return out;
  }

  private static IndexExpression parseStep(String s) {
    Matcher m = STEP.matcher(s);
    if (!m.matches()) throw unknown(s);
    String name = m.group(1);
    String arg = m.group(2);
    if (arg == null || arg.isBlank()) { // lower and lower() alike
      switch (name) {
        case "lower":
          return lower();
        case "upper":
          return upper();
        case "reverse":
          return reverse();
        default:
          throw unknown(s);
      }
    }
    try {
      switch (name) {
        case "prefix":
          return prefix(Integer.parseInt(arg.trim()));
        case "truncate":
          return truncate(Long.parseLong(arg.trim()));
        case "json":
        case "jsonpath":
          return jsonPath(arg.trim());
        default:
          throw unknown(s);
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("index function '" + s + "' needs a whole number", e);
    }
  }

  private static IllegalArgumentException unknown(String s) {
    return new IllegalArgumentException(
        "unknown index function '"
            + s
            + "' (lower, upper, reverse, prefix(N), json($.path), truncate(N))");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IndexExpression e && text.equals(e.text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  @Override
  public String toString() {
    return text;
  }
}
