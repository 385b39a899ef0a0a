package io.scbf.hbase.differential;

import java.util.Map;
import java.util.TreeMap;

/** Counts for the summary line: what ran, and how often the oracle was asked. */
final class Stats {
  long sequences;
  long operations;
  long events;
  long eventsSkipped;
  long checks;
  long refusalsChecked;
  long staleWaits;
  long clientCacheLoops;

  /** Writes sent again after HBase's client looped on a moved region's records (Runner.apply). */
  long writesSentAgain;

  long futureStampedKept;
  long failures;

  /** Sequences the cluster failed before their checks could (exceptions from HBase calls). */
  long errors;

  final Map<String, Long> perKind = new TreeMap<>();
  final Map<String, Long> queriesPerKind = new TreeMap<>();
  final Map<String, Long> millisPerKind = new TreeMap<>();
  long setupMillis;
  long checkMillis;

  /** Adds another worker's counts (parallel sequences keep one Stats each). */
  void add(Stats o) {
    sequences += o.sequences;
    operations += o.operations;
    events += o.events;
    eventsSkipped += o.eventsSkipped;
    checks += o.checks;
    refusalsChecked += o.refusalsChecked;
    staleWaits += o.staleWaits;
    clientCacheLoops += o.clientCacheLoops;
    writesSentAgain += o.writesSentAgain;
    futureStampedKept += o.futureStampedKept;
    failures += o.failures;
    errors += o.errors;
    o.perKind.forEach((k, v) -> perKind.merge(k, v, Long::sum));
    o.queriesPerKind.forEach((k, v) -> queriesPerKind.merge(k, v, Long::sum));
    o.millisPerKind.forEach((k, v) -> millisPerKind.merge(k, v, Long::sum));
    setupMillis += o.setupMillis;
    checkMillis += o.checkMillis;
  }

  void took(String what, long sinceMillis) {
    millisPerKind.merge(what, System.currentTimeMillis() - sinceMillis, Long::sum);
  }

  void op(Op op) {
    operations++;
    perKind.merge(op.kind(), 1L, Long::sum);
    if (op instanceof Op.Batch b)
      b.writes().forEach(w -> perKind.merge("Batch." + w.kind(), 1L, Long::sum));
    if (op instanceof Op.Concurrent c)
      c.writes().forEach(w -> perKind.merge("Concurrent." + w.kind(), 1L, Long::sum));
    if (!(op instanceof Op.Write) && !(op instanceof Op.Concurrent)) events++;
  }

  void query(Query q) {
    checks++;
    String name = q.toString();
    queriesPerKind.merge(name.substring(0, name.indexOf('(')), 1L, Long::sum);
  }

  String summary() {
    return String.format(
        "differential: %d sequences, %d operations, %d events (%d skipped by HBase), %d checks,"
            + " %d refusals checked, %d stale index answers waited out, %d kept by a cell stamped in"
            + " the future, %d steps read again through"
            + " a new connection (HBase client cache loop), %d writes sent again after the same"
            + " loop, %d failures, %d run errors;"
            + " operations per kind %s; queries per kind %s; ms in table setup and drop %d,"
            + " in checks %d, per op kind %s",
        sequences,
        operations,
        events,
        eventsSkipped,
        checks,
        refusalsChecked,
        staleWaits,
        futureStampedKept,
        clientCacheLoops,
        writesSentAgain,
        failures,
        errors,
        perKind,
        queriesPerKind,
        setupMillis,
        checkMillis,
        millisPerKind);
  }
}
