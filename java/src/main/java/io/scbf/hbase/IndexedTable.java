package io.scbf.hbase;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.QueryPlan.Answer;
import io.scbf.hbase.shared.CompositeValue;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.shared.proto.IndexProtos.IndexLookupService;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRoutingService;
import io.scbf.hbase.shared.proto.IndexProtos.IndexesRequest;
import io.scbf.hbase.shared.proto.IndexProtos.IndexesResponse;
import io.scbf.hbase.shared.proto.IndexProtos.LocalIndexService;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryResponse;
import io.scbf.hbase.shared.proto.IndexProtos.LookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RangeLookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RegionLookup;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import io.scbf.hbase.shared.proto.IndexProtos.RouteRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RoutingStateResponse;
import io.scbf.hbase.shared.proto.IndexProtos.ServerLookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.ServerLookupResponse;
import io.scbf.hbase.shared.proto.IndexProtos.StatsRequest;
import io.scbf.hbase.shared.proto.IndexProtos.StatsResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.ipc.CoprocessorRpcChannel;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Queries a data table through its scbf indexes.
 *
 * <p>A point query asks the master which buckets may hold the value (unless strict), asks those
 * buckets in parallel (each answers from its server's hot cache or a prefix scan of its index
 * rows), and, for {@link #find}, reads the data rows and keeps those whose current value still
 * matches. A range query asks every bucket. Answers follow the README's consistency contract: an
 * acknowledged write is found once its bucket has published its filter (1 s by default), and at
 * once by strict queries.
 *
 * <p>Thread-safe; {@link #lastTrace()} reports the calling thread's last query.
 *
 * <p>A local index is queried in its data regions: routing names the regions whose filter may hold
 * the value, and each answers in one call (whole rows for {@link #find}, re-checked there; see
 * {@link LocalQueries}).
 *
 * <p>A global index that is being built (see {@link IndexAdmin#rebuildIndex}) answers every lookup
 * with "building": the query then scans the data table ({@link DataScan}), so its answer is
 * complete, only slower.
 *
 * <p>If the master cannot be asked for routing, the query asks every bucket instead (never fewer
 * than routing would have): the answer is complete, only slower. The first such failure is logged
 * at WARN with its cause, later ones at DEBUG; {@link QueryTrace#routingFailures()} and {@link
 * #routingFailures()} count them.
 */
public final class IndexedTable implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IndexedTable.class);

  /**
   * The byte budget of one index answer of a list-form query (the most a region sends in one
   * message): larger answers come in several.
   */
  static final int LIST_PAGE_BYTES = 32 << 20;

  /**
   * A multi-column query intersects the row keys of every condition estimated at most this many
   * times the rows of the most selective one: fetching more keys would cost more than re-checking
   * the rows they would remove.
   */
  static final int INTERSECT_RATIO = 4;

  /** Gets per multi-get of the re-check (see {@link #recheck}). */
  private static final int RECHECK_CHUNK = 1000;

  private final Connection connection;
  private final TableName dataTable;
  private final List<IndexSpec> specs;
  private final Map<String, String> invalidSpecs;
  private final Admin admin;
  private final ExecutorService pool;
  private volatile boolean strict;
  private final ThreadLocal<QueryTrace> lastTrace = new ThreadLocal<>();
  private final AtomicLong routingFailures = new AtomicLong();
  private final AtomicLong staleRowsSent = new AtomicLong();
  private final AtomicLong lookupCalls = new AtomicLong();
  private final LocalQueries local;
  private final RoutingCache routing;
  private final QueryPlanner planner;
  private final DataScan scans;
  private final int pageRows;

  public IndexedTable(Connection connection, TableName dataTable) throws IOException {
    this.connection = connection;
    this.dataTable = dataTable;
    this.admin = connection.getAdmin();
    IndexCatalog.Specs read = IndexCatalog.readSpecs(indexesOf(connection, admin, dataTable));
    this.specs = read.valid();
    this.invalidSpecs = read.invalid();
    // The region servers ignore these attributes too, so the other indexes stay usable.
    invalidSpecs.forEach(
        (attr, why) ->
            LOG.warn(
                "scbf: table {} attribute {} is not a valid index spec: {}", dataTable, attr, why));
    int maxBuckets = specs.stream().mapToInt(IndexSpec::buckets).max().orElse(1);
    // The first query would otherwise look up every bucket's region in hbase:meta, one bucket
    // at a time (tens of ms); one scan of meta here fills the connection's location cache.
    for (IndexSpec s : specs) {
      if (s.isLocal()) continue;
      try (RegionLocator locator =
          connection.getRegionLocator(IndexCatalog.indexTableName(dataTable, s.alias()))) {
        locator.getAllRegionLocations();
      }
    }
    this.pool =
        Executors.newFixedThreadPool(
            Math.max(4, Math.min(16, maxBuckets)),
            r -> {
              Thread t = new Thread(r, "scbf-lookup-" + dataTable.getQualifierAsString());
              t.setDaemon(true);
              return t;
            });
    this.local = new LocalQueries(this, connection, dataTable, pool);
    Settings settings = Settings.from(connection.getConfiguration());
    this.routing =
        new RoutingCache(
            new RoutingCalls(admin, connection, dataTable),
            settings,
            "scbf-routing-" + dataTable.getQualifierAsString());
    this.planner = new QueryPlanner(settings);
    this.pageRows = settings.clientPageRows();
    this.scans = new DataScan(connection, dataTable, pool);
  }

  /**
   * The part of the table's descriptor queries need (scbf attributes, families), from a data
   * region's scbf endpoint: a region server call, so a client opens without the master, and a
   * reader with READ gets it (HBase gives the descriptor itself only to CREATE or ADMIN). A table
   * whose regions lack the endpoint is read from the master.
   */
  private static TableDescriptor indexesOf(Connection connection, Admin admin, TableName table)
      throws IOException {
    IndexesResponse r;
    try (Table t = connection.getTable(table)) {
      r =
          LocalIndexService.newBlockingStub(t.coprocessorService(HConstants.EMPTY_START_ROW))
              .indexes(null, IndexesRequest.getDefaultInstance());
    } catch (ServiceException e) {
      IOException cause = unwrap(e);
      if (cause instanceof AccessDeniedException) throw cause;
      return admin.getDescriptor(table);
    }
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(table);
    for (int i = 0; i < r.getAttributeKeysCount(); i++) {
      b.setValue(r.getAttributeKeys(i), r.getAttributeValues(i));
    }
    for (ByteString f : r.getFamiliesList()) {
      b.setColumnFamily(ColumnFamilyDescriptorBuilder.of(f.toByteArray()));
    }
    return b.build();
  }

  /**
   * Strict queries skip routing and ask every bucket: they see every acknowledged write at once.
   */
  public IndexedTable setStrict(boolean strict) {
    this.strict = strict;
    return this;
  }

  public List<IndexSpec> indexes() {
    return specs;
  }

  /** What the calling thread's last query did, or null before its first query. */
  public QueryTrace lastTrace() {
    return lastTrace.get();
  }

  /** Queries of this table whose routing call failed (they asked every bucket). */
  public long routingFailures() {
    return routingFailures.get();
  }

  boolean isStrict() {
    return strict;
  }

  void setTrace(QueryTrace trace) {
    lastTrace.set(trace);
  }

  private void finishTrace(long startNanos) {
    lastTrace.set(lastTrace.get().withTotalMicros(micros(startNanos)));
  }

  private void finishTrace(long startNanos, QueryPlan plan) {
    lastTrace.set(lastTrace.get().withTotalMicros(micros(startNanos)).withPlan(plan));
  }

  /** Row keys the index holds for {@code family:qualifier = value}, sorted, without re-check. */
  public List<byte[]> findRowKeys(byte[] family, byte[] qualifier, byte[] value)
      throws IOException {
    long start = System.nanoTime();
    IndexSpec spec = spec(family, qualifier);
    Routed routed = routeFor(spec, value);
    QueryPlan plan = plan(Answer.ROW_KEYS, spec, routed);
    List<byte[]> rows = rowKeys(spec, value, routed, plan);
    finishTrace(start, plan);
    return rows;
  }

  /** {@link #findRowKeys} once routed and planned. */
  private List<byte[]> rowKeys(IndexSpec spec, byte[] value, Routed routed, QueryPlan plan)
      throws IOException {
    if (plan.kind() != QueryPlan.Kind.DATA_SCAN) {
      return spec.isLocal()
          ? local.rowKeys(local.point(spec, value, LocalQueryRequest.Answer.KEYS, routed))
          : point(spec, value, routed).rowKeys();
    }
    List<byte[]> rows = new ArrayList<>();
    for (Result r : scanFor(spec, value, plan, routed)) rows.add(r.getRow());
    return rows;
  }

  /** The data rows with {@code family:qualifier = value} now (index answers re-checked). */
  public List<Result> find(byte[] family, byte[] qualifier, byte[] value) throws IOException {
    return find(spec(family, qualifier), value);
  }

  private List<Result> find(IndexSpec spec, byte[] value) throws IOException {
    long start = System.nanoTime();
    Routed routed = routeFor(spec, value);
    QueryPlan plan = plan(Answer.ROWS, spec, routed);
    List<Result> rows;
    if (plan.kind() == QueryPlan.Kind.DATA_SCAN) {
      rows = scanFor(spec, value, plan, routed);
    } else if (spec.isLocal()) {
      // Each region re-checked its rows and answered them whole: no second round trip.
      rows = local.rows(local.point(spec, value, LocalQueryRequest.Answer.ROWS, routed));
    } else {
      GlobalAnswer answer = point(spec, value, routed);
      if (answer.scanned() != null) {
        rows = answer.scanned();
      } else {
        List<byte[]> indexed = answer.rowKeys();
        rows = recheck(indexed, spec, v -> Arrays.equals(v, value));
        if (rows.size() < indexed.size()) removeStaleInBackground(spec, value, indexed, rows);
      }
    }
    finishTrace(start, plan);
    return rows;
  }

  /**
   * The data rows with {@code family:qualifier = value} now, as {@link #find} answers them, but
   * streamed: the index is read page by page ({@code scbf.client.page.rows} entries, each page
   * re-checked before the next is asked), so the client holds one page whatever the answer's size.
   * Rows come in row-key order for a local index and a scan plan, bucket by bucket (row-key order
   * within each) for a global index. Close the scanner when done (try-with-resources); a stream
   * whose global index starts a rebuild after its first page fails with an IOException (run it
   * again: it then scans).
   */
  public ResultScanner stream(byte[] family, byte[] qualifier, byte[] value) throws IOException {
    IndexSpec spec = spec(family, qualifier);
    Routed routed = routeFor(spec, value);
    QueryPlan plan = plan(Answer.ROWS, spec, routed);
    RouteResponse route = routed.route();
    lastTrace.set(
        new QueryTrace(
            (spec.isLocal() ? "local-" : "")
                + (plan.kind() == QueryPlan.Kind.DATA_SCAN ? "point-scan-stream" : "point-stream"),
            route == null ? -1 : route.getTotalRegions(),
            route == null ? -1 : route.getCandidatesCount(),
            route == null ? 0 : route.getUnsureRegions(),
            0,
            0,
            route != null,
            routed.micros(),
            0,
            routed.micros(),
            routed.failed() ? 1 : 0,
            plan));
    if (plan.kind() == QueryPlan.Kind.DATA_SCAN) {
      return new QueryStream(scans.pointPages(spec, value, pageRows));
    }
    if (spec.isLocal()) return new QueryStream(local.pointPages(spec, value, routed, pageRows));
    return new QueryStream(globalPages(spec, value, route));
  }

  /**
   * At most {@code limit} of the rows {@link #find} would answer (the first ones of {@link
   * #stream}), sorted by row key; reads only the pages they need.
   */
  public List<Result> find(byte[] family, byte[] qualifier, byte[] value, int limit)
      throws IOException {
    if (limit < 0) throw new IllegalArgumentException("limit must be >= 0, not " + limit);
    List<Result> rows = new ArrayList<>(Math.min(limit, pageRows));
    try (ResultScanner s = stream(family, qualifier, value)) {
      while (rows.size() < limit) {
        Result r = s.next();
        if (r == null) break;
        rows.add(r);
      }
    }
    rows.sort((a, b) -> Bytes.compareTo(a.getRow(), b.getRow()));
    return rows;
  }

  /** One page of one bucket: the first if {@code resume} is null, else the one after it. */
  private interface BucketPage {
    LookupResponse ask(IndexLookupService.BlockingInterface bucket, ByteString resume)
        throws ServiceException;
  }

  /** The scan a stream falls back to if the index is building when it starts. */
  private interface ScanPages {
    QueryStream.Pages open() throws IOException;
  }

  /** A global index's rows with {@code family:qualifier = value}, in pages. */
  private QueryStream.Pages globalPages(IndexSpec spec, byte[] value, RouteResponse route)
      throws IOException {
    LookupRequest request = lookupRequest(spec, value).setLimit(pageRows).build();
    return globalPages(
        spec,
        bucketsOf(spec, route),
        (bucket, resume) ->
            bucket.lookup(
                null,
                resume == null ? request : request.toBuilder().setResumeAfter(resume).build()),
        v -> Arrays.equals(v, value),
        () -> scans.pointPages(spec, value, pageRows));
  }

  /**
   * A global index's rows in pages: each bucket of {@code buckets} asked for at most {@code
   * pageRows} entries at a time, each page re-checked by one multi-get against {@code matches}.
   */
  private QueryStream.Pages globalPages(
      IndexSpec spec,
      List<byte[]> buckets,
      BucketPage ask,
      Predicate<byte[]> matches,
      ScanPages whileBuilding)
      throws IOException {
    Table index = connection.getTable(IndexCatalog.indexTableName(dataTable, spec.alias()));
    return new QueryStream.Pages() {
      int bucket;
      ByteString resume;
      QueryStream.Pages scan; // the index said it is building before the first page

      @Override
      public List<Result> next() throws IOException {
        if (scan != null) return scan.next();
        while (bucket < buckets.size()) {
          LookupResponse r;
          try {
            r =
                ask.ask(
                    IndexLookupService.newBlockingStub(
                        index.coprocessorService(buckets.get(bucket))),
                    resume);
          } catch (ServiceException e) {
            throw unwrap(e);
          }
          if (r.getIndexBuilding()) {
            if (bucket > 0 || resume != null) {
              throw new IOException(
                  "index "
                      + spec.alias()
                      + " of "
                      + dataTable
                      + " started a rebuild while this stream read it; run the query again"
                      + " (it scans the table while the index is building)");
            }
            scan = whileBuilding.open();
            return scan.next();
          }
          resume = r.hasResumeAfter() ? r.getResumeAfter() : null;
          if (resume == null) bucket++;
          List<byte[]> keys = new ArrayList<>(r.getHitsCount());
          r.getHitsList().forEach(h -> keys.add(h.getRow().toByteArray()));
          List<Result> rows = recheck(keys, spec, matches);
          if (!rows.isEmpty()) return rows;
        }
        return null;
      }

      @Override
      public void close() {
        if (scan != null) scan.close();
        try {
          index.close();
        } catch (IOException e) {
          // A Table from a shared connection holds nothing to release.
        }
      }
    };
  }

  /**
   * The data rows with {@code lo <= family:qualifier < hi} now (null = unbounded), as {@link
   * #range} answers them, but streamed, page by page ({@code scbf.client.page.rows} rows, each page
   * re-checked before the next is asked), so the client holds one page whatever the answer's size:
   * a global index bucket by bucket, a local index region by region (in value order within each;
   * see {@link LocalQueries#rangePages}). A global index that is building answers as {@link #range}
   * does, as one page. Close the scanner when done.
   */
  public ResultScanner streamRange(byte[] family, byte[] qualifier, byte[] lo, byte[] hi)
      throws IOException {
    return streamRange(spec(family, qualifier), lo, hi);
  }

  /**
   * The rows {@link #range(String, List, byte[], byte[])} answers, streamed as {@link
   * #streamRange(byte[], byte[], byte[], byte[])} streams them.
   */
  public ResultScanner streamRange(String index, List<byte[]> equal, byte[] lo, byte[] hi)
      throws IOException {
    IndexSpec spec = specNamed(index);
    byte[][] bounds = compositeBounds(spec, equal, lo, hi);
    return streamRange(spec, bounds[0], bounds[1]);
  }

  private ResultScanner streamRange(IndexSpec spec, byte[] lo, byte[] hi) throws IOException {
    Predicate<byte[]> inRange = v -> IndexKeyCodec.inRange(v, lo, hi);
    if (spec.isLocal()) return new QueryStream(local.rangePages(spec, lo, hi, pageRows));
    RangeLookupRequest request = rangeRequest(spec, lo, hi).setLimit(pageRows).build();
    return new QueryStream(
        globalPages(
            spec,
            allBuckets(spec),
            (bucket, resume) ->
                bucket.rangeLookup(
                    null,
                    resume == null ? request : request.toBuilder().setResumeAfter(resume).build()),
            inRange,
            () -> onePage(() -> scans.range(spec, lo, hi))));
  }

  /** Rows read at once, as a stream of one page. */
  private static QueryStream.Pages onePage(ScanRows rows) {
    return new QueryStream.Pages() {
      boolean done;

      @Override
      public List<Result> next() throws IOException {
        if (done) return null;
        done = true;
        return rows.read();
      }
    };
  }

  private interface ScanRows {
    List<Result> read() throws IOException;
  }

  /**
   * Index entries (row and covered values) for {@code family:qualifier = value}, without re-check.
   */
  public List<IndexEntry> findEntries(byte[] family, byte[] qualifier, byte[] value)
      throws IOException {
    long start = System.nanoTime();
    IndexSpec spec = spec(family, qualifier);
    Routed routed = routeFor(spec, value);
    QueryPlan plan = plan(Answer.ENTRIES, spec, routed);
    List<IndexEntry> entries = new ArrayList<>();
    if (plan.kind() == QueryPlan.Kind.DATA_SCAN) {
      for (Result r : scanFor(spec, value, plan, routed)) entries.add(DataScan.entryOf(spec, r));
    } else if (spec.isLocal()) {
      for (LocalQueryResponse r :
          local.point(spec, value, LocalQueryRequest.Answer.ENTRIES, routed)) {
        r.getHitsList().forEach(h -> entries.add(IndexEntry.of(spec, h)));
      }
    } else {
      entries.addAll(point(spec, value, routed).entries(spec));
    }
    entries.sort((a, b) -> Bytes.compareTo(a.row(), b.row()));
    finishTrace(start, plan);
    return entries;
  }

  /**
   * The rows satisfying every condition now: an AND of equalities and INs on indexed columns, in
   * either index mode, re-checked against every condition. Each condition's rows are estimated from
   * its values' counts. If scanning the table costs less than the most selective condition's index
   * plan, the table is scanned with every condition tested in the region servers. Otherwise the row
   * keys of the most selective condition are intersected with those of every other condition
   * estimated at most {@link #INTERSECT_RATIO} times larger, before any row is read: rows are
   * fetched only for keys in every set. Conditions without an estimate are only re-checked (when
   * none has one, the first condition's keys are read).
   */
  public List<Result> find(Condition... conditions) throws IOException {
    if (conditions == null || conditions.length == 0) {
      throw new IllegalArgumentException("find needs at least one condition");
    }
    long start = System.nanoTime();
    List<Condition> all = List.of(conditions);
    // Each value routed and planned once: for the estimates, then for reading its keys.
    List<List<ValueRoute>> routes = new ArrayList<>(all.size());
    long[] estimated = new long[all.size()];
    long tableRows = -1;
    int driver = -1;
    for (int i = 0; i < all.size(); i++) {
      Condition c = all.get(i);
      IndexSpec spec = spec(c.family(), c.qualifier());
      List<ValueRoute> values = new ArrayList<>(c.values().size());
      for (byte[] v : c.values()) {
        Routed routed = routeFor(spec, v);
        values.add(new ValueRoute(spec, v, routed, plan(Answer.ROW_KEYS, spec, routed)));
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
    QueryPlan plan = planner.planAnd(driver < 0 ? -1 : estimated[driver], tableRows, all.size());
    List<Result> rows;
    int intersected = 0;
    if (plan.kind() == QueryPlan.Kind.DATA_SCAN) {
      rows = scans.matching(all);
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
          keys.addAll(rowKeys(v.spec(), v.value(), v.routed(), v.plan()));
        }
        if (candidates == null) {
          candidates = keys;
        } else {
          candidates.retainAll(keys);
        }
        intersected++;
        if (candidates.isEmpty()) break;
      }
      rows =
          recheck(
              new ArrayList<>(candidates),
              r -> {
                for (Condition c : all) {
                  if (!c.test(r.getValue(c.family(), c.qualifier()))) return false;
                }
                return true;
              });
    }
    lastTrace.set(
        new QueryTrace(
            plan.kind() == QueryPlan.Kind.DATA_SCAN
                ? "and-scan (planned)"
                : "and (" + intersected + " of " + all.size() + " conditions intersected)",
            -1,
            -1,
            0,
            0,
            rows.size(),
            plan.kind() != QueryPlan.Kind.DATA_SCAN,
            0,
            0,
            micros(start),
            0,
            plan));
    return rows;
  }

  /**
   * The plan {@link #find} would run for {@code family:qualifier = value} now, with its estimates
   * (nothing is read but the routing state).
   */
  public QueryPlan explain(byte[] family, byte[] qualifier, byte[] value) {
    return explain(family, qualifier, value, Answer.ROWS);
  }

  /**
   * The plan a point query returning {@code answer} ({@link #find}, {@link #findRowKeys}, {@link
   * #findEntries}) would run for {@code family:qualifier = value} now, with its estimates.
   */
  public QueryPlan explain(byte[] family, byte[] qualifier, byte[] value, Answer answer) {
    IndexSpec spec = spec(family, qualifier);
    return plan(answer, spec, routeFor(spec, value));
  }

  /**
   * The data rows whose columns of the composite (or one-column) index {@code index} equal {@code
   * values} now, re-checked: one value per column, in the index's column order, is a point query,
   * planned, routed and answered as {@link #find(byte[], byte[], byte[])} answers one column; fewer
   * values (equality on the leading columns) is a range query over the rest.
   */
  public List<Result> find(String index, byte[]... values) throws IOException {
    IndexSpec spec = specNamed(index);
    List<byte[]> given = List.of(values); // rejects null values
    if (given.isEmpty()) throw new IllegalArgumentException("find needs at least one value");
    if (given.size() >= spec.columns().size()) return find(spec, spec.valueOf(given));
    return range(index, given, null, null);
  }

  /**
   * The data rows whose first {@code equal.size()} columns of the composite index {@code index}
   * equal {@code equal} and whose next column lies in {@code [lo, hi)} (null = unbounded) now,
   * re-checked; a range query (every bucket or region is asked).
   */
  public List<Result> range(String index, List<byte[]> equal, byte[] lo, byte[] hi)
      throws IOException {
    IndexSpec spec = specNamed(index);
    byte[][] bounds = compositeBounds(spec, equal, lo, hi);
    return rangeRows(spec, bounds[0], bounds[1]);
  }

  /**
   * The bounds of the indexed values with the leading columns {@code equal}, the next in [lo, hi).
   */
  private static byte[][] compositeBounds(
      IndexSpec spec, List<byte[]> equal, byte[] lo, byte[] hi) {
    List<byte[]> leading = List.copyOf(equal); // rejects null values
    if (leading.size() >= spec.columns().size()) {
      throw new IllegalArgumentException(
          "a range on index '"
              + spec.alias()
              + "' takes equal values for at most its first "
              + (spec.columns().size() - 1)
              + " column(s) "
              + spec.columns()
              + ", got "
              + leading.size());
    }
    return spec.isComposite() ? CompositeValue.bounds(leading, lo, hi) : new byte[][] {lo, hi};
  }

  /** The plan {@link #find(String, byte[]...)} would run for a point query on {@code index}. */
  public QueryPlan explain(String index, byte[]... values) {
    IndexSpec spec = specNamed(index);
    return plan(Answer.ROWS, spec, routeFor(spec, spec.valueOf(List.of(values))));
  }

  /**
   * A point query's routing: the route with the value's estimate (null if the query is strict or
   * routing failed), and its time.
   */
  record Routed(RouteResponse route, long micros, boolean failed) {}

  /** One value of a multi-column query, routed and planned for its row keys. */
  private record ValueRoute(IndexSpec spec, byte[] value, Routed routed, QueryPlan plan) {}

  private Routed routeFor(IndexSpec spec, byte[] value) {
    if (value == null) throw new IllegalArgumentException("value must not be null");
    if (strict) return new Routed(null, 0, false);
    long start = System.nanoTime();
    RouteResponse r =
        route(
            IndexCatalog.indexTableName(dataTable, spec.alias()).getNameAsString(),
            spec.isLocal() ? dataTable.getNameAsString() : null,
            IndexKeyCodec.filterKey(spec.alias().getBytes(StandardCharsets.UTF_8), value));
    return new Routed(r, micros(start), r == null);
  }

  private QueryPlan plan(Answer answer, IndexSpec spec, Routed routed) {
    return planner.plan(
        answer,
        spec.isLocal(),
        routed.route(),
        routed.failed() ? "routing unavailable: no estimate" : "strict: not routed, no estimate");
  }

  /** Runs a DATA_SCAN plan and traces it. */
  private List<Result> scanFor(IndexSpec spec, byte[] value, QueryPlan plan, Routed routed)
      throws IOException {
    long start = System.nanoTime();
    List<Result> rows = scans.point(spec, value);
    lastTrace.set(
        new QueryTrace(
            spec.isLocal() ? "local-point-scan (planned)" : "point-scan (planned)",
            plan.regionsTotal(),
            0,
            routed.route() == null ? 0 : routed.route().getUnsureRegions(),
            0,
            rows.size(),
            true,
            routed.micros(),
            micros(start),
            0,
            0,
            plan));
    return rows;
  }

  /**
   * Row keys the index holds with {@code lo <= value < hi} (null = unbounded), sorted,
   * deduplicated.
   */
  public List<byte[]> rangeRowKeys(byte[] family, byte[] qualifier, byte[] lo, byte[] hi)
      throws IOException {
    long start = System.nanoTime();
    IndexSpec spec = spec(family, qualifier);
    List<byte[]> rows =
        spec.isLocal()
            ? local.rowKeys(local.range(spec, lo, hi, LocalQueryRequest.Answer.KEYS))
            : range(spec, lo, hi).rowKeys();
    finishTrace(start);
    return rows;
  }

  /** The data rows with {@code lo <= family:qualifier < hi} now (null = unbounded), re-checked. */
  public List<Result> range(byte[] family, byte[] qualifier, byte[] lo, byte[] hi)
      throws IOException {
    return rangeRows(spec(family, qualifier), lo, hi);
  }

  private List<Result> rangeRows(IndexSpec spec, byte[] lo, byte[] hi) throws IOException {
    long start = System.nanoTime();
    if (spec.isLocal()) {
      List<Result> rows = local.rows(local.range(spec, lo, hi, LocalQueryRequest.Answer.ROWS));
      finishTrace(start);
      return rows;
    }
    GlobalAnswer answer = range(spec, lo, hi);
    List<Result> rows =
        answer.scanned() != null
            ? answer.scanned()
            : recheck(answer.rowKeys(), spec, v -> IndexKeyCodec.inRange(v, lo, hi));
    finishTrace(start);
    return rows;
  }

  /**
   * Index rows that the re-check showed stale (their row no longer holds the value) go to their
   * data regions, which remove each only if it is still stale under the row's index lock; off the
   * query's path, best effort (a failure leaves the row for the next query or a repair).
   */
  private void removeStaleInBackground(
      IndexSpec spec, byte[] value, List<byte[]> indexed, List<Result> current) {
    TreeSet<byte[]> live = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    for (Result r : current) live.add(r.getRow());
    byte[] alias = spec.alias().getBytes(StandardCharsets.UTF_8);
    List<byte[]> stale = new ArrayList<>();
    for (byte[] row : indexed) {
      if (!live.contains(row)) {
        stale.add(
            IndexKeyCodec.rowKey(IndexKeyCodec.bucket(row, spec.buckets()), alias, value, row));
      }
    }
    staleRowsSent.addAndGet(stale.size());
    try {
      pool.execute(
          () -> {
            try {
              RowRepairs.send(connection, dataTable, spec.alias(), stale, List.of());
            } catch (IOException | RuntimeException e) {
              LOG.debug("scbf: removing {} stale index rows failed", stale.size(), e);
            }
          });
    } catch (RejectedExecutionException closed) {
      // The table is closing: the rows stay for the next query or a repair.
    }
  }

  /**
   * RPCs this table's global point lookups made to index region servers (first pages): one per
   * server holding several candidate buckets, plus one per other bucket.
   */
  public long lookupCalls() {
    return lookupCalls.get();
  }

  /** Stale index rows this table's queries met and sent to their regions for removal. */
  public long staleRowsSent() {
    return staleRowsSent.get();
  }

  /** The master's routing statistics for one index (filters per region and per server). */
  public StatsResponse routingStats(byte[] family, byte[] qualifier) throws IOException {
    return routingStats(spec(family, qualifier).alias());
  }

  /** The master's routing statistics for the index named {@code index}. */
  public StatsResponse routingStats(String index) throws IOException {
    // A local index files its per-region filters under the same name, without a table.
    TableName indexTable = IndexCatalog.indexTableName(dataTable, specNamed(index).alias());
    try {
      return IndexRoutingService.newBlockingStub(admin.coprocessorService())
          .stats(
              null, StatsRequest.newBuilder().setIndexTable(indexTable.getNameAsString()).build());
    } catch (ServiceException e) {
      throw unwrap(e);
    }
  }

  private IndexSpec spec(byte[] family, byte[] qualifier) {
    if (family == null || qualifier == null) {
      throw new IllegalArgumentException("family and qualifier must not be null");
    }
    for (IndexSpec s : specs) {
      if (!s.isComposite() && s.column().equals(new IndexSpec.Column(family, qualifier))) return s;
    }
    List<String> indexed = indexNames();
    throw new IllegalArgumentException(
        "column "
            + Bytes.toStringBinary(family)
            + ":"
            + Bytes.toStringBinary(qualifier)
            + " of table "
            + dataTable
            + " has no scbf index;"
            + " indexed columns: "
            + (indexed.isEmpty() ? "none" : String.join(", ", indexed))
            + (invalidSpecs.isEmpty()
                ? ""
                : "; attributes that are not valid index specs (drop and recreate the index): "
                    + invalidSpecs));
  }

  private List<String> indexNames() {
    return specs.stream().map(s -> s.columnsText() + " (" + s.alias() + ")").toList();
  }

  private IndexSpec specNamed(String alias) {
    for (IndexSpec s : specs) {
      if (s.alias().equals(alias)) return s;
    }
    List<String> indexed = indexNames();
    throw new IllegalArgumentException(
        "table "
            + dataTable
            + " has no scbf index named '"
            + alias
            + "'; indexes: "
            + (indexed.isEmpty() ? "none" : String.join(", ", indexed))
            + (invalidSpecs.isEmpty()
                ? ""
                : "; attributes that are not valid index specs (drop and recreate the index): "
                    + invalidSpecs));
  }

  /**
   * A global index's answer: the buckets' lookups, or, if the index said it is being built, the
   * matching data rows found by a scan instead ({@code scanned}, current values: no re-check).
   */
  private record GlobalAnswer(List<LookupResponse> lookups, List<Result> scanned) {
    List<byte[]> rowKeys() {
      if (scanned == null) return rowsOf(lookups);
      List<byte[]> keys = new ArrayList<>(scanned.size());
      for (Result r : scanned) keys.add(r.getRow());
      return keys;
    }

    List<IndexEntry> entries(IndexSpec spec) {
      List<IndexEntry> out = new ArrayList<>();
      if (scanned != null) {
        for (Result r : scanned) out.add(DataScan.entryOf(spec, r));
      } else {
        for (LookupResponse r : lookups) {
          r.getHitsList().forEach(h -> out.add(IndexEntry.of(spec, h)));
        }
      }
      return out;
    }
  }

  private static boolean building(List<LookupResponse> lookups) {
    for (LookupResponse r : lookups) {
      if (r.getIndexBuilding()) return true;
    }
    return false;
  }

  /** Replaces the trace of a query whose index was building by one of its data scan. */
  private void traceScan(String kind, IndexSpec spec, int asked, long startNanos, int rows) {
    lastTrace.set(
        new QueryTrace(
            kind + "-scan (index building)",
            spec.buckets(),
            asked,
            0,
            0,
            rows,
            false,
            0,
            micros(startNanos),
            0,
            0,
            null));
  }

  private GlobalAnswer point(IndexSpec spec, byte[] value, Routed routed) throws IOException {
    long start = System.nanoTime() - routed.micros() * 1000;
    TableName indexTable = IndexCatalog.indexTableName(dataTable, spec.alias());
    RouteResponse route = routed.route();
    List<byte[]> buckets = bucketsOf(spec, route);
    int unsure = route == null ? 0 : route.getUnsureRegions();
    long routeMicros = routed.micros();
    long lookupStart = System.nanoTime();
    // Paged by bytes only: an answer larger than one message comes in several.
    LookupRequest request =
        lookupRequest(spec, value).setLimit(Integer.MAX_VALUE).setMaxBytes(LIST_PAGE_BYTES).build();
    List<LookupResponse> responses = lookupAll(indexTable, buckets, request);
    responses =
        withRemainingPages(
            indexTable,
            buckets,
            responses,
            (bucket, resume) ->
                bucket.lookup(null, request.toBuilder().setResumeAfter(resume).build()));
    trace(
        strict ? "point-strict" : "point",
        spec,
        buckets.size(),
        unsure,
        responses,
        route != null,
        routeMicros,
        micros(lookupStart),
        routed.failed() ? 1 : 0);
    if (!building(responses)) return new GlobalAnswer(responses, null);
    List<Result> scanned = scans.point(spec, value);
    traceScan("point", spec, buckets.size(), start, scanned.size());
    return new GlobalAnswer(responses, scanned);
  }

  /**
   * The master's candidate regions for a filter key of {@code index} (regions of {@code regionsOf},
   * or of the index table if null), or null if the master could not be asked: the caller then asks
   * every region (unsure = candidate).
   */
  RouteResponse route(String index, String regionsOf, byte[] filterKey) {
    RouteResponse r = routing.route(index, regionsOf, filterKey);
    if (r == null) {
      if (routingFailures.getAndIncrement() == 0) {
        LOG.warn(
            "scbf: no routing for {} (the master did not answer within {}; see"
                + " scbf.client.routing.*), asking every region (logged once per table;"
                + " later ones at DEBUG)",
            index,
            Settings.CLIENT_ROUTING_WAIT_MS);
      } else {
        LOG.debug("scbf: no routing for {}, asking every region", index);
      }
    }
    return r;
  }

  /**
   * Calls this table's queries made to the master for routing (copy refreshes and per-query
   * routes): with the routing copy, far fewer than queries.
   */
  public long routingMasterCalls() {
    return routing.masterCalls();
  }

  /**
   * The master's routing calls, through the caller's connection; once the master refused this
   * caller (with HBase authorization on, master endpoint calls need global ADMIN, which readers
   * lack), relayed by a data region of the table, which needs only READ on the index's columns.
   */
  private static final class RoutingCalls implements RoutingCache.Master {
    private final Admin admin;
    private final Connection connection;
    private final TableName dataTable;
    private volatile boolean relayed;

    RoutingCalls(Admin admin, Connection connection, TableName dataTable) {
      this.admin = admin;
      this.connection = connection;
      this.dataTable = dataTable;
    }

    private interface Call<S, T> {
      T on(S stub) throws ServiceException;
    }

    @Override
    public RoutingStateResponse routingState(RoutingStateRequest request) throws Exception {
      return call(m -> m.routingState(null, request), r -> r.routingState(null, request));
    }

    @Override
    public RouteResponse route(RouteRequest request) throws Exception {
      return call(m -> m.route(null, request), r -> r.route(null, request));
    }

    private <T> T call(
        Call<IndexRoutingService.BlockingInterface, T> master,
        Call<LocalIndexService.BlockingInterface, T> relay)
        throws IOException {
      if (!relayed) {
        try {
          return master.on(IndexRoutingService.newBlockingStub(admin.coprocessorService()));
        } catch (ServiceException e) {
          IOException cause = unwrap(e);
          if (!(cause instanceof AccessDeniedException)) throw cause;
          LOG.debug(
              "scbf: the master refused routing to this caller; relaying through {}", dataTable);
          relayed = true;
        }
      }
      try (Table t = connection.getTable(dataTable)) {
        return relay.on(
            LocalIndexService.newBlockingStub(t.coprocessorService(HConstants.EMPTY_START_ROW)));
      } catch (ServiceException e) {
        throw unwrap(e);
      }
    }
  }

  private GlobalAnswer range(IndexSpec spec, byte[] lo, byte[] hi) throws IOException {
    long start = System.nanoTime();
    TableName indexTable = IndexCatalog.indexTableName(dataTable, spec.alias());
    // Paged by bytes only: an answer larger than one RPC comes in several.
    RangeLookupRequest built =
        rangeRequest(spec, lo, hi).setLimit(Integer.MAX_VALUE).setMaxBytes(LIST_PAGE_BYTES).build();
    List<byte[]> buckets = allBuckets(spec);
    List<LookupResponse> responses =
        askAll(
            indexTable,
            buckets,
            channel -> IndexLookupService.newBlockingStub(channel).rangeLookup(null, built));
    responses =
        withRemainingPages(
            indexTable,
            buckets,
            responses,
            (bucket, resume) ->
                bucket.rangeLookup(null, built.toBuilder().setResumeAfter(resume).build()));
    trace("range", spec, buckets.size(), 0, responses, false, 0, micros(start), 0);
    if (!building(responses)) return new GlobalAnswer(responses, null);
    List<Result> scanned = scans.range(spec, lo, hi);
    traceScan("range", spec, buckets.size(), start, scanned.size());
    return new GlobalAnswer(responses, scanned);
  }

  private static RangeLookupRequest.Builder rangeRequest(IndexSpec spec, byte[] lo, byte[] hi) {
    RangeLookupRequest.Builder request =
        RangeLookupRequest.newBuilder()
            .setAlias(ByteString.copyFrom(spec.alias().getBytes(StandardCharsets.UTF_8)));
    if (lo != null) request.setLo(ByteString.copyFrom(lo));
    if (hi != null) request.setHi(ByteString.copyFrom(hi));
    return request;
  }

  private void trace(
      String kind,
      IndexSpec spec,
      int asked,
      int unsure,
      List<LookupResponse> responses,
      boolean routed,
      long routeMicros,
      long lookupMicros,
      int routingFailed) {
    int cacheHits = 0, hits = 0;
    for (LookupResponse r : responses) {
      if (r.getCacheHit()) cacheHits++;
      hits += r.getHitsCount();
    }
    lastTrace.set(
        new QueryTrace(
            kind,
            spec.buckets(),
            asked,
            unsure,
            cacheHits,
            hits,
            routed,
            routeMicros,
            lookupMicros,
            0,
            routingFailed,
            null));
  }

  /** Start keys of the buckets a point query asks: the route's candidates, or every bucket. */
  private static List<byte[]> bucketsOf(IndexSpec spec, RouteResponse route) {
    if (route == null) return allBuckets(spec);
    List<byte[]> buckets = new ArrayList<>(route.getCandidatesCount());
    for (RegionRef r : route.getCandidatesList()) buckets.add(r.getStartKey().toByteArray());
    return buckets;
  }

  private static LookupRequest.Builder lookupRequest(IndexSpec spec, byte[] value) {
    return LookupRequest.newBuilder()
        .setAlias(ByteString.copyFrom(spec.alias().getBytes(StandardCharsets.UTF_8)))
        .setValue(ByteString.copyFrom(value));
  }

  /** Start keys of every bucket's region: {}, {1}, ..., {B-1} (fixed at index creation). */
  private static List<byte[]> allBuckets(IndexSpec spec) {
    List<byte[]> keys = new ArrayList<>(spec.buckets());
    keys.add(new byte[0]);
    keys.addAll(Arrays.asList(IndexKeyCodec.splitKeys(spec.buckets())));
    return keys;
  }

  /**
   * The point lookup of every bucket, one call per region server holding several of them ({@code
   * lookupMany}), one per bucket otherwise, all in parallel; answers in bucket order. A bucket the
   * server no longer holds, or every bucket of a server call that failed retriably, is asked
   * through its own region endpoint, which re-locates it.
   */
  private List<LookupResponse> lookupAll(
      TableName indexTable, List<byte[]> buckets, LookupRequest request) throws IOException {
    Map<ServerName, List<Integer>> byServer = new LinkedHashMap<>();
    List<String> encoded = new ArrayList<>(buckets.size());
    try (RegionLocator locator = connection.getRegionLocator(indexTable)) {
      for (int i = 0; i < buckets.size(); i++) {
        HRegionLocation l = locator.getRegionLocation(buckets.get(i));
        encoded.add(l.getRegion().getEncodedName());
        byServer.computeIfAbsent(l.getServerName(), k -> new ArrayList<>()).add(i);
      }
    }
    LookupResponse[] out = new LookupResponse[buckets.size()];
    try (Table table = connection.getTable(indexTable)) {
      List<Callable<Void>> calls = new ArrayList<>(byServer.size());
      for (List<Integer> slots : byServer.values()) {
        calls.add(
            () -> {
              if (slots.size() > 1) askServer(table, buckets, slots, encoded, request, out);
              for (int i : slots) {
                if (out[i] == null) {
                  lookupCalls.incrementAndGet();
                  out[i] =
                      IndexLookupService.newBlockingStub(table.coprocessorService(buckets.get(i)))
                          .lookup(null, request);
                }
              }
              return null;
            });
      }
      ParallelCalls.all(pool, calls, "index lookup on " + indexTable);
    }
    return Arrays.asList(out);
  }

  /**
   * One call for several buckets of one server, sent to the first of them; fills the answers it
   * got. A retriable failure (the server is down or moving regions) leaves them to the per-bucket
   * calls.
   */
  private void askServer(
      Table table,
      List<byte[]> buckets,
      List<Integer> slots,
      List<String> encoded,
      LookupRequest request,
      LookupResponse[] out)
      throws IOException {
    ServerLookupRequest.Builder batch = ServerLookupRequest.newBuilder().setLookup(request);
    for (int i : slots) batch.addEncodedRegions(encoded.get(i));
    ServerLookupResponse answer;
    lookupCalls.incrementAndGet();
    try {
      answer =
          IndexLookupService.newBlockingStub(table.coprocessorService(buckets.get(slots.get(0))))
              .lookupMany(null, batch.build());
    } catch (ServiceException e) {
      IOException cause = unwrap(e);
      if (cause instanceof DoNotRetryIOException) throw cause; // includes AccessDeniedException
      LOG.debug(
          "scbf: batched lookup failed, asking its {} buckets one by one", slots.size(), cause);
      return;
    }
    for (int k = 0; k < slots.size() && k < answer.getRegionsCount(); k++) {
      RegionLookup r = answer.getRegions(k);
      if (r.hasAnswer() && r.getEncodedRegion().equals(encoded.get(slots.get(k)))) {
        out[slots.get(k)] = r.getAnswer();
      }
    }
  }

  private interface BucketCall {
    LookupResponse call(CoprocessorRpcChannel channel) throws ServiceException;
  }

  private List<LookupResponse> askAll(TableName indexTable, List<byte[]> buckets, BucketCall call)
      throws IOException {
    try (Table table = connection.getTable(indexTable)) {
      List<Callable<LookupResponse>> calls = new ArrayList<>(buckets.size());
      for (byte[] startKey : buckets)
        calls.add(() -> call.call(table.coprocessorService(startKey)));
      return ParallelCalls.all(pool, calls, "index lookup on " + indexTable);
    }
  }

  /**
   * {@code firsts} (one answer per bucket, in bucket order) followed by the further pages of every
   * bucket whose answer stopped at its byte budget.
   */
  private List<LookupResponse> withRemainingPages(
      TableName indexTable, List<byte[]> buckets, List<LookupResponse> firsts, BucketPage next)
      throws IOException {
    List<LookupResponse> out = null;
    for (int i = 0; i < firsts.size(); i++) {
      LookupResponse page = firsts.get(i);
      if (!page.hasResumeAfter()) continue;
      if (out == null) out = new ArrayList<>(firsts);
      try (Table table = connection.getTable(indexTable)) {
        IndexLookupService.BlockingInterface bucket =
            IndexLookupService.newBlockingStub(table.coprocessorService(buckets.get(i)));
        while (page.hasResumeAfter()) {
          page = next.ask(bucket, page.getResumeAfter());
          out.add(page);
        }
      } catch (ServiceException e) {
        throw unwrap(e);
      }
    }
    return out == null ? firsts : out;
  }

  private static IOException unwrap(ServiceException e) {
    return e.getCause() instanceof IOException io ? io : new IOException(e);
  }

  private static List<byte[]> rowsOf(List<LookupResponse> responses) {
    TreeSet<byte[]> rows = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    for (LookupResponse r : responses) {
      r.getHitsList().forEach(h -> rows.add(h.getRow().toByteArray()));
    }
    return new ArrayList<>(rows);
  }

  /**
   * Reads the data rows and keeps those whose current value satisfies the predicate. The Gets go in
   * chunks of {@link #RECHECK_CHUNK}, in parallel: a region server stops answering a multi-get once
   * it has read hbase.server.scanner.max.result.size (100 MB) of blocks and the client retries the
   * rest after back-off pauses; one multi-get of a popular value's 100,000 rows took over 30 s, in
   * chunks 2-4 s (docs/benchmarks-hbase.md).
   */
  private List<Result> recheck(List<byte[]> rows, IndexSpec spec, Predicate<byte[]> predicate)
      throws IOException {
    return recheck(
        rows,
        r -> {
          byte[] v = spec.valueOf(r);
          return v != null && predicate.test(v);
        });
  }

  private List<Result> recheck(List<byte[]> rows, Predicate<Result> predicate) throws IOException {
    List<Callable<Result[]>> chunks = new ArrayList<>();
    for (int from = 0; from < rows.size(); from += RECHECK_CHUNK) {
      List<Get> gets = new ArrayList<>(RECHECK_CHUNK);
      for (byte[] row : rows.subList(from, Math.min(rows.size(), from + RECHECK_CHUNK))) {
        gets.add(new Get(row));
      }
      chunks.add(
          () -> {
            try (Table table = connection.getTable(dataTable)) {
              return table.get(gets);
            }
          });
    }
    List<Result> out = new ArrayList<>(rows.size());
    for (Result[] chunk : ParallelCalls.all(pool, chunks, "re-check of " + dataTable + " rows")) {
      for (Result r : chunk) {
        if (!r.isEmpty() && predicate.test(r)) out.add(r);
      }
    }
    return out;
  }

  private static long micros(long startNanos) {
    return (System.nanoTime() - startNanos) / 1000;
  }

  @Override
  public void close() throws IOException {
    pool.shutdownNow();
    routing.close();
    admin.close();
  }
}
