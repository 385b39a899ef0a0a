package io.scbf.hbase.shared;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The indexed value of a composite index: {@code esc(v1)|esc(v2)|...|esc(vn)}, each column's value
 * escaped and terminated as {@link IndexKeyCodec} escapes a value. Index rows, filters, routing and
 * ranges treat it as one value; the escaping makes its byte order the order of the tuples (column
 * by column, each unsigned-lexicographic) and no encoded tuple a prefix of a longer one, so:
 *
 * <ul>
 *   <li>equality on every column is a point query on {@link #encode} of the values;
 *   <li>equality on the first k columns is the range [{@code P}, {@link #end}(P)) with {@code P =
 *       encode(v1..vk)};
 *   <li>equality on the first k columns and {@code lo <= v(k+1) < hi} is the range [{@code P |
 *       open(lo)}, {@code P | open(hi)}) ({@link #bounds}).
 * </ul>
 */
@InterfaceAudience.Private
public final class CompositeValue {
  private CompositeValue() {}

  /** The encoded tuple (each value non-null). */
  public static byte[] encode(List<byte[]> values) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] v : values) IndexKeyCodec.escape(out, v);
    return out.toByteArray();
  }

  /** The column values of an encoded tuple. */
  public static List<byte[]> decode(byte[] encoded) {
    List<byte[]> values = new ArrayList<>();
    int pos = 0;
    while (pos < encoded.length) {
      ByteArrayOutputStream v = new ByteArrayOutputStream();
      pos = IndexKeyCodec.unescape(encoded, pos, v);
      values.add(v.toByteArray());
    }
    return values;
  }

  /**
   * The bounds [lo, hi) of the encoded tuples whose first {@code equal.size()} columns equal {@code
   * equal} and whose next column lies in [lo, hi) (a null bound is open on that side; both null:
   * every tuple starting with {@code equal}). A null result bound is unbounded.
   */
  public static byte[][] bounds(List<byte[]> equal, byte[] lo, byte[] hi) {
    byte[] prefix = encode(equal);
    byte[] start = lo == null ? prefix : Bytes.add(prefix, open(lo));
    byte[] stop = hi == null ? end(prefix) : Bytes.add(prefix, open(hi));
    return new byte[][] {start.length == 0 ? null : start, stop};
  }

  /** The smallest encoding above every tuple starting with {@code prefix}; null if none is. */
  private static byte[] end(byte[] prefix) {
    if (prefix.length == 0) return null;
    byte[] next = IndexKeyCodec.prefixSuccessor(prefix);
    return next.length == 0 ? null : next;
  }

  /**
   * A value escaped without its terminator: below the encoding of the value itself and of every
   * longer value, above that of every smaller value.
   */
  private static byte[] open(byte[] value) {
    byte[] closed = encode(List.of(value));
    return Arrays.copyOf(closed, closed.length - 2);
  }
}
