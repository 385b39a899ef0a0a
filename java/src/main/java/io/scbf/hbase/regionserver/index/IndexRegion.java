package io.scbf.hbase.regionserver.index;

import io.scbf.ScalableFilterStats;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.regionserver.filter.BucketFilter;
import io.scbf.hbase.regionserver.filter.FilterBookkeeping;
import io.scbf.hbase.regionserver.lookup.IndexLookups;
import io.scbf.hbase.regionserver.region.IndexRegionRows;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexPlacement;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStatusResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open index region (one bucket of a {@code BY_ROW} index, or any region of a {@code BY_VALUE}
 * one). Its jobs live in parts: {@link FilterBookkeeping} keeps the bucket filter equal to the
 * rows, {@link IndexLookups} answers lookups through the hot cache, and the server's {@link
 * FilterPublisher} and {@link FilterCompactor} find it in {@link OpenIndexRegions}. This class ties
 * them to the region's lifecycle and checks what is written to it; {@link IndexRegionCoprocessor}
 * translates HBase events into calls on it.
 */
@InterfaceAudience.Private
public final class IndexRegion {
  private static final Logger LOG = LoggerFactory.getLogger(IndexRegion.class);

  private final IndexSpec spec;
  private final byte[] alias;
  private final int bucket;
  private final String indexTable;
  private final String encodedName;
  private final IndexRegionHost host;
  private final FilterBookkeeping bookkeeping;
  private final IndexLookups lookups;
  private final boolean building;
  private volatile boolean closing;
  private volatile Future<?> buildTask;

  public IndexRegion(
      IndexRegionRows rows,
      IndexSpec spec,
      String indexTable,
      String encodedName,
      byte[] startKey,
      byte[] endKey,
      boolean building,
      IndexRegionHost host) {
    this.spec = spec;
    this.building = building;
    this.alias = spec.alias().getBytes(StandardCharsets.UTF_8);
    this.bucket = IndexKeyCodec.bucketOfRegion(startKey);
    this.indexTable = indexTable;
    this.encodedName = encodedName;
    this.host = host;
    this.bookkeeping =
        new FilterBookkeeping(spec, rows, encodedName + " (" + indexTable + ")", () -> closing);
    this.lookups = new IndexLookups(rows, host.cache(), spec, bucket, startKey, endKey);
  }

  public String encodedName() {
    return encodedName;
  }

  /** The index is being built (or rebuilt): its regions answer "building", queries scan. */
  public boolean isBuilding() {
    return building;
  }

  public IndexSpec spec() {
    return spec;
  }

  public String indexTable() {
    return indexTable;
  }

  /** What the master files this region's filter under: an HBase region holds one per index. */
  String publicationKey() {
    return publicationKey(indexTable, encodedName);
  }

  static String publicationKey(String indexTable, String encodedName) {
    return indexTable + '/' + encodedName;
  }

  public BucketFilter filter() {
    return bookkeeping.filter();
  }

  /**
   * Routing may skip this region for a value {@code f} (this region's filter, read once by the
   * caller) lacks: {@code f} is built and the index holds every data row ({@link
   * IndexCatalog#INDEX_BUILDING_ATTR} unset).
   */
  public boolean routable(BucketFilter f) {
    return !building && f.isReady();
  }

  /**
   * The master routes queries to this region by its filter: true for a {@code BY_ROW} bucket. A
   * {@code BY_VALUE} region answers absent values from its own filter and publishes nothing.
   */
  public boolean publishes() {
    return spec.layout() == IndexSpec.Layout.BY_ROW;
  }

  public FilterBookkeeping bookkeeping() {
    return bookkeeping;
  }

  public IndexLookups lookups() {
    return lookups;
  }

  /** What an operator sees of this region ({@code scbf-admin status}). */
  public RegionStatusResponse status() {
    BucketFilter f = filter();
    ScalableFilterStats s = f.stats();
    return RegionStatusResponse.newBuilder()
        .setEncodedRegion(encodedName)
        .setReady(routable(f))
        .setFilterBytes(s.bytes())
        .setFilters(s.filters())
        .setEstimatedFpr(s.estimatedFpr())
        .setNewestFill(s.newestFill())
        .setResidue(f.residue(s))
        .setLookups(lookups.count())
        .setCacheHits(lookups.cacheHits())
        .setEntries(f.entries())
        .build();
  }

  /** Region opened: announce it (not ready) and build the filter from the region's rows. */
  public void open() {
    open(() -> {});
  }

  /**
   * Region opened: announce it (not ready), run {@code prepare} (a local index completes its
   * entries there), then build the filter from the region's rows. If {@code prepare} fails, the
   * filter is never ready: routing keeps asking the region.
   */
  public void open(Runnable prepare) {
    host.regions().add(this);
    host.publisher().publishSoon();
    buildTask =
        host.builder()
            .submit(
                () -> {
                  try {
                    prepare.run();
                    bookkeeping.build();
                    host.publisher().publishSoon();
                  } catch (CancellationException e) {
                    LOG.debug("scbf filter build of {} cancelled: region closing", encodedName);
                  } catch (RuntimeException e) {
                    LOG.error(
                        "scbf filter build of {} failed; the bucket stays unsure to routing",
                        encodedName,
                        e);
                  }
                });
  }

  /** Region closing: stop publishing (routing falls back to "unsure") and stop the build. */
  public void close() {
    closing = true;
    if (host.regions().remove(this)) host.publisher().publishClosed(this);
    Future<?> task = buildTask;
    if (task != null) {
      try {
        task.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException e) {
        LOG.warn("scbf filter build of {} ended with an error", encodedName, e.getCause());
      }
    }
  }

  public boolean isClosing() {
    return closing;
  }

  /** Region closed and no operation runs any more: free the native filters. */
  public void free() {
    bookkeeping.free();
  }

  /**
   * Rows were bulk-loaded into the region. It runs inside the bulk-load call, so the load is
   * acknowledged with its rows counted, as a write is.
   */
  public void rebuildAfterBulkLoad() {
    lookups.forgetAll(); // the loaded rows are visible now: no earlier answer may be served again
    try {
      bookkeeping.rebuildAfterBulkLoad();
      host.publisher().publishSoon();
    } catch (CancellationException e) {
      LOG.debug("scbf filter rebuild of {} cancelled: region closing", encodedName);
    } catch (RuntimeException e) {
      LOG.error(
          "scbf filter rebuild of {} failed; the bucket stays unsure to routing until the"
              + " region reopens",
          encodedName,
          e);
    }
  }

  // ---- writes (called by the coprocessor with the row locks held) ----

  public FilterBookkeeping.PendingEffects beforeWrites(List<Mutation> mutations)
      throws IOException {
    for (Mutation m : mutations) checkIsIndexRow(m.getRow());
    return bookkeeping.beforeWrites(mutations);
  }

  public void afterWrites(FilterBookkeeping.PendingEffects effects, boolean success) {
    bookkeeping.afterWrites(effects, success);
    lookups.invalidate(effects.touchedRows());
  }

  private void checkIsIndexRow(byte[] row) throws DoNotRetryIOException {
    try {
      IndexKeyCodec.Parsed p = IndexKeyCodec.parse(row);
      int salt =
          switch (spec.layout()) {
            case BY_ROW -> bucket;
            case BY_VALUE -> IndexKeyCodec.slot(row, 1, p.filterKeyEnd());
            case ORDERED -> IndexPlacement.salt(spec, alias, p.value(), p.userRow());
          };
      if (p.bucket() != salt || !Arrays.equals(p.alias(), alias)) {
        throw new DoNotRetryIOException(
            "index row of salt "
                + p.bucket()
                + " / alias "
                + new String(p.alias(), StandardCharsets.UTF_8)
                + " written to "
                + encodedName
                + " (salt "
                + salt
                + ", alias "
                + spec.alias()
                + ", layout "
                + spec.layout()
                + ")");
      }
    } catch (IllegalArgumentException e) {
      throw new DoNotRetryIOException(
          "not an scbf index row key in " + indexTable + ": " + e.getMessage());
    }
  }

  // ---- lookups ----

  /** A building index answers nothing but that it is building: the caller must scan. */
  private static final LookupResponse BUILDING =
      LookupResponse.newBuilder().setIndexBuilding(true).build();

  public LookupResponse lookup(byte[] requestAlias, byte[] value) throws IOException {
    return lookup(requestAlias, value, 0, 0, null, null, 0, false);
  }

  /**
   * A point lookup, paged if {@code limit} > 0 (see {@link IndexLookups#lookup}). A {@code
   * BY_VALUE} region whose filter is built answers a value it lacks without reading its store (the
   * filter counts every row before the row becomes visible, so it never misses one), adds its
   * estimate of the value's rows and its entries for the client's planner, and answers only the
   * estimate when it exceeds {@code scanAbove} (> 0) or {@code estimateOnly}.
   */
  public LookupResponse lookup(
      byte[] requestAlias,
      byte[] value,
      int limit,
      int maxBytes,
      byte[] resumeAfter,
      byte[] fromKey,
      long scanAbove,
      boolean estimateOnly)
      throws IOException {
    checkAlias(requestAlias);
    if (limit < 0) throw new DoNotRetryIOException("lookup limit " + limit + " < 0");
    if (building) return BUILDING;
    BucketFilter f = filter();
    boolean ready = f.isReady();
    if (!ready || publishes()) {
      return lookups.lookup(
          value, limit, IndexLookups.pageBytes(maxBytes), resumeAfter, fromKey, ready);
    }
    byte[] filterKey = IndexKeyCodec.filterKey(alias, value);
    if (!f.mightContain(filterKey)) return lookups.absent(true);
    long estimate = f.estimate(filterKey);
    if (estimateOnly || (scanAbove > 0 && estimate > scanAbove)) {
      return lookups.estimateOnly(estimate, f.entries(), !estimateOnly);
    }
    return lookups.lookup(
        value,
        limit,
        IndexLookups.pageBytes(maxBytes),
        resumeAfter,
        fromKey,
        ready,
        estimate,
        f.entries());
  }

  public LookupResponse rangeLookup(byte[] requestAlias, byte[] lo, byte[] hi) throws IOException {
    return rangeLookup(
        requestAlias, lo, hi, 0, 0, null, null, null, IndexLookups.RangeReading.ENTRIES, false);
  }

  /**
   * A range lookup, paged if {@code limit} > 0, its entries {@code packed} if asked (see {@link
   * IndexLookups#rangeLookup}).
   */
  public LookupResponse rangeLookup(
      byte[] requestAlias,
      byte[] lo,
      byte[] hi,
      int limit,
      int maxBytes,
      byte[] resumeAfter,
      byte[] fromKey,
      byte[] toKey,
      IndexLookups.RangeReading reading,
      boolean packed)
      throws IOException {
    checkAlias(requestAlias);
    if (limit < 0) throw new DoNotRetryIOException("range lookup limit " + limit + " < 0");
    if (reading == IndexLookups.RangeReading.VALUES_DESCENDING
        && spec.layout() != IndexSpec.Layout.ORDERED) {
      throw new DoNotRetryIOException(
          "index '"
              + spec.alias()
              + "' is "
              + spec.layout()
              + ": only ORDERED indexes read in descending order");
    }
    if (building) return BUILDING;
    BucketFilter f = filter();
    LookupResponse answer =
        lookups.rangeLookup(
            lo,
            hi,
            limit,
            IndexLookups.pageBytes(maxBytes),
            resumeAfter,
            fromKey,
            toKey,
            reading,
            packed,
            f.isReady());
    // The client's planner sizes the table from its regions' entries.
    return f.isReady() ? answer.toBuilder().setRegionEntries(f.entries()).build() : answer;
  }

  private void checkAlias(byte[] requestAlias) throws DoNotRetryIOException {
    if (!Arrays.equals(requestAlias, alias)) {
      throw new DoNotRetryIOException(
          "index region "
              + encodedName
              + " of "
              + indexTable
              + " serves alias '"
              + spec.alias()
              + "', not '"
              + new String(requestAlias, StandardCharsets.UTF_8)
              + "'");
    }
  }
}
