package io.scbf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.yetus.audience.InterfaceAudience;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The code map's rules, checked on the compiled jar classes (docs/design.md, "Code map"): the
 * public client API apart from its internals, the server side free of client code, and no import
 * circles between packages.
 */
class ArchitectureTest {
  private static final String API = "io.scbf.hbase";
  private static final String CLIENT = "io.scbf.hbase.client";
  private static final List<String> SERVER_SIDE =
      List.of("io.scbf.hbase.regionserver", "io.scbf.hbase.master", "io.scbf.hbase.shared");

  /** The API classes that only clients use: a server never builds a query or an admin. */
  private static final Set<String> CLIENT_FACADES =
      Set.of(API + ".IndexedTable", API + ".IndexAdmin");

  /**
   * IndexSpec's internals: IndexSpec calls them (its text form, its builder's checks, delegates of
   * its deprecated members), so in another package they and IndexSpec would import each other.
   */
  private static final Set<String> API_INTERNALS =
      Set.of(API + ".IndexSpecCodec", API + ".IndexSpecChecks", API + ".IndexValues");

  private static final Path MAIN_SOURCES = Path.of("java/src/main/java");

  /**
   * An io.scbf class a source file imports (a static import names its class) or links to from its
   * javadoc by full name: a {@code {@code ...}} mention in prose is not a dependency.
   */
  private static final Pattern SOURCE_DEPENDENCY =
      Pattern.compile(
          "(?:^import (?:static )?|\\{@link(?:plain)? |@see )(io\\.scbf(?:\\.[a-z]\\w*)*\\.[A-Z]\\w*)",
          Pattern.MULTILINE);

  private static JavaClasses classes;

  @BeforeAll
  static void importMainClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages("io.scbf");
  }

  @Test
  void theServerSideImportsNoClientCode() {
    List<String> violations = new ArrayList<>();
    for (JavaClass c : classes) {
      if (!inAny(c, SERVER_SIDE)) continue;
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        JavaClass target = topLevel(d.getTargetClass());
        if (inPackage(target, CLIENT) || CLIENT_FACADES.contains(target.getName())) {
          violations.add(c.getName() + " -> " + target.getName());
        }
      }
    }
    assertEquals(List.of(), violations.stream().distinct().sorted().toList());
  }

  @Test
  void theApiPackageHoldsOnlyMarkedTypes() {
    List<String> unmarked = new ArrayList<>();
    for (JavaClass c : classes) {
      if (!c.getPackageName().equals(API) || !isTopLevel(c)) continue;
      if (API_INTERNALS.contains(c.getName())) {
        if (!c.isAnnotatedWith(InterfaceAudience.Private.class)) {
          unmarked.add(c.getName() + " lacks @InterfaceAudience.Private");
        }
      } else if (!c.getModifiers().contains(JavaModifier.PUBLIC)) {
        unmarked.add(c.getName() + " is not public: internals belong in " + CLIENT);
      } else if (!c.isAnnotatedWith(InterfaceAudience.Public.class)) {
        unmarked.add(c.getName() + " lacks @InterfaceAudience.Public");
      }
    }
    assertEquals(List.of(), unmarked);
  }

  @Test
  void publicTypesOutsideTheApiAreMarkedWithTheirAudience() {
    List<String> unmarked = new ArrayList<>();
    for (JavaClass c : classes) {
      if (!c.getPackageName().startsWith(API + ".")
          || c.getPackageName().startsWith(API + ".shared.proto")
          || !isTopLevel(c)
          || !c.getModifiers().contains(JavaModifier.PUBLIC)) {
        continue;
      }
      if (!c.isAnnotatedWith(InterfaceAudience.Private.class)
          && !c.isAnnotatedWith(InterfaceAudience.LimitedPrivate.class)
          && !c.isAnnotatedWith(InterfaceAudience.Public.class)) {
        unmarked.add(c.getName());
      }
    }
    assertEquals(List.of(), unmarked);
  }

  /**
   * Classes of one package may use each other both ways (package-private collaborators); across
   * packages, dependencies go one way only: a set of classes that reach each other and span two
   * packages is an import circle. Dependencies are read from the bytecode and from the sources'
   * imports and javadoc links (the bytecode misses inlined constants and links).
   */
  @Test
  void noImportCircles() throws IOException {
    Map<String, Set<String>> graph = sourceImports();
    for (JavaClass c : classes) {
      JavaClass from = topLevel(c);
      Set<String> edges = graph.computeIfAbsent(from.getName(), k -> new TreeSet<>());
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        JavaClass to = topLevel(d.getTargetClass());
        if (to.getPackageName().startsWith("io.scbf") && !to.equals(from)) {
          edges.add(to.getName());
        }
      }
    }
    List<String> circles = new ArrayList<>();
    for (List<String> component : stronglyConnected(graph)) {
      Set<String> packages = new TreeSet<>();
      for (String name : component) packages.add(name.substring(0, name.lastIndexOf('.')));
      if (packages.size() > 1) circles.add(String.join(" <-> ", new TreeSet<>(component)));
    }
    assertTrue(
        circles.isEmpty(), "import circles between packages:\n" + String.join("\n", circles));
  }

  /** Each main source file's top-level class and the io.scbf classes it imports or links to. */
  private static Map<String, Set<String>> sourceImports() throws IOException {
    Map<String, Set<String>> graph = new TreeMap<>();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(MAIN_SOURCES)) {
      files = walk.filter(p -> p.toString().endsWith(".java")).toList();
    }
    assertTrue(files.size() > 50, "main sources not found under " + MAIN_SOURCES.toAbsolutePath());
    for (Path file : files) {
      String name = MAIN_SOURCES.relativize(file).toString().replace(".java", "").replace('/', '.');
      Set<String> edges = graph.computeIfAbsent(name, k -> new TreeSet<>());
      Matcher m = SOURCE_DEPENDENCY.matcher(Files.readString(file));
      while (m.find()) {
        if (!m.group(1).equals(name)) edges.add(m.group(1));
      }
    }
    return graph;
  }

  private static boolean inAny(JavaClass c, List<String> packages) {
    for (String p : packages) {
      if (inPackage(c, p)) return true;
    }
    return false;
  }

  private static boolean inPackage(JavaClass c, String pkg) {
    return c.getPackageName().equals(pkg) || c.getPackageName().startsWith(pkg + ".");
  }

  private static boolean isTopLevel(JavaClass c) {
    return c.getEnclosingClass().isEmpty();
  }

  private static JavaClass topLevel(JavaClass c) {
    JavaClass t = c.getBaseComponentType();
    while (t.getEnclosingClass().isPresent()) t = t.getEnclosingClass().get();
    return t;
  }

  /** Tarjan's algorithm: the graph's strongly connected components (the graph is small). */
  private static List<List<String>> stronglyConnected(Map<String, Set<String>> graph) {
    return new Tarjan(graph).components;
  }

  private static final class Tarjan {
    private final Map<String, Set<String>> graph;
    private final Map<String, Integer> index = new HashMap<>();
    private final Map<String, Integer> low = new HashMap<>();
    private final Deque<String> stack = new ArrayDeque<>();
    private final Set<String> onStack = new HashSet<>();
    private final List<List<String>> components = new ArrayList<>();

    Tarjan(Map<String, Set<String>> graph) {
      this.graph = graph;
      for (String v : graph.keySet()) {
        if (!index.containsKey(v)) visit(v);
      }
    }

    private void visit(String v) {
      index.put(v, index.size());
      low.put(v, index.get(v));
      stack.push(v);
      onStack.add(v);
      for (String w : graph.getOrDefault(v, Set.of())) {
        if (!index.containsKey(w)) {
          visit(w);
          low.put(v, Math.min(low.get(v), low.get(w)));
        } else if (onStack.contains(w)) {
          low.put(v, Math.min(low.get(v), index.get(w)));
        }
      }
      if (!low.get(v).equals(index.get(v))) return;
      List<String> component = new ArrayList<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      components.add(component);
    }
  }
}
