package io.scbf.hbase.shared;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Index row keys: {@code salt | esc(alias) | esc(value) | userRowKey}.
 *
 * <p>{@code esc} is an order-preserving, self-delimiting byte escape: 0x00 becomes 0x00 0xFF and
 * the string ends with 0x00 0x00. So for byte strings compared unsigned-lexicographically, a &lt; b
 * iff esc(a) &lt; esc(b), and no encoded value is a prefix of another. Hence
 *
 * <ul>
 *   <li>all index rows of one value in a bucket share the prefix {@code
 *       bucket|esc(alias)|esc(value)} and no other value's rows do (an exact prefix scan), and
 *   <li>the rows of values in [lo, hi) form one contiguous key range per bucket.
 * </ul>
 *
 * The salt byte depends on the index's layout ({@link IndexPlacement}). {@code BY_ROW}: the bucket,
 * a stable hash of the user row key modulo the bucket count, so one data row's index rows always
 * live in the same bucket and the buckets fill evenly. {@code BY_VALUE}: the slot, a hash of the
 * filter key modulo 256, so all rows of one value are one contiguous key range and the values
 * spread evenly over the key space (increasing values do not all land in the last region).
 *
 * <p>The filter key of an index row, {@code esc(alias)|esc(value)}, is the row key without the
 * bucket and the user row key: the same bytes at the index region (filter maintenance) and at the
 * master (routing).
 */
@InterfaceAudience.Private
public final class IndexKeyCodec {
  private IndexKeyCodec() {}

  /** Slots of a {@code BY_VALUE} index: one salt byte. */
  public static final int SLOTS = 256;

  /** Bucket of a user row: FNV-1a 64 with a final avalanche, modulo the bucket count. */
  public static int bucket(byte[] userRow, int buckets) {
    return (int) Long.remainderUnsigned(hash(userRow, 0, userRow.length), buckets);
  }

  /** Slot of a value in a {@code BY_VALUE} index, from its filter key {@code key[from, to)}. */
  public static int slot(byte[] key, int from, int to) {
    return (int) (hash(key, from, to) & (SLOTS - 1));
  }

  private static long hash(byte[] bytes, int from, int to) {
    long h = 0xcbf29ce484222325L;
    for (int i = from; i < to; i++) {
      h ^= (bytes[i] & 0xff);
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    return h;
  }

  /** Split keys pre-splitting an index table into one region per bucket: {1}, {2}, ... {B-1}. */
  public static byte[][] splitKeys(int buckets) {
    byte[][] keys = new byte[buckets - 1][];
    for (int b = 1; b < buckets; b++) keys[b - 1] = new byte[] {(byte) b};
    return keys;
  }

  /**
   * Split keys of a {@code BY_VALUE} index table starting with {@code regions} regions: the slots
   * divided evenly, {S*1/R}, ..., {S*(R-1)/R}.
   */
  public static byte[][] slotSplitKeys(int regions) {
    byte[][] keys = new byte[regions - 1][];
    for (int r = 1; r < regions; r++) keys[r - 1] = new byte[] {(byte) (SLOTS * r / regions)};
    return keys;
  }

  /**
   * Bucket served by the region starting at {@code startKey} (the first region has an empty one).
   */
  public static int bucketOfRegion(byte[] startKey) {
    return startKey.length == 0 ? 0 : startKey[0] & 0xff;
  }

  static void escape(ByteArrayOutputStream out, byte[] s) {
    for (byte b : s) {
      out.write(b);
      if (b == 0) out.write(0xff);
    }
    out.write(0);
    out.write(0);
  }

  /** esc(alias)|esc(value): the key of the bucket filters. */
  public static byte[] filterKey(byte[] alias, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(alias.length + value.length + 6);
    escape(out, alias);
    escape(out, value);
    return out.toByteArray();
  }

  /** bucket|esc(alias)|esc(value): all index rows of one value in one bucket start with it. */
  public static byte[] valuePrefix(int bucket, byte[] alias, byte[] value) {
    return prefix(bucket, filterKey(alias, value));
  }

  /**
   * slot|esc(alias)|esc(value): all index rows of one value in a {@code BY_VALUE} index start with
   * it (the filter key built once, for both the slot and the prefix).
   */
  public static byte[] slotPrefix(byte[] alias, byte[] value) {
    byte[] filterKey = filterKey(alias, value);
    return prefix(slot(filterKey, 0, filterKey.length), filterKey);
  }

  private static byte[] prefix(int salt, byte[] filterKey) {
    byte[] prefix = new byte[filterKey.length + 1];
    prefix[0] = (byte) salt;
    System.arraycopy(filterKey, 0, prefix, 1, filterKey.length);
    return prefix;
  }

  /** bucket|esc(alias): all index rows of an alias in one bucket start with it. */
  public static byte[] aliasPrefix(int bucket, byte[] alias) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(alias.length + 4);
    out.write(bucket);
    escape(out, alias);
    return out.toByteArray();
  }

  /** HBase's row key limit (Short.MAX_VALUE), which bounds indexed value sizes. */
  public static final int MAX_ROW_KEY_LENGTH = Short.MAX_VALUE;

  /** Length of {@link #rowKey} without building it. */
  public static int rowKeyLength(byte[] alias, byte[] value, byte[] userRow) {
    return 1 + escapedLength(alias) + escapedLength(value) + userRow.length;
  }

  static int escapedLength(byte[] s) {
    int n = s.length + 2;
    for (byte b : s) {
      if (b == 0) n++;
    }
    return n;
  }

  /**
   * {@code lo <= value < hi} in unsigned byte order, a null bound being unbounded: the value test
   * of every range query, matching the key range the escaping maps it to.
   */
  public static boolean inRange(byte[] value, byte[] lo, byte[] hi) {
    return (lo == null || Bytes.compareTo(value, lo) >= 0)
        && (hi == null || Bytes.compareTo(value, hi) < 0);
  }

  public static byte[] rowKey(int bucket, byte[] alias, byte[] value, byte[] userRow) {
    byte[] prefix = valuePrefix(bucket, alias, value);
    byte[] key = Arrays.copyOf(prefix, prefix.length + userRow.length);
    System.arraycopy(userRow, 0, key, prefix.length, userRow.length);
    return key;
  }

  /** Scan bounds [start, stop) of the index rows with lo &lt;= value &lt; hi (null = unbounded). */
  public static byte[][] rangeBounds(int bucket, byte[] alias, byte[] lo, byte[] hi) {
    byte[] aliasPrefix = aliasPrefix(bucket, alias);
    byte[] start = lo == null ? aliasPrefix : valuePrefix(bucket, alias, lo);
    byte[] stop = hi == null ? prefixSuccessor(aliasPrefix) : valuePrefix(bucket, alias, hi);
    return new byte[][] {start, stop};
  }

  /** The greater of two start keys. */
  public static byte[] maxStart(byte[] a, byte[] b) {
    return Bytes.compareTo(a, b) >= 0 ? a : b;
  }

  /** The smaller of two end keys, an empty one being the end of the table. */
  public static byte[] minEnd(byte[] a, byte[] b) {
    if (a.length == 0) return b;
    if (b.length == 0) return a;
    return Bytes.compareTo(a, b) <= 0 ? a : b;
  }

  /** Smallest key greater than every key starting with {@code prefix} (empty = end of table). */
  public static byte[] prefixSuccessor(byte[] prefix) {
    int i = prefix.length - 1;
    while (i >= 0 && prefix[i] == (byte) 0xff) i--;
    if (i < 0) return new byte[0];
    byte[] next = Arrays.copyOf(prefix, i + 1);
    next[i]++;
    return next;
  }

  /** A parsed index row key; offsets point into the original key. */
  public record Parsed(int bucket, byte[] alias, byte[] value, byte[] userRow, int filterKeyEnd) {}

  /**
   * Parses an index row key. The filter key is {@code key[1, filterKeyEnd)}.
   *
   * @throws IllegalArgumentException if the key is not an index row key
   */
  public static Parsed parse(byte[] key) {
    if (key.length < 5) throw new IllegalArgumentException("index row key too short");
    ByteArrayOutputStream alias = new ByteArrayOutputStream();
    int pos = unescape(key, 1, alias);
    ByteArrayOutputStream value = new ByteArrayOutputStream();
    int end = unescape(key, pos, value);
    return new Parsed(
        key[0] & 0xff,
        alias.toByteArray(),
        value.toByteArray(),
        Arrays.copyOfRange(key, end, key.length),
        end);
  }

  /**
   * The value of an index row key, unescaped, without parsing the rest: what a range answer sends
   * with each entry, so it avoids {@link #parse}'s buffers.
   */
  public static byte[] valueOfKey(byte[] key) {
    int from = skipEscaped(key, 1);
    int end = skipEscaped(key, from); // past the value's 0x00 0x00 terminator
    int escapes = 0;
    for (int i = from; i < end - 2; i++) {
      if (key[i] == 0) {
        escapes++;
        i++;
      }
    }
    byte[] value = new byte[end - 2 - from - escapes];
    int n = 0;
    for (int i = from; i < end - 2; i++) {
      value[n++] = key[i];
      if (key[i] == 0) i++; // skip the 0xFF escape
    }
    return value;
  }

  /** The filter key of an index row key (a copy of its slice [1, {@link #filterKeyEnd})). */
  public static byte[] filterKeyOf(byte[] key) {
    return Arrays.copyOfRange(key, 1, filterKeyEnd(key));
  }

  /** End (exclusive) of the filter key of an index row key, without copying anything. */
  public static int filterKeyEnd(byte[] key) {
    return skipEscaped(key, skipEscaped(key, 1));
  }

  private static int skipEscaped(byte[] key, int pos) {
    while (pos + 1 < key.length) {
      if (key[pos] == 0) {
        if (key[pos + 1] == 0) return pos + 2;
        if (key[pos + 1] != (byte) 0xff) break;
        pos += 2;
      } else {
        pos++;
      }
    }
    throw new IllegalArgumentException("malformed index row key: unterminated escaped field");
  }

  static int unescape(byte[] key, int pos, ByteArrayOutputStream out) {
    int end = skipEscaped(key, pos);
    for (int i = pos; i < end - 2; i++) {
      out.write(key[i]);
      if (key[i] == 0) i++; // skip the 0xFF escape
    }
    return end;
  }
}
