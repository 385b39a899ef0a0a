package io.scbf.hbase.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.QueryTrace;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.apache.hadoop.hbase.TableName;
import org.junit.jupiter.api.Test;

/** The client's query counters and per-kind latency percentiles (HBase metrics histograms). */
class QueryStatsTest {
  static QueryTrace trace(String kind, long micros) {
    return QueryTrace.builder(kind).totalMicros(micros).build();
  }

  @Test
  void eachTraceKindFallsInItsLatencyKind() {
    assertEquals(QueryStats.Kind.POINT, QueryStats.Kind.of("point"));
    assertEquals(QueryStats.Kind.POINT, QueryStats.Kind.of("local-point-strict"));
    assertEquals(QueryStats.Kind.POINT, QueryStats.Kind.of("point-scan (planned)"));
    assertEquals(QueryStats.Kind.RANGE, QueryStats.Kind.of("local-range"));
    assertEquals(QueryStats.Kind.RANGE, QueryStats.Kind.of("range-ordered (first 10)"));
    assertEquals(QueryStats.Kind.RANGE, QueryStats.Kind.of("range-entries-scan (index building)"));
    assertEquals(QueryStats.Kind.AND, QueryStats.Kind.of("and (2 of 3 conditions intersected)"));
    assertEquals(QueryStats.Kind.STREAM, QueryStats.Kind.of("local-point-scan-stream"));
    assertEquals(QueryStats.Kind.OTHER, QueryStats.Kind.of("something new"));
  }

  @Test
  void percentilesPerKindOverTheQueriesSinceTheLastRead() {
    QueryStats stats = new QueryStats();
    try {
      // Point queries of 1..1000 µs in a shuffled order, ranges all at 50 ms.
      for (int i = 0; i < 1000; i++) stats.count(trace("point", 1 + (i * 7919L) % 1000));
      for (int i = 0; i < 10; i++) stats.count(trace("local-range", 50_000));

      Map<String, Long> m = stats.getLatencyMicros();
      assertEquals(1000, m.get("point.count"));
      assertNear(500, m.get("point.p50"));
      assertNear(950, m.get("point.p95"));
      assertNear(990, m.get("point.p99"));
      assertEquals(1000, m.get("point.max"));
      assertEquals(10, m.get("range.count"));
      assertEquals(50_000, m.get("range.p99"));
      assertTrue(!m.containsKey("and.count"), "no AND query, no figures: " + m);
      assertEquals(1010, stats.getQueries());
      assertEquals(1000 * 1001 / 2 + 500_000, stats.getTotalMicros());

      // A read starts the histograms afresh; the counters keep counting.
      stats.count(trace("point", 7));
      m = stats.getLatencyMicros();
      assertEquals(1, m.get("point.count"));
      assertEquals(7, m.get("point.max"));
      assertTrue(!m.containsKey("range.count"), m.toString());
      assertEquals(1011, stats.getQueries());
    } finally {
      stats.unregister();
    }
  }

  /**
   * The object name the metrics reference gives (T the table, N an id) is the one a table
   * registers.
   */
  @Test
  void theDocumentedObjectNameFindsTheTablesMBean() throws Exception {
    Matcher documented =
        Pattern.compile("`(io\\.scbf\\.hbase:type=IndexedTable,[^`]*)`")
            .matcher(Files.readString(Path.of("docs/operations.md")));
    assertTrue(documented.find(), "docs/operations.md names the client MBean");
    ObjectName pattern =
        new ObjectName(documented.group(1).replace("\"T\"", "\"a-table\"").replace("=N", "=*"));
    QueryStats stats = new QueryStats();
    stats.register(TableName.valueOf("a-table"));
    try {
      assertEquals(
          1,
          ManagementFactory.getPlatformMBeanServer().queryNames(pattern, null).size(),
          pattern.toString());
      assertEquals(
          0L,
          ManagementFactory.getPlatformMBeanServer()
              .getAttribute(
                  ManagementFactory.getPlatformMBeanServer()
                      .queryNames(pattern, null)
                      .iterator()
                      .next(),
                  "Queries"));
    } finally {
      stats.unregister();
    }
  }

  /** HBase's histogram places values in bins: a percentile is exact to within 1% of the range. */
  static void assertNear(long expected, long actual) {
    assertTrue(Math.abs(expected - actual) <= 10, "expected about " + expected + ", got " + actual);
  }
}
