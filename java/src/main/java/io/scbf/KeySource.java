package io.scbf;

import java.util.Iterator;

/**
 * Feeds an {@link Iterator} of keys to native compaction in chunks: the glue calls {@link
 * #refill()} whenever it has consumed the current chunk, then reads {@link #data} and {@link
 * #offsets} (the {@link KeyBatch} format). Chunks keep the number of upcalls from C into Java small
 * (one per {@value #CHUNK_KEYS} keys), and a failing iterator never unwinds through C: its
 * exception is caught here, kept, and rethrown by the Java caller once C has aborted the compaction
 * cleanly.
 */
final class KeySource {
  /** Keys per chunk; the glue relies on this bound (it sizes its offset buffer with it). */
  static final int CHUNK_KEYS = NativeBridge.SOURCE_CHUNK_KEYS;

  private static final int CHUNK_BYTES = 1 << 20;

  private final Iterator<byte[]> keys;
  private final KeyBatch batch = new KeyBatch(CHUNK_KEYS, 16 * CHUNK_KEYS);
  private Throwable failure;

  /** The current chunk, read by the glue after each refill. */
  byte[] data;

  int[] offsets;

  KeySource(Iterator<byte[]> keys) {
    this.keys = keys;
  }

  /**
   * Called from native code: loads the next chunk; returns its key count, 0 at the end, -1 on
   * failure.
   */
  int refill() {
    batch.clear();
    try {
      while (batch.size() < CHUNK_KEYS && batch.byteSize() < CHUNK_BYTES && keys.hasNext()) {
        byte[] key = keys.next();
        if (key == null) {
          throw new NullPointerException("compact: the key iterator returned null");
        }
        batch.add(key);
      }
    } catch (Throwable t) {
      failure = t;
      return -1;
    }
    data = batch.data();
    offsets = batch.offsets();
    return batch.size();
  }

  /** What the iterator threw, or null. */
  Throwable failure() {
    return failure;
  }
}
