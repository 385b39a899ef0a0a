package io.scbf;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

/**
 * Loads the JNI library {@code libscbfjni.so} that backs every {@code io.scbf} class.
 *
 * <p>Every factory of this package calls {@link #load()} first, so users never need to; calling it
 * early (e.g. when a coprocessor starts) only moves a load failure to a clearer place.
 *
 * <h2>Where the library comes from</h2>
 *
 * <ol>
 *   <li>If the system property {@value #PATH_PROPERTY} is set, that file is loaded.
 *   <li>Otherwise the copy packed in the jar at {@code /native/linux-x86_64/libscbfjni.so} (or
 *       {@code linux-aarch64}, in a jar built with {@code -Paarch64}) is extracted to a private
 *       temporary file (owner-only permissions, in {@value #TMPDIR_PROPERTY} or else {@code
 *       java.io.tmpdir}), loaded, and deleted right away: on Linux the mapping stays valid after
 *       the file is unlinked, so nothing is left behind even if the JVM is killed.
 * </ol>
 *
 * The library is statically linked against the C core and xxHash: it needs only libc, libm and
 * libpthread, nothing installed on the host.
 *
 * <h2>Several class loaders</h2>
 *
 * The JDK binds a loaded {@code .so} path to one class loader, and a JNI library can only serve the
 * native methods of classes of the loader that loaded it. HBase loads coprocessors from HDFS
 * through its own class loader, so this class may be initialized once per loader in one JVM. The
 * library is therefore loaded <em>exactly once per class loader</em>: each loader's copy of this
 * class extracts its own private file, so loaders never collide. With an explicit {@value
 * #PATH_PROPERTY}, the first loader loads that file directly; a later loader, which the JDK would
 * refuse ("already loaded in another classloader"), gets a private copy of it instead. Objects
 * never cross loaders (each loader has its own classes), so the copies never share native handles.
 * The cheapest set-up is still to put the jar on the region server class path, where it is loaded
 * once for the whole JVM.
 *
 * <h2>Failures</h2>
 *
 * Every failure throws {@link UnsatisfiedLinkError} with a message naming the cause: an unsupported
 * platform, an override path that is not a readable file, a jar without the library, or a library
 * that does not load or does not match these classes. A failed load is not cached: the next call
 * tries again.
 */
public final class Native {
  /** System property: absolute path of a {@code libscbfjni.so} to load instead of the jar's. */
  public static final String PATH_PROPERTY = "scbf.native.path";

  /** System property: directory for the extracted library (default {@code java.io.tmpdir}). */
  public static final String TMPDIR_PROPERTY = "scbf.native.tmpdir";

  private static final String LIBRARY_FILE = "libscbfjni.so";

  /** What was loaded (a path), or null while not loaded. Per class loader, like this class. */
  private static volatile String loadedFrom;

  private Native() {}

  /**
   * Loads the library into this class loader if it is not loaded yet; cheap afterwards.
   *
   * @throws UnsatisfiedLinkError if the library cannot be found or loaded (message says why)
   */
  public static void load() {
    if (loadedFrom == null) {
      loadOnce();
    }
  }

  /** Whether {@link #load()} has succeeded in this class loader. */
  public static boolean isLoaded() {
    return loadedFrom != null;
  }

  /**
   * The file the library was loaded from in this class loader (an override path, or an extracted
   * temporary file that no longer exists), or null if not loaded.
   */
  public static String loadedFrom() {
    return loadedFrom;
  }

  private static synchronized void loadOnce() {
    if (loadedFrom != null) {
      return;
    }
    String override = System.getProperty(PATH_PROPERTY);
    String path =
        override != null && !override.isEmpty()
            ? loadOverride(Path.of(override))
            : loadFromResource(
                resourcePath(System.getProperty("os.name"), System.getProperty("os.arch")));
    checkAbi(path);
    loadedFrom = path;
  }

  /**
   * The class-path resource holding the library for a platform: {@code linux-x86_64} (every jar),
   * or {@code linux-aarch64} (a jar built with {@code -Paarch64}; a jar without it says so when
   * loading).
   *
   * @throws UnsatisfiedLinkError for anything but Linux on x86-64 or AArch64
   */
  static String resourcePath(String osName, String osArch) {
    String os = osName == null ? "" : osName.toLowerCase(Locale.ROOT);
    String arch = osArch == null ? "" : osArch.toLowerCase(Locale.ROOT);
    String platform =
        !os.startsWith("linux")
            ? null
            : switch (arch) {
              case "amd64", "x86_64" -> "linux-x86_64";
              case "aarch64", "arm64" -> "linux-aarch64";
              default -> null;
            };
    if (platform == null) {
      throw new UnsatisfiedLinkError(
          "scbf: unsupported platform "
              + osName
              + "/"
              + osArch
              + ": the jar carries native libraries for linux-x86_64 and (built with -Paarch64)"
              + " linux-aarch64 only; build libscbfjni.so for this platform and point -D"
              + PATH_PROPERTY
              + " at it");
    }
    return "/native/" + platform + "/" + LIBRARY_FILE;
  }

  private static String loadOverride(Path file) {
    if (!file.isAbsolute() || !Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new UnsatisfiedLinkError(
          "scbf: -D" + PATH_PROPERTY + "=" + file + " is not an absolute path to a readable file");
    }
    String path = file.toString();
    try {
      System.load(path);
      return path;
    } catch (UnsatisfiedLinkError e) {
      if (!String.valueOf(e.getMessage()).contains("already loaded in another classloader")) {
        throw loadFailure(path, e);
      }
    }
    // Another class loader owns that path: this loader gets its own copy.
    try (InputStream in = Files.newInputStream(file)) {
      return loadPrivateCopy(in);
    } catch (IOException e) {
      throw loadFailure(path, e);
    }
  }

  private static String loadFromResource(String resource) {
    try (InputStream in = Native.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new UnsatisfiedLinkError(
            "scbf: native library resource "
                + resource
                + " not found by class loader "
                + Native.class.getClassLoader()
                + " (a jar built without the native library?); or set -D"
                + PATH_PROPERTY);
      }
      return loadPrivateCopy(in);
    } catch (IOException e) {
      throw loadFailure(resource, e);
    }
  }

  /** Copies the library to an owner-only temporary file, loads it, and unlinks it. */
  private static String loadPrivateCopy(InputStream library) throws IOException {
    Path dir = Path.of(System.getProperty(TMPDIR_PROPERTY, System.getProperty("java.io.tmpdir")));
    // A long-running server's temp directory may have been cleaned away (tmpwatch, or HBase's
    // test utility deleting the java.io.tmpdir it set): recreate it rather than fail the load.
    Files.createDirectories(dir);
    Path file =
        Files.createTempFile(
            dir,
            "libscbfjni-",
            ".so",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    String path = file.toString();
    try {
      Files.copy(library, file, StandardCopyOption.REPLACE_EXISTING);
      System.load(path);
      return path;
    } catch (UnsatisfiedLinkError e) {
      throw loadFailure(path, e);
    } finally {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        file.toFile().deleteOnExit();
      }
    }
  }

  private static void checkAbi(String path) {
    int abi;
    try {
      abi = NativeBridge.abiVersion();
    } catch (UnsatisfiedLinkError e) {
      throw loadFailure(path, e);
    }
    if (abi != NativeBridge.ABI_VERSION) {
      throw new UnsatisfiedLinkError(
          "scbf: "
              + path
              + " has native ABI version "
              + abi
              + " but these classes need "
              + NativeBridge.ABI_VERSION
              + " (a stale libscbfjni.so?)");
    }
  }

  private static UnsatisfiedLinkError loadFailure(String what, Throwable cause) {
    UnsatisfiedLinkError e =
        new UnsatisfiedLinkError(
            "scbf: cannot load native library " + what + ": " + cause.getMessage());
    e.initCause(cause);
    return e;
  }
}
