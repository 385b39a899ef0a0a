package io.scbf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loader: one load per class loader, several class loaders in one JVM (as HBase loads
 * coprocessors), and clear failures. Isolated loaders see only target/classes (the io.scbf classes
 * plus the packed .so), with the platform loader as parent.
 */
class NativeLoaderTest {
  private static final String LIBRARY = "native/linux-x86_64/libscbfjni.so";

  private static Path classes() throws Exception {
    return Path.of(MisuseStormTest.codeSource(Native.class));
  }

  @Test
  void twoClassLoadersAndTheAppLoaderAllWorkInOneJvm() throws Throwable {
    Native.load();
    String appCopy = Native.loadedFrom();
    assertNotNull(appCopy);
    assertTrue(
        Files.notExists(Path.of(appCopy)),
        "the extracted copy is unlinked once loaded: " + appCopy);
    try (IsolatedLoader a = new IsolatedLoader(classes());
        IsolatedLoader b = new IsolatedLoader(classes())) {
      String fromA = a.exercise();
      String fromB = b.exercise();
      assertNotEquals(fromA, fromB, "each loader has its own private copy");
      assertNotEquals(appCopy, fromA);
      assertEquals(fromA, a.exercise(), "loaded once per loader, then reused");
      assertTrue(a.load("io.scbf.Native") != Native.class);
    }
    try (SplitCountingBloomFilter f = SplitCountingBloomFilter.create(10, 0.1)) {
      f.add(new byte[1]);
      assertTrue(f.mightContain(new byte[1]), "the app loader still works");
    }
  }

  @Test
  void overridePathIsLoadedByTheFirstLoaderAndCopiedForTheNext() throws Throwable {
    Path so = classes().resolve(LIBRARY);
    String previous = System.setProperty(Native.PATH_PROPERTY, so.toString());
    try (IsolatedLoader a = new IsolatedLoader(classes());
        IsolatedLoader b = new IsolatedLoader(classes())) {
      assertEquals(so.toString(), a.exercise(), "the first loader loads the override itself");
      String fromB = b.exercise();
      assertNotEquals(
          so.toString(), fromB, "the JDK binds a path to one loader: the next gets a copy");
    } finally {
      restore(previous);
    }
  }

  @Test
  void badOverridePathsFailClearly(@TempDir Path dir) throws Throwable {
    // The JVM prints a stack-guard warning for this file before refusing it: expected.
    Path notALibrary = Files.writeString(dir.resolve("not-a-library.so"), "not an ELF file");
    String[][] cases = {
      {dir.resolve("missing.so").toString(), "is not an absolute path to a readable file"},
      {"relative/libscbfjni.so", "is not an absolute path to a readable file"},
      {dir.toString(), "is not an absolute path to a readable file"},
      {notALibrary.toString(), "cannot load native library " + notALibrary},
    };
    for (String[] c : cases) {
      String previous = System.setProperty(Native.PATH_PROPERTY, c[0]);
      try (IsolatedLoader loader = new IsolatedLoader(classes())) {
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, loader::exercise);
        assertTrue(e.getMessage().contains(c[1]), e.getMessage());
        assertTrue(
            e.getMessage().contains(Native.PATH_PROPERTY) || e.getMessage().contains(c[0]),
            e.getMessage());
        UnsatisfiedLinkError again = assertThrows(UnsatisfiedLinkError.class, loader::exercise);
        assertEquals(
            e.getMessage(),
            again.getMessage(),
            "a failed load is retried, not cached as a broken class");
      } finally {
        restore(previous);
      }
    }
  }

  @Test
  void missingResourceFailsClearly(@TempDir Path dir) throws Throwable {
    Path classes = classes();
    try (Stream<Path> files = Files.walk(classes.resolve("io"))) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Path target = dir.resolve(classes.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
    try (IsolatedLoader loader = new IsolatedLoader(dir)) {
      UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, loader::exercise);
      assertTrue(e.getMessage().contains("/" + LIBRARY + " not found"), e.getMessage());
      assertTrue(e.getMessage().contains(Native.PATH_PROPERTY), e.getMessage());
    }
  }

  @Test
  void unsupportedPlatformsAreNamed() {
    assertEquals("/" + LIBRARY, Native.resourcePath("Linux", "amd64"));
    assertEquals("/" + LIBRARY, Native.resourcePath("Linux", "x86_64"));
    assertEquals("/native/linux-aarch64/libscbfjni.so", Native.resourcePath("Linux", "aarch64"));
    for (String[] p :
        new String[][] {
          {"Linux", "riscv64"}, {"Mac OS X", "x86_64"}, {"Windows 11", "amd64"}, {null, null}
        }) {
      UnsatisfiedLinkError e =
          assertThrows(UnsatisfiedLinkError.class, () -> Native.resourcePath(p[0], p[1]));
      assertTrue(
          e.getMessage().contains("unsupported platform " + p[0] + "/" + p[1]), e.getMessage());
    }
  }

  @Test
  void extractionDirectoryIsConfigurable(@TempDir Path dir) throws Throwable {
    Path unusable = Files.writeString(dir.resolve("a-file"), "x").resolve("tmp");
    String previous = System.setProperty(Native.TMPDIR_PROPERTY, unusable.toString());
    try (IsolatedLoader loader = new IsolatedLoader(classes())) {
      UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, loader::exercise);
      assertTrue(e.getMessage().contains(unusable.toString()), e.getMessage());
      // A directory cleaned away under a long-running server (or by HBase's test utility,
      // which deletes the java.io.tmpdir it set) is recreated, not a failed load.
      Path cleanedAway = dir.resolve("cleaned-away/tmp");
      System.setProperty(Native.TMPDIR_PROPERTY, cleanedAway.toString());
      assertTrue(
          loader.exercise().startsWith(cleanedAway.toString()),
          "retried in the configured directory");
      try (Stream<Path> left = Files.list(cleanedAway)) {
        assertEquals(0, left.count(), "nothing left behind");
      }
    } finally {
      if (previous == null) {
        System.clearProperty(Native.TMPDIR_PROPERTY);
      } else {
        System.setProperty(Native.TMPDIR_PROPERTY, previous);
      }
    }
  }

  private static void restore(String previous) {
    if (previous == null) {
      System.clearProperty(Native.PATH_PROPERTY);
    } else {
      System.setProperty(Native.PATH_PROPERTY, previous);
    }
  }
}
