package io.scbf.hbase.client;

import com.google.protobuf.ServiceException;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.QueryTrace;
import io.scbf.hbase.shared.DaemonThreads;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRoutingService;
import io.scbf.hbase.shared.proto.IndexProtos.StatsRequest;
import io.scbf.hbase.shared.proto.IndexProtos.StatsResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every query of one {@code IndexedTable} shares: the table's indexes, its lookup pool, its
 * router, the index readers (global, local, data scan), the re-check, and the calling thread's last
 * trace. Built once per table; thread-safe.
 */
@InterfaceAudience.Private
public final class QueryContext implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(QueryContext.class);

  /**
   * The byte budget of one index answer of a list-form query (the most a region sends in one
   * message): larger answers come in several.
   */
  static final int LIST_PAGE_BYTES = 32 << 20;

  final Connection connection;
  final TableName dataTable;
  final TableIndexes indexes;
  final ExecutorService pool;
  final QueryRouter router;
  private volatile boolean closed;
  final DataScan scans;
  final LocalQueries local;
  final GlobalLookups global;
  final GlobalPages globalPages;
  final RangeSizes rangeSizes;
  final Rechecks rechecks;
  final int pageRows;
  final boolean localReadAfterAck;
  private final Admin admin;
  private final ThreadLocal<QueryTrace> lastTrace = new ThreadLocal<>();
  private final QueryStats stats = new QueryStats();
  private final ThreadLocal<QueryTrace> lastCounted = new ThreadLocal<>();
  private volatile boolean strict;
  // A query's own strictness, for the calling thread while it runs (IndexQuery.withStrict).
  private final ThreadLocal<Boolean> strictQuery = ThreadLocal.withInitial(() -> false);
  private final boolean hasEventual;
  private volatile long lagMs = -1;
  private volatile long lagReadNanos = System.nanoTime() - TimeUnit.DAYS.toNanos(1);

  private QueryContext(Connection connection, TableName dataTable, Admin admin) throws IOException {
    this.connection = connection;
    this.dataTable = dataTable;
    this.admin = admin;
    this.indexes = TableIndexes.read(connection, admin, dataTable);
    this.hasEventual =
        indexes.all().stream().anyMatch(s -> s.consistency() == IndexSpec.Consistency.EVENTUAL);
    // The first query would otherwise look up every bucket's region in hbase:meta, one bucket
    // at a time (tens of ms); one scan of meta here fills the connection's location cache.
    for (IndexSpec s : indexes.all()) {
      if (s.isLocal()) continue;
      try (RegionLocator locator =
          connection.getRegionLocator(IndexCatalog.indexTableName(dataTable, s.alias()))) {
        locator.getAllRegionLocations();
      }
    }
    // Settings first: a malformed one fails before any thread is started.
    Settings settings = Settings.from(connection.getConfiguration());
    int maxBuckets = indexes.all().stream().mapToInt(IndexSpec::buckets).max().orElse(1);
    this.pool =
        Executors.newFixedThreadPool(
            Math.max(4, Math.min(16, maxBuckets)),
            DaemonThreads.named("scbf-lookup-" + dataTable.getQualifierAsString()));
    this.router =
        new MasterRouter(dataTable, new MasterRoutingCalls(admin, connection, dataTable), settings);
    this.pageRows = settings.clientPageRows();
    this.localReadAfterAck = settings.clientLocalReadAfterAck();
    this.scans = new DataScan(this, connection, dataTable, pool);
    this.rechecks = new Rechecks(connection, dataTable, pool);
    this.local = new LocalQueries(this);
    this.global = new GlobalLookups(this);
    this.globalPages = new GlobalPages(this);
    this.rangeSizes = new RangeSizes(this);
    stats.register(dataTable);
  }

  /** See {@code IndexedTable.awaitIndexed}. */
  public boolean awaitIndexed(long timeoutMs) throws IOException {
    return EventualMode.awaitIfShipped(connection, dataTable, timeoutMs);
  }

  /** Reads the table's indexes and prepares its queries. */
  public static QueryContext open(Connection connection, TableName dataTable) throws IOException {
    Admin admin = connection.getAdmin();
    try {
      return new QueryContext(connection, dataTable, admin);
    } catch (IOException | RuntimeException e) {
      admin.close();
      throw e;
    }
  }

  public List<IndexSpec> indexes() {
    return indexes.all();
  }

  public void setStrict(boolean strict) {
    this.strict = strict;
  }

  boolean strict() {
    return strict || strictQuery.get();
  }

  /** A query run on the calling thread. */
  public interface Query<T> {
    T run() throws IOException;
  }

  /**
   * Runs {@code query} strict if {@code strictQuery} (or the table is): its routing is decided
   * while it runs on this thread, before any stream it opens is read.
   */
  public <T> T strictIf(boolean strictQuery, Query<T> query) throws IOException {
    if (!strictQuery) return query.run();
    this.strictQuery.set(true);
    try {
      return query.run();
    } finally {
      this.strictQuery.remove();
    }
  }

  /** What the calling thread's last query did, or null before its first query. */
  public QueryTrace lastTrace() {
    return lastTrace.get();
  }

  void trace(QueryTrace trace) {
    lastTrace.set(hasEventual ? trace.toBuilder().eventualLagMs(eventualLag()).build() : trace);
  }

  /**
   * The EVENTUAL peer's lag, read again once {@link QueryTrace#LAG_REFRESH_MS} has passed (the
   * servers report it every few seconds; reading it more often would only cost the master calls).
   */
  private long eventualLag() {
    long now = System.nanoTime();
    if (now - lagReadNanos < TimeUnit.MILLISECONDS.toNanos(QueryTrace.LAG_REFRESH_MS)) {
      return lagMs;
    }
    lagReadNanos = now; // one reader at a time; the others report the value before it
    try (Admin fresh = connection.getAdmin()) {
      EventualMode.Backlog backlog = EventualMode.backlog(fresh);
      lagMs = backlog.sources() == 0 ? -1 : backlog.lagMs();
    } catch (IOException e) {
      lagMs = -1; // unknown: the trace says nothing rather than something stale
    }
    return lagMs;
  }

  /**
   * Runs a public query call ({@linkplain #readAgainIfMoved read again} if need be) and counts it.
   */
  public <T> T answered(Query<T> query) throws IOException {
    checkOpen();
    return counted(readAgainIfMoved(query));
  }

  /**
   * Runs a read; one that failed because HBase's client gave up following stale "moved to" records
   * ({@link FreshLocations}) runs once more after the table's and its index tables' cached
   * locations are dropped: a query only reads, so reading again changes nothing but its time. A
   * stream reads each page through this, so a page's read must leave its cursor where it was when
   * it fails.
   */
  <T> T readAgainIfMoved(Query<T> read) throws IOException {
    try {
      return read.run();
    } catch (IOException | RuntimeException e) {
      if (!FreshLocations.movedOn(e)) throw e;
      LOG.warn(
          "scbf: a query on {} met stale region locations ({}); asking again from meta",
          dataTable,
          e.toString());
      stats.countLocationRetry();
      FreshLocations.drop(connection, tablesAsked());
      return read.run();
    }
  }

  /** The data table and its global index tables. */
  private List<TableName> tablesAsked() {
    List<TableName> tables = new ArrayList<>();
    tables.add(dataTable);
    for (IndexSpec s : indexes.all()) {
      if (!s.isLocal()) tables.add(IndexCatalog.indexTableName(dataTable, s.alias()));
    }
    return tables;
  }

  /**
   * Counts the calling thread's last query in the table's statistics (JMX); the facade calls it
   * once per public query call, after the query, and returns {@code result}.
   */
  private <T> T counted(T result) {
    QueryTrace trace = lastTrace.get();
    if (trace != null && trace != lastCounted.get()) { // a query that traced nothing: not again
      stats.count(trace);
      lastCounted.set(trace);
    }
    return result;
  }

  /** Completes the calling thread's trace with the query's total time and its plan, if any. */
  void finishTrace(long startNanos, QueryPlan plan) {
    QueryTrace.Builder t = lastTrace.get().toBuilder().totalMicros(micros(startNanos));
    if (plan != null) t.plan(plan);
    lastTrace.set(t.build());
  }

  /**
   * A point query's routing. A strict query is not routed (it asks every region); nor is one on a
   * {@code BY_VALUE} index, whose value's key range names its region.
   */
  Routed route(IndexSpec spec, byte[] value) {
    if (value == null) throw new IllegalArgumentException("value must not be null");
    checkLength(spec, value, "value");
    if (strict() || spec.routedByKey()) return Routed.STRICT;
    return router.route(spec, value);
  }

  QueryPlan plan(QueryPlan.Answer answer, IndexSpec spec, Routed routed) {
    return router.plan(answer, spec, routed);
  }

  public long routingFailures() {
    return router.failures();
  }

  public long routingMasterCalls() {
    return router.masterCalls();
  }

  public long lookupCalls() {
    return global.calls();
  }

  public long staleRowsSent() {
    return rechecks.staleRowsSent();
  }

  /** The master's routing statistics for the index on {@code family:qualifier}. */
  public StatsResponse routingStats(byte[] family, byte[] qualifier) throws IOException {
    return routingStats(indexes.onColumn(family, qualifier).alias());
  }

  /** The master's routing statistics for the index {@code alias}. */
  public StatsResponse routingStats(String alias) throws IOException {
    // A local index files its per-region filters under the same name, without a table.
    TableName indexTable = IndexCatalog.indexTableName(dataTable, indexes.named(alias).alias());
    try {
      return IndexRoutingService.newBlockingStub(admin.coprocessorService())
          .stats(
              null, StatsRequest.newBuilder().setIndexTable(indexTable.getNameAsString()).build());
    } catch (ServiceException e) {
      throw Rpcs.unwrap(e);
    }
  }

  /** What an index's regions are: its index table's, or (local index) the data table's. */
  static QueryTrace.Target regionsOf(IndexSpec spec) {
    return spec.isLocal() ? QueryTrace.Target.DATA_REGIONS : QueryTrace.Target.INDEX_REGIONS;
  }

  static long micros(long startNanos) {
    return (System.nanoTime() - startNanos) / 1000;
  }

  /**
   * @throws IllegalStateException once the table was closed: its lookup pool is gone, and a clear
   *     message beats the pool's RejectedExecutionException.
   */
  public void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this IndexedTable of " + dataTable + " is closed");
    }
  }

  /**
   * Refuses a looked-up value (or range bound) whose index row key would pass HBase's row-key limit
   * even with an empty data row key: no index row can hold it, and the servers would fail the
   * request with a less helpful message.
   *
   * @throws IllegalArgumentException naming the limit
   */
  static void checkLength(IndexSpec spec, byte[] value, String what) {
    if (value == null) return;
    int length =
        IndexKeyCodec.rowKeyLength(
            spec.alias().getBytes(StandardCharsets.UTF_8), value, new byte[0]);
    if (length > IndexKeyCodec.MAX_ROW_KEY_LENGTH) {
      throw new IllegalArgumentException(
          what
              + " of "
              + value.length
              + " bytes is too large for index '"
              + spec.alias()
              + "': its index row key would be at least "
              + length
              + " bytes, HBase allows "
              + IndexKeyCodec.MAX_ROW_KEY_LENGTH
              + " (writes of such values are refused, so no row holds one)");
    }
  }

  /** {@link #checkLength} of both bounds of a range. */
  static void checkBounds(IndexSpec spec, byte[] lo, byte[] hi) {
    checkLength(spec, lo, "range bound");
    checkLength(spec, hi, "range bound");
  }

  @Override
  public void close() throws IOException {
    closed = true;
    stats.unregister();
    pool.shutdownNow();
    router.close();
    admin.close();
  }
}
