package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.hadoop.hbase.util.VersionInfo;
import org.junit.jupiter.api.Test;

/**
 * The README's "Supported versions" table states what the tests run on: this fails when the build
 * moves to another HBase, JDK or platform without the statement following (or the reverse).
 */
class CompatibilityTest {
  static String supported(String component) throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    int from = readme.indexOf("<!-- compatibility:begin");
    int to = readme.indexOf("<!-- compatibility:end -->");
    assertTrue(from >= 0 && to > from, "README.md lacks the compatibility table");
    for (String line : readme.substring(from, to).split("\n")) {
      String[] cells = line.split("\\|");
      if (cells.length > 2 && cells[1].trim().equals(component)) return cells[2].trim();
    }
    throw new AssertionError("README's compatibility table has no row '" + component + "'");
  }

  @Test
  void theHBaseTheTestsRunOnIsTheSupportedOne() throws Exception {
    String runtime = VersionInfo.getVersion(); // e.g. 2.6.1-hadoop3
    String stated = supported("HBase");
    assertTrue(
        runtime.startsWith(stated + "-") || runtime.equals(stated), runtime + " vs " + stated);
  }

  @Test
  void theJdkTheTestsRunOnIsTheSupportedOne() throws Exception {
    assertTrue(
        supported("JDK").equals(String.valueOf(Runtime.version().feature())),
        "JDK " + Runtime.version() + " vs " + supported("JDK"));
  }

  @Test
  void thePlatformTheTestsRunOnIsTheSupportedOne() throws Exception {
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    String platform =
        System.getProperty("os.name").toLowerCase(Locale.ROOT)
            + "-"
            + (arch.equals("amd64") ? "x86_64" : arch);
    assertTrue(
        supported("OS / architecture").equals(platform),
        platform + " vs " + supported("OS / architecture"));
  }
}
