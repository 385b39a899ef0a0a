package io.scbf.hbase.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.client.QueryStatsMXBean;
import io.scbf.hbase.shared.Settings;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the docs (README.md, docs/*.md) name that the code defines: CLI commands and their options,
 * {@code scbf.*} settings, metric names, the client's JMX attributes. A rename in the code that the
 * docs do not follow (or a doc naming what does not exist) fails here, with every offender listed.
 * Also the shape issue 51 gave the docs: a README short enough to be a landing page, links that
 * resolve, and {@code create} examples that make an index spec as written.
 */
class DocsAgreeWithCodeTest {
  static final Map<String, String> DOCS = new TreeMap<>();
  static final List<String> MAIN_SOURCES = new ArrayList<>();

  /** Simple names of the project's classes (ScbfAdmin is a class, not a metric). */
  static final Set<String> CLASSES = new TreeSet<>();

  @BeforeAll
  static void read() throws IOException {
    try (Stream<Path> sources = Files.walk(Path.of("java/src"))) {
      sources
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".java"))
          .forEach(n -> CLASSES.add(n.substring(0, n.length() - ".java".length())));
    }
    DOCS.put("README.md", Files.readString(Path.of("README.md")));
    try (Stream<Path> docs = Files.list(Path.of("docs"))) {
      for (Path p : docs.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
        DOCS.put(p.toString(), Files.readString(p));
      }
    }
    try (Stream<Path> sources = Files.walk(Path.of("java/src/main/java"))) {
      for (Path p : sources.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
        MAIN_SOURCES.add(Files.readString(p));
      }
    }
  }

  /** Each match of {@code regex}'s group 1 in every doc, to the docs naming it. */
  static Map<String, Set<String>> named(String regex, Function<Matcher, String> value) {
    Map<String, Set<String>> out = new TreeMap<>();
    Pattern p = Pattern.compile(regex);
    DOCS.forEach(
        (doc, text) -> {
          Matcher m = p.matcher(text);
          while (m.find()) out.computeIfAbsent(value.apply(m), k -> new TreeSet<>()).add(doc);
        });
    return out;
  }

  /** Every string literal of the main sources. */
  static Set<String> literals() {
    Set<String> out = new TreeSet<>();
    Matcher m = Pattern.compile("\"((?:[^\"\\\\\\n]|\\\\.)*)\"").matcher("");
    for (String source : MAIN_SOURCES) {
      m.reset(source);
      while (m.find()) out.add(m.group(1));
    }
    return out;
  }

  static void assertNone(Map<String, Set<String>> offenders, String what) {
    assertTrue(
        offenders.isEmpty(),
        what
            + ":\n"
            + offenders.entrySet().stream()
                .map(e -> "  " + e.getKey() + " in " + e.getValue())
                .collect(Collectors.joining("\n")));
  }

  static Map<String, Command> commands() {
    Map<String, Command> out = new TreeMap<>();
    for (Command c : IndexCommands.all()) out.put(c.name(), c);
    for (Command c : QueryCommands.all()) out.put(c.name(), c);
    return out;
  }

  @Test
  void everyScbfAdminCommandInTheDocsExistsWithTheOptionsShown() {
    Map<String, Command> commands = commands();
    // "scbf-admin [-D key=value]... COMMAND args", then options up to the line's end or a comment.
    Map<String, Set<String>> unknown = new TreeMap<>();
    Matcher m =
        Pattern.compile("scbf-admin((?: +-D +\\S+)*) +([a-z][a-z-]*)([^\\n#`|]*)").matcher("");
    DOCS.forEach(
        (doc, text) -> {
          m.reset(text);
          while (m.find()) {
            String name = m.group(2);
            if (name.equals("help")) continue;
            Command c = commands.get(name);
            if (c == null) {
              unknown.computeIfAbsent(name, k -> new TreeSet<>()).add(doc);
              continue;
            }
            Matcher option = Pattern.compile("(?<![\\w-])(--[a-z][a-z-]*)").matcher(m.group(3));
            while (option.find()) {
              String o = option.group(1);
              if (!o.equals("--help") && !c.flags().contains(o) && !c.options().contains(o)) {
                unknown.computeIfAbsent(name + " " + o, k -> new TreeSet<>()).add(doc);
              }
            }
          }
        });
    assertNone(unknown, "scbf-admin commands or options the CLI does not have");
  }

  @Test
  void everyScbfSettingInTheDocsExistsInTheCode() {
    Set<String> literals = literals();
    // A key: not part of a class or file name (io.scbf..., native/include/scbf/scbf.h).
    Map<String, Set<String>> keys =
        named("(?<![\\w./-])(scbf\\.[a-z0-9_.*-]*[a-z0-9_*])", mm -> mm.group(1));
    keys.keySet().removeAll(Set.of("scbf.h", "scbf.c", "scbf.*"));
    Map<String, Set<String>> unknown = new TreeMap<>(keys);
    unknown
        .keySet()
        .removeIf(
            key ->
                key.endsWith(".*")
                    // a family of keys: some key starts so
                    ? literals.stream()
                        .anyMatch(l -> l.startsWith(key.substring(0, key.length() - 1)))
                    // a key, the prefix of per-index attributes, or one (scbf.index.<alias>)
                    : literals.contains(key)
                        || literals.contains(key + ".")
                        || literals.stream()
                            .anyMatch(
                                l ->
                                    l.endsWith(".")
                                        && key.startsWith(l)
                                        && !key.substring(l.length()).contains(".")));
    assertNone(unknown, "scbf.* keys the docs name that no code defines");
  }

  @Test
  void everySettingOfTheCodeIsDocumented() throws Exception {
    String configuration = DOCS.get("docs/configuration.md");
    Map<String, Set<String>> undocumented = new TreeMap<>();
    for (Field f : Settings.class.getFields()) {
      if (!Modifier.isStatic(f.getModifiers()) || f.getType() != String.class) continue;
      String key = (String) f.get(null);
      if (key.startsWith("scbf.") && !configuration.contains("`" + key + "`")) {
        undocumented.put(key, Set.of("Settings." + f.getName()));
      }
    }
    assertNone(undocumented, "settings docs/configuration.md does not describe");
  }

  /**
   * Metric names as the docs write them ({@code scbfLookupUs_INDEX}, or capitalised as Hadoop shows
   * them on JMX) against the names the code registers: a literal, or a per-index meter's kind
   * literal plus its suffix literal ({@code "scbfLookup" + "Us"}).
   */
  @Test
  void everyMetricInTheDocsIsOneTheCodeRegisters() {
    Set<String> literals = literals();
    Set<String> names = new TreeSet<>();
    Set<String> suffixes = new TreeSet<>();
    for (String l : literals) {
      if (l.matches("scbf[A-Z]\\w*")) names.add(l);
      if (l.matches("[A-Z][A-Za-z]*")) suffixes.add(l);
    }
    Map<String, Set<String>> unknown =
        named("(?<![\\w.])([sS]cbf[A-Z][A-Za-z]*)", mm -> "s" + mm.group(1).substring(1));
    unknown.keySet().removeIf(name -> CLASSES.contains("S" + name.substring(1)));
    unknown
        .keySet()
        .removeIf(
            name ->
                names.contains(name)
                    || names.stream()
                        .anyMatch(
                            kind ->
                                name.startsWith(kind)
                                    && suffixes.contains(name.substring(kind.length()))));
    assertNone(unknown, "metrics the docs name that no code registers");
  }

  @Test
  void theMetricsReferenceNamesEveryRegisteredMetricAndEveryClientAttribute() {
    String readme = DOCS.get("docs/operations.md");
    Map<String, Set<String>> missing = new TreeMap<>();
    for (String l : literals()) {
      // Gauges are registered whole; per-index meters are "kind" + suffix (checked above).
      if (l.matches("scbf[A-Z]\\w*") && !readme.contains(l)) missing.put(l, Set.of("code"));
    }
    missing.keySet().removeAll(Set.of("scbfLookup", "scbfIndexWrite", "scbfIndexWait"));
    for (Method m : QueryStatsMXBean.class.getMethods()) {
      String attribute = m.getName().replaceFirst("^(get|is)", "");
      if (!readme.contains("`" + attribute + "`")) {
        missing.put(attribute, Set.of("QueryStatsMXBean"));
      }
    }
    assertNone(missing, "metrics and client JMX attributes docs/operations.md does not name");
  }

  @Test
  void theClientMBeanNameInTheReadmeIsTheOneRegistered() {
    Map<String, Set<String>> names = named("`(io\\.scbf\\.hbase:type=[^`]*)`", mm -> mm.group(1));
    assertEquals(
        Set.of("io.scbf.hbase:type=IndexedTable,table=\"T\",id=N"),
        names.keySet(),
        "the documented object names (QueryStats.register quotes the table name)");
    assertTrue(
        literals().contains("io.scbf.hbase:type=IndexedTable,table="),
        "the code registers io.scbf.hbase:type=IndexedTable,table=...");
  }

  /** Issue 51: the README is a landing page; the rest lives in the guides under docs/. */
  @Test
  void theReadmeIsALandingPageOverTheGuides() {
    long lines = DOCS.get("README.md").lines().count();
    assertTrue(lines <= 300, "README.md has " + lines + " lines; move detail to docs/");
    for (String guide :
        List.of(
            "docs/user-guide.md",
            "docs/operations.md",
            "docs/testing.md",
            "docs/native.md",
            "docs/benchmarks.md")) {
      assertTrue(DOCS.containsKey(guide), guide + " is missing");
      assertTrue(DOCS.get("README.md").contains("](" + guide + ")"), "README links " + guide);
    }
  }

  /** Every benchmark file is in the index of benchmarks, which native/cli/main.c points to. */
  @Test
  void theBenchmarkIndexListsEveryBenchmarkFile() {
    Map<String, Set<String>> unlisted = new TreeMap<>();
    for (String doc : DOCS.keySet()) {
      if (doc.startsWith("docs/benchmarks-") && !DOCS.get("docs/benchmarks.md").contains(doc)) {
        unlisted.put(doc, Set.of("docs/benchmarks.md"));
      }
    }
    assertNone(unlisted, "benchmark files docs/benchmarks.md does not list");
  }

  /** Relative links ({@code [x](docs/y.md)}, {@code [x](../LICENSE)}) name files that exist. */
  @Test
  void everyRelativeLinkNamesAFileThatExists() {
    Map<String, Set<String>> broken = new TreeMap<>();
    Matcher m = Pattern.compile("\\]\\(([^)#\\s]+)(?:#[^)]*)?\\)").matcher("");
    DOCS.forEach(
        (doc, text) -> {
          m.reset(text);
          while (m.find()) {
            String target = m.group(1);
            if (target.contains("://")) continue;
            Path resolved = Path.of(doc).resolveSibling(target).normalize();
            if (!Files.exists(resolved)) {
              broken.computeIfAbsent(target, k -> new TreeSet<>()).add(doc);
            }
          }
        });
    assertNone(broken, "links to files that do not exist");
  }

  /**
   * Every {@code scbf-admin create TABLE COLUMN ...} example makes a spec as written (issue 51:
   * {@code create accounts d:balance --type long} failed for want of an alias). Examples whose
   * table is a placeholder ({@code TABLE}, {@code ...}) are not commands.
   */
  @Test
  void everyCreateExampleInTheDocsMakesASpec() throws UsageException {
    Command create = commands().get("create");
    Map<String, Set<String>> failing = new TreeMap<>();
    Matcher m = Pattern.compile("scbf-admin(?: +-D +\\S+)* +create +([^\\n#`|]*)").matcher("");
    int checked = 0;
    for (Map.Entry<String, String> doc : DOCS.entrySet()) {
      m.reset(doc.getValue());
      while (m.find()) {
        List<String> words = shellWords(m.group(1).replaceAll("[\\[\\]]", ""));
        if (words.size() < 2 || !words.get(0).matches("[a-z_]+")) continue;
        try {
          Args args = Args.parse(words, create.flags(), create.options());
          Args.spec(args.words("TABLE", "COLUMN").get(1), args);
          checked++;
        } catch (UsageException e) {
          failing
              .computeIfAbsent(m.group(0).trim() + ": " + e.getMessage(), k -> new TreeSet<>())
              .add(doc.getKey());
        }
      }
    }
    assertNone(failing, "create examples that make no spec");
    assertTrue(checked >= 10, "only " + checked + " create examples found");
  }

  /** Words as a POSIX shell splits them, with single and double quotes. */
  static List<String> shellWords(String line) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("'([^']*)'|\"([^\"]*)\"|(\\S+)").matcher(line.trim());
    while (m.find()) {
      out.add(m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3));
    }
    return out;
  }
}
