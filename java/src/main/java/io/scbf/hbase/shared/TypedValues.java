package io.scbf.hbase.shared;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Order;
import org.apache.hadoop.hbase.util.OrderedBytes;
import org.apache.hadoop.hbase.util.PositionedByteRange;
import org.apache.hadoop.hbase.util.SimplePositionedMutableByteRange;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The index forms of typed values ({@code IndexSpec.ValueType}): a column holds HBase's own {@code
 * Bytes.toBytes(...)} encoding of its type, whose unsigned byte order is not the type's order
 * (negative numbers sort after positive ones, negative doubles in reverse); the index stores
 * HBase's {@link OrderedBytes} encoding of the same value instead, whose byte order is. {@code
 * BYTES} and {@code STRING} (UTF-8, whose byte order is code point order) are stored as they are.
 *
 * <p>Floating point follows {@link Double#compare}: -0.0 sorts before (and differs from) 0.0, and
 * every NaN is one value above +Infinity. A {@code BIG_DECIMAL} is compared by value: 1.0 and 1.00
 * are the same index value (OrderedBytes' numeric encoding drops the scale).
 */
@InterfaceAudience.Private
public final class TypedValues {
  private TypedValues() {}

  /** The index form of {@code Bytes.toBytes(int)}. */
  public static byte[] int32(byte[] raw) {
    checkLength("INT", raw, Bytes.SIZEOF_INT, "Bytes.toBytes(int)");
    PositionedByteRange out = new SimplePositionedMutableByteRange(5);
    OrderedBytes.encodeInt32(out, Bytes.toInt(raw), Order.ASCENDING);
    return out.getBytes();
  }

  /** The index form of {@code Bytes.toBytes(long)}. */
  public static byte[] int64(byte[] raw) {
    checkLength("LONG", raw, Bytes.SIZEOF_LONG, "Bytes.toBytes(long)");
    PositionedByteRange out = new SimplePositionedMutableByteRange(9);
    OrderedBytes.encodeInt64(out, Bytes.toLong(raw), Order.ASCENDING);
    return out.getBytes();
  }

  /** The index form of {@code Bytes.toBytes(float)}. */
  public static byte[] float32(byte[] raw) {
    checkLength("FLOAT", raw, Bytes.SIZEOF_FLOAT, "Bytes.toBytes(float)");
    PositionedByteRange out = new SimplePositionedMutableByteRange(5);
    OrderedBytes.encodeFloat32(out, Bytes.toFloat(raw), Order.ASCENDING);
    return out.getBytes();
  }

  /** The index form of {@code Bytes.toBytes(double)}. */
  public static byte[] float64(byte[] raw) {
    checkLength("DOUBLE", raw, Bytes.SIZEOF_DOUBLE, "Bytes.toBytes(double)");
    PositionedByteRange out = new SimplePositionedMutableByteRange(9);
    OrderedBytes.encodeFloat64(out, Bytes.toDouble(raw), Order.ASCENDING);
    return out.getBytes();
  }

  /** {@code Bytes.toBytes(int)} of an {@link #int32} form. */
  public static byte[] rawInt32(byte[] form) {
    return Bytes.toBytes(OrderedBytes.decodeInt32(range(form)));
  }

  /** {@code Bytes.toBytes(long)} of an {@link #int64} form. */
  public static byte[] rawInt64(byte[] form) {
    return Bytes.toBytes(OrderedBytes.decodeInt64(range(form)));
  }

  /** {@code Bytes.toBytes(float)} of a {@link #float32} form. */
  public static byte[] rawFloat32(byte[] form) {
    return Bytes.toBytes(OrderedBytes.decodeFloat32(range(form)));
  }

  /** {@code Bytes.toBytes(double)} of a {@link #float64} form. */
  public static byte[] rawFloat64(byte[] form) {
    return Bytes.toBytes(OrderedBytes.decodeFloat64(range(form)));
  }

  /** {@code Bytes.toBytes(BigDecimal)} of a {@link #numeric} form, at its smallest scale. */
  public static byte[] rawNumeric(byte[] form) {
    return Bytes.toBytes(OrderedBytes.decodeNumericAsBigDecimal(range(form)));
  }

  private static PositionedByteRange range(byte[] bytes) {
    return new SimplePositionedMutableByteRange(bytes);
  }

  /** Longest {@code Bytes.toBytes(BigDecimal)} indexed: its scale and 1 KiB of digits. */
  static final int MAX_BIG_DECIMAL_BYTES = Bytes.SIZEOF_INT + 1024;

  /** The index form of {@code Bytes.toBytes(BigDecimal)}. */
  public static byte[] numeric(byte[] raw) {
    if (raw.length <= Bytes.SIZEOF_INT || raw.length > MAX_BIG_DECIMAL_BYTES) {
      throw new IllegalArgumentException(
          "a BIG_DECIMAL value is Bytes.toBytes(BigDecimal): a 4-byte scale and 1 to "
              + (MAX_BIG_DECIMAL_BYTES - Bytes.SIZEOF_INT)
              + " bytes of unscaled value, got "
              + raw.length
              + " bytes");
    }
    BigDecimal value = Bytes.toBigDecimal(raw);
    // Centimal digits (one byte per two decimal digits) plus a header and an exponent of at most
    // nine bytes: twice the raw length and a margin bound it.
    byte[] buffer = new byte[raw.length * 2 + 16];
    PositionedByteRange out = new SimplePositionedMutableByteRange(buffer);
    int written;
    try {
      written = OrderedBytes.encodeNumeric(out, value, Order.ASCENDING);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "BIG_DECIMAL value " + value + " cannot be ordered: " + e.getMessage(), e);
    }
    return java.util.Arrays.copyOf(buffer, written);
  }

  private static void checkLength(String type, byte[] raw, int length, String writer) {
    if (raw.length != length) {
      throw new IllegalArgumentException(
          "a "
              + type
              + " value is "
              + writer
              + ": "
              + length
              + " bytes, got "
              + raw.length
              + " bytes ("
              + Bytes.toStringBinary(raw, 0, Math.min(raw.length, 32))
              + ")");
    }
  }

  /** A {@code STRING} value as it is, once known to be UTF-8. */
  public static byte[] utf8(byte[] raw) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(raw));
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(
          "a STRING value is UTF-8 (Bytes.toBytes(String)), got bytes that are not: "
              + Bytes.toStringBinary(raw, 0, Math.min(raw.length, 32)));
    }
    return raw;
  }
}
