package io.scbf.hbase.client;

import io.scbf.hbase.Condition;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.QueryPlan.Answer;
import io.scbf.hbase.QueryTrace;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * AND of equalities, INs, ranges and "present", in either index mode, re-checked against every
 * condition. A range or "present" condition is only re-checked. An equality or IN is answered by
 * its column's index, or else by a partial index on its column whose WHERE the conditions imply; a
 * condition on a column with neither is only re-checked, and when no condition has an index the
 * table is scanned. Each condition's rows are estimated from its values' counts. If scanning the
 * table costs less than the most selective condition's index plan, the table is scanned with every
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

  /**
   * The AND's plan: each condition's index (null: re-checked only), its values' routes, the
   * estimates and the most selective indexed condition ({@code driver}, -1: none estimated).
   */
  private record Planned(
      List<Condition> all,
      List<IndexSpec> specs,
      List<List<ValueRoute>> routes,
      long[] estimated,
      int driver,
      QueryPlan plan) {}

  /** The rows satisfying every condition now. */
  public List<Result> rows(Condition... conditions) throws IOException {
    long start = System.nanoTime();
    Planned p = plan(conditions);
    List<Condition> all = p.all();
    List<IndexSpec> specs = p.specs();
    long[] estimated = p.estimated();
    int driver = p.driver();
    QueryPlan plan = p.plan();
    List<Result> rows;
    int intersected = 0;
    if (plan.kind() == QueryPlan.Kind.DATA_SCAN) {
      rows = context.scans.matching(all, specs);
    } else {
      int first = driver; // without estimates, the first indexed condition's keys are read
      for (int i = 0; first < 0; i++) if (specs.get(i) != null) first = i;
      TreeSet<byte[]> candidates = null;
      for (int i = 0; i < all.size(); i++) {
        if (specs.get(i) == null) continue;
        boolean selective =
            i == first
                || (estimated[i] >= 0
                    && driver >= 0
                    && estimated[i] <= INTERSECT_RATIO * Math.max(1, estimated[driver]));
        if (!selective) continue;
        TreeSet<byte[]> keys = new TreeSet<>(Bytes.BYTES_COMPARATOR);
        for (ValueRoute v : p.routes().get(i)) {
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

  /** The plan {@link #rows} would run now (nothing is read but the routing state). */
  public QueryPlan explain(Condition... conditions) {
    return plan(conditions).plan();
  }

  private Planned plan(Condition... conditions) {
    if (conditions == null || conditions.length == 0) {
      throw new IllegalArgumentException("find needs at least one condition");
    }
    List<Condition> all = List.of(conditions);
    // Each value routed and planned once: for the estimates, then for reading its keys.
    List<List<ValueRoute>> routes = new ArrayList<>(all.size());
    List<IndexSpec> specs = new ArrayList<>(all.size());
    List<String> choices = new ArrayList<>();
    long[] estimated = new long[all.size()];
    long tableRows = -1;
    int driver = -1;
    for (int i = 0; i < all.size(); i++) {
      Condition c = all.get(i);
      IndexSpec spec = indexFor(c, all, choices);
      specs.add(spec);
      List<ValueRoute> values = new ArrayList<>(c.values().size());
      routes.add(values);
      if (spec == null) continue;
      for (byte[] raw : c.values()) {
        byte[] v = IndexValues.indexForm(spec, raw);
        Routed routed = context.route(spec, v);
        values.add(new ValueRoute(spec, v, routed, context.plan(Answer.ROW_KEYS, spec, routed)));
      }
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
    String why = String.join("; ", choices);
    QueryPlan plan;
    if (specs.stream().allMatch(s -> s == null)) {
      plan =
          new QueryPlan(
              QueryPlan.Kind.DATA_SCAN,
              Answer.ROWS,
              -1,
              -1,
              -1,
              -1,
              -1,
              Double.NaN,
              Double.NaN,
              "AND of " + all.size() + " conditions, none with a usable index: a scan; " + why);
    } else {
      QueryPlan p =
          context.router.planAnd(driver < 0 ? -1 : estimated[driver], tableRows, all.size());
      plan =
          new QueryPlan(
              p.kind(),
              p.answer(),
              p.estimatedRows(),
              p.boundRows(),
              p.tableRows(),
              p.regionsAsked(),
              p.regionsTotal(),
              p.indexCostMs(),
              p.scanCostMs(),
              p.reason() + "; " + why);
    }
    return new Planned(all, specs, routes, estimated, driver, plan);
  }

  /**
   * The index answering {@code c} within the AND of {@code all}: its column's own index, or a
   * partial index on it whose WHERE {@code all} implies; null if none (the condition is only
   * re-checked). {@code choices} gets why, as {@code explain} shows it.
   */
  private IndexSpec indexFor(Condition c, List<Condition> all, List<String> choices) {
    String column = Bytes.toStringBinary(c.family()) + ":" + Bytes.toStringBinary(c.qualifier());
    if (c.kind() != Condition.Kind.IN) {
      // Its rows are no set of values to look up; it still selects a partial index for the others.
      choices.add(c + ": re-checked only");
      return null;
    }
    IndexSpec own = context.indexes.byColumn(c.family(), c.qualifier());
    if (own != null) {
      choices.add(column + " by index '" + own.alias() + "'");
      return own;
    }
    IndexSpec chosen = null;
    for (IndexSpec s : context.indexes.derivedOn(new IndexSpec.Column(c.family(), c.qualifier()))) {
      if (s.expression() != null) {
        choices.add(
            "expression index '" + s.alias() + "' not used: it is asked by alias with its value");
      } else if (!IndexValues.isImpliedBy(s, all, this::comparedIn)) {
        choices.add(
            "partial index '"
                + s.alias()
                + "' not used: the query does not imply its WHERE "
                + s.where());
      } else if (chosen == null) {
        chosen = s;
        choices.add(column + " by partial index '" + s.alias() + "' (the query implies its WHERE)");
      }
    }
    if (chosen == null) choices.add(column + " has no usable index: re-checked only");
    return chosen;
  }

  /**
   * The types in which {@link #matchesAll} may compare {@code c}'s values with a row's: its
   * column's own index's; without one, bytes or the type of any partial index on the column (which
   * of them answers it is chosen by implications that depend on this, so all are assumed).
   */
  private Set<IndexSpec.ValueType> comparedIn(Condition c) {
    if (c.kind() != Condition.Kind.IN) return Set.of(IndexSpec.ValueType.BYTES);
    IndexSpec own = context.indexes.byColumn(c.family(), c.qualifier());
    if (own != null) return Set.of(own.type());
    Set<IndexSpec.ValueType> types = EnumSet.of(IndexSpec.ValueType.BYTES);
    for (IndexSpec s : context.indexes.derivedOn(new IndexSpec.Column(c.family(), c.qualifier()))) {
      if (s.expression() == null) types.add(s.type());
    }
    return types;
  }

  /**
   * True if the row satisfies every condition: {@link Condition#test} for a condition without an
   * index or with an untyped one, the typed value otherwise (a {@code BIG_DECIMAL} 1.00 equals
   * 1.0); only IN conditions have an index.
   */
  static boolean matchesAll(List<Condition> conditions, List<IndexSpec> specs, Result r) {
    for (int i = 0; i < conditions.size(); i++) {
      Condition c = conditions.get(i);
      IndexSpec spec = specs.get(i);
      byte[] current = r.getValue(c.family(), c.qualifier());
      if (spec == null || !spec.isTyped()) {
        if (!c.test(current)) return false;
        continue;
      }
      byte[] form = typedForm(spec, current);
      if (form == null) return false;
      boolean any = false;
      for (byte[] v : c.values()) any |= Arrays.equals(form, IndexValues.indexForm(spec, v));
      if (!any) return false;
    }
    return true;
  }

  /** The column value's index form, null if absent or not of the index's type. */
  private static byte[] typedForm(IndexSpec spec, byte[] current) {
    if (current == null) return null;
    try {
      return IndexValues.indexForm(spec, current);
    } catch (IllegalArgumentException notOfTheType) {
      return null;
    }
  }
}
