package io.scbf.hbase.shared;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The value of an index row's single cell: the latest values of the index's covered columns, in
 * spec order, each as {@code present(1 byte) [length(4 bytes) bytes]}. Empty for an index that
 * covers nothing. One cell per index row means a rewrite replaces all covered values at once.
 */
@InterfaceAudience.Private
public final class CoveredValues {
  private CoveredValues() {}

  /**
   * @param values one entry per covered column, null where the column is absent
   */
  public static byte[] encode(List<byte[]> values) {
    int size = 0;
    for (byte[] v : values) size += 1 + (v == null ? 0 : 4 + v.length);
    ByteBuffer buf = ByteBuffer.allocate(size);
    for (byte[] v : values) {
      if (v == null) {
        buf.put((byte) 0);
      } else {
        buf.put((byte) 1).putInt(v.length).put(v);
      }
    }
    return buf.array();
  }

  /** Inverse of {@link #encode}; entries are null for absent columns. */
  public static List<byte[]> decode(byte[] encoded) {
    List<byte[]> values = new ArrayList<>();
    ByteBuffer buf = ByteBuffer.wrap(encoded);
    try {
      while (buf.hasRemaining()) {
        if (buf.get() == 0) {
          values.add(null);
        } else {
          byte[] v = new byte[buf.getInt()];
          buf.get(v);
          values.add(v);
        }
      }
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("malformed covered values", e);
    }
    return values;
  }
}
