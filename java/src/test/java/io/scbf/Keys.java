package io.scbf;

import java.nio.charset.StandardCharsets;

/** Key material shared by the tests. */
final class Keys {
  private Keys() {}

  /** "key-i" in ASCII: the recipe key format also used by the C interop test. */
  static byte[] named(String prefix, long i) {
    return (prefix + i).getBytes(StandardCharsets.US_ASCII);
  }

  /** 8 little-endian bytes of v. */
  static byte[] of(long v) {
    byte[] k = new byte[8];
    for (int i = 0; i < 8; i++) {
      k[i] = (byte) (v >>> (8 * i));
    }
    return k;
  }
}
