package io.scbf.hbase.regionserver.local;

import com.google.protobuf.ByteString;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.regionserver.filter.FilterBookkeeping;
import io.scbf.hbase.regionserver.index.IndexRegion;
import io.scbf.hbase.regionserver.index.IndexRegionHost;
import io.scbf.hbase.regionserver.lookup.IndexLookups;
import io.scbf.hbase.regionserver.region.HRegionRows;
import io.scbf.hbase.regionserver.region.RowBatchReader;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexUpdatePlanner;
import io.scbf.hbase.shared.LocalIndexKeys;
import io.scbf.hbase.shared.RowState;
import io.scbf.hbase.shared.proto.IndexProtos.IndexHit;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryResponse;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One local index in one data region: its entries (in the index's column family, see {@link
 * LocalIndexKeys}), the filter that routes queries to the region and the queries the region
 * answers. The entries and filter are an {@link IndexRegion} over {@link HRegionRows#local}, so
 * bookkeeping, cache and publication are those of a global bucket.
 *
 * <p>The entries are complete when the region opens if a build marker says they were kept for a key
 * range that contains the region's (the region is the same, or a daughter that kept its parent's
 * start key). Otherwise (index just created, merged region, daughter with a new start key) they are
 * rebuilt from the rows first; meanwhile the filter is not ready, so routing asks the region, and
 * queries read the rows themselves: slower, never incomplete.
 */
@InterfaceAudience.Private
public final class LocalIndex {
  private static final Logger LOG = LoggerFactory.getLogger(LocalIndex.class);
  private static final int BUILD_BATCH = 1000;

  private final Region region;
  private final IndexSpec spec;
  private final byte[] family;
  private final LocalIndexKeys keys;
  private final IndexRegion entries;
  private final BooleanSupplier online;

  /** Defined for the bulk build, which loads the entries: never build them here. */
  private final boolean bulkBuilding;

  /** Counts the entries this region builds from its rows (an operator metric). */
  private final LongConsumer entriesBuilt;

  /** Every family but the local index families: the region's data (fixed while it is open). */
  private final List<byte[]> dataFamilies = new ArrayList<>();

  private volatile boolean complete;

  /** How long a build waits for its region to finish opening before it gives up. */
  private static final long ONLINE_WAIT_MS = 10 * 60_000L;

  /**
   * @param online true once the server has put the region online: writes before that race with the
   *     end of the region's opening (HBase aborts the server when a write takes a sequence number
   *     before the open does)
   * @param entriesBuilt told how many entries each build from the region's rows wrote
   */
  public LocalIndex(
      Region region,
      IndexSpec spec,
      IndexRegionHost host,
      BooleanSupplier online,
      LongConsumer entriesBuilt) {
    this.region = region;
    this.online = online;
    this.entriesBuilt = entriesBuilt;
    this.spec = spec;
    this.bulkBuilding = IndexCatalog.isLocalBuilding(region.getTableDescriptor(), spec.alias());
    this.family = IndexCatalog.localFamily(spec.alias());
    this.keys = new LocalIndexKeys(region.getRegionInfo().getStartKey());
    List<IndexSpec> specs = IndexCatalog.readSpecs(region.getTableDescriptor()).valid();
    for (ColumnFamilyDescriptor cf : region.getTableDescriptor().getColumnFamilies()) {
      if (!IndexCatalog.isLocalFamily(specs, cf.getName())) dataFamilies.add(cf.getName());
    }
    this.entries =
        new IndexRegion(
            HRegionRows.local(region, family),
            spec,
            IndexCatalog.indexTableName(region.getRegionInfo().getTable(), spec.alias())
                .getNameAsString(),
            region.getRegionInfo().getEncodedName(),
            0,
            // Never routable while the bulk build owns the entries; otherwise a region without
            // complete entries answers by scanning its rows.
            bulkBuilding,
            host);
  }

  /**
   * Why this region cannot hold the index's entries, or null: its boundaries cut the entry range (a
   * region whose end key starts with its start key and a 0x00 byte).
   */
  public static String unfit(Region region) {
    byte[] start = region.getRegionInfo().getStartKey();
    byte[] end = region.getRegionInfo().getEndKey();
    if (LocalIndexKeys.fits(start, end)) return null;
    return "region "
        + region.getRegionInfo().getEncodedName()
        + " ["
        + Bytes.toStringBinary(start)
        + ", "
        + Bytes.toStringBinary(end)
        + ") is too narrow for local index entries (its end key starts with its start key and"
        + " 0x00); merge it with a neighbour";
  }

  public IndexSpec spec() {
    return spec;
  }

  public void open() {
    entries.open(this::completeEntries);
  }

  public void close() {
    entries.close();
  }

  public void free() {
    entries.free();
  }

  /** The entry rows (and the delete of replaced ones) that one data row's change needs. */
  public Mutation physical(Mutation indexMutation, long timestamp) {
    return keys.entry(indexMutation, family, timestamp);
  }

  /** The entry changes of one mini-batch, by bucket-0 index key. */
  public static final class Changes {
    public final List<byte[]> created = new ArrayList<>();
    public final List<byte[]> deleted = new ArrayList<>();
    public final List<byte[]> touched = new ArrayList<>();
  }

  /** Counts the created entries in the filter before they are written (see FilterBookkeeping). */
  public FilterBookkeeping.PendingEffects beforeWrites(Changes changes) {
    return entries
        .bookkeeping()
        .beforeKnownWrites(changes.created, changes.deleted, changes.touched);
  }

  public void afterWrites(FilterBookkeeping.PendingEffects effects, boolean success) {
    entries.afterWrites(effects, success);
  }

  // ---- entry build ----

  private void completeEntries() {
    // Until markBuilt reopens the region, queries scan its rows: even loaded entries are not
    // answered from (the region is not routable, and a later load may still add some).
    if (bulkBuilding) return;
    byte[] keptUpTo = keptUpTo();
    if (covers(keptUpTo)) {
      complete = true;
      // A left daughter: its parent's entries of the sibling's rows only cost re-checks and
      // filter room. Dropped before the filter is built from the entries, so it counts only ours.
      if (!Bytes.equals(keptUpTo, region.getRegionInfo().getEndKey())) dropSiblingEntries();
      return;
    }
    try {
      awaitOnline();
      long start = System.nanoTime();
      long removed = deleteForeignRows();
      long built = buildFromRows();
      byte[] end = region.getRegionInfo().getEndKey();
      region.put(keys.markerPut(family, end));
      complete = true;
      entriesBuilt.accept(built);
      LOG.info(
          "scbf local index {} of region {}: {} entries built, {} foreign rows removed in {} ms",
          spec.alias(),
          entries.encodedName(),
          built,
          removed,
          (System.nanoTime() - start) / 1_000_000);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void awaitOnline() {
    long deadline = System.currentTimeMillis() + ONLINE_WAIT_MS;
    while (!online.getAsBoolean()) {
      checkNotClosing();
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(
            "region " + entries.encodedName() + " did not come online to build its entries");
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CancellationException();
      }
    }
  }

  /** The end key in the region's marker (the entries were kept for rows up to it), or null. */
  private byte[] keptUpTo() {
    try {
      Result r = region.get(new Get(keys.marker()).addColumn(family, IndexCatalog.INDEX_QUALIFIER));
      return r.isEmpty() ? null : r.value();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** True if entries kept for rows up to {@code keptUpTo} cover this region's rows. */
  private boolean covers(byte[] keptUpTo) {
    if (keptUpTo == null) return false;
    byte[] end = region.getRegionInfo().getEndKey();
    if (keptUpTo.length == 0) return true;
    return end.length != 0 && Bytes.compareTo(keptUpTo, end) >= 0;
  }

  /**
   * Deletes the entries of rows at or after this region's end key (a left daughter keeps its
   * parent's entries, the sibling's included), then marks the entries as kept for this region only.
   * No write can touch those entries (their rows are not this region's), so no lock is needed. On
   * failure they stay: stale entries cost re-checks, never rows.
   */
  private void dropSiblingEntries() {
    byte[] end = region.getRegionInfo().getEndKey();
    try {
      awaitOnline();
      List<Mutation> deletes = new ArrayList<>();
      long dropped =
          forEachRow(
              new Scan()
                  .withStartRow(keys.first())
                  .withStopRow(keys.last())
                  .addFamily(family)
                  .setCacheBlocks(false),
              (row, cells) -> {
                if (Bytes.equals(row, keys.marker())) return;
                byte[] userRow = IndexKeyCodec.parse(keys.indexKey(row)).userRow();
                if (Bytes.compareTo(userRow, end) >= 0) {
                  deletes.add(new Delete(row).addFamily(family));
                }
              },
              deletes);
      region.put(keys.markerPut(family, end));
      LOG.info(
          "scbf local index {} of region {}: {} entries of the split sibling's rows dropped",
          spec.alias(),
          entries.encodedName(),
          dropped);
    } catch (IOException | RuntimeException e) {
      if (e instanceof CancellationException c) throw c;
      LOG.warn(
          "scbf local index {} of region {}: the split sibling's entries stay (queries skip them)",
          spec.alias(),
          entries.encodedName(),
          e);
    }
  }

  /**
   * Deletes the family's rows that are not this region's entries: entries of another start key,
   * left by a merge (they would be trusted again if a later split restored that start key).
   */
  private long deleteForeignRows() throws IOException {
    List<Mutation> deletes = new ArrayList<>();
    return forEachRow(
        new Scan().addFamily(family).setCacheBlocks(false),
        (row, cells) -> {
          if (!keys.isOwn(row)) deletes.add(new Delete(row).addFamily(family));
        },
        deletes);
  }

  /** Puts the entry of every row holding the indexed column. */
  private long buildFromRows() throws IOException {
    IndexUpdatePlanner planner = new IndexUpdatePlanner(List.of(spec));
    Scan scan = new Scan().readVersions(1).setCacheBlocks(false);
    for (IndexSpec.Column c : spec.watchedColumns()) scan.addColumn(c.family(), c.qualifier());
    List<Mutation> puts = new ArrayList<>();
    return forEachRow(
        scan,
        (row, cells) -> {
          for (IndexUpdatePlanner.IndexMutation m :
              planner.diff(row, RowState.EMPTY, RowState.of(cells))) {
            puts.add(physical(m.mutation(), System.currentTimeMillis()));
          }
        },
        puts);
  }

  private interface RowVisitor {
    void visit(byte[] row, List<Cell> cells) throws IOException;
  }

  /**
   * Visits the rows of a scan of this region. If {@code writes} is not null (a build), the visitor
   * adds mutations to it, which are applied in batches of {@link #BUILD_BATCH}, and the scan stops
   * if the region closes; returns the number of mutations applied.
   */
  private long forEachRow(Scan scan, RowVisitor visitor, List<Mutation> writes) throws IOException {
    long written = 0;
    try (RegionScanner scanner = region.getScanner(scan)) {
      List<Cell> cells = new ArrayList<>();
      boolean more;
      do {
        if (writes != null) checkNotClosing();
        more = scanner.next(cells);
        if (!cells.isEmpty()) {
          visitor.visit(CellUtil.cloneRow(cells.get(0)), cells);
          cells.clear();
        }
        if (writes != null && (writes.size() >= BUILD_BATCH || (!more && !writes.isEmpty()))) {
          region.batchMutate(writes.toArray(new Mutation[0]));
          written += writes.size();
          writes.clear();
        }
      } while (more);
    }
    return written;
  }

  private void checkNotClosing() {
    if (entries.isClosing()) throw new CancellationException();
  }

  // ---- queries ----

  /**
   * A query of this region's entries: whole re-checked rows, keys or entries. A point query may be
   * paged ({@code limit} > 0): at most that many entries (rows: also at most {@code max_bytes} of
   * them, see {@link IndexLookups#pageBytes}) after the user row {@code resume_after}, in row
   * order, with {@code resume_after} set in the answer if more remain. Row order is the same
   * whether the region answers from its entries or, while they are incomplete, by scanning its
   * rows, so a stream may cross from one to the other, and a resume point outside the region is a
   * position in the table: before it, the region answers from its start; after it, nothing.
   */
  public LocalQueryResponse query(LocalQueryRequest request) throws IOException {
    boolean point = request.hasValue();
    int limit = request.getLimit();
    if (limit < 0) throw new DoNotRetryIOException("query limit " + limit + " < 0");
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
      if (Bytes.compareTo(resume, info.getEndKey()) >= 0) return out.setIndexed(complete).build();
    }
    if (!complete) {
      scanRows(request.getAnswer(), matches, limit, resume, out);
      return out.setIndexed(false).setCacheHit(false).build();
    }
    byte[] alias = spec.alias().getBytes(StandardCharsets.UTF_8);
    LookupResponse found =
        point
            ? entries.lookup(alias, value, limit, request.getMaxBytes(), resume)
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
    if (!complete) {
      return scanRangePage(
              request.getAnswer(), alias, lo, hi, limit, resume, rowStart, inBounds, out)
          .setIndexed(false)
          .setCacheHit(false)
          .build();
    }
    LookupResponse found = entries.rangeLookup(alias, lo, hi, limit, request.getMaxBytes(), resume);
    out.setIndexed(true).setCacheHit(false);
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
        byte[] v = spec.valueOf(Result.create(cells));
        if (v != null && IndexKeyCodec.inRange(v, lo, hi)) {
          byte[] key = IndexKeyCodec.rowKey(0, alias, v, row);
          if (resume == null || Bytes.compareTo(key, resume) > 0) {
            page.add(new Match(key, row, new ArrayList<>(cells)));
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
    byte[] v = spec.valueOf(r);
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
    byte[] v = spec.valueOf(Result.create(cells));
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
