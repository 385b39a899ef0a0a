package io.scbf.hbase.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.QueryTrace;
import io.scbf.hbase.shared.proto.IndexProtos.CurrentFiltersRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LocalIndexService;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryRequest.Answer;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.protobuf.generated.ClientProtos;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Queries of local indexes: routing names candidate data regions, each is asked once through its
 * {@code LocalIndexService}, and the answers must cover every key range asked. A region may have
 * split or merged since routing (or since the client cached its location): each answer names the
 * range it covered, and whatever part of a wanted range it did not cover is asked again from the
 * region holding it now, so no row is missed.
 */
final class LocalQueries {
  private final QueryContext context;
  private final Connection connection;
  private final TableName dataTable;

  /** Each local index's rows in the table, as its regions' range answers last told them. */
  private final Map<String, Long> tableEntries = new ConcurrentHashMap<>();

  LocalQueries(QueryContext context) {
    this.context = context;
    this.connection = context.connection;
    this.dataTable = context.dataTable;
  }

  /** A key range [start, end) of the data table; an empty end is the table's end. */
  record KeyRange(byte[] start, byte[] end) {}

  List<LocalQueryResponse> point(IndexSpec spec, byte[] value, Answer answer, Routed routed)
      throws IOException {
    RouteResponse route = routed.route();
    List<KeyRange> ranges = rangesOf(route);
    int unsure = route == null ? 0 : route.getUnsureRegions();
    int total = route == null ? ranges.size() : route.getTotalRegions();
    // Paged by bytes only: an answer larger than one message comes in several.
    LocalQueryRequest request =
        LocalQueryRequest.newBuilder()
            .setAlias(ByteString.copyFromUtf8(spec.alias()))
            .setValue(ByteString.copyFrom(value))
            .setAnswer(answer)
            .setLimit(Integer.MAX_VALUE)
            .setMaxBytes(QueryContext.LIST_PAGE_BYTES)
            .build();
    long lookupStart = System.nanoTime();
    List<LocalQueryResponse> out;
    try (Table table = connection.getTable(dataTable);
        RegionLocator locator = connection.getRegionLocator(dataTable)) {
      Checks checks = checksOf(route, locator);
      // Read-after-ack: a server's skipped regions are checked by the first candidate's call to
      // that server, else by a call of their own, beside the lookups; what it names is asked then.
      Map<ServerName, List<RegionRef>> unattached = new LinkedHashMap<>(checks.byServer());
      List<Callable<List<LocalQueryResponse>>> calls = new ArrayList<>();
      for (KeyRange r : ranges) {
        List<RegionRef> check = List.of();
        if (!unattached.isEmpty()) {
          ServerName server = placed(locator, r.start());
          List<RegionRef> onIt = server == null ? null : unattached.remove(server);
          if (onIt != null) check = onIt;
        }
        List<RegionRef> attached = check;
        calls.add(() -> cover(table, r, request, attached));
      }
      for (Callable<List<KeyRange>> check : checkCalls(table, spec, value, checks, unattached)) {
        calls.add(
            () -> {
              List<LocalQueryResponse> answers = new ArrayList<>();
              for (KeyRange r : check.call()) answers.addAll(cover(table, r, request));
              return answers;
            });
      }
      out = askAll(calls);
    }
    trace(
        context.strict() ? "local-point-strict" : "local-point",
        total,
        out,
        unsure,
        routed.trace(),
        lookupStart);
    return out;
  }

  /**
   * The whole rows of a point query in pages: each candidate range is asked region by region, each
   * region page by page (at most {@code pageRows} entries, re-checked there), in row-key order. A
   * resume point is a position in the table, so it stays valid when a region splits or moves
   * between two pages: the region now holding the range's start answers after it.
   */
  QueryStream.Pages pointPages(IndexSpec spec, byte[] value, Routed routed, int pageRows)
      throws IOException {
    List<KeyRange> candidates = new ArrayList<>(rangesOf(routed.route()));
    LocalQueryRequest request =
        LocalQueryRequest.newBuilder()
            .setAlias(ByteString.copyFromUtf8(spec.alias()))
            .setValue(ByteString.copyFrom(value))
            .setAnswer(Answer.ROWS)
            .setLimit(pageRows)
            .build();
    Table table = connection.getTable(dataTable);
    try (RegionLocator locator = connection.getRegionLocator(dataTable)) {
      // Read-after-ack: the skipped regions that hold the value now, before the first page.
      Checks checks = checksOf(routed.route(), locator);
      for (List<KeyRange> more :
          ParallelCalls.all(
              context.pool,
              checkCalls(table, spec, value, checks, checks.byServer()),
              "local index check of " + dataTable)) {
        candidates.addAll(more);
      }
    } catch (IOException | RuntimeException e) {
      table.close();
      throw e;
    }
    candidates.sort((a, b) -> Bytes.compareTo(a.start(), b.start())); // pages in row-key order
    return new QueryStream.Pages() {
      int range;
      byte[] next; // the key whose region is asked next, null: the range's start
      ByteString resume;

      @Override
      public List<Result> next() throws IOException {
        while (range < candidates.size()) {
          KeyRange wanted = candidates.get(range);
          if (next == null) next = wanted.start();
          LocalQueryRequest.Builder page = request.toBuilder();
          if (resume != null) page.setResumeAfter(resume);
          byte[] at = next;
          LocalQueryResponse r = context.readAgainIfMoved(() -> ask(table, at, page.build()));
          if (r.hasResumeAfter()) {
            resume = r.getResumeAfter();
          } else if (covers(r.getEndKey().toByteArray(), wanted)) {
            range++;
            next = null;
            resume = null;
          } else {
            next = r.getEndKey().toByteArray();
          }
          List<Result> rows = rows(List.of(r));
          if (!rows.isEmpty()) return rows;
        }
        return null;
      }

      @Override
      public void close() {
        try {
          table.close();
        } catch (IOException e) {
          // A Table from a shared connection holds nothing to release.
        }
      }
    };
  }

  /**
   * The rows of a range in pages of at most {@code pageRows}, in index-key (value, then row) order
   * within each region, the key ranges of the regions found at the start read one after the other
   * (see {@link RangeCursor}).
   */
  QueryStream.Pages rangePages(IndexSpec spec, byte[] lo, byte[] hi, int pageRows)
      throws IOException {
    RangeCursor cursor =
        new RangeCursor(allRegions(), rangeRequest(spec, lo, hi, Answer.ROWS, pageRows));
    Table table = connection.getTable(dataTable);
    return new QueryStream.Pages() {
      @Override
      public List<Result> next() throws IOException {
        LocalQueryResponse r;
        while ((r = context.readAgainIfMoved(() -> cursor.next(table))) != null) {
          List<Result> rows = rows(List.of(r));
          if (!rows.isEmpty()) return rows;
        }
        return null;
      }

      @Override
      public void close() {
        try {
          table.close();
        } catch (IOException e) {
          // A Table from a shared connection holds nothing to release.
        }
      }
    };
  }

  /**
   * A range's answers: the regions' ({@code scanned} null), or, once the entries read passed what a
   * scan of the table costs as much as, the table's rows in the range ({@code plan} says which ran;
   * null when the table's size is not known).
   */
  record RangeAnswer(List<LocalQueryResponse> answers, List<Result> scanned, QueryPlan plan) {}

  /**
   * The entries {@code lo <= value < hi} of every data region, planned as a {@code BY_ROW} range
   * is: each region is asked a first page of twice its share of the budget (the entries whose
   * reading costs what a scan of the table does, {@code kind}'s costs), further pages only while
   * the budget lasts, and past it the table is scanned. Rows are asked only once the regions' first
   * counts (of the same share) are under the budget. With the table's size not known yet, the first
   * pages are of the client's page size, and their answers tell the size.
   */
  RangeAnswer range(IndexSpec spec, byte[] lo, byte[] hi, Answer answer, QueryPlan.Answer kind)
      throws IOException {
    long start = System.nanoTime();
    List<KeyRange> regions = allRegions();
    int total = regions.size();
    long scanAbove = context.router.scanAboveRows(kind, true, tableRows(spec));
    LocalQueryRequest request =
        rangeRequest(
            spec,
            lo,
            hi,
            answer,
            scanAbove <= 0
                ? context.pageRows
                : (int) Math.min(Integer.MAX_VALUE - 1, 2 * scanAbove / total + 1));
    AtomicLong read = new AtomicLong();
    List<LocalQueryResponse> out = new ArrayList<>();
    try (Table table = connection.getTable(dataTable)) {
      long tableRows = tableRows(spec);
      boolean countedOver = false;
      if (answer == Answer.ROWS && scanAbove > 0) {
        // Counting entries costs a fraction of reading rows: a range whose first counts pass the
        // budget is scanned before any row is read. The counts are a lower bound (a region over
        // its share counts its share plus one; a 0.3.0 server answers one page of keys).
        AtomicLong counted = new AtomicLong();
        LocalQueryRequest count =
            request.toBuilder().setAnswer(Answer.KEYS).setCountOnly(true).build();
        List<LocalQueryResponse> counts =
            readEach(table, cursors(regions, count), counted, 1, Long.MAX_VALUE);
        tableRows = noteEntries(spec, counts, total);
        long budget = context.router.scanAboveRows(kind, true, tableRows);
        countedOver = budget > 0 && counted.get() > budget;
        if (countedOver) read.set(counted.get());
      }
      List<RangeCursor> cursors = cursors(regions, request);
      if (!countedOver) {
        out.addAll(readEach(table, cursors, read, 1, Long.MAX_VALUE));
        tableRows = noteEntries(spec, out, total);
      }
      long budget = context.router.scanAboveRows(kind, true, tableRows);
      if (budget <= 0 || read.get() <= budget) {
        out.addAll(
            readEach(
                table, cursors, read, Integer.MAX_VALUE, budget > 0 ? budget : Long.MAX_VALUE));
      }
      QueryPlan plan =
          tableRows > 0
              ? context.router.planRange(kind, true, read.get(), tableRows, total, total)
              : null;
      boolean scan = budget > 0 && read.get() > budget;
      List<Result> scanned = scan ? context.scans.range(spec, lo, hi) : null;
      // Every region is asked (a region that answered in pages counts once).
      context.trace(
          QueryTrace.builder(scan ? "local-range-scan (planned)" : "local-range")
              .regions(QueryTrace.Target.DATA_REGIONS, total, total, 0)
              .lookups(
                  new QueryTrace.Lookups(
                      0,
                      scan ? scanned.size() : (int) Math.min(Integer.MAX_VALUE, read.get()),
                      QueryContext.micros(start)))
              .plan(plan)
              .build());
      return new RangeAnswer(out, scanned, plan);
    }
  }

  /**
   * How many entries {@code lo <= value < hi} holds, as the data regions count them (for explain):
   * each up to {@code limit} (the budget of a query of the range), and, if the total passes it, the
   * regions over the limit counted whole, at most {@link RangeSizes#SIZED_REGIONS_MAX} of them (the
   * others taken to hold their mean). Also returns the table's rows the answers told.
   */
  RangeSizes.Count countRange(IndexSpec spec, byte[] lo, byte[] hi, long limit) throws IOException {
    LocalQueryRequest request =
        rangeRequest(spec, lo, hi, Answer.KEYS, (int) Math.min(Integer.MAX_VALUE - 1, limit))
            .toBuilder()
            .setCountOnly(true)
            .build();
    List<KeyRange> regions = allRegions();
    List<LocalQueryResponse> answers = askCovering(regions, request);
    noteEntries(spec, answers, regions.size());
    long counted = 0;
    List<KeyRange> over = new ArrayList<>();
    for (LocalQueryResponse r : answers) {
      // A 0.3.0 server answers the range's keys, page after page: their number is the count.
      counted += r.hasCounted() ? r.getCounted() : r.getHitsCount();
      if (r.getOverLimit()) {
        over.add(new KeyRange(r.getStartKey().toByteArray(), r.getEndKey().toByteArray()));
      }
    }
    if (counted <= limit || over.isEmpty()) {
      return new RangeSizes.Count(counted, regions.size(), false);
    }
    List<KeyRange> sized = over.subList(0, Math.min(over.size(), RangeSizes.SIZED_REGIONS_MAX));
    long whole = 0;
    for (LocalQueryResponse r :
        askCovering(sized, request.toBuilder().setLimit(Integer.MAX_VALUE).build())) {
      whole += r.hasCounted() ? r.getCounted() : r.getHitsCount();
    }
    long overCounted = (long) over.size() * (Math.min(limit, Integer.MAX_VALUE - 1) + 1);
    long estimate = counted - overCounted + whole * over.size() / sized.size();
    return new RangeSizes.Count(Math.max(counted, estimate), regions.size(), true);
  }

  /** A cursor over each of {@code regions}. */
  private static List<RangeCursor> cursors(List<KeyRange> regions, LocalQueryRequest request) {
    List<RangeCursor> out = new ArrayList<>(regions.size());
    for (KeyRange r : regions) out.add(new RangeCursor(List.of(r), request));
    return out;
  }

  /** {@link RangeCursor#read} of every cursor, in parallel. */
  private List<LocalQueryResponse> readEach(
      Table table, List<RangeCursor> cursors, AtomicLong read, int pages, long budget)
      throws IOException {
    List<Callable<List<LocalQueryResponse>>> calls = new ArrayList<>(cursors.size());
    for (RangeCursor c : cursors) calls.add(() -> c.read(table, read, pages, budget));
    return askAll(calls);
  }

  /** The table's rows as the index's regions last told them (0: not known yet). */
  long tableRows(IndexSpec spec) {
    Long rows = tableEntries.get(spec.alias());
    return rows == null ? 0 : rows;
  }

  /**
   * Remembers the table's rows from the region entries of {@code answers} (regions of a table of
   * {@code regions}; those that sent none are taken to hold the others' mean), and returns them.
   */
  private long noteEntries(IndexSpec spec, List<LocalQueryResponse> answers, int regions) {
    Map<ByteString, Long> byRegion = new HashMap<>();
    for (LocalQueryResponse r : answers) {
      if (r.hasRegionEntries()) byRegion.put(r.getStartKey(), r.getRegionEntries());
    }
    if (byRegion.isEmpty()) return tableRows(spec);
    long sum = byRegion.values().stream().mapToLong(Long::longValue).sum();
    long rows = sum * Math.max(regions, byRegion.size()) / byRegion.size();
    tableEntries.put(spec.alias(), rows);
    return rows;
  }

  private static LocalQueryRequest rangeRequest(
      IndexSpec spec, byte[] lo, byte[] hi, Answer answer, int limit) {
    QueryContext.checkBounds(spec, lo, hi);
    LocalQueryRequest.Builder request =
        LocalQueryRequest.newBuilder()
            .setAlias(ByteString.copyFromUtf8(spec.alias()))
            .setAnswer(answer)
            .setLimit(limit);
    if (lo != null) request.setLo(ByteString.copyFrom(lo));
    if (hi != null) request.setHi(ByteString.copyFrom(hi));
    return request.build();
  }

  /**
   * Reads a paged range over key ranges of the table, in order, each from the point its reading
   * reached (an index key, which names no region). A region that split since is read part by part,
   * each part from that point; a region merged since is asked only for the rows of the part being
   * read. So nothing is missed or repeated whatever the regions do meanwhile.
   */
  private static final class RangeCursor {
    private final ArrayDeque<Part> parts = new ArrayDeque<>();
    private final LocalQueryRequest request;

    RangeCursor(List<KeyRange> ranges, LocalQueryRequest request) {
      for (KeyRange r : ranges) parts.add(new Part(r.start(), r.end(), null));
      this.request = request;
    }

    /** The next page's answer, or null once every part is read; a failed read moves nothing. */
    LocalQueryResponse next(Table table) throws IOException {
      if (parts.isEmpty()) return null;
      Part part = parts.getFirst();
      LocalQueryRequest.Builder page =
          request.toBuilder()
              .setRowStart(ByteString.copyFrom(part.start()))
              .setRowEnd(ByteString.copyFrom(part.end()));
      if (part.resume() != null) page.setResumeAfter(part.resume());
      LocalQueryResponse r = ask(table, part.start(), page.build());
      parts.removeFirst();
      byte[] answeredEnd = r.getEndKey().toByteArray();
      boolean split = !covers(answeredEnd, new KeyRange(part.start(), part.end()));
      if (split) {
        // The rest keeps the point this part had reached.
        parts.addFirst(new Part(answeredEnd, part.end(), part.resume()));
      }
      if (r.hasResumeAfter()) {
        byte[] end = split ? answeredEnd : part.end();
        parts.addFirst(new Part(part.start(), end, r.getResumeAfter()));
      }
      return r;
    }

    /**
     * At most {@code pages} more answers, stopping once {@code read} (the entries every cursor of
     * the query read, this one's added) exceeds {@code budget}.
     */
    List<LocalQueryResponse> read(Table table, AtomicLong read, int pages, long budget)
        throws IOException {
      List<LocalQueryResponse> out = new ArrayList<>();
      for (int i = 0; i < pages && read.get() <= budget; i++) {
        LocalQueryResponse r = next(table);
        if (r == null) break;
        out.add(r);
        read.addAndGet(r.hasCounted() ? r.getCounted() : r.getHitsCount() + r.getRowsCount());
      }
      return out;
    }
  }

  /** A key range of a range stream still to read, after the index key {@code resume} if set. */
  private record Part(byte[] start, byte[] end, ByteString resume) {}

  /** Row keys of KEYS or ENTRIES answers, sorted, deduplicated. */
  List<byte[]> rowKeys(List<LocalQueryResponse> responses) {
    TreeMap<byte[], byte[]> rows = new TreeMap<>(Bytes.BYTES_COMPARATOR);
    for (LocalQueryResponse r : responses) {
      r.getHitsList().forEach(h -> rows.put(h.getRow().toByteArray(), null));
    }
    return new ArrayList<>(rows.keySet());
  }

  /** The rows of ROWS answers, sorted by row key (a merged region may have answered twice). */
  List<Result> rows(List<LocalQueryResponse> responses) throws IOException {
    TreeMap<byte[], Result> rows = new TreeMap<>(Bytes.BYTES_COMPARATOR);
    for (LocalQueryResponse r : responses) {
      for (ByteString bytes : r.getRowsList()) {
        Result result = ProtobufUtil.toResult(ClientProtos.Result.parseFrom(bytes));
        rows.put(result.getRow(), result);
      }
    }
    return new ArrayList<>(rows.values());
  }

  /** The key ranges a point query asks: the route's candidate regions, or every region. */
  private List<KeyRange> rangesOf(RouteResponse route) throws IOException {
    if (route == null) return allRegions();
    List<KeyRange> ranges = new ArrayList<>(route.getCandidatesCount());
    for (RegionRef r : route.getCandidatesList()) {
      ranges.add(new KeyRange(r.getStartKey().toByteArray(), r.getEndKey().toByteArray()));
    }
    return ranges;
  }

  private List<KeyRange> allRegions() throws IOException {
    List<KeyRange> out = new ArrayList<>();
    try (RegionLocator locator = connection.getRegionLocator(dataTable)) {
      for (HRegionLocation l : locator.getAllRegionLocations()) {
        out.add(new KeyRange(l.getRegion().getStartKey(), l.getRegion().getEndKey()));
      }
    }
    return out;
  }

  /**
   * Asks the region holding the start of each range, in parallel; an answer from a region that ends
   * before its range does leaves the rest to ask, until every range is covered.
   */
  private List<LocalQueryResponse> askCovering(List<KeyRange> ranges, LocalQueryRequest request)
      throws IOException {
    try (Table table = connection.getTable(dataTable)) {
      List<Callable<List<LocalQueryResponse>>> calls = new ArrayList<>(ranges.size());
      for (KeyRange r : ranges) calls.add(() -> cover(table, r, request));
      return askAll(calls);
    }
  }

  private List<LocalQueryResponse> askAll(List<Callable<List<LocalQueryResponse>>> calls)
      throws IOException {
    List<LocalQueryResponse> out = new ArrayList<>();
    for (List<LocalQueryResponse> answers :
        ParallelCalls.all(context.pool, calls, "local index query of " + dataTable)) {
      out.addAll(answers);
    }
    return out;
  }

  /**
   * What a routed point query checks for read-after-ack: the regions the route skipped, by the
   * server the connection's cached locations place them on, and the key ranges it must ask anyway
   * (parts of the table the route names no region for, regions it could not place).
   */
  private record Checks(Map<ServerName, List<RegionRef>> byServer, List<KeyRange> ranges) {}

  /**
   * Read-after-ack (docs/design.md, "Consistency contract for readers"). The route used the filters
   * the regions last published, which lack the rows written since. So every server holding regions
   * the route skipped is asked which of them may hold the value by the filter they hold now ({@code
   * currentFilters}, or with a candidate's query to that server): a filter counts an entry before
   * its row is visible, so a row acknowledged before the query started is in it. A region not open
   * where the client places it (moved, split, merged) is named by that server too and asked by its
   * key range, as are parts of the table the route names no region for, and the regions of a server
   * whose check fails. Nothing for an unrouted query (it asks every region).
   */
  private Checks checksOf(RouteResponse route, RegionLocator locator) throws IOException {
    // Unrouted (every region asked), or turned off (scbf.client.local.read.after.ack).
    if (route == null || !context.localReadAfterAck) return new Checks(Map.of(), List.of());
    List<RegionRef> skipped = skippedOf(route, locator);
    List<RegionRef> all = new ArrayList<>(route.getCandidatesList());
    all.addAll(skipped);
    List<KeyRange> ranges = gaps(all);
    Map<ServerName, List<RegionRef>> byServer = new LinkedHashMap<>();
    for (RegionRef r : skipped) {
      ServerName server = placed(locator, r.getStartKey().toByteArray());
      if (server == null) {
        ranges.add(rangeOf(r));
      } else {
        byServer.computeIfAbsent(server, k -> new ArrayList<>()).add(r);
      }
    }
    return new Checks(byServer, ranges);
  }

  /** The server the connection's cached location places {@code row} on; null if unknown. */
  private static ServerName placed(RegionLocator locator, byte[] row) {
    try {
      return locator.getRegionLocation(row).getServerName();
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * The calls that name the key ranges to ask besides the candidates: the ranges of {@code checks}
   * and one {@code currentFilters} call per server of {@code byServer}.
   */
  private List<Callable<List<KeyRange>>> checkCalls(
      Table table,
      IndexSpec spec,
      byte[] value,
      Checks checks,
      Map<ServerName, List<RegionRef>> byServer) {
    List<Callable<List<KeyRange>>> calls = new ArrayList<>();
    if (!checks.ranges().isEmpty()) calls.add(checks::ranges);
    if (byServer.isEmpty()) return calls;
    CurrentFiltersRequest check =
        CurrentFiltersRequest.newBuilder()
            .setAlias(ByteString.copyFromUtf8(spec.alias()))
            .setValue(ByteString.copyFrom(value))
            .build();
    for (List<RegionRef> regions : byServer.values()) {
      calls.add(() -> mustAskNow(table, check, regions));
    }
    return calls;
  }

  /** Which of {@code regions} (placed on one server) hold the value now, as key ranges. */
  private List<KeyRange> mustAskNow(
      Table table, CurrentFiltersRequest check, List<RegionRef> regions) {
    CurrentFiltersRequest.Builder request = check.toBuilder();
    for (RegionRef r : regions) request.addEncodedRegions(r.getEncodedRegion());
    Set<String> ask = null;
    try {
      ask =
          new HashSet<>(
              LocalIndexService.newBlockingStub(
                      table.coprocessorService(regions.get(0).getStartKey().toByteArray()))
                  .currentFilters(null, request.build())
                  .getAskList());
    } catch (ServiceException | RuntimeException e) {
      // A server without the call (a rolling upgrade), a region in transition: ask them all.
    }
    List<KeyRange> out = new ArrayList<>();
    for (RegionRef r : regions) {
      if (ask == null || ask.contains(r.getEncodedRegion())) out.add(rangeOf(r));
    }
    return out;
  }

  /**
   * The regions a route skipped: listed by a client's routing copy; else (the master routed) the
   * table's regions that are not candidates, from the region locations.
   */
  private static List<RegionRef> skippedOf(RouteResponse route, RegionLocator locator)
      throws IOException {
    if (route.getCandidatesCount() + route.getSkippedCount() >= route.getTotalRegions()) {
      return route.getSkippedList();
    }
    Set<String> candidates = new HashSet<>();
    for (RegionRef r : route.getCandidatesList()) candidates.add(r.getEncodedRegion());
    List<RegionRef> out = new ArrayList<>();
    for (HRegionLocation l : locator.getAllRegionLocations()) {
      if (candidates.contains(l.getRegion().getEncodedName())) continue;
      out.add(
          RegionRef.newBuilder()
              .setStartKey(ByteString.copyFrom(l.getRegion().getStartKey()))
              .setEndKey(ByteString.copyFrom(l.getRegion().getEndKey()))
              .setEncodedRegion(l.getRegion().getEncodedName())
              .build());
    }
    return out;
  }

  private static KeyRange rangeOf(RegionRef r) {
    return new KeyRange(r.getStartKey().toByteArray(), r.getEndKey().toByteArray());
  }

  /**
   * The parts of the table that none of {@code regions} covers (a region list that missed a split
   * or a merge): asked by key range, so that no row falls between two routes' regions.
   */
  static List<KeyRange> gaps(List<RegionRef> regions) {
    List<RegionRef> sorted = new ArrayList<>(regions);
    sorted.sort(
        (a, b) -> Bytes.compareTo(a.getStartKey().toByteArray(), b.getStartKey().toByteArray()));
    List<KeyRange> out = new ArrayList<>();
    byte[] covered = HConstants.EMPTY_START_ROW; // every key below it is covered
    for (RegionRef r : sorted) {
      byte[] start = r.getStartKey().toByteArray();
      if (Bytes.compareTo(start, covered) > 0) out.add(new KeyRange(covered, start));
      byte[] end = r.getEndKey().toByteArray();
      if (end.length == 0) return out; // covered to the table's end
      if (Bytes.compareTo(end, covered) > 0) covered = end;
    }
    out.add(new KeyRange(covered, HConstants.EMPTY_END_ROW));
    return out;
  }

  private static List<LocalQueryResponse> cover(
      Table table, KeyRange range, LocalQueryRequest request) throws IOException {
    return cover(table, range, request, List.of());
  }

  /**
   * As {@link #cover(Table, KeyRange, LocalQueryRequest)}; the first call also checks {@code check}
   * (read-after-ack, regions the route skipped on the same server), and the regions it names are
   * asked after the range.
   */
  private static List<LocalQueryResponse> cover(
      Table table, KeyRange range, LocalQueryRequest request, List<RegionRef> check)
      throws IOException {
    List<LocalQueryResponse> out = new ArrayList<>(1);
    byte[] next = range.start();
    LocalQueryRequest ask = request;
    if (!check.isEmpty()) {
      LocalQueryRequest.Builder checking = request.toBuilder();
      for (RegionRef c : check) checking.addCheckRegions(c.getEncodedRegion());
      ask = checking.build();
    }
    while (true) {
      LocalQueryResponse r = ask(table, next, ask);
      out.add(r);
      if (!check.isEmpty()) {
        // A server that did not check (an older one) asks for all of them.
        Set<String> named = r.getChecked() ? new HashSet<>(r.getAskList()) : null;
        List<RegionRef> rest = check;
        check = List.of();
        ask = request;
        for (RegionRef c : rest) {
          if (named == null || named.contains(c.getEncodedRegion())) {
            out.addAll(cover(table, rangeOf(c), request));
          }
        }
      }
      if (r.hasResumeAfter()) {
        // The region's answer continues in another page (a resume point is a table position).
        ask = request.toBuilder().setResumeAfter(r.getResumeAfter()).build();
        continue;
      }
      byte[] answeredEnd = r.getEndKey().toByteArray();
      if (covers(answeredEnd, range)) return out;
      next = answeredEnd;
    }
  }

  /** Asks the region holding {@code row}. */
  private static LocalQueryResponse ask(Table table, byte[] row, LocalQueryRequest request)
      throws IOException {
    try {
      return LocalIndexService.newBlockingStub(table.coprocessorService(row)).query(null, request);
    } catch (ServiceException e) {
      throw Rpcs.unwrap(e);
    }
  }

  /** True if an answer from a region ending at {@code answeredEnd} covered the rest of range. */
  private static boolean covers(byte[] answeredEnd, KeyRange range) {
    return answeredEnd.length == 0
        || (range.end().length != 0 && Bytes.compareTo(answeredEnd, range.end()) >= 0);
  }

  private void trace(
      String kind,
      int total,
      List<LocalQueryResponse> responses,
      int unsure,
      QueryTrace.Routing routing,
      long lookupStart) {
    int cacheHits = 0, hits = 0;
    for (LocalQueryResponse r : responses) {
      if (r.getCacheHit()) cacheHits++;
      hits += r.getHitsCount() + r.getRowsCount();
    }
    context.trace(
        QueryTrace.builder(kind)
            .regions(QueryTrace.Target.DATA_REGIONS, total, responses.size(), unsure)
            .routing(routing)
            .lookups(new QueryTrace.Lookups(cacheHits, hits, QueryContext.micros(lookupStart)))
            .build());
  }
}
