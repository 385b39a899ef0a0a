package io.scbf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar as shipped (run by failsafe after `package`): it carries the JNI library, the library
 * needs nothing beyond libc/libm, the jar carries LICENSE and NOTICE, and two isolated class
 * loaders over the jar alone both work.
 */
class PackagedJarIT {
  private static final String LIBRARY = "native/linux-x86_64/libscbfjni.so";

  private static Path jar() {
    String jar = System.getProperty("scbf.test.jar");
    assertNotNull(jar, "failsafe passes scbf.test.jar");
    return Path.of(jar);
  }

  @Test
  void jarCarriesASelfContainedLibrary(@TempDir Path dir) throws Exception {
    Path so = dir.resolve("libscbfjni.so");
    try (JarFile jar = new JarFile(jar().toFile())) {
      JarEntry entry = jar.getJarEntry(LIBRARY);
      assertNotNull(entry, "jar has " + LIBRARY);
      try (InputStream in = jar.getInputStream(entry)) {
        Files.copy(in, so);
      }
    }
    Process p =
        new ProcessBuilder("readelf", "-d", so.toString()).redirectErrorStream(true).start();
    String dynamic = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), dynamic);
    TreeSet<String> needed = new TreeSet<>();
    Matcher m = Pattern.compile("\\(NEEDED\\)\\s+Shared library: \\[([^\\]]+)\\]").matcher(dynamic);
    while (m.find()) {
      needed.add(m.group(1).replaceAll("\\.so.*", ""));
    }
    // ld-linux: glibc's dynamic loader, which every process has loaded; named because the hot
    // cache's thread-local stripe uses __tls_get_addr in a shared library.
    assertTrue(
        List.of("libc", "libm", "libpthread", "ld-linux-x86-64").containsAll(needed),
        "only system libraries (xxHash and the core are linked in): " + needed);
  }

  @Test
  void jarCarriesLicenseAndNotice() throws Exception {
    try (JarFile jar = new JarFile(jar().toFile())) {
      String license = text(jar, "META-INF/LICENSE");
      assertTrue(license.contains("Apache License") && license.contains("Version 2.0"), license);
      // The native library compiles xxHash in (BSD-2-Clause): its notice ships with the binary.
      String notice = text(jar, "META-INF/NOTICE");
      assertTrue(notice.contains("xxHash") && notice.contains("Yann Collet"), notice);
    }
  }

  private static String text(JarFile jar, String name) throws Exception {
    JarEntry entry = jar.getJarEntry(name);
    assertNotNull(entry, "jar has " + name);
    try (InputStream in = jar.getInputStream(entry)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void twoClassLoadersOverTheJarBothWork() throws Throwable {
    try (IsolatedLoader a = new IsolatedLoader(jar());
        IsolatedLoader b = new IsolatedLoader(jar())) {
      String fromA = a.exercise();
      String fromB = b.exercise();
      assertNotEquals(fromA, fromB);
      assertTrue(fromA.contains("libscbfjni-"), fromA);
    }
  }
}
