package io.scbf.hbase.client;

import static io.scbf.hbase.client.GlobalRequests.allBuckets;
import static io.scbf.hbase.client.GlobalRequests.bucketsOf;
import static io.scbf.hbase.client.GlobalRequests.lookupRequest;
import static io.scbf.hbase.client.GlobalRequests.rangeChain;
import static io.scbf.hbase.client.GlobalRequests.rangeRequest;
import static io.scbf.hbase.client.GlobalRequests.streamBounds;
import static io.scbf.hbase.client.GlobalRequests.valueChains;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.PackedHits;
import io.scbf.hbase.shared.proto.IndexProtos.LookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RangeLookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;

/**
 * A global index's answers as streams ({@link QueryStream}): pages pulled from a {@link PageCursor}
 * over the buckets or the regions as the caller reads, each page re-checked against the data table.
 * The list-form answers are {@link GlobalLookups}'.
 */
final class GlobalPages {
  private final QueryContext context;

  GlobalPages(QueryContext context) {
    this.context = context;
  }

  /** A global index's rows with {@code value}, in pages of the routed buckets or its region. */
  QueryStream.Pages pointPages(IndexSpec spec, byte[] value, RouteResponse route)
      throws IOException {
    LookupRequest request = lookupRequest(spec, value).setLimit(context.pageRows).build();
    return pages(
        spec,
        index ->
            spec.routedByKey()
                ? PageCursor.concat(valueChains(index, spec, value, request))
                : PageCursor.ofBuckets(
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
                ? PageCursor.concat(
                    streamBounds(spec, lo, hi).stream()
                        .map(b -> rangeChain(index, b[0], b[1], request))
                        .toList())
                : spec.routedByKey()
                    ? rangeChain(index, new byte[0], new byte[0], request)
                    : PageCursor.ofBuckets(
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

  /** How a stream opens its cursor on the index table. */
  private interface CursorOpener {
    PageCursor open(Table index) throws IOException;
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
    Table index = context.connection.getTable(context.global.indexTableOf(spec));
    PageCursor cursor;
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
          LookupResponse r = context.readAgainIfMoved(cursor::next);
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
          boolean withValues = valued;
          List<Result> rows =
              context.readAgainIfMoved(
                  () ->
                      withValues
                          ? context.rechecks.rowsAt(keys, values, spec)
                          : context.rechecks.rows(keys, spec, matches));
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
}
