package io.scbf;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;

/**
 * A class loader that sees only the given class path entries (parent: the platform loader), as
 * HBase's coprocessor class loader sees a coprocessor jar; drives io.scbf through reflection.
 */
final class IsolatedLoader implements AutoCloseable {
  private final URLClassLoader loader;

  IsolatedLoader(Path... classPath) throws Exception {
    URL[] urls = new URL[classPath.length];
    for (int i = 0; i < classPath.length; i++) {
      urls[i] = classPath[i].toUri().toURL();
    }
    loader = new URLClassLoader("isolated-scbf", urls, ClassLoader.getPlatformClassLoader());
  }

  Class<?> load(String name) throws ClassNotFoundException {
    return loader.loadClass(name);
  }

  /** Calls a public static method, unwrapping what it throws. */
  Object callStatic(String className, String method, Class<?>[] types, Object... args)
      throws Throwable {
    Method m = load(className).getMethod(method, types);
    try {
      return m.invoke(null, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  static Object call(Object target, String method, Class<?>[] types, Object... args)
      throws Throwable {
    Method m = target.getClass().getMethod(method, types);
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /**
   * Creates a filter, a scalable filter and a cache in this loader and checks they work; returns
   * where this loader's copy of the library was loaded from.
   */
  String exercise() throws Throwable {
    Object f =
        callStatic(
            "io.scbf.SplitCountingBloomFilter",
            "create",
            new Class<?>[] {long.class, double.class},
            1_000L,
            0.01);
    if (f.getClass().getClassLoader() != loader) {
      throw new AssertionError("filter class came from " + f.getClass().getClassLoader());
    }
    byte[] key = "loader".getBytes();
    call(f, "add", new Class<?>[] {byte[].class}, (Object) key);
    boolean hit = (Boolean) call(f, "mightContain", new Class<?>[] {byte[].class}, (Object) key);
    boolean miss =
        (Boolean)
            call(f, "mightContain", new Class<?>[] {byte[].class}, (Object) "other".getBytes());
    call(f, "close", new Class<?>[0]);
    Object s =
        callStatic(
            "io.scbf.ScalableSplitCountingBloomFilter",
            "create",
            new Class<?>[] {long.class, double.class},
            100L,
            0.01);
    call(s, "add", new Class<?>[] {byte[].class}, (Object) key);
    boolean scalableHit =
        (Boolean) call(s, "mightContain", new Class<?>[] {byte[].class}, (Object) key);
    call(s, "close", new Class<?>[0]);
    if (!hit || miss || !scalableHit) {
      throw new AssertionError(
          "wrong answers in " + loader + ": " + hit + " " + miss + " " + scalableHit);
    }
    return (String) callStatic("io.scbf.Native", "loadedFrom", new Class<?>[0]);
  }

  @Override
  public void close() throws IOException {
    loader.close();
  }
}
