package io.scbf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs {@link MisuseStorm} in a separate JVM (a crash there must not take the test JVM down, and
 * must be visible as an exit code) with {@code -Xcheck:jni}, which also reports any misuse of JNI
 * by the glue itself.
 */
class MisuseStormTest {

  @Test
  void forkedJvmSurvivesEveryMisuseAndEachThrows() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classPath =
        codeSource(Native.class) + File.pathSeparator + codeSource(MisuseStorm.class);
    // Apart, not merged: the Cleaner's warnings (stderr) once cut the summary line (stdout) in two.
    Path errors = Files.createTempFile("scbf-misuse-", ".stderr");
    Process p =
        new ProcessBuilder(
                List.of(
                    java,
                    "-Xcheck:jni",
                    "-Xmx512m",
                    "-XX:-CreateCoredumpOnCrash",
                    "-XX:ErrorFile="
                        + System.getProperty("java.io.tmpdir")
                        + "/scbf-misuse-hs_err_%p.log",
                    "-cp",
                    classPath,
                    MisuseStorm.class.getName()))
            .redirectError(errors.toFile())
            .start();
    byte[] out = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(5, TimeUnit.MINUTES), "misuse storm timed out");
    String output = new String(out, StandardCharsets.UTF_8);
    String stderr = Files.readString(errors);
    Files.delete(errors);
    assertEquals(0, p.exitValue(), output + stderr);
    assertTrue(output.contains("MISUSE STORM OK"), output);
    assertFalse(
        (output + stderr).contains("WARNING in native method"),
        "-Xcheck:jni complaint:\n" + output + stderr);
    Matcher m =
        Pattern.compile("misuses=(\\d+) exceptions=(\\d+) closesDuringUse=(\\d+)").matcher(output);
    assertTrue(m.find(), output);
    assertEquals(m.group(1), m.group(2), "every misuse threw");
    assertTrue(Long.parseLong(m.group(1)) > 5_000, output);
    assertEquals("180", m.group(3), output);
    assertTrue(
        stderr.contains("was garbage-collected without close()"), "the Cleaner warned:\n" + stderr);
  }

  static String codeSource(Class<?> c) throws Exception {
    return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
  }
}
