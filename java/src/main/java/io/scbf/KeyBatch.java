package io.scbf;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * Many keys packed for one native call: the bytes of every key back to back in one array, plus
 * {@code size()+1} offsets (key i is {@code data[offsets[i], offsets[i+1])}), which is the C batch
 * format, so a batch crosses JNI without any per-key conversion.
 *
 * <p>Reusable: {@link #clear()} keeps the arrays, so a handler thread that fills and sends a batch
 * per request allocates only while the batch grows to its working size. Not thread-safe; a batch
 * mutated during a call gives meaningless answers for that call but can never corrupt memory, since
 * the native side checks the offsets it reads.
 */
public final class KeyBatch {
  /** Largest total key bytes: offsets are 32-bit in the C format. */
  static final int MAX_BYTES = Integer.MAX_VALUE - 16;

  private byte[] data;
  private int[] offsets;
  private int size;

  /** An empty batch with room for 64 keys of 16 bytes before it grows. */
  public KeyBatch() {
    this(64, 1024);
  }

  /**
   * An empty batch sized up front.
   *
   * @param expectedKeys keys before the offsets array grows (&gt;= 0)
   * @param expectedBytes total key bytes before the data array grows (&gt;= 0)
   */
  public KeyBatch(int expectedKeys, int expectedBytes) {
    if (expectedKeys < 0
        || expectedKeys > MAX_BYTES - 1
        || expectedBytes < 0
        || expectedBytes > MAX_BYTES) {
      throw new IllegalArgumentException(
          "expectedKeys and expectedBytes must be in [0, "
              + MAX_BYTES
              + "): "
              + expectedKeys
              + ", "
              + expectedBytes);
    }
    this.data = new byte[expectedBytes];
    this.offsets = new int[expectedKeys + 1];
  }

  /** A batch holding the given keys (copied). */
  public static KeyBatch of(byte[]... keys) {
    Objects.requireNonNull(keys, "keys");
    long bytes = 0;
    for (byte[] key : keys) {
      bytes += Objects.requireNonNull(key, "keys contains null").length;
    }
    KeyBatch batch = new KeyBatch(keys.length, (int) Math.min(bytes, MAX_BYTES));
    for (byte[] key : keys) {
      batch.add(key);
    }
    return batch;
  }

  /** Appends a copy of key. */
  public KeyBatch add(byte[] key) {
    Objects.requireNonNull(key, "key");
    return add(key, 0, key.length);
  }

  /** Appends a copy of key[off, off+len). */
  public KeyBatch add(byte[] key, int off, int len) {
    Objects.requireNonNull(key, "key");
    Objects.checkFromIndexSize(off, len, key.length);
    int at = reserve(len);
    System.arraycopy(key, off, data, at, len);
    return this;
  }

  /** Appends a copy of the buffer's bytes from position to limit; the buffer is not consumed. */
  public KeyBatch add(ByteBuffer key) {
    Objects.requireNonNull(key, "key");
    int len = key.remaining();
    int at = reserve(len);
    key.get(key.position(), data, at, len);
    return this;
  }

  /** Number of keys. */
  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** Total bytes of all keys. */
  public int byteSize() {
    return offsets[size];
  }

  /** A copy of key i. */
  public byte[] key(int i) {
    Objects.checkIndex(i, size);
    return Arrays.copyOfRange(data, offsets[i], offsets[i + 1]);
  }

  /** Removes every key, keeping the arrays for reuse. */
  public KeyBatch clear() {
    size = 0;
    return this;
  }

  byte[] data() {
    return data;
  }

  int[] offsets() {
    return offsets;
  }

  /** Makes room for one more key of len bytes; returns where its bytes go. */
  private int reserve(int len) {
    int start = offsets[size];
    if (len > MAX_BYTES - start) {
      throw new IllegalStateException(
          "KeyBatch full: "
              + start
              + " + "
              + len
              + " bytes exceeds "
              + MAX_BYTES
              + "; send it and clear() it");
    }
    int end = start + len;
    if (end > data.length) {
      data = Arrays.copyOf(data, (int) Math.min(MAX_BYTES, Math.max(end, 2L * data.length + 16)));
    }
    if (size + 2 > offsets.length) {
      offsets = Arrays.copyOf(offsets, (int) Math.min(MAX_BYTES, 2L * offsets.length + 8));
    }
    offsets[size + 1] = end;
    size++;
    return start;
  }
}
