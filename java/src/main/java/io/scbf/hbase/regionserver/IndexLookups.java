package io.scbf.hbase.regionserver;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.scbf.HotscoreCache;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.proto.IndexProtos.IndexHit;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.CellUtil;

/**
 * The lookups one index region answers: a point lookup from the server's hot cache or, on a miss,
 * by a prefix scan of the bucket whose answer is then cached; a range lookup by a range scan.
 * Writes to the region invalidate the keys they touch ({@link #invalidate}); {@link
 * CacheGenerations} keeps a lookup that raced with a write from caching a stale answer.
 */
final class IndexLookups {
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

  IndexLookups(IndexRegionRows rows, HotscoreCache cache, int bucket, byte[] alias) {
    this.rows = rows;
    this.cache = cache;
    this.bucket = bucket;
    this.alias = alias;
  }

  /** Index entries of {@code value}; {@code regionReady} is copied into the answer. */
  LookupResponse lookup(byte[] value, boolean regionReady) throws IOException {
    count.incrementAndGet();
    byte[] prefix = IndexKeyCodec.valuePrefix(bucket, alias, value);
    byte[] key = cacheKey(prefix, prefix.length);
    byte[] cached = cache.get(key);
    if (cached != null) {
      cacheHits.incrementAndGet();
      return parse(cached).toBuilder().setCacheHit(true).setRegionReady(regionReady).build();
    }
    long stamp = generations.stamp(key);
    LookupResponse fresh = scan(prefix, IndexKeyCodec.prefixSuccessor(prefix));
    cache.put(key, fresh.toByteArray());
    if (generations.changedSince(key, stamp)) cache.invalidate(key);
    return fresh.toBuilder().setCacheHit(false).setRegionReady(regionReady).build();
  }

  /** Index entries with {@code lo <= value < hi} (null: unbounded); never cached. */
  LookupResponse rangeLookup(byte[] lo, byte[] hi, boolean regionReady) throws IOException {
    byte[][] bounds = IndexKeyCodec.rangeBounds(bucket, alias, lo, hi);
    return scan(bounds[0], bounds[1]).toBuilder()
        .setCacheHit(false)
        .setRegionReady(regionReady)
        .build();
  }

  /** After a write of these index rows became visible: no cached answer may still miss it. */
  void invalidate(Iterable<byte[]> indexRows) {
    for (byte[] row : indexRows) {
      byte[] key = cacheKey(row, IndexKeyCodec.filterKeyEnd(row));
      generations.bump(key);
      cache.invalidate(key);
    }
  }

  /**
   * Rows appeared without passing through {@link #invalidate} (a bulk load): forget every answer.
   */
  void forgetAll() {
    namespace = randomNamespace();
  }

  long count() {
    return count.get();
  }

  long cacheHits() {
    return cacheHits.get();
  }

  private LookupResponse scan(byte[] start, byte[] stop) throws IOException {
    LookupResponse.Builder out = LookupResponse.newBuilder();
    rows.scan(
        start,
        stop,
        c -> {
          IndexHit.Builder hit =
              IndexHit.newBuilder()
                  .setRow(ByteString.copyFrom(IndexKeyCodec.parse(CellUtil.cloneRow(c)).userRow()));
          if (c.getValueLength() > 0) {
            hit.setCovered(
                ByteString.copyFrom(c.getValueArray(), c.getValueOffset(), c.getValueLength()));
          }
          out.addHits(hit);
        });
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

  /** The cache key of the bucket-and-filter-key prefix {@code [0, length)} of an index key. */
  private byte[] cacheKey(byte[] indexKey, int length) {
    byte[] ns = namespace;
    byte[] key = Arrays.copyOf(ns, ns.length + length);
    System.arraycopy(indexKey, 0, key, ns.length, length);
    return key;
  }
}
