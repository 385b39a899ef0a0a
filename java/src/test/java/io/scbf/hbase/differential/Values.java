package io.scbf.hbase.differential;

import io.scbf.hbase.IndexSpec.ValueType;
import java.math.BigDecimal;
import java.util.Comparator;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Values as readable tokens ({@code "L:-5"}, {@code "D:NaN"}, {@code "BD:1.00"}, {@code "S:ä"},
 * {@code "B:v1"}), so a printed sequence can be pasted back; and the oracle's own comparison of
 * values in a type's order, written from the user guide's rules rather than from the product's
 * code.
 */
final class Values {
  private Values() {}

  /** A NaN whose bits are not {@link Double#NaN}'s: the user guide says every NaN is one value. */
  static final double OTHER_NAN = Double.longBitsToDouble(0x7ff8000000000001L);

  static byte[] bytes(String token) {
    int colon = token.indexOf(':');
    String kind = token.substring(0, colon);
    String text = token.substring(colon + 1);
    return switch (kind) {
      case "B", "S" -> Bytes.toBytes(text);
      case "L" -> Bytes.toBytes(Long.parseLong(text));
      case "D" -> Bytes.toBytes(text.equals("NaN2") ? OTHER_NAN : Double.parseDouble(text));
      case "BD" -> Bytes.toBytes(new BigDecimal(text));
      default -> throw new IllegalArgumentException(token);
    };
  }

  /** Compares two raw values in {@code type}'s order (user guide, "Typed values"). */
  static int compare(ValueType type, byte[] a, byte[] b) {
    return comparator(type).compare(a, b);
  }

  static Comparator<byte[]> comparator(ValueType type) {
    return switch (type) {
      case LONG -> Comparator.comparingLong(Bytes::toLong);
      case DOUBLE -> (a, b) -> Double.compare(Bytes.toDouble(a), Bytes.toDouble(b));
      case BIG_DECIMAL -> Comparator.comparing(Bytes::toBigDecimal);
      default -> Bytes.BYTES_COMPARATOR; // UTF-8 byte order is code point order
    };
  }

  /** One text per value as the type sees it: 1.0 and 1.00 alike, every NaN alike. */
  static String canonical(ValueType type, byte[] raw) {
    if (raw == null) return "null";
    return switch (type) {
      case LONG -> Long.toString(Bytes.toLong(raw));
      case DOUBLE -> Double.toString(Bytes.toDouble(raw));
      case BIG_DECIMAL -> {
        BigDecimal d = Bytes.toBigDecimal(raw);
        yield d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
      }
      default -> Bytes.toStringBinary(raw);
    };
  }
}
