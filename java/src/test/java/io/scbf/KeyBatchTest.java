package io.scbf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class KeyBatchTest {

  @Test
  void packsKeysInTheCBatchFormat() {
    KeyBatch b = new KeyBatch(0, 0);
    assertTrue(b.isEmpty());
    b.add("ab".getBytes())
        .add("xcdx".getBytes(), 1, 2)
        .add(ByteBuffer.wrap("-ef-".getBytes(), 1, 2))
        .add(new byte[0]);
    assertEquals(4, b.size());
    assertEquals(6, b.byteSize());
    assertArrayEquals("cd".getBytes(), b.key(1));
    assertArrayEquals("ef".getBytes(), b.key(2));
    assertArrayEquals(new byte[0], b.key(3));
    assertEquals("abcdef", new String(b.data(), 0, 6));
    assertArrayEquals(new int[] {0, 2, 4, 6, 6}, java.util.Arrays.copyOf(b.offsets(), 5));
    b.clear();
    assertEquals(0, b.size());
    assertEquals(0, b.byteSize());
    b.add("z".getBytes());
    assertArrayEquals("z".getBytes(), b.key(0));
  }

  @Test
  void rejectsBadArguments() {
    KeyBatch b = new KeyBatch();
    assertThrows(NullPointerException.class, () -> b.add((byte[]) null));
    assertThrows(NullPointerException.class, () -> b.add((ByteBuffer) null));
    assertThrows(IndexOutOfBoundsException.class, () -> b.add(new byte[2], 1, 2));
    assertThrows(IndexOutOfBoundsException.class, () -> b.key(0));
    assertThrows(IllegalArgumentException.class, () -> new KeyBatch(-1, 0));
    assertThrows(NullPointerException.class, () -> KeyBatch.of((byte[][]) null));
    assertThrows(NullPointerException.class, () -> KeyBatch.of(new byte[1], null));
  }
}
