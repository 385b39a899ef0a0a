package io.scbf.hbase;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.scbf.HotscoreCache;
import io.scbf.hbase.proto.IndexProtos.IndexHit;
import io.scbf.hbase.proto.IndexProtos.LookupResponse;
import io.scbf.hbase.proto.IndexProtos.RegionFilter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open index region (one bucket of one index): its counting filter, its slice of the region
 * server's hot cache, the effects of index writes on both, lookups, and what it publishes.
 * The index-table coprocessor translates HBase events into calls on this class.
 */
final class IndexRegion {
  private static final Logger LOG = LoggerFactory.getLogger(IndexRegion.class);

  private final Region region;
  private final IndexSpec spec;
  private final byte[] alias;
  private final int bucket;
  private final String indexTable;
  private final String encodedName;
  private final RegionServerResources resources;
  /** Replaced by {@link #rebuildAfterBulkLoad}; every user reads it once into a local. */
  private volatile BucketFilter filter;
  /** Filters replaced by rebuilds: a handler may still hold one, so they are freed with the region. */
  private final List<BucketFilter> retired = new ArrayList<>();
  private final HotscoreCache cache;
  private final CacheGenerations generations = new CacheGenerations();
  /**
   * Random per open and per bulk load: entries cached by an earlier open of this region, or before
   * rows were bulk-loaded into it, can never be read back.
   */
  private volatile byte[] cacheNamespace;
  private final AtomicLong lookups = new AtomicLong();
  private final AtomicLong cacheHits = new AtomicLong();
  private volatile boolean closing;
  private volatile Future<?> buildTask;

  IndexRegion(Region region, IndexSpec spec, RegionServerResources resources) {
    this.region = region;
    this.spec = spec;
    this.alias = spec.alias().getBytes(StandardCharsets.UTF_8);
    this.bucket = IndexKeyCodec.bucketOfRegion(region.getRegionInfo().getStartKey());
    this.indexTable = region.getRegionInfo().getTable().getNameAsString();
    this.encodedName = region.getRegionInfo().getEncodedName();
    this.resources = resources;
    this.filter = new BucketFilter(spec);
    this.cache = resources.cache();
    this.cacheNamespace = randomNamespace();
  }

  String encodedName() {
    return encodedName;
  }

  String indexTable() {
    return indexTable;
  }

  BucketFilter filter() {
    return filter;
  }

  /** Region opened: announce it (not ready) and build the filter from the region's rows. */
  void open() {
    resources.publisher().register(this);
    BucketFilter target = filter; // a bulk load may replace it before the build runs
    buildTask = resources.builder().submit(() -> {
      try {
        target.build(new FilterKeyScan());
        LOG.info("scbf filter of {} ({}) ready: {}", encodedName, indexTable, target.stats());
        resources.publisher().publishSoon();
      } catch (CancellationException e) {
        LOG.debug("scbf filter build of {} cancelled: region closing", encodedName);
      } catch (RuntimeException e) {
        LOG.error("scbf filter build of {} failed; the bucket stays unsure to routing", encodedName, e);
      }
    });
  }

  /** Region closing: stop publishing (routing falls back to "unsure") and stop the build. */
  void close() {
    closing = true;
    resources.publisher().unregister(this);
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

  /** Region closed and no operation runs any more: free the native filters. */
  synchronized void free() {
    filter.close();
    for (BucketFilter f : retired) f.close();
  }

  /**
   * Index rows arrived by bulk load, which bypasses prePut: rebuilds the filter from the region's
   * rows exactly as {@link #open} does (a fresh filter, keys in row order, each row once), so it
   * equals the filter of a region holding the same rows written by streaming writes, and a
   * re-loaded identical row is not counted twice. It runs inside the bulk-load call, so the load
   * is acknowledged with its rows counted, as a write is. Until it ends the fresh filter is not
   * ready and routing treats the bucket as unsure; writes meanwhile count into it (see
   * {@link #afterWrites} for those caught mid-swap).
   */
  synchronized void rebuildAfterBulkLoad() {
    // The loaded rows are visible now: lookups cached before them must never be served again.
    cacheNamespace = randomNamespace();
    BucketFilter fresh = new BucketFilter(spec);
    retired.add(filter);
    filter = fresh;
    try {
      fresh.build(new FilterKeyScan());
      LOG.info("scbf filter of {} ({}) rebuilt after a bulk load: {}", encodedName, indexTable,
          fresh.stats());
      resources.publisher().publishSoon();
    } catch (CancellationException e) {
      LOG.debug("scbf filter rebuild of {} cancelled: region closing", encodedName);
    } catch (RuntimeException e) {
      LOG.error("scbf filter rebuild of {} failed; the bucket stays unsure to routing until the"
          + " region reopens", encodedName, e);
    }
  }

  // ---- effects of index writes (called by the observer with the row locks held) ----

  /** What a mini-batch of index writes must do once applied, and the filter it counted its puts in. */
  record PendingEffects(BucketFilter counted, List<byte[]> addedRows, List<byte[]> deletedRows,
      List<byte[]> touchedRows) {}

  /**
   * Before the writes apply: counts the index rows a put creates (before they become visible, so
   * no lookup can find a row that routing would skip) and notes the rows a delete really removes.
   */
  PendingEffects beforeWrites(List<Mutation> mutations) throws IOException {
    BucketFilter counted = filter;
    List<byte[]> added = new ArrayList<>();
    List<byte[]> deleted = new ArrayList<>();
    List<byte[]> touched = new ArrayList<>(mutations.size());
    for (Mutation m : mutations) checkIsIndexRow(m.getRow());
    // Which rows exist, read exactly (as a Get per row would, but with one scanner for the batch):
    // only a put of an absent row is counted, only a delete of a present row uncounted.
    Map<byte[], List<Cell>> existing = RowBatchReader.read(region,
        mutations.stream().map(Mutation::getRow).toList(),
        new Scan().addFamily(IndexCatalog.INDEX_FAMILY));
    for (Mutation m : mutations) {
      byte[] row = m.getRow();
      boolean exists = existing.containsKey(row);
      if (m instanceof Put && !exists) {
        counted.add(row);
        added.add(row);
      } else if (m instanceof Delete && exists) {
        deleted.add(row);
      }
      touched.add(row);
    }
    return new PendingEffects(counted, added, deleted, touched);
  }

  /**
   * After the writes are visible (or failed): uncount really deleted rows, invalidate the cache.
   * If a bulk-load rebuild replaced the filter since beforeWrites, its scan may have started
   * before these rows were visible: count the new rows again in the current filter (at worst
   * twice, never zero times) and skip the removes (the scan may not have counted those rows).
   */
  void afterWrites(PendingEffects effects, boolean success) {
    BucketFilter current = filter;
    if (success && current != effects.counted()) {
      for (byte[] row : effects.addedRows()) current.add(row);
    } else if (success) {
      for (byte[] row : effects.deletedRows()) current.remove(row);
    }
    for (byte[] row : effects.touchedRows()) {
      byte[] key = cacheKey(row, IndexKeyCodec.filterKeyEnd(row));
      generations.bump(key);
      cache.invalidate(key);
    }
  }

  private void checkIsIndexRow(byte[] row) throws DoNotRetryIOException {
    try {
      IndexKeyCodec.Parsed p = IndexKeyCodec.parse(row);
      if (p.bucket() != bucket || !Arrays.equals(p.alias(), alias)) {
        throw new DoNotRetryIOException("index row of bucket " + p.bucket() + " / alias "
            + new String(p.alias(), StandardCharsets.UTF_8) + " written to " + encodedName
            + " (bucket " + bucket + ", alias " + spec.alias() + ")");
      }
    } catch (IllegalArgumentException e) {
      throw new DoNotRetryIOException("not an scbf index row key in " + indexTable + ": "
          + e.getMessage());
    }
  }

  // ---- lookups ----

  LookupResponse lookup(byte[] requestAlias, byte[] value) throws IOException {
    checkAlias(requestAlias);
    lookups.incrementAndGet();
    byte[] prefix = IndexKeyCodec.valuePrefix(bucket, alias, value);
    byte[] key = cacheKey(prefix, prefix.length);
    byte[] cached = cache.get(key);
    if (cached != null) {
      cacheHits.incrementAndGet();
      return parse(cached).toBuilder().setCacheHit(true).setRegionReady(filter.isReady()).build();
    }
    long stamp = generations.stamp(key);
    LookupResponse fresh = scan(prefix, IndexKeyCodec.prefixSuccessor(prefix));
    cache.put(key, fresh.toByteArray());
    if (generations.changedSince(key, stamp)) cache.invalidate(key);
    return fresh.toBuilder().setCacheHit(false).setRegionReady(filter.isReady()).build();
  }

  LookupResponse rangeLookup(byte[] requestAlias, byte[] lo, byte[] hi) throws IOException {
    checkAlias(requestAlias);
    byte[][] bounds = IndexKeyCodec.rangeBounds(bucket, alias, lo, hi);
    return scan(bounds[0], bounds[1]).toBuilder().setCacheHit(false)
        .setRegionReady(filter.isReady()).build();
  }

  private void checkAlias(byte[] requestAlias) throws DoNotRetryIOException {
    if (!Arrays.equals(requestAlias, alias)) {
      throw new DoNotRetryIOException("index region " + encodedName + " of " + indexTable
          + " serves alias '" + spec.alias() + "', not '"
          + new String(requestAlias, StandardCharsets.UTF_8) + "'");
    }
  }

  private LookupResponse scan(byte[] start, byte[] stop) throws IOException {
    Scan scan = new Scan().withStartRow(start).withStopRow(stop)
        .addColumn(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER).readVersions(1);
    LookupResponse.Builder out = LookupResponse.newBuilder();
    try (RegionScanner scanner = region.getScanner(scan)) {
      List<Cell> cells = new ArrayList<>();
      boolean more;
      do {
        more = scanner.next(cells);
        for (Cell c : cells) {
          byte[] row = CellUtil.cloneRow(c);
          IndexHit.Builder hit = IndexHit.newBuilder()
              .setRow(ByteString.copyFrom(IndexKeyCodec.parse(row).userRow()));
          if (c.getValueLength() > 0) {
            hit.setCovered(ByteString.copyFrom(c.getValueArray(), c.getValueOffset(),
                c.getValueLength()));
          }
          out.addHits(hit);
        }
        cells.clear();
      } while (more);
    }
    return out.build();
  }

  private static LookupResponse parse(byte[] cached) throws IOException {
    try {
      return LookupResponse.parseFrom(cached);
    } catch (InvalidProtocolBufferException e) {
      throw new IOException("corrupt scbf cache entry", e);
    }
  }

  private static byte[] randomNamespace() {
    return ByteBuffer.allocate(8).putLong(ThreadLocalRandom.current().nextLong()).array();
  }

  private byte[] cacheKey(byte[] bucketAndFilterKey, int length) {
    byte[] namespace = cacheNamespace;
    byte[] key = Arrays.copyOf(namespace, namespace.length + length);
    System.arraycopy(bucketAndFilterKey, 0, key, namespace.length, length);
    return key;
  }

  long lookups() {
    return lookups.get();
  }

  long cacheHits() {
    return cacheHits.get();
  }

  // ---- publication ----

  /** The publication of this region: a heartbeat, or with {@code snapshot} the full filter. */
  RegionFilter publication(boolean snapshot) {
    BucketFilter f = filter; // one filter for the whole publication, even across a rebuild
    long version = f.version(); // read before serializing: the snapshot holds at least this
    RegionFilter.Builder b = RegionFilter.newBuilder()
        .setIndexTable(indexTable).setEncodedRegion(encodedName)
        .setServer(resources.server().toString())
        .setReady(f.isReady()).setVersion(version);
    if (snapshot && f.isReady()) b.setSnapshot(ByteString.copyFrom(f.snapshot()));
    return b.build();
  }

  RegionFilter closedPublication() {
    return RegionFilter.newBuilder().setIndexTable(indexTable).setEncodedRegion(encodedName)
        .setServer(resources.server().toString()).setReady(false).setVersion(filter.version())
        .setClosed(true).build();
  }

  /** Compacts the filter if it asks for it (residue, growth); runs on the builder thread. */
  void compactIfNeeded() {
    BucketFilter target = filter; // not one a bulk-load rebuild swaps in meanwhile
    if (!target.needsCompaction() || closing) return;
    resources.builder().execute(() -> {
      try {
        long expected = Math.max(spec.initialCapacity(), target.stats().adds() - target.stats().removes());
        target.compact(expected, new FilterKeyScan());
        LOG.info("scbf filter of {} compacted: {}", encodedName, target.stats());
      } catch (CancellationException e) {
        LOG.debug("scbf compaction of {} cancelled: region closing", encodedName);
      } catch (RuntimeException e) {
        LOG.warn("scbf compaction of {} failed; the filter is unchanged", encodedName, e);
      }
    });
  }

  /**
   * Filter keys of every index row of the region, read with a region scanner (row keys only).
   * Throws CancellationException when the region starts closing.
   */
  private final class FilterKeyScan implements Iterator<byte[]> {
    private final RegionScanner scanner;
    private final List<Cell> cells = new ArrayList<>();
    private final List<byte[]> pending = new ArrayList<>();
    private boolean more = true;
    private int next;

    FilterKeyScan() {
      try {
        scanner = region.getScanner(new Scan().setFilter(new FilterList(
            new FirstKeyOnlyFilter(), new KeyOnlyFilter())).setCacheBlocks(false));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public boolean hasNext() {
      while (next == pending.size()) {
        if (!more) {
          closeScanner();
          return false;
        }
        if (closing) {
          closeScanner();
          throw new CancellationException();
        }
        fill();
      }
      return true;
    }

    @Override
    public byte[] next() {
      if (!hasNext()) throw new NoSuchElementException();
      return pending.get(next++);
    }

    private void fill() {
      pending.clear();
      next = 0;
      try {
        for (int i = 0; i < 1024 && more; i++) {
          more = scanner.next(cells);
          for (Cell c : cells) {
            byte[] row = CellUtil.cloneRow(c);
            pending.add(Arrays.copyOfRange(row, 1, IndexKeyCodec.filterKeyEnd(row)));
          }
          cells.clear();
        }
      } catch (IOException e) {
        closeScanner();
        throw new UncheckedIOException(e);
      }
    }

    private void closeScanner() {
      try {
        scanner.close();
      } catch (IOException e) {
        LOG.debug("closing scbf filter scan of {}", encodedName, e);
      }
    }
  }
}
