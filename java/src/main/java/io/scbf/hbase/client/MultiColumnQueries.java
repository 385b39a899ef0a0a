package io.scbf.hbase.client;

import io.scbf.hbase.Condition;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.QueryPlan.Answer;
import io.scbf.hbase.QueryTrace;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * AND of equalities and INs on indexed columns, in either index mode, re-checked against every
 * condition. Each condition's rows are estimated from its values' counts. If scanning the table
 * costs less than the most selective condition's index plan, the table is scanned with every
 * condition tested in the region servers. Otherwise the row keys of the most selective condition
 * are intersected with those of every other condition estimated at most {@link #INTERSECT_RATIO}
 * times larger, before any row is read: rows are fetched only for keys in every set. Conditions
 * without an estimate are only re-checked (when none has one, the first condition's keys are read).
 */
@InterfaceAudience.Private
public final class MultiColumnQueries {
  /**
   * A condition is intersected if estimated at most this many times the rows of the most selective
   * one: fetching more keys would cost more than re-checking the rows they would remove.
   */
  static final int INTERSECT_RATIO = 4;

  private final QueryContext context;
  private final PointQueries points;

  public MultiColumnQueries(QueryContext context, PointQueries points) {
    this.context = context;
    this.points = points;
  }

  /** One value of a condition, routed and planned for its row keys. */
  private record ValueRoute(IndexSpec spec, byte[] value, Routed routed, QueryPlan plan) {}

  /** The rows satisfying every condition now. */
  public List<Result> rows(Condition... conditions) throws IOException {
    if (conditions == null || conditions.length == 0) {
      throw new IllegalArgumentException("find needs at least one condition");
    }
    long start = System.nanoTime();
    List<Condition> all = List.of(conditions);
    // Each value routed and planned once: for the estimates, then for reading its keys.
    List<List<ValueRoute>> routes = new ArrayList<>(all.size());
    List<IndexSpec> specs = new ArrayList<>(all.size());
    long[] estimated = new long[all.size()];
    long tableRows = -1;
    int driver = -1;
    for (int i = 0; i < all.size(); i++) {
      Condition c = all.get(i);
      IndexSpec spec = context.indexes.onColumn(c.family(), c.qualifier());
      specs.add(spec);
      List<ValueRoute> values = new ArrayList<>(c.values().size());
      for (byte[] raw : c.values()) {
        byte[] v = spec.indexForm(raw);
        Routed routed = context.route(spec, v);
        values.add(new ValueRoute(spec, v, routed, context.plan(Answer.ROW_KEYS, spec, routed)));
      }
      routes.add(values);
      estimated[i] = 0;
      for (ValueRoute v : values) {
        if (v.plan().estimatedRows() < 0) {
          estimated[i] = -1;
          break;
        }
        estimated[i] += v.plan().estimatedRows();
        tableRows = Math.max(tableRows, v.plan().tableRows());
      }
      if (estimated[i] >= 0 && (driver < 0 || estimated[i] < estimated[driver])) driver = i;
    }
    QueryPlan plan =
        context.router.planAnd(driver < 0 ? -1 : estimated[driver], tableRows, all.size());
    List<Result> rows;
    int intersected = 0;
    if (plan.kind() == QueryPlan.Kind.DATA_SCAN) {
      rows = context.scans.matching(all, specs);
    } else {
      TreeSet<byte[]> candidates = null;
      for (int i = 0; i < all.size(); i++) {
        boolean selective =
            i == (driver < 0 ? 0 : driver)
                || (estimated[i] >= 0
                    && driver >= 0
                    && estimated[i] <= INTERSECT_RATIO * Math.max(1, estimated[driver]));
        if (!selective) continue;
        TreeSet<byte[]> keys = new TreeSet<>(Bytes.BYTES_COMPARATOR);
        for (ValueRoute v : routes.get(i)) {
          keys.addAll(points.rowKeys(v.spec(), v.value(), v.routed(), v.plan()));
        }
        if (candidates == null) {
          candidates = keys;
        } else {
          candidates.retainAll(keys);
        }
        intersected++;
        if (candidates.isEmpty()) break;
      }
      rows = context.rechecks.rows(new ArrayList<>(candidates), r -> matchesAll(all, specs, r));
    }
    boolean scanned = plan.kind() == QueryPlan.Kind.DATA_SCAN;
    context.trace(
        QueryTrace.builder(
                scanned
                    ? "and-scan (planned)"
                    : "and (" + intersected + " of " + all.size() + " conditions intersected)")
            .routing(new QueryTrace.Routing(!scanned, false, 0))
            .lookups(new QueryTrace.Lookups(0, rows.size(), 0))
            .totalMicros(QueryContext.micros(start))
            .plan(plan)
            .build());
    return rows;
  }

  /**
   * True if the row satisfies every condition: raw bytes for an untyped index's column, the typed
   * value otherwise (a {@code BIG_DECIMAL} 1.00 equals 1.0).
   */
  static boolean matchesAll(List<Condition> conditions, List<IndexSpec> specs, Result r) {
    for (int i = 0; i < conditions.size(); i++) {
      Condition c = conditions.get(i);
      IndexSpec spec = specs.get(i);
      byte[] current = r.getValue(c.family(), c.qualifier());
      if (!spec.isTyped()) {
        if (!c.test(current)) return false;
        continue;
      }
      byte[] form = current == null ? null : spec.valueOf(col -> current);
      if (form == null) return false;
      boolean any = false;
      for (byte[] v : c.values()) any |= Arrays.equals(form, spec.indexForm(v));
      if (!any) return false;
    }
    return true;
  }
}
