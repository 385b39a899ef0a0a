package io.scbf.hbase.shared;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every {@code scbf.*} configuration key: its name, default, bounds and meaning, read and checked
 * in this one place. The table in {@code docs/configuration.md} is generated from {@link
 * #DEFINITIONS} ({@link #markdownTable()}; a test fails when the two differ).
 *
 * <p>A value that does not parse or is out of bounds is never fatal: it is logged at ERROR with the
 * key, the value and the allowed range, and the default is used, so a typo in hbase-site.xml cannot
 * stop a region server or the master.
 */
@InterfaceAudience.Private
public final class Settings {
  private static final Logger LOG = LoggerFactory.getLogger(Settings.class);

  public static final String PUBLISH_INTERVAL_MS = "scbf.publish.interval.ms";
  public static final String ROUTE_STALE_MS = "scbf.route.stale.ms";
  public static final String ROUTE_SLICED_MIN_REGIONS = "scbf.route.sliced.min.regions";
  public static final String CACHE_CAPACITY_BYTES = "scbf.cache.capacity.bytes";
  public static final String CACHE_POLICY = "scbf.cache.policy";
  public static final String CACHE_PERIOD = "scbf.cache.period";
  public static final String CACHE_DECAY = "scbf.cache.decay";
  public static final String INDEX_WRITE_RETRIES = "scbf.index.write.retries";
  public static final String INDEX_WRITE_THREADS = "scbf.index.write.threads";
  public static final String INDEX_WRITE_GROUPING = "scbf.index.write.grouping";
  public static final String INDEX_HANDLER_COUNT = "scbf.index.handler.count";
  public static final String INDEX_RPC_PRIORITY = "scbf.index.rpc.priority";
  public static final String INDEX_VERSION_TRACKER = "scbf.index.version.tracker";

  /** A class name, so not among the numeric definitions below (docs/configuration.md has it). */
  public static final String RPC_SCHEDULER_DELEGATE = "scbf.rpc.scheduler.delegate";

  public static final String INDEX_RPC_TIMEOUT_MS = "scbf.index.rpc.timeout.ms";
  public static final String INDEX_OPERATION_TIMEOUT_MS = "scbf.index.operation.timeout.ms";
  public static final String WATCHED_ROWS_MAX = "scbf.write.watched-rows.max";
  public static final String CLIENT_ROUTING_REFRESH_MS = "scbf.client.routing.refresh.ms";
  public static final String CLIENT_ROUTING_MAX_AGE_MS = "scbf.client.routing.max.age.ms";
  public static final String CLIENT_ROUTING_MAX_BYTES = "scbf.client.routing.max.bytes";
  public static final String CLIENT_LOCAL_READ_AFTER_ACK = "scbf.client.local.read.after.ack";
  public static final String CLIENT_ROUTING_WAIT_MS = "scbf.client.routing.wait.ms";
  public static final String CLIENT_PAGE_ROWS = "scbf.client.page.rows";
  public static final String CLIENT_BUILD_THREADS = "scbf.client.build.threads";
  public static final String EVENTUAL_POLL_MS = "scbf.eventual.poll.ms";
  public static final String EVENTUAL_POLL_MAX_MS = "scbf.eventual.poll.max.ms";
  public static final String EVENTUAL_HELD_RETRY_MS = "scbf.eventual.held.retry.ms";
  public static final String PLANNER = "scbf.planner";
  public static final String PLANNER_SCAN_ROW_US = "scbf.planner.scan.row.us";
  public static final String PLANNER_INDEX_ENTRY_US = "scbf.planner.index.entry.us";
  public static final String PLANNER_FETCH_ROW_US = "scbf.planner.fetch.row.us";
  public static final String PLANNER_LOCAL_ROW_US = "scbf.planner.local.row.us";

  public static final long DEFAULT_PUBLISH_INTERVAL_MS = 500;
  public static final int DEFAULT_ROUTE_SLICED_MIN_REGIONS = 512;
  public static final long DEFAULT_CACHE_CAPACITY_BYTES = 64L << 20;
  public static final int DEFAULT_CACHE_PERIOD = 1000;
  public static final double DEFAULT_CACHE_DECAY = 0.5;
  public static final int DEFAULT_INDEX_WRITE_RETRIES = 5;
  public static final int DEFAULT_INDEX_WRITE_THREADS = 16;
  public static final int DEFAULT_INDEX_HANDLER_COUNT = 10;

  /**
   * Apart from HBase's levels (up to 300) and Apache Phoenix's defaults (500 server-side, 1000
   * index, 2000 metadata), so the two products' index pools never take each other's calls.
   */
  public static final int DEFAULT_INDEX_RPC_PRIORITY = 1500;

  /**
   * The index priority of releases before the configurable one: still admitted to the index pool
   * (with the same checks), so a server of the previous release keeps its index writes off the
   * general handlers during a rolling upgrade.
   */
  public static final int LEGACY_INDEX_RPC_PRIORITY = 1000;

  /** Apache Phoenix's priority settings and their defaults (its IndexUtil). */
  static final Map<String, Integer> PHOENIX_PRIORITIES =
      Map.of(
          "phoenix.serverside.rpc.priority", 500,
          "phoenix.index.rpc.priority", 1000,
          "phoenix.metadata.rpc.priority", 2000);

  public static final int DEFAULT_INDEX_RPC_TIMEOUT_MS = 10_000;
  public static final int DEFAULT_INDEX_OPERATION_TIMEOUT_MS = 20_000;
  public static final long DEFAULT_WATCHED_ROWS_MAX = 2_000_000;
  public static final long DEFAULT_CLIENT_ROUTING_REFRESH_MS = 250;
  public static final long DEFAULT_CLIENT_ROUTING_MAX_AGE_MS = 1000;
  public static final long DEFAULT_CLIENT_ROUTING_MAX_BYTES = 64L << 20;
  public static final long DEFAULT_CLIENT_ROUTING_WAIT_MS = 2000;
  public static final int DEFAULT_CLIENT_PAGE_ROWS = 1000;
  public static final int DEFAULT_CLIENT_BUILD_THREADS = 8;
  public static final long DEFAULT_EVENTUAL_POLL_MS = 20;
  public static final long DEFAULT_EVENTUAL_POLL_MAX_MS = 100;
  public static final long DEFAULT_EVENTUAL_HELD_RETRY_MS = 1000;
  public static final double DEFAULT_PLANNER_SCAN_ROW_US = 0.7;
  public static final double DEFAULT_PLANNER_INDEX_ENTRY_US = 2.0;
  public static final double DEFAULT_PLANNER_FETCH_ROW_US = 20.0;
  public static final double DEFAULT_PLANNER_LOCAL_ROW_US = 2.0;

  /** The cache policies {@link #CACHE_POLICY} names, in the order of their values. */
  public static final List<String> CACHE_POLICIES = List.of("hotscore", "paper", "lru", "adaptive");

  /** The words of {@link #CLIENT_LOCAL_READ_AFTER_ACK}. */
  public static final List<String> READ_AFTER_ACK_MODES = List.of("true", "false");

  /** The words of {@link #INDEX_WRITE_GROUPING}. */
  public static final List<String> WRITE_GROUPING_MODES = List.of("true", "false");

  /** The words of {@link #INDEX_VERSION_TRACKER}. */
  public static final List<String> VERSION_TRACKERS = List.of("scbf", "hbase");

  /** The planner modes {@link #PLANNER} names. */
  public static final List<String> PLANNER_MODES = List.of("cost", "index");

  /**
   * One key: numeric, with inclusive bounds; {@code defaultText} documents a derived default. A key
   * with {@code choices} takes one of those words, stored as its index.
   */
  public record Definition(
      String key,
      double defaultValue,
      double min,
      double max,
      boolean integral,
      String runsOn,
      String defaultText,
      String meaning,
      List<String> choices) {
    public Definition(
        String key,
        double defaultValue,
        double min,
        double max,
        boolean integral,
        String runsOn,
        String defaultText,
        String meaning) {
      this(key, defaultValue, min, max, integral, runsOn, defaultText, meaning, null);
    }
  }

  /** Every key, in documentation order. */
  public static final List<Definition> DEFINITIONS =
      List.of(
          new Definition(
              PUBLISH_INTERVAL_MS,
              DEFAULT_PUBLISH_INTERVAL_MS,
              10,
              3_600_000,
              true,
              "region server, master",
              null,
              "Interval between two publications of the index regions' filters to the master, ms."),
          new Definition(
              ROUTE_STALE_MS,
              -1,
              100,
              86_400_000,
              true,
              "region server, master",
              "3 x publish interval + 2000",
              "The master trusts a region server's bitmaps only while it heard from it (a"
                  + " publication, or the keep-alive an idle server sends every third of this)"
                  + " within this long; else its regions are unsure to routing (always asked), ms."),
          new Definition(
              ROUTE_SLICED_MIN_REGIONS,
              DEFAULT_ROUTE_SLICED_MIN_REGIONS,
              0,
              1 << 24,
              true,
              "master",
              null,
              "From this many regions, the master routes an index from a bit-sliced copy of its"
                  + " regions' bitmaps (docs/design.md, \"Routing at many regions\")."),
          new Definition(
              CACHE_CAPACITY_BYTES,
              DEFAULT_CACHE_CAPACITY_BYTES,
              1 << 20,
              1L << 40,
              true,
              "region server",
              null,
              "Native memory of the region server's hot cache of index lookups, bytes (every byte"
                  + " of keys, values and metadata is charged)."),
          new Definition(
              CACHE_POLICY,
              0,
              0,
              CACHE_POLICIES.size() - 1,
              true,
              "region server",
              null,
              "Replacement policy of the hot cache: hotscore (adaptive, choosing its mode while it"
                  + " runs: the default), paper (the HiBase formula, tuned by the next two keys),"
                  + " lru, or adaptive (hotscore without its mode chooser, the default before"
                  + " 0.4.0).",
              CACHE_POLICIES),
          new Definition(
              CACHE_PERIOD,
              DEFAULT_CACHE_PERIOD,
              1,
              1_000_000_000,
              true,
              "region server",
              null,
              "Policy paper: lookups per hotscore period (scores decay once per period)."),
          new Definition(
              CACHE_DECAY,
              DEFAULT_CACHE_DECAY,
              1e-6,
              1,
              false,
              "region server",
              null,
              "Policy paper: decay a in score = a * visits / period + (1 - a) * score."),
          new Definition(
              INDEX_WRITE_RETRIES,
              DEFAULT_INDEX_WRITE_RETRIES,
              0,
              100,
              true,
              "region server",
              null,
              "Retries of an index write (each failed index region re-located and resent)"
                  + " before the data write fails with IndexWriteException."),
          new Definition(
              INDEX_WRITE_THREADS,
              DEFAULT_INDEX_WRITE_THREADS,
              1,
              1024,
              true,
              "region server",
              null,
              "Threads that send a data write's index rows to the index region servers in"
                  + " parallel (one call per server), and as many that send index deletes after"
                  + " data writes."),
          new Definition(
              INDEX_WRITE_GROUPING,
              0,
              0,
              WRITE_GROUPING_MODES.size() - 1,
              true,
              "region server",
              null,
              "true: index writes bound for a server that has one of this server's calls in"
                  + " flight wait and go together in the next call (one RPC, handler and WAL sync"
                  + " for many data writes under load; a write alone goes at once); false: one"
                  + " call per data write and server.",
              WRITE_GROUPING_MODES),
          new Definition(
              INDEX_HANDLER_COUNT,
              DEFAULT_INDEX_HANDLER_COUNT,
              1,
              1000,
              true,
              "region server",
              null,
              "RPC handlers reserved for index writes (IndexRpcSchedulerFactory)."),
          new Definition(
              INDEX_RPC_PRIORITY,
              DEFAULT_INDEX_RPC_PRIORITY,
              301,
              1_000_000,
              true,
              "region server",
              null,
              "RPC priority of index writes, which sends them to the index handlers. Must differ"
                  + " from every other product's priority level; one equal to an Apache Phoenix"
                  + " priority setting is refused (logged) for the default, or the first level"
                  + " above it that Phoenix does not use."),
          new Definition(
              INDEX_VERSION_TRACKER,
              0,
              0,
              VERSION_TRACKERS.size() - 1,
              true,
              "region server",
              null,
              "Who reads the delete markers of index families (index tables' and local indexes'):"
                  + " scbf (the same"
                  + " answers as HBase's NEW_VERSION_BEHAVIOR tracker without its cost on rows"
                  + " that hold no marker: the default) or hbase (HBase's own tracker).",
              VERSION_TRACKERS),
          new Definition(
              INDEX_RPC_TIMEOUT_MS,
              DEFAULT_INDEX_RPC_TIMEOUT_MS,
              100,
              3_600_000,
              true,
              "region server",
              null,
              "Timeout of one RPC of the index-write connection, ms."),
          new Definition(
              INDEX_OPERATION_TIMEOUT_MS,
              DEFAULT_INDEX_OPERATION_TIMEOUT_MS,
              100,
              3_600_000,
              true,
              "region server",
              null,
              "Timeout of one index write with its retries, ms; the data write holds its row"
                  + " locks meanwhile."),
          new Definition(
              WATCHED_ROWS_MAX,
              DEFAULT_WATCHED_ROWS_MAX,
              0,
              1_000_000_000,
              true,
              "region server",
              null,
              "Rows per data region tracked by the filter that lets indexed writes of new rows"
                  + " skip reading old values (about 4 bytes of native memory per row); past it"
                  + " the filter turns off for that region. 0 turns it off."),
          new Definition(
              CLIENT_ROUTING_REFRESH_MS,
              DEFAULT_CLIENT_ROUTING_REFRESH_MS,
              10,
              3_600_000,
              true,
              "client",
              null,
              "While queries run, how often a client refreshes its copy of an index's routing"
                  + " bitmaps from the master (by deltas from the versions it holds), ms."),
          new Definition(
              CLIENT_ROUTING_MAX_AGE_MS,
              DEFAULT_CLIENT_ROUTING_MAX_AGE_MS,
              0,
              3_600_000,
              true,
              "client",
              null,
              "A client routes with its copy only while its last refresh is at most this old;"
                  + " older (the master is down or slow), queries ask every bucket. 0: no copy,"
                  + " every query asks the master, ms."),
          new Definition(
              CLIENT_ROUTING_MAX_BYTES,
              DEFAULT_CLIENT_ROUTING_MAX_BYTES,
              0,
              1L << 40,
              true,
              "client",
              null,
              "Largest routing copy a client keeps per index; an index whose bitmaps are larger"
                  + " is routed by asking the master on every query, bytes."),
          new Definition(
              CLIENT_LOCAL_READ_AFTER_ACK,
              0,
              0,
              READ_AFTER_ACK_MODES.size() - 1,
              true,
              "client",
              null,
              "true: a routed local-index query also asks each server holding regions its route"
                  + " skipped (one call per server, or with a lookup already sent there) which of"
                  + " them may hold the value now, so it finds every row acknowledged before it"
                  + " started; false: routing by the published filters alone, rows found within"
                  + " the publication bound (docs/design.md, consistency contract).",
              READ_AFTER_ACK_MODES),
          new Definition(
              CLIENT_ROUTING_WAIT_MS,
              DEFAULT_CLIENT_ROUTING_WAIT_MS,
              0,
              600_000,
              true,
              "client",
              null,
              "How long a query waits for the master's routing (a first copy, or the per-query"
                  + " answer) before it asks every bucket instead, ms."),
          new Definition(
              CLIENT_PAGE_ROWS,
              DEFAULT_CLIENT_PAGE_ROWS,
              1,
              1_000_000,
              true,
              "client",
              null,
              "Index entries per page of a streamed query (IndexedTable.stream, find with a"
                  + " limit); a page also stops at 4 MiB of entries or rows."),
          new Definition(
              CLIENT_BUILD_THREADS,
              DEFAULT_CLIENT_BUILD_THREADS,
              1,
              256,
              true,
              "client",
              null,
              "Data regions a backfill (IndexAdmin.createIndex, rebuildIndex) reads and indexes"
                  + " at once, one thread each."),
          new Definition(
              EVENTUAL_POLL_MS,
              DEFAULT_EVENTUAL_POLL_MS,
              0,
              60_000,
              true,
              "region server",
              null,
              "EVENTUAL indexes: how soon the replication source of the peer scbf_eventual reads"
                  + " its WAL again once caught up (and retries a failed batch), backing off to"
                  + " scbf.eventual.poll.max.ms; set on that peer's source only, so other peers"
                  + " keep HBase's replication.source.sleepforretries. 0: HBase's settings for"
                  + " this peer too, ms."),
          new Definition(
              EVENTUAL_POLL_MAX_MS,
              DEFAULT_EVENTUAL_POLL_MAX_MS,
              1,
              3_600_000,
              true,
              "region server",
              null,
              "EVENTUAL indexes: the longest wait between two reads of an idle WAL (see"
                  + " scbf.eventual.poll.ms), ms."),
          new Definition(
              EVENTUAL_HELD_RETRY_MS,
              DEFAULT_EVENTUAL_HELD_RETRY_MS,
              10,
              3_600_000,
              true,
              "region server",
              null,
              "EVENTUAL indexes: how often a region server applies the rows it set aside because"
                  + " their table could not be applied (disabled, being deleted or truncated, an"
                  + " index table offline) so that other tables' edits went on, ms."),
          new Definition(
              PLANNER,
              0,
              0,
              PLANNER_MODES.size() - 1,
              true,
              "client",
              null,
              "How point queries choose their plan: cost (the cheaper of the index and a"
                  + " parallel scan of the data table, by the value's estimated rows and the next"
                  + " four costs) or index (always the index).",
              PLANNER_MODES),
          new Definition(
              PLANNER_SCAN_ROW_US,
              DEFAULT_PLANNER_SCAN_ROW_US,
              0.001,
              1e6,
              false,
              "client",
              null,
              "Planner: cost of scanning one data row (parallel scan, value test in the region"
                  + " servers), microseconds."),
          new Definition(
              PLANNER_INDEX_ENTRY_US,
              DEFAULT_PLANNER_INDEX_ENTRY_US,
              0.001,
              1e6,
              false,
              "client",
              null,
              "Planner: cost of one index entry a lookup answers, microseconds."),
          new Definition(
              PLANNER_FETCH_ROW_US,
              DEFAULT_PLANNER_FETCH_ROW_US,
              0.001,
              1e6,
              false,
              "client",
              null,
              "Planner, global indexes: cost of reading back one indexed row to re-check it"
                  + " (find), microseconds."),
          new Definition(
              PLANNER_LOCAL_ROW_US,
              DEFAULT_PLANNER_LOCAL_ROW_US,
              0.001,
              1e6,
              false,
              "client",
              null,
              "Planner, local indexes: cost of one row a data region reads and re-checks for"
                  + " find, microseconds."));

  private final Map<String, Double> values;
  private final List<String> problems;

  private Settings(Map<String, Double> values, List<String> problems) {
    this.values = values;
    this.problems = problems;
  }

  /** Reads every key from {@code conf}; bad values are logged and replaced by their defaults. */
  public static Settings from(Configuration conf) {
    Map<String, Double> values = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    for (Definition d : DEFINITIONS) {
      String raw = conf.getTrimmed(d.key());
      if (raw == null) continue;
      try {
        double v =
            d.choices() != null
                ? d.choices().indexOf(raw.toLowerCase(java.util.Locale.ROOT))
                : d.integral() ? Long.parseLong(raw) : Double.parseDouble(raw);
        if (!(v >= d.min() && v <= d.max())) throw new NumberFormatException("out of range");
        values.put(d.key(), v);
      } catch (NumberFormatException e) {
        String problem =
            String.format(
                "scbf: %s = '%s' is invalid (%s); using the default %s",
                d.key(), raw, allowed(d), defaultText(d));
        LOG.error(problem);
        problems.add(problem);
      }
    }
    return new Settings(values, Collections.unmodifiableList(problems));
  }

  /** The invalid values met by {@link #from} (each also logged at ERROR). */
  public List<String> problems() {
    return problems;
  }

  public long publishIntervalMs() {
    return (long) get(PUBLISH_INTERVAL_MS, DEFAULT_PUBLISH_INTERVAL_MS);
  }

  public long routeStaleMs() {
    return (long) get(ROUTE_STALE_MS, 3 * publishIntervalMs() + 2000);
  }

  public int routeSlicedMinRegions() {
    return (int) get(ROUTE_SLICED_MIN_REGIONS, DEFAULT_ROUTE_SLICED_MIN_REGIONS);
  }

  public long cacheCapacityBytes() {
    return (long) get(CACHE_CAPACITY_BYTES, DEFAULT_CACHE_CAPACITY_BYTES);
  }

  /** One of {@link #CACHE_POLICIES}. */
  public String cachePolicy() {
    return CACHE_POLICIES.get((int) get(CACHE_POLICY, 0));
  }

  public int cachePeriod() {
    return (int) get(CACHE_PERIOD, DEFAULT_CACHE_PERIOD);
  }

  public double cacheDecay() {
    return get(CACHE_DECAY, DEFAULT_CACHE_DECAY);
  }

  public int indexWriteRetries() {
    return (int) get(INDEX_WRITE_RETRIES, DEFAULT_INDEX_WRITE_RETRIES);
  }

  public int indexWriteThreads() {
    return (int) get(INDEX_WRITE_THREADS, DEFAULT_INDEX_WRITE_THREADS);
  }

  public int indexHandlerCount() {
    return (int) get(INDEX_HANDLER_COUNT, DEFAULT_INDEX_HANDLER_COUNT);
  }

  /**
   * {@link #INDEX_RPC_PRIORITY}, unless Apache Phoenix uses that priority on this configuration
   * (its settings or their defaults): then the first level from the default up that it does not
   * use, logged at ERROR. Every server of a cluster reads the same settings, so all agree on it.
   */
  public int indexRpcPriority(Configuration conf) {
    int wanted = (int) get(INDEX_RPC_PRIORITY, DEFAULT_INDEX_RPC_PRIORITY);
    if (phoenixUsing(conf, wanted) == null) return wanted;
    int priority = DEFAULT_INDEX_RPC_PRIORITY;
    while (phoenixUsing(conf, priority) != null) priority++;
    LOG.error(
        "scbf: {} = {} is Apache Phoenix's {}; using {}",
        INDEX_RPC_PRIORITY,
        wanted,
        phoenixUsing(conf, wanted),
        priority);
    return priority;
  }

  private static String phoenixUsing(Configuration conf, int priority) {
    for (Map.Entry<String, Integer> e : PHOENIX_PRIORITIES.entrySet()) {
      if (conf.getInt(e.getKey(), e.getValue()) == priority) return e.getKey();
    }
    return null;
  }

  public int indexRpcTimeoutMs() {
    return (int) get(INDEX_RPC_TIMEOUT_MS, DEFAULT_INDEX_RPC_TIMEOUT_MS);
  }

  public long watchedRowsMax() {
    return (long) get(WATCHED_ROWS_MAX, DEFAULT_WATCHED_ROWS_MAX);
  }

  public long clientRoutingRefreshMs() {
    return (long) get(CLIENT_ROUTING_REFRESH_MS, DEFAULT_CLIENT_ROUTING_REFRESH_MS);
  }

  public long clientRoutingMaxAgeMs() {
    return (long) get(CLIENT_ROUTING_MAX_AGE_MS, DEFAULT_CLIENT_ROUTING_MAX_AGE_MS);
  }

  public long clientRoutingMaxBytes() {
    return (long) get(CLIENT_ROUTING_MAX_BYTES, DEFAULT_CLIENT_ROUTING_MAX_BYTES);
  }

  /** See {@link #CLIENT_LOCAL_READ_AFTER_ACK}. */
  public boolean clientLocalReadAfterAck() {
    return get(CLIENT_LOCAL_READ_AFTER_ACK, 0) == 0;
  }

  public long clientRoutingWaitMs() {
    return (long) get(CLIENT_ROUTING_WAIT_MS, DEFAULT_CLIENT_ROUTING_WAIT_MS);
  }

  public int clientBuildThreads() {
    return (int) get(CLIENT_BUILD_THREADS, DEFAULT_CLIENT_BUILD_THREADS);
  }

  public int clientPageRows() {
    return (int) get(CLIENT_PAGE_ROWS, DEFAULT_CLIENT_PAGE_ROWS);
  }

  public long eventualPollMs() {
    return (long) get(EVENTUAL_POLL_MS, DEFAULT_EVENTUAL_POLL_MS);
  }

  public long eventualPollMaxMs() {
    return (long) get(EVENTUAL_POLL_MAX_MS, DEFAULT_EVENTUAL_POLL_MAX_MS);
  }

  public long eventualHeldRetryMs() {
    return (long) get(EVENTUAL_HELD_RETRY_MS, DEFAULT_EVENTUAL_HELD_RETRY_MS);
  }

  /** See {@link #INDEX_WRITE_GROUPING}. */
  public boolean indexWriteGrouping() {
    return get(INDEX_WRITE_GROUPING, 0) == 0;
  }

  /** One of {@link #VERSION_TRACKERS}. */
  public String indexVersionTracker() {
    return VERSION_TRACKERS.get((int) get(INDEX_VERSION_TRACKER, 0));
  }

  /** One of {@link #PLANNER_MODES}. */
  public String planner() {
    return PLANNER_MODES.get((int) get(PLANNER, 0));
  }

  public double plannerScanRowUs() {
    return get(PLANNER_SCAN_ROW_US, DEFAULT_PLANNER_SCAN_ROW_US);
  }

  public double plannerIndexEntryUs() {
    return get(PLANNER_INDEX_ENTRY_US, DEFAULT_PLANNER_INDEX_ENTRY_US);
  }

  public double plannerFetchRowUs() {
    return get(PLANNER_FETCH_ROW_US, DEFAULT_PLANNER_FETCH_ROW_US);
  }

  public double plannerLocalRowUs() {
    return get(PLANNER_LOCAL_ROW_US, DEFAULT_PLANNER_LOCAL_ROW_US);
  }

  public int indexOperationTimeoutMs() {
    return (int) get(INDEX_OPERATION_TIMEOUT_MS, DEFAULT_INDEX_OPERATION_TIMEOUT_MS);
  }

  private double get(String key, double defaultValue) {
    return values.getOrDefault(key, defaultValue);
  }

  /** The documentation table: one row per key (docs/configuration.md holds exactly this). */
  public static String markdownTable() {
    StringBuilder out =
        new StringBuilder(
            "| key | default | allowed | read by | meaning |\n| --- | --- | --- | --- | --- |\n");
    for (Definition d : DEFINITIONS) {
      out.append(
          String.format(
              "| `%s` | %s | %s | %s | %s |%n",
              d.key(), defaultText(d), range(d), d.runsOn(), d.meaning()));
    }
    return out.toString();
  }

  private static String range(Definition d) {
    return d.choices() != null
        ? String.join(", ", d.choices())
        : format(d, d.min()) + " .. " + format(d, d.max());
  }

  private static String allowed(Definition d) {
    return d.choices() != null
        ? "one of " + String.join(", ", d.choices())
        : String.format(
            "%s in [%s, %s]",
            d.integral() ? "an integer" : "a number", format(d, d.min()), format(d, d.max()));
  }

  private static String defaultText(Definition d) {
    return d.defaultText() != null ? d.defaultText() : format(d, d.defaultValue());
  }

  private static String format(Definition d, double v) {
    if (d.choices() != null) return d.choices().get((int) v);
    return d.integral() ? Long.toString((long) v) : Double.toString(v);
  }

  /** Prints the documentation table (how docs/configuration.md is regenerated). */
  public static void main(String[] args) {
    System.out.print(markdownTable());
  }
}
