package io.scbf.hbase.cli;

import io.scbf.hbase.BuildProgress;
import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.RoutingReport;
import io.scbf.hbase.VerifyReport;
import io.scbf.hbase.cli.Command.Session;
import io.scbf.hbase.client.EventualMode;
import io.scbf.hbase.client.IndexRegionReport;
import io.scbf.hbase.shared.IndexCatalog;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;

/** The commands over {@link IndexAdmin}: an index's definition, state, build and checks. */
final class IndexCommands {
  private IndexCommands() {}

  static final String CREATE_OPTIONS =
      "  --alias A            the index's name (default: the qualifier, each run of"
          + " characters other than A-Z, a-z, 0-9 and _ made one _)\n"
          + "  --buckets N          global index: initial regions, the fixed buckets of"
          + " --by-row, or the salted streams of --ordered (default "
          + IndexSpec.DEFAULT_BUCKETS
          + "; 1 for --ordered, unsalted)\n"
          + "  --fpp P              the filters' false-positive rate\n"
          + "  --local              a local index, inside the data regions\n"
          + "  --by-value           a global index placed by a hash of the value (the default):"
          + " one region per selective value, splits as it grows\n"
          + "  --ordered            a global index ordered by value (give --type): ranges ask"
          + " only the regions holding them, in value order; splits as it grows\n"
          + "  --by-row             a global index of fixed buckets salted by row (the layout"
          + " before by-value was the default)\n"
          + "  --type T             what the column holds, as Bytes.toBytes of a Java type: bytes"
          + " (the default: raw byte order), string, int, long, float, double or big_decimal;"
          + " ranges then follow the type's order (or give it as FAMILY:QUALIFIER:T)\n"
          + "  --then F:Q[:T]       the next column of a composite index, of type T (default"
          + " bytes; repeatable)\n"
          + "  --covered F:Q        a column stored in the index, answered without reading the"
          + " row (repeatable)\n"
          + "  --expression E       index a function of the column's value, queried by alias:"
          + " lower, upper, reverse, prefix(N), json($.path), truncate(N), chained with commas"
          + " (lower,prefix(3))\n"
          + "  --where C            a partial index: only rows satisfying C, one of F:Q=V[,V..]"
          + " (one of the values), F:Q[:T]>=V[,<V] (a range in type T's order; >, <=, <) or"
          + " 'F:Q present' (repeatable: all must hold)\n"
          + "  --eventual           a global index applied from the WAL by replication: writes do"
          + " not wait for it (see set-consistency, await)";

  static List<Command> all() {
    return List.of(
        new Command(
            "list",
            "TABLE",
            "the table's indexes, their layout and build state",
            "One line per index: alias, columns, layout, BUILDING while queries scan.",
            List.of(),
            List.of(),
            IndexCommands::list),
        new Command(
            "status",
            "TABLE [ALIAS]",
            "build state, regions, filters, routing lag of one index or all",
            "Per index: build state; its regions (index table, or the data table's for a local"
                + " index); the routing filters the master holds (published, ready, bytes, the"
                + " highest estimated false-positive rate, the oldest publication's age: the"
                + " publish lag). A BY_VALUE or ORDERED index routes by key and publishes nothing.",
            List.of(),
            List.of(),
            IndexCommands::status),
        new Command(
            "describe",
            "TABLE ALIAS",
            "status of one index, with its spec",
            "As status TABLE ALIAS, with the spec's filter settings and covered columns.",
            List.of(),
            List.of(),
            IndexCommands::describe),
        new Command(
            "create",
            "TABLE FAMILY:QUALIFIER[:TYPE] [options]",
            "create an index and index the existing rows",
            "Creates the index and, unless --no-backfill, indexes the rows already in the table"
                + " (scbf.client.build.threads regions at a time, progress on stderr about once a"
                + " second; queries scan until it is built). --no-backfill leaves it building for the"
                + " MapReduce build (io.scbf.mapreduce.BuildIndexTool), which marks it built when"
                + " done.\n"
                + CREATE_OPTIONS
                + "\n  --no-backfill        define only: rows written from now on are indexed",
            List.of(
                "--local", "--by-value", "--by-row", "--ordered", "--eventual", "--no-backfill"),
            List.of(
                "--alias",
                "--buckets",
                "--fpp",
                "--type",
                "--then",
                "--covered",
                "--expression",
                "--where"),
            IndexCommands::create),
        new Command(
            "mark-built",
            "TABLE ALIAS",
            "let queries use an index whose rows were indexed outside scbf's tools",
            "Queries use the index from now on, as it is: marking an incomplete index built makes"
                + " its queries miss rows. BuildIndexTool, rebuild and create (without"
                + " --no-backfill) mark the index built themselves; this is for an index filled"
                + " some other way.",
            List.of(),
            List.of(),
            (s, a) -> {
              List<String> w = a.words("TABLE", "ALIAS");
              s.admin().markBuilt(Args.table(w.get(0)), w.get(1));
              s.out().println("index '" + w.get(1) + "' of " + w.get(0) + " is built");
              return ScbfAdmin.OK;
            }),
        new Command(
            "drop",
            "TABLE ALIAS",
            "remove an index and its index table",
            "Removes the index from the table's descriptor, then deletes its index table.",
            List.of(),
            List.of(),
            (s, a) -> {
              List<String> w = a.words("TABLE", "ALIAS");
              s.admin().dropIndex(Args.table(w.get(0)), w.get(1));
              s.out().println("dropped index '" + w.get(1) + "' of " + w.get(0));
              return ScbfAdmin.OK;
            }),
        new Command(
            "verify",
            "TABLE ALIAS",
            "compare a global index with the data (exit 1 on findings)",
            "Reads both tables once: index rows missing, with wrong covered values, or stale."
                + " Exit 1 if there are any. For large tables: io.scbf.mapreduce.VerifyIndexTool.",
            List.of(),
            List.of(),
            (s, a) -> {
              List<String> w = a.words("TABLE", "ALIAS");
              VerifyReport r = s.admin().verify(Args.table(w.get(0)), w.get(1));
              print(r, s.out());
              return r.isConsistent() ? ScbfAdmin.OK : ScbfAdmin.FINDINGS;
            }),
        new Command(
            "repair",
            "TABLE ALIAS",
            "verify and fix missing and stale index rows",
            "As verify, writing the missing index rows and removing the stale ones (each"
                + " re-checked under its row's lock first). Exit 0 once everything found is fixed.",
            List.of(),
            List.of(),
            (s, a) -> {
              List<String> w = a.words("TABLE", "ALIAS");
              print(s.admin().repair(Args.table(w.get(0)), w.get(1)), s.out());
              return ScbfAdmin.OK;
            }),
        new Command(
            "rebuild",
            "TABLE ALIAS",
            "re-index every row (e.g. after a snapshot restore)",
            "Marks the index building (queries scan), indexes every row again"
                + " (scbf.client.build.threads regions at a time, progress on stderr), marks it"
                + " built. Safe while the table is written.",
            List.of(),
            List.of(),
            (s, a) -> {
              List<String> w = a.words("TABLE", "ALIAS");
              BuildProgress done =
                  s.admin().rebuildIndex(Args.table(w.get(0)), w.get(1), progressTo(s));
              s.out().println("rebuilt index '" + w.get(1) + "' of " + w.get(0) + ": " + done);
              return ScbfAdmin.OK;
            }),
        new Command(
            "set-consistency",
            "TABLE ALIAS strong|eventual",
            "switch a global index between STRONG and EVENTUAL, online",
            "eventual: writes stop waiting for the index, which the region servers apply from the"
                + " WAL (replication peer scbf_eventual). strong: writes wait for it again; returns"
                + " once the writes made before are applied (at most --timeout-ms, default 60000).",
            List.of(),
            List.of("--timeout-ms"),
            (s, a) -> {
              List<String> w = a.words("TABLE", "ALIAS", "strong|eventual");
              IndexSpec.Consistency c =
                  switch (w.get(2)) {
                    case "strong" -> IndexSpec.Consistency.STRONG;
                    case "eventual" -> IndexSpec.Consistency.EVENTUAL;
                    default ->
                        throw new UsageException(
                            "expected strong or eventual, got '" + w.get(2) + "'");
                  };
              long timeout = a.intOption("--timeout-ms", 60_000);
              s.admin().setConsistency(Args.table(w.get(0)), w.get(1), c, timeout);
              s.out().println("index '" + w.get(1) + "' of " + w.get(0) + " is " + c);
              return ScbfAdmin.OK;
            }),
        new Command(
            "await",
            "TABLE",
            "wait until the writes made before are in the table's EVENTUAL indexes (exit 1 on"
                + " timeout)",
            "Each data region marks its WAL; returns once the applier has passed every mark (at"
                + " most --timeout-ms, default 60000).",
            List.of(),
            List.of("--timeout-ms"),
            (s, a) -> {
              TableName table = Args.table(a.words("TABLE").get(0));
              long timeout = a.intOption("--timeout-ms", 60_000);
              boolean done = s.admin().awaitIndexed(table, timeout);
              s.out()
                  .println(
                      table + (done ? ": indexed" : ": not indexed within " + timeout + " ms"));
              return done ? ScbfAdmin.OK : ScbfAdmin.FINDINGS;
            }),
        new Command(
            "set-immutable",
            "TABLE true|false",
            "declare the table's rows insert-only (indexed writes skip reading old values)",
            "true: indexed Puts do not read the rows' current values (only for tables whose rows"
                + " are never updated or deleted); false: back to the default.",
            List.of(),
            List.of(),
            (s, a) -> {
              List<String> w = a.words("TABLE", "true|false");
              String flag = w.get(1);
              if (!flag.equals("true") && !flag.equals("false")) {
                throw new UsageException("expected true or false, got '" + flag + "'");
              }
              s.admin().setImmutableRows(Args.table(w.get(0)), Boolean.parseBoolean(flag));
              s.out().println(w.get(0) + ": immutable rows " + flag);
              return ScbfAdmin.OK;
            }));
  }

  private static int list(Session s, Args a) throws IOException, UsageException {
    TableName table = Args.table(a.words("TABLE").get(0));
    IndexAdmin admin = s.admin();
    for (IndexSpec spec : admin.listIndexes(table)) s.out().println(line(admin, table, spec));
    return ScbfAdmin.OK;
  }

  private static int create(Session s, Args a) throws IOException, UsageException {
    List<String> w = a.words("TABLE", "FAMILY:QUALIFIER[:TYPE]");
    TableName table = Args.table(w.get(0));
    IndexSpec spec = Args.spec(w.get(1), a);
    if (a.flag("--no-backfill")) {
      s.admin().defineIndex(table, spec);
      s.out()
          .printf(
              "defined index '%s' on %s %s: building until mark-built%n",
              spec.alias(), table, columns(spec));
    } else {
      BuildProgress done = s.admin().createIndex(table, spec, progressTo(s));
      s.out().printf("created index '%s' on %s %s: %s%n", spec.alias(), table, columns(spec), done);
    }
    return ScbfAdmin.OK;
  }

  /** Progress lines on stderr, so that stdout holds only the result. */
  private static BuildProgress.Listener progressTo(Session s) {
    return p -> {
      if (!p.finished()) s.err().println(p);
    };
  }

  private static int status(Session s, Args a) throws IOException, UsageException {
    List<String> w = a.wordCount() == 1 ? a.words("TABLE") : a.words("TABLE", "ALIAS");
    TableName table = Args.table(w.get(0));
    IndexAdmin admin = s.admin();
    List<IndexSpec> specs = admin.listIndexes(table);
    if (w.size() == 2) specs = List.of(named(specs, table, w.get(1)));
    if (specs.isEmpty()) s.out().println(table + " has no index");
    for (IndexSpec spec : specs) status(s, admin, table, spec);
    return ScbfAdmin.OK;
  }

  private static int describe(Session s, Args a) throws IOException, UsageException {
    List<String> w = a.words("TABLE", "ALIAS");
    TableName table = Args.table(w.get(0));
    IndexAdmin admin = s.admin();
    IndexSpec spec = named(admin.listIndexes(table), table, w.get(1));
    status(s, admin, table, spec);
    s.out()
        .printf(
            "  spec: fpp %s, initial capacity %d per filter, covered %s%n",
            spec.fpp(), spec.initialCapacity(), spec.covered());
    return ScbfAdmin.OK;
  }

  private static IndexSpec named(List<IndexSpec> specs, TableName table, String alias) {
    return specs.stream()
        .filter(x -> x.alias().equals(alias))
        .findFirst()
        .orElseThrow(
            () -> new IllegalArgumentException("table " + table + " has no index '" + alias + "'"));
  }

  private static void status(Session s, IndexAdmin admin, TableName table, IndexSpec spec)
      throws IOException {
    PrintStream out = s.out();
    out.println(line(admin, table, spec));
    TableName regionsOf = IndexCatalog.regionsOf(table, spec);
    try (Admin hbase = s.connection().getAdmin()) {
      out.printf(
          "  regions: %d (%s)%n",
          hbase.getRegions(regionsOf).size(),
          spec.isLocal() ? "the data table's" : "index table " + regionsOf);
    }
    IndexRegionReport.Summary regions = IndexRegionReport.of(s.connection(), table, spec);
    out.printf(
        "  filters: %d of %d regions ready; %,d entries; %,d bytes; estimated fpr max %.2g;"
            + " residue %d%n",
        regions.ready(),
        regions.regions(),
        regions.entries(),
        regions.filterBytes(),
        regions.estimatedFprMax(),
        regions.residue());
    out.printf(
        "  lookups: %,d since the regions opened; hot cache hits %,d (%s)%n",
        regions.lookups(),
        regions.cacheHits(),
        regions.lookups() == 0
            ? "no lookups yet"
            : String.format("%.1f%%", 100 * regions.cacheHitRatio()));
    if (!regions.unanswered().isEmpty()) {
      out.printf(
          "  %d regions did not answer (an earlier release, or moving): %s%n",
          regions.unanswered().size(), regions.unanswered().get(0));
    }
    if (spec.consistency() == IndexSpec.Consistency.EVENTUAL) {
      try (Admin hbase = s.connection().getAdmin()) {
        out.println("  eventual: " + EventualMode.backlog(hbase));
      }
    }
    if (spec.routedByKey()) {
      out.println("  routing: by key (each region answers from its own filter; nothing published)");
      return;
    }
    RoutingReport stats;
    try (IndexedTable t = new IndexedTable(s.connection(), table)) {
      stats = t.routingReport(spec.alias());
    }
    long bytes = 0;
    long residue = 0;
    long lagMs = 0;
    int ready = 0;
    double fprMax = 0;
    for (RoutingReport.Region r : stats.regions()) {
      bytes += r.filterBytes();
      residue += r.residue();
      if (r.ready()) ready++;
      fprMax = Math.max(fprMax, r.estimatedFpr());
      lagMs = Math.max(lagMs, r.ageMs() < 0 ? Long.MAX_VALUE : r.ageMs());
    }
    out.printf(
        "  routing: %d regions published, %d ready; filters %,d bytes; estimated fpr max %.2g;"
            + " publish lag max %s; residue %d%n",
        stats.regions().size(),
        ready,
        bytes,
        fprMax,
        lagMs == Long.MAX_VALUE ? "never heard from" : lagMs + " ms",
        residue);
  }

  private static String line(IndexAdmin admin, TableName table, IndexSpec s) throws IOException {
    return String.format(
        "%-16s %-24s %s%s",
        s.alias(),
        columns(s),
        s.isLocal()
            ? "local"
            : switch (s.layout()) {
              case BY_VALUE -> "global, by value (splits as it grows)";
              case ORDERED ->
                  "global, ordered"
                      + (s.buckets() > 1 ? " in " + s.buckets() + " salted streams" : "")
                      + " (splits as it grows)";
              case BY_ROW -> "global, " + s.buckets() + " buckets";
            },
        (s.consistency() == IndexSpec.Consistency.EVENTUAL ? ", EVENTUAL" : "")
            + (admin.isBuilding(table, s.alias()) ? ", BUILDING (queries scan)" : ""));
  }

  /**
   * The indexed columns, each with its type if the index declares any ({@code d:balance long}),
   * then its expression and WHERE if it has them ({@code d:email lower where [d:status = A]}).
   */
  static String columns(IndexSpec s) {
    return typedColumns(s)
        + (s.expression() == null ? "" : " " + s.expression())
        + (s.isPartial() ? " where " + s.where() : "");
  }

  private static String typedColumns(IndexSpec s) {
    if (!s.isTyped()) return s.columnsText();
    List<String> typed = new ArrayList<>();
    for (int i = 0; i < s.columns().size(); i++) {
      typed.add(s.columns().get(i) + " " + s.types().get(i).text());
    }
    return s.isComposite() ? typed.toString() : typed.get(0);
  }

  private static void print(VerifyReport r, PrintStream out) {
    out.println(r);
    r.missingSamples().forEach(k -> out.println("  missing: " + k));
    r.staleSamples().forEach(k -> out.println("  stale:   " + k));
  }
}
