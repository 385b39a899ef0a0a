package io.scbf.hbase;

import java.util.Objects;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * What the last query of an {@link IndexedTable} did, in named parts: the {@link Regions} it asked,
 * its {@link Routing}, what the {@link Lookups} answered, its total time and its {@link QueryPlan}.
 *
 * <p>{@link #kind()} is "point", "point-strict" or "range" ("local-" before each for a local
 * index); "point-scan (planned)" when the planner chose a scan of the data table for a popular
 * value; "point-scan (index building)" or "range-scan (index building)" when the index was being
 * built and the data table was scanned instead; "and ..." for a multi-column query.
 *
 * @param kind what the query did (above)
 * @param regions the regions it asked
 * @param routing how it chose them
 * @param lookups what they answered
 * @param totalMicros the whole query, including the data re-check if any
 * @param plan the plan a point query chose, with its estimates (null for range queries)
 * @param eventualLagMs -1 for a table whose indexes are all STRONG (or local): their answers are
 *     never behind the acknowledged writes. For a table with an EVENTUAL index, how far behind that
 *     index's answers may be: the largest replication lag of the EVENTUAL peer as the region
 *     servers last reported it (every few seconds; read at most every {@value #LAG_REFRESH_MS} ms
 *     per table), or -1 if none has reported yet.
 */
@InterfaceAudience.Public
public record QueryTrace(
    String kind,
    QueryTrace.Regions regions,
    QueryTrace.Routing routing,
    QueryTrace.Lookups lookups,
    long totalMicros,
    QueryPlan plan,
    long eventualLagMs) {

  /** How often a table's queries read the EVENTUAL lag they report. */
  public static final long LAG_REFRESH_MS = 3000;

  /** What the regions a query asks are. */
  public enum Target {
    /** Regions of a global index's index table (one per bucket). */
    INDEX_REGIONS,
    /** Regions of the data table: a local index's, or those a scan plan reads. */
    DATA_REGIONS,
    /** Not counted: a multi-column query asks several indexes. */
    NONE
  }

  /**
   * The regions a query asked.
   *
   * @param target what they are
   * @param total regions of that kind the query could have asked (-1 if not counted)
   * @param asked regions that received a lookup (-1 if not counted)
   * @param unsure regions asked only because routing was unsure about them
   */
  public record Regions(Target target, int total, int asked, int unsure) {
    public static final Regions NOT_COUNTED = new Regions(Target.NONE, -1, -1, 0);

    public Regions {
      Objects.requireNonNull(target, "target");
    }

    @Override
    public String toString() {
      String what =
          switch (target) {
            case INDEX_REGIONS -> "index regions";
            case DATA_REGIONS -> "data regions";
            case NONE -> "regions";
          };
      return String.format("%s asked %d/%d (unsure %d)", what, asked, total, unsure);
    }
  }

  /**
   * How the query chose its regions.
   *
   * @param routed false if routing was skipped (strict, range) or failed
   * @param failed true if asking for routing failed (every region was then asked; the cause is
   *     logged by {@link IndexedTable})
   * @param micros time spent routing
   */
  public record Routing(boolean routed, boolean failed, long micros) {
    public static final Routing NOT_ROUTED = new Routing(false, false, 0);
  }

  /**
   * What the asked regions answered.
   *
   * @param cacheHits lookups answered from a region server's hot cache
   * @param indexHits index entries returned (before any re-check)
   * @param micros time of the parallel lookups
   */
  public record Lookups(int cacheHits, int indexHits, long micros) {
    public static final Lookups NONE = new Lookups(0, 0, 0);
  }

  /** Every part is counted or says it is not: none is null but the plan. */
  public QueryTrace {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(regions, "regions");
    Objects.requireNonNull(routing, "routing");
    Objects.requireNonNull(lookups, "lookups");
  }

  /** A trace of a query of {@code kind}, its parts not counted until set. */
  /** A trace without an EVENTUAL lag (the form before there was one). */
  public QueryTrace(
      String kind,
      Regions regions,
      Routing routing,
      Lookups lookups,
      long totalMicros,
      QueryPlan plan) {
    this(kind, regions, routing, lookups, totalMicros, plan, -1);
  }

  public static Builder builder(String kind) {
    return new Builder(kind);
  }

  public Builder toBuilder() {
    return new Builder(kind)
        .regions(regions)
        .routing(routing)
        .lookups(lookups)
        .totalMicros(totalMicros)
        .plan(plan)
        .eventualLagMs(eventualLagMs);
  }

  /** Builds a {@link QueryTrace}; parts left unset are "not counted". */
  public static final class Builder {
    private final String kind;
    private Regions regions = Regions.NOT_COUNTED;
    private Routing routing = Routing.NOT_ROUTED;
    private Lookups lookups = Lookups.NONE;
    private long totalMicros;
    private QueryPlan plan;
    private long eventualLagMs = -1;

    private Builder(String kind) {
      this.kind = kind;
    }

    public Builder regions(Regions regions) {
      this.regions = Objects.requireNonNull(regions, "regions");
      return this;
    }

    public Builder regions(Target target, int total, int asked, int unsure) {
      return regions(new Regions(target, total, asked, unsure));
    }

    public Builder routing(Routing routing) {
      this.routing = Objects.requireNonNull(routing, "routing");
      return this;
    }

    public Builder lookups(Lookups lookups) {
      this.lookups = Objects.requireNonNull(lookups, "lookups");
      return this;
    }

    public Builder totalMicros(long micros) {
      this.totalMicros = micros;
      return this;
    }

    public Builder plan(QueryPlan plan) {
      this.plan = plan;
      return this;
    }

    public Builder eventualLagMs(long ms) {
      this.eventualLagMs = ms;
      return this;
    }

    public QueryTrace build() {
      return new QueryTrace(kind, regions, routing, lookups, totalMicros, plan, eventualLagMs);
    }
  }

  /**
   * A global index's trace in the positional form of 0.1.
   *
   * @deprecated use {@link #builder(String)}; kept until a release whose notes list its removal.
   */
  @Deprecated
  public QueryTrace(
      String kind,
      int bucketsTotal,
      int bucketsAsked,
      int unsureBuckets,
      int cacheHits,
      int indexHits,
      boolean routed,
      long routeMicros,
      long lookupMicros,
      long totalMicros,
      int routingFailures,
      QueryPlan plan) {
    this(
        kind,
        new Regions(Target.INDEX_REGIONS, bucketsTotal, bucketsAsked, unsureBuckets),
        new Routing(routed, routingFailures > 0, routeMicros),
        new Lookups(cacheHits, indexHits, lookupMicros),
        totalMicros,
        plan);
  }

  /**
   * A trace without routing failures or plan, in the positional form of 0.1.
   *
   * @deprecated use {@link #builder(String)}; kept until a release whose notes list its removal.
   */
  @Deprecated
  public QueryTrace(
      String kind,
      int bucketsTotal,
      int bucketsAsked,
      int unsureBuckets,
      int cacheHits,
      int indexHits,
      boolean routed,
      long routeMicros,
      long lookupMicros,
      long totalMicros) {
    this(
        kind,
        bucketsTotal,
        bucketsAsked,
        unsureBuckets,
        cacheHits,
        indexHits,
        routed,
        routeMicros,
        lookupMicros,
        totalMicros,
        0,
        null);
  }

  /**
   * @deprecated use {@code regions().total()} (index or data regions, as {@code regions().target()}
   *     says); kept until a release whose notes list its removal.
   */
  @Deprecated
  public int bucketsTotal() {
    return regions.total();
  }

  /**
   * @deprecated use {@code regions().asked()}; kept until a release whose notes list its removal.
   */
  @Deprecated
  public int bucketsAsked() {
    return regions.asked();
  }

  /**
   * @deprecated use {@code regions().unsure()}; kept until a release whose notes list its removal.
   */
  @Deprecated
  public int unsureBuckets() {
    return regions.unsure();
  }

  /**
   * @deprecated use {@code lookups().cacheHits()}; kept until a release whose notes list its
   *     removal.
   */
  @Deprecated
  public int cacheHits() {
    return lookups.cacheHits();
  }

  /**
   * @deprecated use {@code lookups().indexHits()}; kept until a release whose notes list its
   *     removal.
   */
  @Deprecated
  public int indexHits() {
    return lookups.indexHits();
  }

  /**
   * @deprecated use {@code routing().routed()}; kept until a release whose notes list its removal.
   */
  @Deprecated
  public boolean routed() {
    return routing.routed();
  }

  /**
   * @deprecated use {@code routing().micros()}; kept until a release whose notes list its removal.
   */
  @Deprecated
  public long routeMicros() {
    return routing.micros();
  }

  /**
   * @deprecated use {@code lookups().micros()}; kept until a release whose notes list its removal.
   */
  @Deprecated
  public long lookupMicros() {
    return lookups.micros();
  }

  /**
   * @deprecated use {@code routing().failed()}; kept until a release whose notes list its removal.
   */
  @Deprecated
  public int routingFailures() {
    return routing.failed() ? 1 : 0;
  }

  @Override
  public String toString() {
    return String.format(
        "%s: %s, cache hits %d, index hits %d, route %d us, lookups %d us, total %d us%s%s%s",
        kind,
        regions,
        lookups.cacheHits(),
        lookups.indexHits(),
        routing.micros(),
        lookups.micros(),
        totalMicros,
        routing.failed()
            ? " (routing failed: all regions asked)"
            : routing.routed() ? "" : " (not routed)",
        plan == null ? "" : "; plan " + plan,
        eventualLagMs < 0 ? "" : "; EVENTUAL indexes up to " + eventualLagMs + " ms behind");
  }
}
