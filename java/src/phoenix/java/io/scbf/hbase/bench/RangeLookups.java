package io.scbf.hbase.bench;

import static io.scbf.hbase.bench.HBaseBenchmark.say;
import static io.scbf.hbase.bench.RangeMeasure.ms;
import static io.scbf.hbase.bench.RangeMeasure.num;
import static io.scbf.hbase.bench.RangeMeasure.ratio;
import static io.scbf.hbase.bench.RangeMeasure.throughput;

import io.scbf.hbase.IndexEntry;
import io.scbf.hbase.IndexedTable;
import io.scbf.hbase.ValueOrder;
import io.scbf.hbase.bench.RangeMeasure.Config;
import io.scbf.hbase.bench.RangeMeasure.Query;
import io.scbf.hbase.bench.RangeMeasure.Samples;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Sections 3 and 4 of {@link RangeBenchmark}: the first 10 in value order of a range, both orders,
 * and equality on ORDERED against BY_VALUE and Phoenix.
 */
final class RangeLookups extends RangeRun {
  RangeLookups(RangeRun run) {
    super(run);
  }

  // ---------------------------------------------------------------- section 3: first 10

  /** The first 10 values of [lo, hi) in the order asked (the oracle). */
  List<Long> firstTen(long lo, long hi, boolean descending) {
    int from = lowerBound(sortedV, lo), to = lowerBound(sortedV, hi);
    List<Long> out = new ArrayList<>();
    if (descending) {
      for (int k = to - 1; k >= from && out.size() < 10; k--) out.add(sortedV[k]);
    } else {
      for (int k = from; k < to && out.size() < 10; k++) out.add(sortedV[k]);
    }
    return out;
  }

  interface TopQuery {
    List<Long> run(long lo, long hi) throws Exception;
  }

  void topTen(IndexedTable ordered) throws Exception {
    long span = SPAN_V / 100;
    long[] lo = starts(span, TOP_SAMPLES + 10);
    Map<String, TopQuery> systems = new LinkedHashMap<>();
    Map<String, Boolean> desc = new LinkedHashMap<>();
    for (ValueOrder order : ValueOrder.values()) {
      boolean d = order == ValueOrder.DESCENDING;
      systems.put(
          "scbf rows, range(v, lo, hi, " + order + ", 10)",
          (a, b) -> {
            List<Long> out = new ArrayList<>();
            for (Result r : ordered.range("v", Bytes.toBytes(a), Bytes.toBytes(b), order, 10)) {
              out.add(Bytes.toLong(r.getValue(D, V)));
            }
            return out;
          });
      desc.put("scbf rows, range(v, lo, hi, " + order + ", 10)", d);
      systems.put(
          "scbf covered, rangeEntries(v, lo, hi, " + order + ", 10)",
          (a, b) -> {
            List<Long> out = new ArrayList<>();
            for (IndexEntry e :
                ordered.rangeEntries("v", Bytes.toBytes(a), Bytes.toBytes(b), order, 10)) {
              out.add(Bytes.toLong(e.value()));
            }
            return out;
          });
      desc.put("scbf covered, rangeEntries(v, lo, hi, " + order + ", 10)", d);
      java.sql.Connection c = DriverManager.getConnection(url);
      PreparedStatement ps =
          c.prepareStatement(
              "SELECT PK, P, V FROM "
                  + PHOENIX
                  + " WHERE V >= ? AND V < ? ORDER BY V "
                  + (d ? "DESC " : "")
                  + "LIMIT 10");
      String name = "Phoenix ... ORDER BY V " + (d ? "DESC " : "") + "LIMIT 10";
      systems.put(
          name,
          (a, b) -> {
            ps.setLong(1, a);
            ps.setLong(2, b);
            List<Long> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                rs.getString(1);
                rs.getString(2);
                out.add(rs.getLong(3));
              }
            }
            return out;
          });
      desc.put(name, d);
    }
    Map<String, Samples> samples = new LinkedHashMap<>();
    for (String s : systems.keySet()) samples.put(s, new Samples());
    for (int i = 0; i < lo.length; i++) {
      for (Map.Entry<String, TopQuery> s : systems.entrySet()) {
        long t = System.nanoTime();
        List<Long> got = s.getValue().run(lo[i], lo[i] + span);
        long micros = (System.nanoTime() - t) / 1000;
        List<Long> expected = firstTen(lo[i], lo[i] + span, desc.get(s.getKey()));
        if (!got.equals(expected)) {
          throw new IllegalStateException(
              s.getKey()
                  + " ["
                  + lo[i]
                  + ", "
                  + (lo[i] + span)
                  + "): "
                  + got
                  + ", the oracle "
                  + expected);
        }
        if (i < 10) continue; // warm-up
        Samples sm = samples.get(s.getKey());
        sm.add(micros);
        if (s.getKey().startsWith("scbf")) sm.trace(ordered);
      }
    }
    say(
        "%n## 3. First 10 in value order of a 1%% range (%,d rows in range), 1 thread, %d ranges%n",
        rows / 100, TOP_SAMPLES);
    say("| query | median ms | p99 ms | regions asked | Phoenix median / this median |");
    say("| --- | ---: | ---: | ---: | ---: |");
    for (Map.Entry<String, Samples> e : samples.entrySet()) {
      boolean d = desc.get(e.getKey());
      double phoenix =
          samples.get("Phoenix ... ORDER BY V " + (d ? "DESC " : "") + "LIMIT 10").pctMs(50);
      Samples s = e.getValue();
      say(
          "| %s | %s | %s | %s | %s |",
          e.getKey(),
          ms(s.pctMs(50)),
          ms(s.pctMs(99)),
          Double.isNaN(s.meanAsked()) ? "-" : String.format(Locale.ROOT, "%.2f", s.meanAsked()),
          ratio(phoenix / s.pctMs(50)));
      csv("top10", e.getKey(), d ? "desc" : "asc", "median_ms", s.pctMs(50));
      csv("top10", e.getKey(), d ? "desc" : "asc", "p99_ms", s.pctMs(99));
    }
  }

  // ---------------------------------------------------------------- section 4: equality

  void equality(IndexedTable ordered, IndexedTable byValue) throws Exception {
    long[] values = new long[4096];
    for (int i = 0; i < values.length; i++) values[i] = vs[random.nextInt(rows)];
    List<Config> configs = new ArrayList<>();
    configs.add(
        new Config(
            "scbf ORDERED find",
            ordered,
            () -> i -> ordered.find(D, V, Bytes.toBytes(values[i])).size()));
    configs.add(
        new Config(
            "scbf BY_VALUE find",
            byValue,
            () -> i -> byValue.find(D, V, Bytes.toBytes(values[i])).size()));
    configs.add(
        new Config(
            "scbf ORDERED findEntries",
            ordered,
            () -> i -> ordered.findEntries(D, V, Bytes.toBytes(values[i])).size()));
    configs.add(
        new Config(
            "scbf BY_VALUE findEntries",
            byValue,
            () -> i -> byValue.findEntries(D, V, Bytes.toBytes(values[i])).size()));
    configs.add(
        new Config(
            "Phoenix covered (WHERE V = ?)",
            null,
            () -> {
              java.sql.Connection c = DriverManager.getConnection(url);
              PreparedStatement ps =
                  c.prepareStatement("SELECT PK, P FROM " + PHOENIX + " WHERE V = ?");
              return i -> {
                ps.setLong(1, values[i]);
                long n = 0;
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) {
                    rs.getString(2);
                    n++;
                  }
                }
                return n;
              };
            }));
    for (Config c : configs) {
      Query q = c.factory.open();
      for (int i = 0; i < SAMPLES; i++) {
        check(q.run(i), countV(values[i], values[i] + 1), c.name + " = " + values[i]);
      }
    }
    throughput(configs, THREADS, values.length);
    say("%n## 4. Equality on existing values (1 row each), %d threads%n", THREADS);
    say("| query | q/s | regions asked | vs BY_VALUE | vs Phoenix |");
    say("| --- | ---: | ---: | ---: | ---: |");
    double phoenix = configs.get(4).qps();
    Map<String, Double> byName = new TreeMap<>();
    for (Config c : configs) byName.put(c.name, c.qps());
    for (Config c : configs) {
      String base = c.name.replace("ORDERED", "BY_VALUE");
      double vsByValue = c.name.contains("ORDERED") ? c.qps() / byName.get(base) : Double.NaN;
      say(
          "| %s | %s | %s | %s | %s |",
          c.name,
          num(c.qps()),
          c.traced == null
              ? "-"
              : String.format(Locale.ROOT, "%.2f / %.0f", c.meanAsked(), c.meanTotal()),
          ratio(vsByValue),
          ratio(c.qps() / phoenix));
      csv("equality", c.name, "", "qps", c.qps());
      if (c.traced != null) csv("equality", c.name, "", "regions_asked", c.meanAsked());
    }
  }
}
