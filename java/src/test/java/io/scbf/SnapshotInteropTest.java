package io.scbf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/**
 * Cross-language snapshots, the Java half of test/test_java_interop.c. The golden files in
 * src/test/resources/io/scbf/interop/ were written by that C test from a fixed recipe, which is
 * repeated here: Java must write exactly the same bytes (so C reads what Java writes, as the C test
 * checks on the same files) and read the C-written bytes with the same answers as a filter built in
 * Java.
 */
class SnapshotInteropTest {
  private static final int QUERIES = 4000;

  /** The recipe's keys: "key-i" in ASCII, and "hot" for i = -1. */
  private static byte[] key(int i) {
    return i < 0 ? "hot".getBytes() : Keys.named("key-", i);
  }

  private static byte[] golden(String name) throws IOException {
    try (InputStream in = SnapshotInteropTest.class.getResourceAsStream("interop/" + name)) {
      assertNotNull(in, name);
      return in.readAllBytes();
    }
  }

  @Test
  void splitCountingBloomFilter() throws IOException {
    byte[] cWritten = golden("scbf-v1.snap");
    try (SplitCountingBloomFilter f = SplitCountingBloomFilter.create(1000, 0.01)) {
      for (int i = 0; i < 1500; i++) {
        f.add(key(i));
      }
      for (int i = 0; i < 20; i++) {
        f.add(key(-1));
      }
      for (int i = 0; i < 500; i++) {
        assertTrue(f.remove(key(i)));
      }
      assertArrayEquals(cWritten, f.toByteArray(), "Java writes the bytes C writes");
      try (SplitCountingBloomFilter fromC = SplitCountingBloomFilter.fromByteArray(cWritten)) {
        assertEquals(f.stats(), fromC.stats());
        int positives = 0;
        for (int i = -1; i < QUERIES; i++) {
          assertEquals(f.mightContain(key(i)), fromC.mightContain(key(i)), "key " + i);
          positives += fromC.mightContain(key(i)) ? 1 : 0;
        }
        for (int i = 500; i < 1500; i++) {
          assertTrue(fromC.mightContain(key(i)));
        }
        assertTrue(fromC.mightContain(key(-1)));
        assertTrue(positives < 1001 + 0.03 * QUERIES, "mostly the live keys: " + positives);
      }
    }
  }

  @Test
  void scalableSplitCountingBloomFilter() throws IOException {
    byte[] cWritten = golden("sscbf-v1.snap");
    try (ScalableSplitCountingBloomFilter s = ScalableSplitCountingBloomFilter.create(200, 0.01)) {
      for (int i = 0; i < 3000; i++) {
        s.add(key(i));
      }
      for (int i = 0; i < 1000; i++) {
        assertTrue(s.remove(key(i)));
      }
      assertArrayEquals(cWritten, s.toByteArray(), "Java writes the bytes C writes");
      try (ScalableSplitCountingBloomFilter fromC =
          ScalableSplitCountingBloomFilter.fromByteArray(cWritten)) {
        assertEquals(s.stats(), fromC.stats());
        assertTrue(fromC.stats().filters() > 1, "the recipe makes the filter grow");
        for (int i = 0; i < QUERIES; i++) {
          assertEquals(s.mightContain(key(i)), fromC.mightContain(key(i)), "key " + i);
        }
        for (int i = 1000; i < 3000; i++) {
          assertTrue(fromC.mightContain(key(i)));
        }
      }
    }
  }
}
