package io.scbf.hbase.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.IndexEntry;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.QueryTrace;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.PackedHits;
import io.scbf.hbase.shared.proto.IndexProtos.IndexLookupService;
import io.scbf.hbase.shared.proto.IndexProtos.LookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RangeLookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RegionLookup;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import io.scbf.hbase.shared.proto.IndexProtos.ServerLookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.ServerLookupResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
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
 * instead ({@link DataScan}), so its answer is complete, only slower.
 */
final class GlobalLookups {
  private static final Logger LOG = LoggerFactory.getLogger(GlobalLookups.class);

  /** How long a {@code BY_VALUE} index's region count (traces only) is reused. */
  private static final long REGION_COUNT_MAX_AGE_MS = 10_000;

  private final QueryContext context;
  private final AtomicLong calls = new AtomicLong();
  private final Map<TableName, RegionCount> regionCounts = new ConcurrentHashMap<>();

  /**
   * Entries of a {@code BY_VALUE} index region as last answered: regions split by size, so this
   * times the regions estimates the table's rows for the planner.
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
      long tableRows = tableRows(indexTable);
      long scanAbove = context.router.scanAboveRows(kind, tableRows);
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
                  bucket.lookup(null, request.toBuilder().setResumeAfter(resume).build()));
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
   * Every bucket's or region's entries with {@code lo <= value < hi} (null = unbounded). A
   * key-routed index's range is read by chains of region calls, in parallel: an {@code ORDERED}
   * index's one chain per salted stream, from the region holding the range's start to the one
   * holding its end (only those), a {@code BY_VALUE} index's one per region. Once the entries read
   * exceed what a scan would cost ({@code kind}'s costs), the reading stops and the table is
   * scanned instead (the answer's plan says so).
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
    if (!spec.routedByKey()) {
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
      int total = spec.buckets();
      trace("range", total, total, 0, responses, QueryTrace.Routing.NOT_ROUTED, start);
      Answer answer = new Answer(responses, null);
      if (!answer.building()) return answer;
      List<Result> scanned = context.scans.range(spec, lo, hi);
      traceScan("range", total, total, start, scanned.size());
      return new Answer(responses, scanned);
    }
    int total = regionsOf(spec, indexTable);
    long tableRows = tableRows(indexTable);
    long scanAbove = context.router.scanAboveRows(kind, tableRows);
    AtomicLong read = new AtomicLong();
    List<RegionChain> chains = new ArrayList<>();
    List<LookupResponse> responses = new ArrayList<>();
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
                if (scanAbove > 0 && read.addAndGet(PackedHits.count(r)) > scanAbove) break;
              }
              return out;
            });
      }
      ParallelCalls.all(context.pool, each, "index range lookup on " + indexTable)
          .forEach(responses::addAll);
    }
    int asked = chains.stream().mapToInt(RegionChain::regions).sum();
    noteEntries(indexTable, responses);
    boolean over = scanAbove > 0 && read.get() > scanAbove;
    // With the table's size known, the entries read are the range's count: the plan it ran.
    Answer answer =
        new Answer(
            responses,
            null,
            scanAbove > 0 && !over
                ? context.router.planRange(kind, read.get(), tableRows, asked, total)
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
    QueryPlan plan = context.router.planRange(kind, read.get(), tableRows, asked, total);
    context.trace(
        QueryTrace.builder("range-scan (planned)")
            .regions(QueryTrace.Target.INDEX_REGIONS, total, asked, 0)
            .lookups(new QueryTrace.Lookups(0, scanned.size(), QueryContext.micros(start)))
            .plan(plan)
            .build());
    return new Answer(responses, scanned, plan);
  }

  /**
   * The key ranges [start, stop) of {@code lo <= value < hi} in each salted stream of an {@code
   * ORDERED} index.
   */
  private static List<byte[][]> streamBounds(IndexSpec spec, byte[] lo, byte[] hi) {
    byte[] alias = spec.alias().getBytes(StandardCharsets.UTF_8);
    List<byte[][]> out = new ArrayList<>(spec.buckets());
    for (int s = 0; s < spec.buckets(); s++) out.add(IndexKeyCodec.rangeBounds(s, alias, lo, hi));
    return out;
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
    List<Chain> streams = new ArrayList<>(spec.buckets());
    for (byte[][] bounds : streamBounds(spec, lo, hi)) {
      streams.add(
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
              : rangeChain(index, bounds[0], bounds[1], request));
    }
    calls.addAndGet(streams.size());
    return new OrderedEntries(streams, descending);
  }

  /**
   * The entries a range reading in value order counts: {@code lo <= value < hi} of an {@code
   * ORDERED} index, counted by its regions up to {@code limit} (for explain).
   */
  Count countRange(IndexSpec spec, byte[] lo, byte[] hi, long limit) throws IOException {
    RangeLookupRequest request =
        rangeRequest(spec, lo, hi)
            .setCountOnly(true)
            .setLimit((int) Math.min(Integer.MAX_VALUE - 1, Math.max(1, limit)))
            .build();
    long counted = 0;
    int regions = 0;
    List<byte[][]> streams = streamBounds(spec, lo, hi);
    try (Table index = context.connection.getTable(indexTable(spec))) {
      for (int s = 0; s < streams.size(); s++) {
        long before = counted;
        RegionChain chain = rangeChain(index, streams.get(s)[0], streams.get(s)[1], request);
        for (LookupResponse r = chain.next(); r != null; r = chain.next()) {
          noteEntries(indexTable(spec), List.of(r));
          if (r.getIndexBuilding()) return new Count(-1, chain.regions() + regions, false);
          counted += r.getValueEstimate();
          if (counted > limit) {
            long inLast = r.getValueEstimate();
            long streamRows =
                counted
                    - before
                    - inLast
                    + Math.max(inLast, rowsFrom(spec, index, request, streams.get(s), r));
            // Salted streams hold even shares of every value range (rows are hashed to them).
            long estimate = before + streamRows * (streams.size() - s);
            return new Count(Math.max(counted, estimate), regions + chain.regions(), true);
          }
        }
        regions += chain.regions();
      }
    }
    return new Count(counted, regions, false);
  }

  /**
   * The entries of {@code stream}'s range from the region whose count went over the limit ({@code
   * last}) on: each region's share of the range (the keys' positions between its bounds, {@link
   * KeySpan}, for a region the range covers in part) times its entries. The regions after {@code
   * last} are asked for their entries (a count of one entry each, in parallel, at most {@link
   * #SIZED_REGIONS_MAX}; the rest taken to hold their mean): an {@code ORDERED} index's regions
   * hold from a few to a split size of entries, so no one region's count stands for the others. So
   * a half-open range is sized from the regions it spans, not from the entries counted before a
   * scan was known to be cheaper.
   */
  private long rowsFrom(
      IndexSpec spec, Table index, RangeLookupRequest request, byte[][] stream, LookupResponse last)
      throws IOException {
    if (!last.hasRegionEntries() || !last.hasRegionStart()) return 0;
    byte[] after = last.getRegionStart().toByteArray();
    List<byte[][]> spanned = new ArrayList<>();
    List<Double> shares = new ArrayList<>();
    // The index's own keys: a region's share is interpolated between its bounds clipped to them
    // (the first region starts at the table's empty start key, which shares no prefix with them).
    List<byte[][]> whole = streamBounds(spec, null, null);
    byte[] indexStart = whole.get(0)[0];
    byte[] indexEnd = whole.get(whole.size() - 1)[1];
    for (byte[][] region : regionParts(index.getName())) {
      byte[] from = IndexKeyCodec.maxStart(IndexKeyCodec.maxStart(region[0], stream[0]), after);
      byte[] to = IndexKeyCodec.minEnd(region[1], stream[1]);
      if (to.length != 0 && Bytes.compareTo(from, to) >= 0) continue;
      byte[] low = IndexKeyCodec.maxStart(region[0], indexStart);
      byte[] high = IndexKeyCodec.minEnd(region[1], indexEnd);
      double share;
      if (high.length == 0) {
        share = Bytes.equals(from, low) ? 1 : 0.5; // no bound to interpolate against
      } else {
        KeySpan span = new KeySpan(low, high);
        share = (to.length == 0 ? 1 : span.at(to)) - span.at(from);
      }
      spanned.add(new byte[][] {from, to});
      shares.add(share);
    }
    if (spanned.isEmpty()) return 0;
    long[] entries = new long[spanned.size()];
    entries[0] = last.getRegionEntries(); // the first region spanned is the one counted last
    int asked = Math.min(spanned.size(), SIZED_REGIONS_MAX + 1);
    RangeLookupRequest one = request.toBuilder().setLimit(1).build();
    List<Callable<Long>> each = new ArrayList<>();
    for (int i = 1; i < asked; i++) {
      byte[][] part = spanned.get(i);
      each.add(
          () -> {
            LookupResponse r = rangeChain(index, part[0], part[1], one).next();
            return r != null && r.hasRegionEntries() ? r.getRegionEntries() : -1L;
          });
    }
    List<Long> answers =
        each.isEmpty()
            ? List.of()
            : ParallelCalls.all(context.pool, each, "sizing a range of " + index.getName());
    long sum = entries[0];
    int known = 1;
    for (int i = 1; i < asked; i++) {
      entries[i] = answers.get(i - 1);
      if (entries[i] >= 0) {
        sum += entries[i];
        known++;
      }
    }
    long mean = sum / known;
    double rows = 0;
    for (int i = 0; i < spanned.size(); i++) {
      rows += shares.get(i) * (i < asked && entries[i] >= 0 ? entries[i] : mean);
    }
    return Math.round(rows);
  }

  /** At most this many regions after the counted ones are asked their entries to size a range. */
  static final int SIZED_REGIONS_MAX = 32;

  /**
   * Entries a range holds as its regions counted them (-1: the index is building), or, {@code
   * extrapolated}, the count up to the limit plus the rest of the range sized from its regions.
   */
  record Count(long entries, int regions, boolean extrapolated) {}

  /** The rows of an {@code ORDERED} or {@code BY_VALUE} table a plan would compare with. */
  long tableRowsOf(IndexSpec spec) throws IOException {
    TableName indexTable = indexTable(spec);
    regionsOf(spec, indexTable);
    return tableRows(indexTable);
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
   * The chains reading {@code value}'s key ranges: one of a {@code BY_VALUE} index (the value's
   * slot), one per salted stream of an {@code ORDERED} one.
   */
  private static List<RegionChain> valueChains(
      Table index, IndexSpec spec, byte[] value, LookupRequest request) {
    byte[] alias = spec.alias().getBytes(StandardCharsets.UTF_8);
    if (spec.layout() == IndexSpec.Layout.BY_VALUE) {
      return List.of(valueChain(index, IndexKeyCodec.slotPrefix(alias, value), request));
    }
    List<RegionChain> chains = new ArrayList<>(spec.buckets());
    for (int s = 0; s < spec.buckets(); s++) {
      chains.add(valueChain(index, IndexKeyCodec.valuePrefix(s, alias, value), request));
    }
    return chains;
  }

  /** The chain reading the key range of the index rows starting with {@code prefix}. */
  private static RegionChain valueChain(Table index, byte[] prefix, LookupRequest request) {
    return new RegionChain(
        index,
        prefix,
        IndexKeyCodec.prefixSuccessor(prefix),
        resume -> Bytes.add(prefix, resume.toByteArray(), new byte[1]),
        (region, from, resume) -> {
          LookupRequest.Builder b = request.toBuilder().setFromKey(ByteString.copyFrom(from));
          if (resume != null) b.setResumeAfter(resume);
          return region.lookup(null, b.build());
        });
  }

  /** The chain reading a range request's entries in the key range [from, to). */
  private static RegionChain rangeChain(
      Table index, byte[] from, byte[] to, RangeLookupRequest request) {
    return new RegionChain(
        index,
        from,
        to,
        ByteString::toByteArray,
        (region, at, resume) -> {
          RangeLookupRequest.Builder b =
              request.toBuilder()
                  .setFromKey(ByteString.copyFrom(at))
                  .setToKey(ByteString.copyFrom(to));
          if (resume != null) b.setResumeAfter(resume);
          return region.rangeLookup(null, b.build());
        });
  }

  /**
   * The key ranges of a {@code BY_VALUE} index's regions as its table lists them now, [start, next
   * start). A region split or merged since then is read correctly all the same (see {@link
   * RegionChain}); the listing only decides what is read in parallel.
   */
  private List<byte[][]> regionParts(TableName indexTable) throws IOException {
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
    long tableRows = tableRows(indexTable);
    long scanAbove = context.router.scanAboveRows(kind, tableRows);
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

  /** The table's rows as the {@code BY_VALUE} index's regions last told (0: not known yet). */
  private long tableRows(TableName indexTable) {
    Long entries = entriesPerRegion.get(indexTable);
    RegionCount count = regionCounts.get(indexTable);
    return entries == null || count == null ? 0 : entries * count.regions();
  }

  /** Remembers a region's entries from answers that carry them. */
  private void noteEntries(TableName indexTable, List<LookupResponse> responses) {
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

  /** One page of one bucket: the first if {@code resume} is null, else the one after it. */
  private interface BucketPage {
    LookupResponse ask(IndexLookupService.BlockingInterface bucket, ByteString resume)
        throws ServiceException;
  }

  /** A cursor that reads a key range region after region, and counts the regions it asked. */
  interface Chain extends Cursor {
    int regions();
  }

  /** The answers of a stream, one page at a time. */
  interface Cursor {
    /** The next page, or null once every region answered. */
    LookupResponse next() throws IOException;

    /** True if no page was asked yet. */
    boolean atStart();

    /** The cursors' answers one cursor after the other. */
    static Cursor concat(List<? extends Cursor> cursors) {
      return new Cursor() {
        int i;

        @Override
        public LookupResponse next() throws IOException {
          for (; i < cursors.size(); i++) {
            LookupResponse r = cursors.get(i).next();
            if (r != null) return r;
          }
          return null;
        }

        @Override
        public boolean atStart() {
          return i == 0 && cursors.get(0).atStart();
        }
      };
    }
  }

  /** A global index's rows with {@code value}, in pages of the routed buckets or its region. */
  QueryStream.Pages pointPages(IndexSpec spec, byte[] value, RouteResponse route)
      throws IOException {
    LookupRequest request = lookupRequest(spec, value).setLimit(context.pageRows).build();
    return pages(
        spec,
        index ->
            spec.routedByKey()
                ? Cursor.concat(valueChains(index, spec, value, request))
                : bucketCursor(
                    index,
                    bucketsOf(spec, route),
                    (bucket, resume) ->
                        bucket.lookup(
                            null,
                            resume == null
                                ? request
                                : request.toBuilder().setResumeAfter(resume).build())),
        v -> Arrays.equals(v, value),
        () -> context.scans.pointPages(spec, value, context.pageRows));
  }

  /** A global index's rows with {@code lo <= value < hi}, in pages of every bucket or region. */
  QueryStream.Pages rangePages(IndexSpec spec, byte[] lo, byte[] hi) throws IOException {
    QueryContext.checkBounds(spec, lo, hi);
    // With their values, so that each entry is re-checked against its own value (see pages).
    RangeLookupRequest request =
        rangeRequest(spec, lo, hi).setLimit(context.pageRows).setWithValues(true).build();
    return pages(
        spec,
        index ->
            spec.layout() == IndexSpec.Layout.ORDERED
                ? Cursor.concat(
                    streamBounds(spec, lo, hi).stream()
                        .map(b -> rangeChain(index, b[0], b[1], request))
                        .toList())
                : spec.routedByKey()
                    ? rangeChain(index, new byte[0], new byte[0], request)
                    : bucketCursor(
                        index,
                        allBuckets(spec),
                        (bucket, resume) ->
                            bucket.rangeLookup(
                                null,
                                resume == null
                                    ? request
                                    : request.toBuilder().setResumeAfter(resume).build())),
        v -> IndexKeyCodec.inRange(v, lo, hi),
        () -> QueryStream.onePage(() -> context.scans.range(spec, lo, hi)));
  }

  /** The buckets' pages one bucket after the other. */
  private static Cursor bucketCursor(Table index, List<byte[]> buckets, BucketPage ask) {
    return new Cursor() {
      int bucket;
      ByteString resume;

      @Override
      public LookupResponse next() throws IOException {
        if (bucket >= buckets.size()) return null;
        LookupResponse r;
        try {
          r =
              ask.ask(
                  IndexLookupService.newBlockingStub(index.coprocessorService(buckets.get(bucket))),
                  resume);
        } catch (ServiceException e) {
          throw Rpcs.unwrap(e);
        }
        resume = r.hasResumeAfter() ? r.getResumeAfter() : null;
        if (resume == null) bucket++;
        return r;
      }

      @Override
      public boolean atStart() {
        return bucket == 0 && resume == null;
      }
    };
  }

  /** How a stream opens its cursor on the index table. */
  private interface CursorOpener {
    Cursor open(Table index) throws IOException;
  }

  /** The scan a stream falls back to if the index is building when it starts. */
  private interface ScanPages {
    QueryStream.Pages open() throws IOException;
  }

  /**
   * A global index's rows in pages: each page of the cursor re-checked by one multi-get against
   * {@code matches}, and an entry that carries its value (a range's) kept only if its row holds
   * that value now ({@link Rechecks#rowsAt}). A range holds many values, so an entry left behind
   * under a value the row no longer holds may lie in the range with the row's current one:
   * re-checked against the range alone, both would send the row.
   */
  private QueryStream.Pages pages(
      IndexSpec spec, CursorOpener opener, Predicate<byte[]> matches, ScanPages whileBuilding)
      throws IOException {
    Table index = context.connection.getTable(indexTable(spec));
    Cursor cursor;
    try {
      cursor = opener.open(index);
    } catch (IOException | RuntimeException e) {
      index.close();
      throw e;
    }
    return new QueryStream.Pages() {
      QueryStream.Pages scan; // the index said it is building before the first page

      @Override
      public List<Result> next() throws IOException {
        if (scan != null) return scan.next();
        while (true) {
          boolean first = cursor.atStart();
          LookupResponse r = cursor.next();
          if (r == null) return null;
          if (r.getIndexBuilding()) {
            if (!first) throw rebuiltWhileStreaming(spec);
            scan = whileBuilding.open();
            return scan.next();
          }
          List<byte[]> keys = new ArrayList<>(PackedHits.count(r));
          List<byte[]> values = new ArrayList<>(PackedHits.count(r));
          boolean valued = true; // a server of an earlier release may send no values
          for (PackedHits.Hit h : PackedHits.of(r)) {
            keys.add(h.row());
            values.add(h.value());
            valued &= h.value() != null;
          }
          List<Result> rows =
              valued
                  ? context.rechecks.rowsAt(keys, values, spec)
                  : context.rechecks.rows(keys, spec, matches);
          if (!rows.isEmpty()) return rows;
        }
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
   * What a stream throws when its index answers "building" after its first page: its regions hold
   * nothing it can go on with, and the rows it sent cannot be taken back for a scan's, so ending
   * there would leave the rest of the answer out without a word.
   */
  IOException rebuiltWhileStreaming(IndexSpec spec) {
    return new IOException(
        "index "
            + spec.alias()
            + " of "
            + context.dataTable
            + " started a rebuild while this stream read it; run the query again"
            + " (it scans the table while the index is building)");
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

  /** A range request; its answers come packed (an older server ignores that and sends hits). */
  private static RangeLookupRequest.Builder rangeRequest(IndexSpec spec, byte[] lo, byte[] hi) {
    RangeLookupRequest.Builder request =
        RangeLookupRequest.newBuilder()
            .setAlias(ByteString.copyFrom(spec.alias().getBytes(StandardCharsets.UTF_8)))
            .setPacked(true);
    if (lo != null) request.setLo(ByteString.copyFrom(lo));
    if (hi != null) request.setHi(ByteString.copyFrom(hi));
    return request;
  }

  private static LookupRequest.Builder lookupRequest(IndexSpec spec, byte[] value) {
    return LookupRequest.newBuilder()
        .setAlias(ByteString.copyFrom(spec.alias().getBytes(StandardCharsets.UTF_8)))
        .setValue(ByteString.copyFrom(value));
  }

  /** Start keys of the buckets a point query asks: the route's candidates, or every bucket. */
  private static List<byte[]> bucketsOf(IndexSpec spec, RouteResponse route) {
    if (route == null) return allBuckets(spec);
    List<byte[]> buckets = new ArrayList<>(route.getCandidatesCount());
    for (RegionRef r : route.getCandidatesList()) buckets.add(r.getStartKey().toByteArray());
    return buckets;
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

  private interface BucketCall {
    LookupResponse call(CoprocessorRpcChannel channel) throws ServiceException;
  }

  private List<LookupResponse> askAll(TableName indexTable, List<byte[]> buckets, BucketCall call)
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
      try (Table table = context.connection.getTable(indexTable)) {
        IndexLookupService.BlockingInterface bucket =
            IndexLookupService.newBlockingStub(table.coprocessorService(buckets.get(i)));
        while (page.hasResumeAfter()) {
          page = next.ask(bucket, page.getResumeAfter());
          out.add(page);
        }
      } catch (ServiceException e) {
        throw Rpcs.unwrap(e);
      }
    }
    return out == null ? firsts : out;
  }
}
