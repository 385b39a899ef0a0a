package io.scbf.hbase.client;

import static io.scbf.hbase.client.GlobalRequests.allBuckets;
import static io.scbf.hbase.client.GlobalRequests.bucketsOf;
import static io.scbf.hbase.client.GlobalRequests.lookupRequest;
import static io.scbf.hbase.client.GlobalRequests.rangeChain;
import static io.scbf.hbase.client.GlobalRequests.rangeRequest;
import static io.scbf.hbase.client.GlobalRequests.streamBounds;
import static io.scbf.hbase.client.GlobalRequests.valueChains;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.IndexEntry;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.QueryTrace;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.PackedHits;
import io.scbf.hbase.shared.proto.IndexProtos.IndexLookupService;
import io.scbf.hbase.shared.proto.IndexProtos.LookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RangeLookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RegionLookup;
import io.scbf.hbase.shared.proto.IndexProtos.ServerLookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.ServerLookupResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.ipc.CoprocessorRpcChannel;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lookups in a global index's regions. {@code BY_ROW}: a point lookup asks the routed buckets, a
 * range lookup every bucket, in parallel. {@code BY_VALUE}: a point lookup reads the value's key
 * range, one region in all but the rare case of a region boundary inside it, a range lookup every
 * region's part of the range in parallel ({@link RegionChain}). Answers larger than one message
 * come in pages. A region that says its index is building makes the query scan the data table
 * instead ({@link DataScan}), so its answer is complete, only slower. The same lookups streamed are
 * {@link GlobalPages}', an {@code ORDERED} range's count for its plan {@link RangeSizes}'; the
 * requests and key ranges all three send are {@link GlobalRequests}'.
 */
final class GlobalLookups {
  private static final Logger LOG = LoggerFactory.getLogger(GlobalLookups.class);

  /** How long a {@code BY_VALUE} index's region count (traces only) is reused. */
  private static final long REGION_COUNT_MAX_AGE_MS = 10_000;

  private final QueryContext context;
  private final AtomicLong calls = new AtomicLong();
  private final Map<TableName, RegionCount> regionCounts = new ConcurrentHashMap<>();

  /**
   * Entries of an index region as last answered: key-routed regions split by size and rows are
   * hashed to {@code BY_ROW} buckets, so this times the regions or buckets estimates the table's
   * rows for the planner.
   */
  private final Map<TableName, Long> entriesPerRegion = new ConcurrentHashMap<>();

  /** A {@code BY_VALUE} index's regions as listed at {@code listedMillis}. */
  private record RegionCount(int regions, long listedMillis) {}

  GlobalLookups(QueryContext context) {
    this.context = context;
  }

  /**
   * A global index's answer: the buckets' lookups, or, if the index said it is being built, the
   * matching data rows found by a scan instead ({@code scanned}, current values: no re-check).
   */
  record Answer(List<LookupResponse> lookups, List<Result> scanned, QueryPlan plan) {
    Answer(List<LookupResponse> lookups, List<Result> scanned) {
      this(lookups, scanned, null);
    }

    /** The plan this answer ran: {@code planned}, unless a region's estimate changed it. */
    QueryPlan planOr(QueryPlan planned) {
      return plan == null ? planned : plan;
    }

    /** Row keys of the answer, sorted, deduplicated. */
    List<byte[]> rowKeys() throws IOException {
      if (scanned != null) return new ArrayList<>(scanned.stream().map(Result::getRow).toList());
      TreeSet<byte[]> rows = new TreeSet<>(Bytes.BYTES_COMPARATOR);
      for (LookupResponse r : lookups) {
        for (PackedHits.Hit h : PackedHits.of(r)) rows.add(h.row());
      }
      return new ArrayList<>(rows);
    }

    List<IndexEntry> entries(IndexSpec spec) throws IOException {
      List<IndexEntry> out = new ArrayList<>();
      if (scanned != null) {
        for (Result r : scanned) out.add(DataScan.entryOf(spec, r));
      } else {
        for (LookupResponse r : lookups) {
          for (PackedHits.Hit h : PackedHits.of(r)) out.add(IndexEntries.of(spec, h));
        }
      }
      return out;
    }

    private boolean building() {
      for (LookupResponse r : lookups) {
        if (r.getIndexBuilding()) return true;
      }
      return false;
    }
  }

  /**
   * The entries of {@code value}: the routed buckets', or its {@code BY_VALUE} region's. A region
   * that estimates more rows than a scan would cost ({@code kind}'s costs) answers only its
   * estimate, and the table is scanned instead (the answer's plan says so).
   */
  Answer point(IndexSpec spec, byte[] value, Routed routed, QueryPlan.Answer kind)
      throws IOException {
    long start = System.nanoTime() - routed.micros() * 1000;
    TableName indexTable = indexTable(spec);
    long lookupStart = System.nanoTime();
    // Paged by bytes only: an answer larger than one message comes in several.
    LookupRequest request =
        lookupRequest(spec, value)
            .setLimit(Integer.MAX_VALUE)
            .setMaxBytes(QueryContext.LIST_PAGE_BYTES)
            .build();
    List<LookupResponse> responses;
    int asked;
    String traced;
    if (spec.routedByKey()) {
      long tableRows = tableRows(spec, indexTable);
      long scanAbove = context.router.scanAboveRows(kind, false, tableRows);
      try (Table index = context.connection.getTable(indexTable)) {
        List<RegionChain> chains =
            valueChains(index, spec, value, request.toBuilder().setScanAbove(scanAbove).build());
        responses = allOf(chains, "index lookup on " + indexTable);
        asked = chains.stream().mapToInt(RegionChain::regions).sum();
      }
      calls.addAndGet(asked);
      noteEntries(indexTable, responses);
      // Any region of the chain may be the one over the limit (a value's rows split across
      // regions, a later page): its rows are not in its answer, so the table is scanned.
      LookupResponse over =
          responses.stream().filter(LookupResponse::getOverLimit).findFirst().orElse(null);
      if (over != null) {
        QueryPlan plan =
            context.router.planByValue(
                kind, estimatedRows(responses), tableRows, regionsOf(spec, indexTable));
        List<Result> scanned = context.scans.point(spec, value);
        context.trace(
            QueryTrace.builder("point-scan (planned)")
                .regions(QueryTrace.Target.INDEX_REGIONS, plan.regionsTotal(), asked, 0)
                .routing(routed.trace())
                .lookups(new QueryTrace.Lookups(0, scanned.size(), QueryContext.micros(start)))
                .build());
        return new Answer(responses, scanned, plan);
      }
      traced = "point";
    } else {
      List<byte[]> buckets = bucketsOf(spec, routed.route());
      responses = lookupAll(indexTable, buckets, request);
      responses =
          withRemainingPages(
              indexTable,
              buckets,
              responses,
              (bucket, resume) ->
                  bucket.lookup(null, request.toBuilder().setResumeAfter(resume).build()),
              Long.MAX_VALUE);
      asked = buckets.size();
      traced = context.strict() ? "point-strict" : "point";
    }
    int total = regionsOf(spec, indexTable);
    trace(traced, total, asked, routed.unsure(), responses, routed.trace(), lookupStart);
    Answer answer = new Answer(responses, null);
    if (!answer.building()) return answer;
    List<Result> scanned = context.scans.point(spec, value);
    traceScan("point", total, asked, start, scanned.size());
    return new Answer(responses, scanned);
  }

  /**
   * The rows of a value that its chain's regions estimated, each region counted once (by its last
   * answer: an earlier page of the same region is followed by another).
   */
  private static long estimatedRows(List<LookupResponse> chain) {
    long rows = 0;
    for (LookupResponse r : chain) {
      if (!r.hasResumeAfter()) rows += r.getValueEstimate();
    }
    return rows;
  }

  /**
   * Every bucket's or region's entries with {@code lo <= value < hi} (null = unbounded). A {@code
   * BY_ROW} index's buckets are asked in parallel, page by page. A key-routed index's range is read
   * by chains of region calls, in parallel: an {@code ORDERED} index's one chain per salted stream,
   * from the region holding the range's start to the one holding its end (only those), a {@code
   * BY_VALUE} index's one per region. Once the entries read exceed what a scan would cost ({@code
   * kind}'s costs), the reading stops and the table is scanned instead (the answer's plan says so).
   */
  Answer range(IndexSpec spec, byte[] lo, byte[] hi, QueryPlan.Answer kind) throws IOException {
    QueryContext.checkBounds(spec, lo, hi);
    long start = System.nanoTime();
    TableName indexTable = indexTable(spec);
    // Paged by bytes only: an answer larger than one RPC comes in several.
    RangeLookupRequest built =
        rangeRequest(spec, lo, hi)
            .setLimit(Integer.MAX_VALUE)
            .setMaxBytes(QueryContext.LIST_PAGE_BYTES)
            .build();
    int total = regionsOf(spec, indexTable);
    long tableRows = tableRows(spec, indexTable);
    long scanAbove = context.router.scanAboveRows(kind, false, tableRows);
    List<LookupResponse> responses;
    int asked;
    if (!spec.routedByKey()) {
      // Rows are hashed to buckets, so each holds an even share of any range: a first page of
      // twice a bucket's share of the budget answers most ranges a scan would not beat in one
      // round, and the rest is read only while the budget lasts. With the table's size not known
      // yet, the first pages are of the client's page size, and their answers tell the size.
      RangeLookupRequest request =
          built.toBuilder()
              .setLimit(
                  scanAbove <= 0
                      ? context.pageRows
                      : (int) Math.min(Integer.MAX_VALUE - 1, 2 * scanAbove / total + 1))
              .build();
      List<byte[]> buckets = allBuckets(spec);
      responses =
          askAll(
              indexTable,
              buckets,
              channel -> IndexLookupService.newBlockingStub(channel).rangeLookup(null, request));
      if (scanAbove <= 0) {
        noteEntries(indexTable, responses);
        tableRows = tableRows(spec, indexTable);
        scanAbove = context.router.scanAboveRows(kind, false, tableRows);
      }
      responses =
          withRemainingPages(
              indexTable,
              buckets,
              responses,
              (bucket, resume) ->
                  bucket.rangeLookup(null, request.toBuilder().setResumeAfter(resume).build()),
              scanAbove > 0 ? scanAbove : Long.MAX_VALUE);
      asked = total;
    } else {
      long budget = scanAbove;
      AtomicLong read = new AtomicLong();
      List<RegionChain> chains = new ArrayList<>();
      responses = new ArrayList<>();
      try (Table index = context.connection.getTable(indexTable)) {
        List<byte[][]> parts =
            spec.layout() == IndexSpec.Layout.ORDERED
                ? streamBounds(spec, lo, hi)
                : regionParts(indexTable);
        List<Callable<List<LookupResponse>>> each = new ArrayList<>(parts.size());
        for (byte[][] part : parts) {
          RegionChain chain = rangeChain(index, part[0], part[1], built);
          chains.add(chain);
          each.add(
              () -> {
                List<LookupResponse> out = new ArrayList<>();
                for (LookupResponse r = chain.next(); r != null; r = chain.next()) {
                  out.add(r);
                  if (budget > 0 && read.addAndGet(PackedHits.count(r)) > budget) break;
                }
                return out;
              });
        }
        ParallelCalls.all(context.pool, each, "index range lookup on " + indexTable)
            .forEach(responses::addAll);
      }
      asked = chains.stream().mapToInt(RegionChain::regions).sum();
    }
    noteEntries(indexTable, responses);
    long read = 0;
    for (LookupResponse r : responses) read += PackedHits.count(r);
    boolean over = scanAbove > 0 && read > scanAbove;
    // With the table's size known, the entries read are the range's count: the plan it ran.
    Answer answer =
        new Answer(
            responses,
            null,
            scanAbove > 0 && !over
                ? context.router.planRange(kind, false, read, tableRows, asked, total)
                : null);
    if (!over && !answer.building()) {
      trace("range", total, asked, 0, responses, QueryTrace.Routing.NOT_ROUTED, start);
      return answer;
    }
    List<Result> scanned = context.scans.range(spec, lo, hi);
    if (!over) {
      traceScan("range", total, asked, start, scanned.size());
      return new Answer(responses, scanned);
    }
    QueryPlan plan = context.router.planRange(kind, false, read, tableRows, asked, total);
    context.trace(
        QueryTrace.builder("range-scan (planned)")
            .regions(QueryTrace.Target.INDEX_REGIONS, total, asked, 0)
            .lookups(new QueryTrace.Lookups(0, scanned.size(), QueryContext.micros(start)))
            .plan(plan)
            .build());
    return new Answer(responses, scanned, plan);
  }

  /**
   * The entries of {@code lo <= value < hi} of an {@code ORDERED} index in value order (ties in row
   * order), descending if asked, each with its value; read page by page ({@code pageRows} entries
   * per region call), each stream region after region.
   */
  OrderedEntries ordered(
      IndexSpec spec, Table index, byte[] lo, byte[] hi, boolean descending, int pageRows) {
    RangeLookupRequest request =
        rangeRequest(spec, lo, hi)
            .setLimit(pageRows)
            .setMaxBytes(QueryContext.LIST_PAGE_BYTES)
            .setWithValues(true)
            .setReverse(descending)
            .build();
    List<PageCursor.Chain> streams = new ArrayList<>(spec.buckets());
    for (byte[][] bounds : streamBounds(spec, lo, hi)) {
      PageCursor.Chain stream =
          descending
              ? new DescendingChain(
                  index,
                  bounds[0],
                  bounds[1],
                  (region, to, resume) -> {
                    RangeLookupRequest.Builder b =
                        request.toBuilder()
                            .setFromKey(ByteString.copyFrom(bounds[0]))
                            .setToKey(ByteString.copyFrom(to));
                    if (resume != null) b.setResumeAfter(resume);
                    return region.rangeLookup(null, b.build());
                  })
              : rangeChain(index, bounds[0], bounds[1], request);
      // A value-order reading holds its streams' places: a failed page must not lose one.
      streams.add(PageCursor.readAgainIfMoved(stream, context));
    }
    calls.addAndGet(streams.size());
    return new OrderedEntries(streams, descending);
  }

  /** The rows of the data table, as the index's regions last told, a plan would compare with. */
  long tableRowsOf(IndexSpec spec) throws IOException {
    TableName indexTable = indexTable(spec);
    regionsOf(spec, indexTable);
    return tableRows(spec, indexTable);
  }

  /** Every answer of every chain, the chains read in parallel when there are several. */
  private List<LookupResponse> allOf(List<RegionChain> chains, String what) throws IOException {
    if (chains.size() == 1) return chains.get(0).all();
    List<Callable<List<LookupResponse>>> each = new ArrayList<>(chains.size());
    for (RegionChain c : chains) each.add(c::all);
    List<LookupResponse> out = new ArrayList<>();
    ParallelCalls.all(context.pool, each, what).forEach(out::addAll);
    return out;
  }

  /**
   * The key ranges of a {@code BY_VALUE} index's regions as its table lists them now, [start, next
   * start). A region split or merged since then is read correctly all the same (see {@link
   * RegionChain}); the listing only decides what is read in parallel.
   */
  List<byte[][]> regionParts(TableName indexTable) throws IOException {
    byte[][] starts;
    try (RegionLocator locator = context.connection.getRegionLocator(indexTable)) {
      starts = locator.getStartKeys();
    }
    regionCounts.put(indexTable, new RegionCount(starts.length, System.currentTimeMillis()));
    List<byte[][]> parts = new ArrayList<>(starts.length);
    for (int i = 0; i < starts.length; i++) {
      parts.add(new byte[][] {starts[i], i + 1 < starts.length ? starts[i + 1] : new byte[0]});
    }
    return parts;
  }

  /**
   * The plan a point query on a {@code BY_VALUE} index would run now: its region's estimate of the
   * value's rows, asked with {@code estimate_only} (one call, no entries read).
   */
  QueryPlan explainByValue(IndexSpec spec, byte[] value, QueryPlan.Answer kind) throws IOException {
    TableName indexTable = indexTable(spec);
    LookupRequest request = lookupRequest(spec, value).setEstimateOnly(true).build();
    // As point() decides: with the table's rows known before the lookups, each region compares its
    // own estimate with the threshold (a salted index's streams and a value split across regions
    // are not summed), and scans only above it (at least one row, however small the table).
    long tableRows = tableRows(spec, indexTable);
    long scanAbove = context.router.scanAboveRows(kind, false, tableRows);
    long estimate = 0;
    boolean over = false;
    try (Table index = context.connection.getTable(indexTable)) {
      for (RegionChain chain : valueChains(index, spec, value, request)) {
        LookupResponse first = chain.next();
        noteEntries(indexTable, List.of(first));
        if (first.getFilterAbsent()) continue;
        estimate += first.getValueEstimate();
        if (scanAbove > 0 && first.getValueEstimate() > scanAbove) over = true;
      }
    }
    QueryPlan costed =
        context.router.planByValue(kind, estimate, tableRows, regionsOf(spec, indexTable));
    boolean scan = costed.kind() == QueryPlan.Kind.DATA_SCAN;
    if (scan == over) return costed;
    QueryPlan.Kind index =
        kind == QueryPlan.Answer.ROWS ? QueryPlan.Kind.INDEX_LOOKUP : QueryPlan.Kind.INDEX_ONLY;
    return new QueryPlan(
        over ? QueryPlan.Kind.DATA_SCAN : index,
        kind,
        costed.estimatedRows(),
        costed.boundRows(),
        costed.tableRows(),
        costed.regionsAsked(),
        costed.regionsTotal(),
        costed.indexCostMs(),
        costed.scanCostMs(),
        over
            ? "a region estimates more than " + scanAbove + " rows of the value: a scan"
            : scanAbove == 0
                ? "the table's size is not known yet: the index"
                : "no region estimates more than "
                    + scanAbove
                    + " rows of the value (a region scans instead only above that): the index");
  }

  /**
   * The table's rows as the index's regions last told (0: not known yet): a region's entries times
   * the {@code BY_ROW} buckets, or the key-routed table's regions as last listed (they split by
   * size).
   */
  private long tableRows(IndexSpec spec, TableName indexTable) {
    Long entries = entriesPerRegion.get(indexTable);
    if (entries == null) return 0;
    if (!spec.routedByKey()) return entries * spec.buckets();
    RegionCount count = regionCounts.get(indexTable);
    return count == null ? 0 : entries * count.regions();
  }

  /** Remembers a region's entries from answers that carry them. */
  void noteEntries(TableName indexTable, List<LookupResponse> responses) {
    for (LookupResponse r : responses) {
      if (r.hasRegionEntries()) entriesPerRegion.put(indexTable, r.getRegionEntries());
    }
  }

  /**
   * The index's regions, for traces: its buckets, or the {@code BY_VALUE} table's regions as last
   * listed (at most {@link #REGION_COUNT_MAX_AGE_MS} old).
   */
  private int regionsOf(IndexSpec spec, TableName indexTable) throws IOException {
    if (!spec.routedByKey()) return spec.buckets();
    RegionCount known = regionCounts.get(indexTable);
    if (known == null
        || System.currentTimeMillis() - known.listedMillis() > REGION_COUNT_MAX_AGE_MS) {
      return regionParts(indexTable).size();
    }
    return known.regions();
  }

  /**
   * RPCs this table's point lookups made to index region servers (first pages): one per server
   * holding several candidate buckets, plus one per other bucket.
   */
  long calls() {
    return calls.get();
  }

  private TableName indexTable(IndexSpec spec) {
    return IndexCatalog.indexTableName(context.dataTable, spec.alias());
  }

  TableName indexTableOf(IndexSpec spec) {
    return indexTable(spec);
  }

  /** The index's regions: its buckets, or its table's regions as listed at most 10 s ago. */
  int regionsOf(IndexSpec spec) throws IOException {
    return regionsOf(spec, indexTable(spec));
  }

  /** {@link #regionsOf(IndexSpec)} for traces: -1 if the table cannot be listed now. */
  int knownRegionsOf(IndexSpec spec) {
    try {
      return regionsOf(spec);
    } catch (IOException e) {
      return -1;
    }
  }

  private void trace(
      String kind,
      int total,
      int asked,
      int unsure,
      List<LookupResponse> responses,
      QueryTrace.Routing routing,
      long lookupStart) {
    int cacheHits = 0, hits = 0;
    for (LookupResponse r : responses) {
      if (r.getCacheHit()) cacheHits++;
      hits += PackedHits.count(r);
    }
    context.trace(
        QueryTrace.builder(kind)
            .regions(QueryTrace.Target.INDEX_REGIONS, total, asked, unsure)
            .routing(routing)
            .lookups(new QueryTrace.Lookups(cacheHits, hits, QueryContext.micros(lookupStart)))
            .build());
  }

  /** Replaces the trace of a query whose index was building by one of its data scan. */
  private void traceScan(String kind, int total, int asked, long startNanos, int rows) {
    context.trace(
        QueryTrace.builder(kind + "-scan (index building)")
            .regions(QueryTrace.Target.INDEX_REGIONS, total, asked, 0)
            .lookups(new QueryTrace.Lookups(0, rows, QueryContext.micros(startNanos)))
            .build());
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
    try (RegionLocator locator = context.connection.getRegionLocator(indexTable)) {
      for (int i = 0; i < buckets.size(); i++) {
        HRegionLocation l = locator.getRegionLocation(buckets.get(i));
        encoded.add(l.getRegion().getEncodedName());
        byServer.computeIfAbsent(l.getServerName(), k -> new ArrayList<>()).add(i);
      }
    }
    LookupResponse[] out = new LookupResponse[buckets.size()];
    try (Table table = context.connection.getTable(indexTable)) {
      List<Callable<Void>> perServer = new ArrayList<>(byServer.size());
      for (List<Integer> slots : byServer.values()) {
        perServer.add(
            () -> {
              if (slots.size() > 1) askServer(table, buckets, slots, encoded, request, out);
              for (int i : slots) {
                if (out[i] == null) {
                  calls.incrementAndGet();
                  out[i] =
                      IndexLookupService.newBlockingStub(table.coprocessorService(buckets.get(i)))
                          .lookup(null, request);
                }
              }
              return null;
            });
      }
      ParallelCalls.all(context.pool, perServer, "index lookup on " + indexTable);
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
    calls.incrementAndGet();
    try {
      answer =
          IndexLookupService.newBlockingStub(table.coprocessorService(buckets.get(slots.get(0))))
              .lookupMany(null, batch.build());
    } catch (ServiceException e) {
      IOException cause = Rpcs.unwrap(e);
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

  interface BucketCall {
    LookupResponse call(CoprocessorRpcChannel channel) throws ServiceException;
  }

  /** One call to each bucket, in parallel; the answers in bucket order. */
  List<LookupResponse> askAll(TableName indexTable, List<byte[]> buckets, BucketCall call)
      throws IOException {
    try (Table table = context.connection.getTable(indexTable)) {
      List<Callable<LookupResponse>> perBucket = new ArrayList<>(buckets.size());
      for (byte[] startKey : buckets) {
        perBucket.add(() -> call.call(table.coprocessorService(startKey)));
      }
      return ParallelCalls.all(context.pool, perBucket, "index lookup on " + indexTable);
    }
  }

  /**
   * {@code firsts} (one answer per bucket, in bucket order) followed by the further pages of every
   * bucket whose answer stopped at its limit or byte budget, until more than {@code maxEntries}
   * entries were read in all.
   */
  private List<LookupResponse> withRemainingPages(
      TableName indexTable,
      List<byte[]> buckets,
      List<LookupResponse> firsts,
      PageCursor.BucketPage next,
      long maxEntries)
      throws IOException {
    List<LookupResponse> out = null;
    long read = 0;
    for (LookupResponse first : firsts) read += PackedHits.count(first);
    for (int i = 0; i < firsts.size() && read <= maxEntries; i++) {
      LookupResponse page = firsts.get(i);
      if (!page.hasResumeAfter()) continue;
      if (out == null) out = new ArrayList<>(firsts);
      try (Table table = context.connection.getTable(indexTable)) {
        IndexLookupService.BlockingInterface bucket =
            IndexLookupService.newBlockingStub(table.coprocessorService(buckets.get(i)));
        while (page.hasResumeAfter() && read <= maxEntries) {
          page = next.ask(bucket, page.getResumeAfter());
          read += PackedHits.count(page);
          out.add(page);
        }
      } catch (ServiceException e) {
        throw Rpcs.unwrap(e);
      }
    }
    return out == null ? firsts : out;
  }
}
