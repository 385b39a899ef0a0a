package io.scbf.mapreduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** VerifyIndexTool refuses a command line it cannot run before it connects to anything. */
class VerifyIndexToolArgsTest {
  private static String refused(String... args) throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    VerifyIndexTool tool =
        new VerifyIndexTool(
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(2, tool.run(args));
    String text = err.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("usage: VerifyIndexTool"), text);
    return text.lines().findFirst().orElseThrow();
  }

  @Test
  void badCommandLinesSayWhatIsWrong() throws Exception {
    assertEquals("error: no table given", refused());
    assertEquals("error: no table given", refused("--repair"));
    assertEquals("error: unknown option --repar", refused("people", "--repar"));
    assertEquals("error: unknown option --ind", refused("people", "--ind", "city"));
    assertEquals("error: --index needs a value", refused("people", "--index"));
    assertEquals("error: unexpected argument other", refused("people", "other"));
  }
}
