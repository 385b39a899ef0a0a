package io.scbf.hbase.regionserver.lookup;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.scbf.HotscoreCache;
import io.scbf.hbase.regionserver.region.IndexRegionRows;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.proto.IndexProtos.IndexHit;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The lookups one index region answers: a point lookup from the server's hot cache or, on a miss,
 * by a prefix scan of the bucket whose answer is then cached; a range lookup by a range scan.
 * Writes to the region invalidate the keys they touch ({@link #invalidate}); {@link
 * CacheGenerations} keeps a lookup that raced with a write from caching a stale answer.
 */
@InterfaceAudience.Private
public final class IndexLookups {
  /**
   * A page of a paged lookup stops at this many bytes of hits unless the request asks for another
   * budget, at most {@link #MAX_PAGE_BYTES}: far below the 64 MiB a client parses in one message,
   * whatever the covered values' size.
   */
  static final int PAGE_BYTES = 4 << 20;

  static final int MIN_PAGE_BYTES = 64 << 10;
  static final int MAX_PAGE_BYTES = 32 << 20;

  /** The byte budget of a page: {@code requested} (0: the default) within the bounds. */
  public static int pageBytes(int requested) {
    return requested <= 0
        ? PAGE_BYTES
        : Math.max(MIN_PAGE_BYTES, Math.min(MAX_PAGE_BYTES, requested));
  }

  private final IndexRegionRows rows;
  private final HotscoreCache cache;
  private final int bucket;
  private final byte[] alias;
  private final CacheGenerations generations = new CacheGenerations();

  /**
   * Random per region instance and per bulk load: entries cached by an earlier open of this region,
   * or before rows were bulk-loaded into it, can never be read back.
   */
  private volatile byte[] namespace = randomNamespace();

  private final AtomicLong count = new AtomicLong();
  private final AtomicLong cacheHits = new AtomicLong();

  public IndexLookups(IndexRegionRows rows, HotscoreCache cache, int bucket, byte[] alias) {
    this.rows = rows;
    this.cache = cache;
    this.bucket = bucket;
    this.alias = alias;
  }

  /** Index entries of {@code value}; {@code regionReady} is copied into the answer. */
  public LookupResponse lookup(byte[] value, boolean regionReady) throws IOException {
    return lookup(value, 0, PAGE_BYTES, null, regionReady);
  }

  /**
   * Index entries of {@code value}, in user-row order, or one page of them: with {@code limit} > 0,
   * at most that many (fewer if their bytes reach {@code pageBytes}) after the user row {@code
   * resumeAfter} (exclusive; null for the first page), and {@code resume_after} set if more remain.
   * A first page comes from the hot cache when it holds the value; a complete answer is cached.
   */
  public LookupResponse lookup(
      byte[] value, int limit, int pageBytes, byte[] resumeAfter, boolean regionReady)
      throws IOException {
    count.incrementAndGet();
    byte[] prefix = IndexKeyCodec.valuePrefix(bucket, alias, value);
    byte[] stop = IndexKeyCodec.prefixSuccessor(prefix);
    if (resumeAfter != null) {
      byte[] start = Bytes.add(prefix, resumeAfter, new byte[1]); // the first key after it
      return scan(start, stop, limit, pageBytes, false).toBuilder()
          .setCacheHit(false)
          .setRegionReady(regionReady)
          .build();
    }
    byte[] key = cacheKey(prefix, prefix.length);
    byte[] cached = cache.get(key);
    if (cached != null) {
      cacheHits.incrementAndGet();
      return firstPage(parse(cached), limit, pageBytes)
          .setCacheHit(true)
          .setRegionReady(regionReady)
          .build();
    }
    long stamp = generations.stamp(key);
    LookupResponse fresh = scan(prefix, stop, limit, pageBytes, false);
    if (!fresh.hasResumeAfter()) {
      cache.put(key, fresh.toByteArray());
      if (generations.changedSince(key, stamp)) cache.invalidate(key);
    }
    return fresh.toBuilder().setCacheHit(false).setRegionReady(regionReady).build();
  }

  /** Index entries with {@code lo <= value < hi} (null: unbounded); never cached. */
  public LookupResponse rangeLookup(byte[] lo, byte[] hi, boolean regionReady) throws IOException {
    return rangeLookup(lo, hi, 0, PAGE_BYTES, null, regionReady);
  }

  /**
   * Index entries with {@code lo <= value < hi}, in index-key (value, then row) order, or one page
   * of them: with {@code limit} > 0, at most that many (fewer if their bytes reach {@code
   * pageBytes}) after the index row key {@code resumeAfter} (exclusive; null for the first page),
   * and {@code resume_after} set to the last entry's index row key if more remain.
   *
   * @throws DoNotRetryIOException if {@code resumeAfter} is not an index row key of the range
   */
  public LookupResponse rangeLookup(
      byte[] lo, byte[] hi, int limit, int pageBytes, byte[] resumeAfter, boolean regionReady)
      throws IOException {
    byte[][] bounds = IndexKeyCodec.rangeBounds(bucket, alias, lo, hi);
    byte[] start = bounds[0];
    if (resumeAfter != null) {
      boolean inRange =
          Bytes.compareTo(resumeAfter, bounds[0]) >= 0
              && (bounds[1].length == 0 || Bytes.compareTo(resumeAfter, bounds[1]) < 0);
      if (!inRange) {
        throw new DoNotRetryIOException("resume_after is not an index row key of this range");
      }
      start = Bytes.add(resumeAfter, new byte[1]); // the first key after it
    }
    return scan(start, bounds[1], limit, pageBytes, true).toBuilder()
        .setCacheHit(false)
        .setRegionReady(regionReady)
        .build();
  }

  /** After a write of these index rows became visible: no cached answer may still miss it. */
  public void invalidate(Iterable<byte[]> indexRows) {
    for (byte[] row : indexRows) {
      byte[] key = cacheKey(row, IndexKeyCodec.filterKeyEnd(row));
      generations.bump(key);
      cache.invalidate(key);
    }
  }

  /**
   * Rows appeared without passing through {@link #invalidate} (a bulk load): forget every answer.
   */
  public void forgetAll() {
    namespace = randomNamespace();
  }

  public long count() {
    return count.get();
  }

  public long cacheHits() {
    return cacheHits.get();
  }

  /** The first page of a complete (cached) answer. */
  private static LookupResponse.Builder firstPage(LookupResponse all, int limit, int pageBytes) {
    if (limit <= 0) return all.toBuilder();
    return page(all.getHitsList(), limit, pageBytes);
  }

  /** The hits up to {@code limit} or {@code pageBytes}, and where to resume. */
  private static LookupResponse.Builder page(List<IndexHit> hits, int limit, int pageBytes) {
    LookupResponse.Builder out = LookupResponse.newBuilder();
    long bytes = 0;
    for (IndexHit h : hits) {
      if (out.getHitsCount() == limit || (bytes >= pageBytes && out.getHitsCount() > 0)) {
        return out.setResumeAfter(out.getHits(out.getHitsCount() - 1).getRow());
      }
      out.addHits(h);
      bytes += h.getSerializedSize();
    }
    return out;
  }

  /**
   * Index entries in [start, stop): all (limit 0), or a page of them that resumes after its last
   * entry's user row (one value), or after its index row key if {@code resumeAtKey} (a range, where
   * the value varies).
   */
  private LookupResponse scan(
      byte[] start, byte[] stop, int limit, int pageBytes, boolean resumeAtKey) throws IOException {
    List<IndexHit> hits = new ArrayList<>();
    List<byte[]> keys = new ArrayList<>();
    // One more than the page: whether more remain.
    rows.scan(
        start,
        stop,
        limit <= 0 || limit == Integer.MAX_VALUE ? Integer.MAX_VALUE : limit + 1,
        c -> {
          byte[] key = CellUtil.cloneRow(c);
          keys.add(key);
          hits.add(hit(key, c));
        });
    if (limit <= 0) return LookupResponse.newBuilder().addAllHits(hits).build();
    LookupResponse.Builder page = page(hits, limit, pageBytes);
    if (resumeAtKey && page.hasResumeAfter()) {
      page.setResumeAfter(ByteString.copyFrom(keys.get(page.getHitsCount() - 1)));
    }
    return page.build();
  }

  /** The hit of the index row {@code key} whose cell is {@code c}. */
  private static IndexHit hit(byte[] key, Cell c) {
    IndexHit.Builder hit =
        IndexHit.newBuilder().setRow(ByteString.copyFrom(IndexKeyCodec.parse(key).userRow()));
    if (c.getValueLength() > 0) {
      hit.setCovered(
          ByteString.copyFrom(c.getValueArray(), c.getValueOffset(), c.getValueLength()));
    }
    return hit.build();
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

  /** The cache key of the bucket-and-filter-key prefix {@code [0, length)} of an index key. */
  private byte[] cacheKey(byte[] indexKey, int length) {
    byte[] ns = namespace;
    byte[] key = Arrays.copyOf(ns, ns.length + length);
    System.arraycopy(indexKey, 0, key, ns.length, length);
    return key;
  }
}
