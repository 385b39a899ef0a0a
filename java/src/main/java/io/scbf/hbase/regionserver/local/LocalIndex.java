package io.scbf.hbase.regionserver.local;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.regionserver.filter.BucketFilter;
import io.scbf.hbase.regionserver.filter.FilterBookkeeping;
import io.scbf.hbase.regionserver.index.IndexRegion;
import io.scbf.hbase.regionserver.index.IndexRegionHost;
import io.scbf.hbase.regionserver.region.HRegionRows;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexUpdatePlanner;
import io.scbf.hbase.shared.LocalIndexKeys;
import io.scbf.hbase.shared.RowState;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryRequest;
import io.scbf.hbase.shared.proto.IndexProtos.LocalQueryResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStatusResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
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

  private final LocalAnswers queries;

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
            // Entries sit under their bucket-0 keys (see HRegionRows.local).
            new byte[0],
            new byte[0],
            // Never routable while the bulk build owns the entries; otherwise a region without
            // complete entries answers by scanning its rows.
            bulkBuilding,
            host);
    this.queries = new LocalAnswers(region, spec, entries, dataFamilies, () -> complete);
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
    for (IndexSpec.Column c : IndexValues.watchedColumns(spec))
      scan.addColumn(c.family(), c.qualifier());
    List<Mutation> puts = new ArrayList<>();
    return forEachRow(
        scan,
        (row, cells) -> {
          for (IndexUpdatePlanner.IndexMutation m :
              planner.diff(row, RowState.EMPTY, RowState.of(cells))) {
            // At the data cell's timestamp, so the entry expires with it (family TTL).
            long ts = IndexUpdatePlanner.timestampOf(m.mutation());
            puts.add(
                physical(
                    m.mutation(),
                    ts == HConstants.LATEST_TIMESTAMP ? System.currentTimeMillis() : ts));
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

  public RegionStatusResponse status() {
    return entries.status();
  }

  /**
   * Whether a routed query of {@code value} must ask this region, by its filter as it is now rather
   * than as last published: the filter is not routable (building, bulk build, entries incomplete),
   * the region is closing, or the filter may hold the value. The filter counts an entry before its
   * row becomes visible, so a row acknowledged before this call is always answered true.
   */
  public boolean mustAskNow(byte[] value) {
    if (!complete || entries.isClosing()) return true;
    BucketFilter f = entries.filter();
    return !entries.routable(f)
        || f.mightContain(
            IndexKeyCodec.filterKey(spec.alias().getBytes(StandardCharsets.UTF_8), value));
  }

  /** A query of this region's entries (see {@link LocalAnswers#answer}). */
  public LocalQueryResponse query(LocalQueryRequest request) throws IOException {
    return queries.answer(request);
  }
}
