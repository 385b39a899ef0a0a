package io.scbf.hbase.client;

import static io.scbf.hbase.client.GlobalRequests.allBuckets;
import static io.scbf.hbase.client.GlobalRequests.rangeChain;
import static io.scbf.hbase.client.GlobalRequests.rangeRequest;
import static io.scbf.hbase.client.GlobalRequests.streamBounds;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.proto.IndexProtos.IndexLookupService;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RangeLookupRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * How many entries a value range of an {@code ORDERED} or {@code BY_ROW} index holds, for the
 * range's plan: counted by its regions up to a budget, and past the budget sized from the regions
 * the range spans or the buckets' shares.
 */
final class RangeSizes {
  /** At most this many regions after the counted ones are asked their entries to size a range. */
  static final int SIZED_REGIONS_MAX = 32;

  private final QueryContext context;

  RangeSizes(QueryContext context) {
    this.context = context;
  }

  /**
   * Entries a range holds as its regions counted them (-1: the index is building), or, {@code
   * extrapolated}, the count up to the limit plus the rest of the range sized from its regions.
   */
  record Count(long entries, int regions, boolean extrapolated) {}

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
    TableName indexTable = context.global.indexTableOf(spec);
    try (Table index = context.connection.getTable(indexTable)) {
      for (int s = 0; s < streams.size(); s++) {
        long before = counted;
        RegionChain chain = rangeChain(index, streams.get(s)[0], streams.get(s)[1], request);
        for (LookupResponse r = chain.next(); r != null; r = chain.next()) {
          context.global.noteEntries(indexTable, List.of(r));
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
   * The entries {@code lo <= value < hi} of a {@code BY_ROW} index holds, each bucket counting up
   * to twice its share of {@code limit}, in parallel. Rows are hashed to buckets, so each holds an
   * even share of any range: past the limit, one bucket over its share counts its whole part and
   * the range is sized as that count times the buckets over (plus the others' counts).
   */
  Count countBuckets(IndexSpec spec, byte[] lo, byte[] hi, long limit) throws IOException {
    List<byte[]> buckets = allBuckets(spec);
    RangeLookupRequest request =
        rangeRequest(spec, lo, hi)
            .setCountOnly(true)
            .setLimit(
                (int) Math.min(Integer.MAX_VALUE - 1, 2 * Math.max(1, limit) / buckets.size() + 1))
            .build();
    TableName indexTable = context.global.indexTableOf(spec);
    List<LookupResponse> counts =
        context.global.askAll(
            indexTable,
            buckets,
            channel -> IndexLookupService.newBlockingStub(channel).rangeLookup(null, request));
    context.global.noteEntries(indexTable, counts);
    long counted = 0;
    int over = 0;
    byte[] sized = null;
    for (int i = 0; i < counts.size(); i++) {
      LookupResponse r = counts.get(i);
      if (r.getIndexBuilding()) return new Count(-1, buckets.size(), false);
      if (!r.getOverLimit()) {
        counted += r.getValueEstimate();
      } else {
        over++;
        if (sized == null) sized = buckets.get(i);
      }
    }
    if (sized == null) return new Count(counted, buckets.size(), false);
    RangeLookupRequest whole = request.toBuilder().setLimit(Integer.MAX_VALUE - 1).build();
    long entries =
        context
            .global
            .askAll(
                indexTable,
                List.of(sized),
                channel -> IndexLookupService.newBlockingStub(channel).rangeLookup(null, whole))
            .get(0)
            .getValueEstimate();
    return new Count(counted + entries * over, buckets.size(), true);
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
    for (byte[][] region : context.global.regionParts(index.getName())) {
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
}
