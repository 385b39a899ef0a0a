package io.scbf.hbase.shared;

import io.scbf.hbase.Condition;
import io.scbf.hbase.IndexSpec.ValueType;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The {@code where} field of an index spec's text form: its conditions joined by commas, each
 * {@code family:qualifier:} in hex and then its values, {@code v1[:v2...]} in hex for an IN, {@code
 * present}, or {@code range:TYPE:LO:HI} with LO {@code [hex}, {@code (hex} or {@code *} (open) and
 * HI {@code hex]}, {@code hex)} or {@code *}. The words are not hex, so they cannot be read as a
 * value, and a jar that knows IN only fails to parse them rather than misread them.
 */
@InterfaceAudience.Private
public final class WhereText {
  private static final HexFormat HEX = HexFormat.of();
  private static final String OPEN = "*";

  private WhereText() {}

  public static String encode(List<Condition> where) {
    StringBuilder sb = new StringBuilder();
    for (Condition c : where) {
      if (!sb.isEmpty()) sb.append(',');
      sb.append(HEX.formatHex(c.family())).append(':').append(HEX.formatHex(c.qualifier()));
      switch (c.kind()) {
        case IN -> c.values().forEach(v -> sb.append(':').append(HEX.formatHex(v)));
        case PRESENT -> sb.append(":present");
        case RANGE -> {
          Condition.Range r = c.range();
          sb.append(":range:").append(r.type().text()).append(':');
          sb.append(
              r.from() == null ? OPEN : (r.fromInclusive() ? "[" : "(") + HEX.formatHex(r.from()));
          sb.append(':');
          sb.append(r.to() == null ? OPEN : HEX.formatHex(r.to()) + (r.toInclusive() ? "]" : ")"));
        }
      }
    }
    return sb.toString();
  }

  /** Inverse of {@link #encode}. */
  public static List<Condition> parse(String text) {
    List<Condition> out = new ArrayList<>();
    for (String c : text.split(",", -1)) {
      String[] parts = c.split(":", -1);
      if (parts.length < 3) throw malformed(c);
      byte[] family = HEX.parseHex(parts[0]);
      byte[] qualifier = HEX.parseHex(parts[1]);
      if (parts[2].equals("present")) {
        if (parts.length != 3) throw malformed(c);
        out.add(Condition.present(family, qualifier));
      } else if (parts[2].equals("range")) {
        if (parts.length != 6) throw malformed(c);
        out.add(range(family, qualifier, ValueType.ofText(parts[3]), parts[4], parts[5], c));
      } else {
        List<byte[]> values = new ArrayList<>();
        for (int i = 2; i < parts.length; i++) values.add(HEX.parseHex(parts[i]));
        out.add(new Condition(family, qualifier, values));
      }
    }
    return out;
  }

  private static Condition range(
      byte[] family, byte[] qualifier, ValueType type, String lo, String hi, String text) {
    boolean openLo = lo.equals(OPEN);
    boolean openHi = hi.equals(OPEN);
    if ((!openLo && !(lo.startsWith("[") || lo.startsWith("(")))
        || (!openHi && !(hi.endsWith("]") || hi.endsWith(")")))) {
      throw malformed(text);
    }
    return Condition.range(
        family,
        qualifier,
        openLo ? null : HEX.parseHex(lo.substring(1)),
        lo.startsWith("["),
        openHi ? null : HEX.parseHex(hi.substring(0, hi.length() - 1)),
        hi.endsWith("]"),
        type);
  }

  private static IllegalArgumentException malformed(String condition) {
    return new IllegalArgumentException("malformed where condition " + condition);
  }
}
