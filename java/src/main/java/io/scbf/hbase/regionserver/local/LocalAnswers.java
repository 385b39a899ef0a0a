package io.scbf.hbase.regionserver.local;

import com.google.protobuf.ByteString;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.regionserver.index.IndexRegion;
import io.scbf.hbase.regionserver.lookup.IndexLookups;
import io.scbf.hbase.regionserver.region.RowBatchReader;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexUpdatePlanner;
import io.scbf.hbase.shared.RowState;
import io.scbf.hbase.shared.proto.IndexProtos.IndexHit;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryResponse;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The queries one data region answers for one of its local indexes: from the entries once they are
 * complete, else by scanning its rows, in the same row order either way.
 */
final class LocalAnswers {
  private final Region region;
  private final IndexSpec spec;
  private final IndexRegion entries;
  private final List<byte[]> dataFamilies;
  private final BooleanSupplier complete;

  /**
   * @param dataFamilies the region's data families (every family but the local index families)
   * @param complete true once the entries hold every row of the region
   */
  LocalAnswers(
      Region region,
      IndexSpec spec,
      IndexRegion entries,
      List<byte[]> dataFamilies,
      BooleanSupplier complete) {
    this.region = region;
    this.spec = spec;
    this.entries = entries;
    this.dataFamilies = dataFamilies;
    this.complete = complete;
  }

  /**
   * A query of this region's entries: whole re-checked rows, keys or entries. A point query may be
   * paged ({@code limit} > 0): at most that many entries (rows: also at most {@code max_bytes} of
   * them, see {@link IndexLookups#pageBytes}) after the user row {@code resume_after}, in row
   * order, with {@code resume_after} set in the answer if more remain. Row order is the same
   * whether the region answers from its entries or, while they are incomplete, by scanning its
   * rows, so a stream may cross from one to the other, and a resume point outside the region is a
   * position in the table: before it, the region answers from its start; after it, nothing.
   */
  LocalQueryResponse answer(LocalQueryRequest request) throws IOException {
    boolean point = request.hasValue();
    int limit = request.getLimit();
    if (limit < 0) throw new DoNotRetryIOException("query limit " + limit + " < 0");
    if (request.getCountOnly() && (point || limit == 0)) {
      throw new DoNotRetryIOException(
          "count_only counts a paged range (lo/hi and a limit > 0), not a "
              + (point ? "value" : "range without a limit"));
    }
    byte[] value = point ? request.getValue().toByteArray() : null;
    byte[] lo = request.hasLo() ? request.getLo().toByteArray() : null;
    byte[] hi = request.hasHi() ? request.getHi().toByteArray() : null;
    Predicate<byte[]> matches =
        point ? v -> Bytes.equals(v, value) : v -> IndexKeyCodec.inRange(v, lo, hi);
    RegionInfo info = region.getRegionInfo();
    LocalQueryResponse.Builder out =
        LocalQueryResponse.newBuilder()
            .setStartKey(ByteString.copyFrom(info.getStartKey()))
            .setEndKey(ByteString.copyFrom(info.getEndKey()));
    if (!point && limit > 0) return rangePage(request, lo, hi, matches, out);
    byte[] resume = request.hasResumeAfter() ? request.getResumeAfter().toByteArray() : null;
    if (resume != null && Bytes.compareTo(resume, info.getStartKey()) < 0) resume = null;
    if (resume != null && info.getEndKey().length > 0) {
      if (Bytes.compareTo(resume, info.getEndKey()) >= 0)
        return out.setIndexed(complete.getAsBoolean()).build();
    }
    if (!complete.getAsBoolean()) {
      scanRows(request.getAnswer(), matches, limit, resume, out);
      return out.setIndexed(false).setCacheHit(false).build();
    }
    byte[] alias = spec.alias().getBytes(StandardCharsets.UTF_8);
    LookupResponse found =
        point
            ? entries.lookup(alias, value, limit, request.getMaxBytes(), resume, null, 0, false)
            : entries.rangeLookup(alias, lo, hi);
    out.setIndexed(true).setCacheHit(found.getCacheHit());
    // A page that ended on an entry a daughter kept of its sibling's rows has passed every row of
    // this region: resuming there would skip the sibling's first rows in the next region.
    if (found.hasResumeAfter() && info.containsRow(found.getResumeAfter().toByteArray())) {
      out.setResumeAfter(found.getResumeAfter());
    }
    // Entries a daughter kept of its sibling's rows: never rows of this region.
    List<byte[]> rows = answerHits(request.getAnswer(), found, info::containsRow, out);
    if (!rows.isEmpty()) {
      Map<byte[], List<Cell>> read = RowBatchReader.read(region, rows, dataScan());
      long bytes = 0;
      int left = read.size();
      for (Map.Entry<byte[], List<Cell>> e : read.entrySet()) {
        bytes += addIfMatches(e.getValue(), matches, out);
        if (--left > 0 && limit > 0 && bytes >= IndexLookups.pageBytes(request.getMaxBytes())) {
          out.setResumeAfter(ByteString.copyFrom(e.getKey()));
          break;
        }
      }
    }
    return out.build();
  }

  /**
   * One page of a range query: at most {@code limit} of this region's rows in the request's row
   * bounds, in index-key order after the request's {@code resume_after}. From the entries, one page
   * of them (rows outside the bounds skipped, so a page may be empty and still resume); while they
   * are incomplete, from a scan of the rows in the bounds keeping the first {@code limit} by index
   * key (memory for one page).
   */
  private LocalQueryResponse rangePage(
      LocalQueryRequest request,
      byte[] lo,
      byte[] hi,
      Predicate<byte[]> matches,
      LocalQueryResponse.Builder out)
      throws IOException {
    RegionInfo info = region.getRegionInfo();
    byte[] rowStart = request.hasRowStart() ? request.getRowStart().toByteArray() : new byte[0];
    byte[] rowEnd = request.hasRowEnd() ? request.getRowEnd().toByteArray() : new byte[0];
    Predicate<byte[]> inBounds =
        row ->
            info.containsRow(row)
                && Bytes.compareTo(row, rowStart) >= 0
                && (rowEnd.length == 0 || Bytes.compareTo(row, rowEnd) < 0);
    byte[] resume = request.hasResumeAfter() ? request.getResumeAfter().toByteArray() : null;
    byte[] alias = spec.alias().getBytes(StandardCharsets.UTF_8);
    int limit = request.getLimit();
    if (!complete.getAsBoolean()) {
      LocalQueryResponse.Builder page =
          scanRangePage(
                  request.getCountOnly() ? LocalQueryRequest.Answer.KEYS : request.getAnswer(),
                  alias,
                  lo,
                  hi,
                  limit,
                  resume,
                  rowStart,
                  inBounds,
                  out)
              .setIndexed(false)
              .setCacheHit(false);
      if (request.getCountOnly()) {
        page.setCounted(page.getHitsCount() + (page.hasResumeAfter() ? 1 : 0))
            .setOverLimit(page.hasResumeAfter())
            .clearHits()
            .clearResumeAfter();
      }
      return page.build();
    }
    if (request.getCountOnly()) {
      LookupResponse counted =
          entries.rangeLookup(
              alias, lo, hi, limit, 0, null, null, null, IndexLookups.RangeReading.COUNT, false);
      if (counted.hasRegionEntries()) out.setRegionEntries(counted.getRegionEntries());
      return out.setIndexed(true)
          .setCacheHit(false)
          .setCounted(counted.getValueEstimate())
          .setOverLimit(counted.getOverLimit())
          .build();
    }
    LookupResponse found =
        entries.rangeLookup(
            alias,
            lo,
            hi,
            limit,
            request.getMaxBytes(),
            resume,
            null,
            null,
            IndexLookups.RangeReading.ENTRIES,
            false);
    out.setIndexed(true).setCacheHit(false);
    if (found.hasRegionEntries()) out.setRegionEntries(found.getRegionEntries());
    if (found.hasResumeAfter()) out.setResumeAfter(found.getResumeAfter());
    List<byte[]> rows = answerHits(request.getAnswer(), found, inBounds, out);
    if (!rows.isEmpty()) {
      for (List<Cell> cells : RowBatchReader.read(region, rows, dataScan()).values()) {
        addIfMatches(cells, matches, out);
      }
    }
    return out.build();
  }

  /**
   * The hits of {@code found} whose rows pass {@code keep}: added to the answer as keys or entries,
   * or, for a ROWS answer, returned (their rows are read and re-checked by the caller).
   */
  private static List<byte[]> answerHits(
      LocalQueryRequest.Answer answer,
      LookupResponse found,
      Predicate<byte[]> keep,
      LocalQueryResponse.Builder out) {
    List<byte[]> rows = new ArrayList<>(found.getHitsCount());
    for (IndexHit hit : found.getHitsList()) {
      byte[] row = hit.getRow().toByteArray();
      if (!keep.test(row)) continue;
      if (answer == LocalQueryRequest.Answer.ROWS) {
        rows.add(row);
      } else {
        out.addHits(
            answer == LocalQueryRequest.Answer.KEYS
                ? hit.toBuilder().clearCovered()
                : hit.toBuilder());
      }
    }
    return rows;
  }

  /** {@link #rangePage} from the region's rows. */
  private LocalQueryResponse.Builder scanRangePage(
      LocalQueryRequest.Answer answer,
      byte[] alias,
      byte[] lo,
      byte[] hi,
      int limit,
      byte[] resume,
      byte[] rowStart,
      Predicate<byte[]> inBounds,
      LocalQueryResponse.Builder out)
      throws IOException {
    record Match(byte[] key, byte[] row, List<Cell> cells) {}
    // The page's candidates, largest index key first: one more than the page, to know if more
    // remain.
    java.util.PriorityQueue<Match> page =
        new java.util.PriorityQueue<>((a, b) -> Bytes.compareTo(b.key(), a.key()));
    Scan scan = dataScan().readVersions(1).setCacheBlocks(false);
    if (Bytes.compareTo(rowStart, region.getRegionInfo().getStartKey()) > 0) {
      scan.withStartRow(rowStart);
    }
    try (RegionScanner scanner = region.getScanner(scan)) {
      List<Cell> cells = new ArrayList<>();
      boolean more;
      do {
        more = scanner.next(cells);
        if (cells.isEmpty()) continue;
        byte[] row = CellUtil.cloneRow(cells.get(0));
        if (!inBounds.test(row)) {
          cells.clear();
          if (Bytes.compareTo(row, rowStart) >= 0) break; // past the bounds' end
          continue;
        }
        byte[] v = IndexValues.valueOf(spec, Result.create(cells));
        if (v != null && IndexKeyCodec.inRange(v, lo, hi)) {
          byte[] key = IndexKeyCodec.rowKey(0, alias, v, row);
          if (resume == null || Bytes.compareTo(key, resume) > 0) {
            // Answered after the scanner closes: copies (see RowBatchReader), not the block's.
            List<Cell> kept = new ArrayList<>(cells.size());
            for (Cell c : cells) kept.add(CellUtil.cloneIfNecessary(c));
            page.add(new Match(key, row, kept));
            if (page.size() > (long) limit + 1) page.poll(); // any limit a client sends
          }
        }
        cells.clear();
      } while (more);
    }
    List<Match> sorted = new ArrayList<>(page);
    sorted.sort((a, b) -> Bytes.compareTo(a.key(), b.key()));
    if (sorted.size() > limit) {
      sorted = sorted.subList(0, limit);
      out.setResumeAfter(ByteString.copyFrom(sorted.get(limit - 1).key()));
    }
    for (Match m : sorted) answerRow(answer, m.row(), m.cells(), v -> true, out);
    return out;
  }

  /** The region's data rows (every family but the local index families). */
  private Scan dataScan() {
    Scan scan = new Scan();
    for (byte[] f : dataFamilies) scan.addFamily(f);
    return scan;
  }

  /** Adds the row if it matches; the bytes added. */
  private long addIfMatches(
      List<Cell> cells, Predicate<byte[]> matches, LocalQueryResponse.Builder out) {
    Result r = Result.create(cells);
    byte[] v = IndexValues.valueOf(spec, r);
    if (v == null || !matches.test(v)) return 0;
    ByteString bytes = ProtobufUtil.toResult(r).toByteString();
    out.addRows(bytes);
    return bytes.size();
  }

  /**
   * The answer without the entries: a scan of the region's rows (after {@code resume}, at most
   * {@code limit} matching rows if {@code limit} > 0).
   */
  private void scanRows(
      LocalQueryRequest.Answer answer,
      Predicate<byte[]> matches,
      int limit,
      byte[] resume,
      LocalQueryResponse.Builder out)
      throws IOException {
    Scan scan = dataScan().readVersions(1).setCacheBlocks(false);
    if (resume != null) scan.withStartRow(resume, false);
    int found = 0;
    byte[] last = null;
    try (RegionScanner scanner = region.getScanner(scan)) {
      List<Cell> cells = new ArrayList<>();
      boolean more;
      do {
        more = scanner.next(cells);
        if (cells.isEmpty()) continue;
        if (limit > 0 && found == limit) {
          out.setResumeAfter(ByteString.copyFrom(last));
          return;
        }
        byte[] row = CellUtil.cloneRow(cells.get(0));
        if (answerRow(answer, row, new ArrayList<>(cells), matches, out)) {
          found++;
          last = row;
        }
        cells.clear();
      } while (more);
    }
  }

  /** Adds one scanned row to the answer if it matches; true if it did. */
  private boolean answerRow(
      LocalQueryRequest.Answer answer,
      byte[] row,
      List<Cell> cells,
      Predicate<byte[]> matches,
      LocalQueryResponse.Builder out) {
    if (answer == LocalQueryRequest.Answer.ROWS) return addIfMatches(cells, matches, out) > 0;
    byte[] v = IndexValues.valueOf(spec, Result.create(cells));
    if (v == null || !matches.test(v)) return false;
    IndexHit.Builder hit = IndexHit.newBuilder().setRow(ByteString.copyFrom(row));
    if (answer == LocalQueryRequest.Answer.ENTRIES && !spec.covered().isEmpty()) {
      hit.setCovered(
          ByteString.copyFrom(IndexUpdatePlanner.coveredValues(spec, RowState.of(cells))));
    }
    out.addHits(hit);
    return true;
  }
}
