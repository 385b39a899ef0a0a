package io.scbf.mapreduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.scbf.mapreduce.BuildOptions.Mode;
import io.scbf.mapreduce.BuildOptions.UsageException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BuildOptionsTest {
  @Test
  void defaultsBuildEveryIndexWithHFiles() throws Exception {
    BuildOptions o = BuildOptions.parse("ns:people");
    assertEquals(
        new BuildOptions(
            "ns:people",
            Optional.empty(),
            Mode.HFILES,
            Optional.empty(),
            BuildOptions.DEFAULT_ROUTING_TIMEOUT_MS),
        o);
  }

  @Test
  void optionsInAnyOrder() throws Exception {
    BuildOptions o =
        BuildOptions.parse("--mode", "puts", "people", "--index", "city", "--routing-timeout", "5");
    assertEquals(
        new BuildOptions("people", Optional.of("city"), Mode.PUTS, Optional.empty(), 5000), o);
    assertEquals(
        Optional.of("/tmp/out"), BuildOptions.parse("people", "--output", "/tmp/out").output());
  }

  @Test
  void badCommandLinesSayWhatIsWrong() {
    assertMessage("no table given");
    assertMessage("no table given", "--index", "city");
    assertMessage("more than one table given: a, b", "a", "b");
    assertMessage("unknown option --indx", "people", "--indx", "city");
    assertMessage("--index needs a value", "people", "--index");
    assertMessage("--index needs a value", "people", "--index", "--mode", "puts");
    assertMessage("--mode must be hfiles or puts, got 'HFILES'", "people", "--mode", "HFILES");
    assertMessage(
        "--routing-timeout must be a whole number of seconds >= 0, got '-1'",
        "people",
        "--routing-timeout",
        "-1");
    assertMessage(
        "--output only applies to --mode hfiles", "people", "--mode", "puts", "--output", "x");
  }

  private static void assertMessage(String message, String... args) {
    assertEquals(
        message, assertThrows(UsageException.class, () -> BuildOptions.parse(args)).getMessage());
  }
}
