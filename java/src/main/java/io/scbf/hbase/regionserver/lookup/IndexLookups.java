package io.scbf.hbase.regionserver.lookup;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.scbf.HotscoreCache;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.regionserver.region.IndexRegionRows;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.PackedHits;
import io.scbf.hbase.shared.proto.IndexProtos.IndexHit;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntUnaryOperator;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The lookups one index region answers: a point lookup from the server's hot cache or, on a miss,
 * by a prefix scan whose answer is then cached; a range lookup by a range scan. In a {@code BY_ROW}
 * index the region is one bucket, and the value's prefix is under the bucket's salt; in a {@code
 * BY_VALUE} index the prefix is under the value's slot, a range is read in every slot the region
 * holds, and each answer names the region's end key so the client can ask the next region for the
 * rest of its key range. Writes to the region invalidate the keys they touch ({@link #invalidate});
 * {@link CacheGenerations} keeps a lookup that raced with a write from caching a stale answer.
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
  private final IndexSpec spec;
  private final int bucket;
  private final byte[] alias;
  private final byte[] regionStart;
  private final byte[] regionEnd;
  private final CacheGenerations generations = new CacheGenerations();

  /**
   * Random per region instance and per bulk load: entries cached by an earlier open of this region,
   * or before rows were bulk-loaded into it, can never be read back.
   */
  private volatile byte[] namespace = randomNamespace();

  private final AtomicLong count = new AtomicLong();
  private final AtomicLong cacheHits = new AtomicLong();

  /**
   * Lookups of the index region holding [{@code regionStart}, {@code regionEnd}) (an empty end: the
   * end of the table); {@code bucket} is its bucket in a {@code BY_ROW} index.
   */
  public IndexLookups(
      IndexRegionRows rows,
      HotscoreCache cache,
      IndexSpec spec,
      int bucket,
      byte[] regionStart,
      byte[] regionEnd) {
    this.rows = rows;
    this.cache = cache;
    this.spec = spec;
    this.bucket = bucket;
    this.alias = spec.alias().getBytes(StandardCharsets.UTF_8);
    this.regionStart = regionStart.clone();
    this.regionEnd = regionEnd.clone();
  }

  /** Index entries of {@code value}; {@code regionReady} is copied into the answer. */
  public LookupResponse lookup(byte[] value, boolean regionReady) throws IOException {
    return lookup(value, 0, PAGE_BYTES, null, null, regionReady);
  }

  private boolean routedByKey() {
    return spec.routedByKey();
  }

  /**
   * Where a point lookup reads {@code value}: under the bucket's salt ({@code BY_ROW}), the value's
   * slot ({@code BY_VALUE}), or the salted stream {@code fromKey} lies in ({@code ORDERED}: the
   * client reads each stream with its own chain of calls).
   */
  private byte[] pointPrefix(byte[] value, byte[] fromKey) throws DoNotRetryIOException {
    switch (spec.layout()) {
      case BY_ROW:
        return IndexKeyCodec.valuePrefix(bucket, alias, value);
      case BY_VALUE:
        return IndexKeyCodec.slotPrefix(alias, value);
      default:
        int stream = fromKey == null || fromKey.length == 0 ? 0 : fromKey[0] & 0xff;
        if (stream >= spec.buckets()) {
          throw new DoNotRetryIOException(
              "index '"
                  + spec.alias()
                  + "' has "
                  + spec.buckets()
                  + " streams, not "
                  + (stream + 1));
        }
        return IndexKeyCodec.valuePrefix(stream, alias, value);
    }
  }

  /** The answer of a key-routed region whose filter proves {@code value} absent. */
  public LookupResponse absent(boolean regionReady) {
    count.incrementAndGet();
    return LookupResponse.newBuilder()
        .setFilterAbsent(true)
        .setRegionReady(regionReady)
        .setRegionEnd(ByteString.copyFrom(regionEnd))
        .build();
  }

  /**
   * The answer of a {@code BY_VALUE} region that sends only its estimate of the value's rows and
   * its entries: for explain, or ({@code overLimit}) because a scan would cost less.
   */
  public LookupResponse estimateOnly(long valueEstimate, long regionEntries, boolean overLimit) {
    count.incrementAndGet();
    return LookupResponse.newBuilder()
        .setOverLimit(overLimit)
        .setValueEstimate(valueEstimate)
        .setRegionEntries(regionEntries)
        .setRegionReady(true)
        .setRegionEnd(ByteString.copyFrom(regionEnd))
        .build();
  }

  /**
   * Index entries of {@code value}, in user-row order, or one page of them: with {@code limit} > 0,
   * at most that many (fewer if their bytes reach {@code pageBytes}) after the user row {@code
   * resumeAfter} (exclusive; null for the first page), and {@code resume_after} set if more remain.
   * A first page comes from the hot cache when it holds the value; a complete answer is cached.
   * {@code fromKey} ({@code BY_VALUE}, null: none) leaves out the index rows before it.
   */
  public LookupResponse lookup(
      byte[] value,
      int limit,
      int pageBytes,
      byte[] resumeAfter,
      byte[] fromKey,
      boolean regionReady)
      throws IOException {
    return lookup(value, limit, pageBytes, resumeAfter, fromKey, regionReady, -1, -1);
  }

  /**
   * {@link #lookup(byte[], int, int, byte[], byte[], boolean)} with a {@code BY_VALUE} region's
   * estimate of the value's rows and its entries (-1: none) for the client's planner.
   */
  public LookupResponse lookup(
      byte[] value,
      int limit,
      int pageBytes,
      byte[] resumeAfter,
      byte[] fromKey,
      boolean regionReady,
      long valueEstimate,
      long regionEntries)
      throws IOException {
    count.incrementAndGet();
    byte[] prefix = pointPrefix(value, fromKey);
    byte[] stop = IndexKeyCodec.prefixSuccessor(prefix);
    byte[] start =
        resumeAfter == null ? prefix : Bytes.add(prefix, resumeAfter, new byte[1]); // after it
    // Rows before the region's start are not here anyway: from there on, the answer is whole.
    boolean whole = resumeAfter == null;
    if (fromKey != null && Bytes.compareTo(fromKey, start) > 0) {
      start = fromKey;
      whole &= Bytes.compareTo(fromKey, regionStart) <= 0;
    }
    if (!whole) {
      return withEstimate(
              withRegion(scan(start, stop, limit, pageBytes, false).toBuilder()),
              valueEstimate,
              regionEntries)
          .setCacheHit(false)
          .setRegionReady(regionReady)
          .build();
    }
    // Rows that expire (family TTL) leave a cached answer without a write to invalidate it.
    if (rows.expires()) {
      return withEstimate(
              withRegion(scan(prefix, stop, limit, pageBytes, false).toBuilder()),
              valueEstimate,
              regionEntries)
          .setCacheHit(false)
          .setRegionReady(regionReady)
          .build();
    }
    byte[] key = cacheKey(prefix, prefix.length);
    byte[] cached = cache.get(key);
    if (cached != null) {
      cacheHits.incrementAndGet();
      return withEstimate(
              withRegion(firstPage(parse(cached), limit, pageBytes)), valueEstimate, regionEntries)
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
    return withEstimate(withRegion(fresh.toBuilder()), valueEstimate, regionEntries)
        .setCacheHit(false)
        .setRegionReady(regionReady)
        .build();
  }

  /** A key-routed answer names the region's end key (see the class comment), and its start. */
  private LookupResponse.Builder withRegion(LookupResponse.Builder answer) {
    return routedByKey()
        ? answer
            .setRegionEnd(ByteString.copyFrom(regionEnd))
            .setRegionStart(ByteString.copyFrom(regionStart))
        : answer;
  }

  private static LookupResponse.Builder withEstimate(
      LookupResponse.Builder answer, long valueEstimate, long regionEntries) {
    if (valueEstimate >= 0) answer.setValueEstimate(valueEstimate);
    if (regionEntries >= 0) answer.setRegionEntries(regionEntries);
    return answer;
  }

  /** Index entries with {@code lo <= value < hi} (null: unbounded); never cached. */
  public LookupResponse rangeLookup(byte[] lo, byte[] hi, boolean regionReady) throws IOException {
    return rangeLookup(
        lo, hi, 0, PAGE_BYTES, null, null, null, RangeReading.ENTRIES, false, regionReady);
  }

  /** What a range lookup sends back. */
  public enum RangeReading {
    /** The entries, in ascending key order. */
    ENTRIES,
    /** The entries with their values, in ascending key order. */
    VALUES,
    /** The entries with their values, in descending key order ({@code ORDERED}). */
    VALUES_DESCENDING,
    /** Only how many entries there are (up to the limit). */
    COUNT
  }

  /**
   * Index entries with {@code lo <= value < hi}, in index-key order, or one page of them: with
   * {@code limit} > 0, at most that many (fewer if their bytes reach {@code pageBytes}) after the
   * index row key {@code resumeAfter} (exclusive; null for the first page), and {@code
   * resume_after} set to the last entry's index row key if more remain. A {@code BY_ROW} bucket
   * reads its one key range (value, then row); a {@code BY_VALUE} region reads the range in each
   * slot it holds within [{@code fromKey}, {@code toKey}) (null: unbounded), slot after slot. The
   * entries come as {@code IndexHit} messages, or {@code packed} ({@link PackedHits}).
   *
   * @throws DoNotRetryIOException if {@code resumeAfter} is not an index row key of the range
   */
  public LookupResponse rangeLookup(
      byte[] lo,
      byte[] hi,
      int limit,
      int pageBytes,
      byte[] resumeAfter,
      byte[] fromKey,
      byte[] toKey,
      RangeReading reading,
      boolean packed,
      boolean regionReady)
      throws IOException {
    List<byte[][]> ranges = rangesOf(lo, hi, fromKey, toKey);
    if (reading == RangeReading.VALUES_DESCENDING) {
      return descending(ranges, limit, pageBytes, resumeAfter, packed, regionReady);
    }
    if (resumeAfter != null) {
      checkResume(resumeAfter, ranges);
      byte[] after = Bytes.add(resumeAfter, new byte[1]); // the first key after it
      List<byte[][]> rest = new ArrayList<>(ranges.size());
      for (byte[][] r : ranges) {
        if (r[1].length != 0 && Bytes.compareTo(r[1], after) <= 0) continue;
        rest.add(Bytes.compareTo(r[0], after) >= 0 ? r : new byte[][] {after, r[1]});
      }
      ranges = rest;
    }
    if (reading == RangeReading.COUNT) {
      return withRegion(count(ranges, limit)).setRegionReady(regionReady).build();
    }
    return withRegion(scan(ranges, limit, pageBytes, true, reading == RangeReading.VALUES, packed))
        .setCacheHit(false)
        .setRegionReady(regionReady)
        .build();
  }

  /**
   * The entries of {@code ranges} from the last down, or one page of them that resumes before the
   * index row key {@code resumeBefore} (exclusive; null: from the end).
   */
  private LookupResponse descending(
      List<byte[][]> ranges,
      int limit,
      int pageBytes,
      byte[] resumeBefore,
      boolean packed,
      boolean regionReady)
      throws IOException {
    if (resumeBefore != null) checkResumeBefore(resumeBefore, ranges);
    Collected hits = new Collected(packed, true);
    int wanted = limit <= 0 || limit == Integer.MAX_VALUE ? Integer.MAX_VALUE : limit + 1;
    for (int i = ranges.size() - 1; i >= 0 && hits.count() < wanted; i--) {
      byte[] start = ranges.get(i)[0];
      byte[] stop = ranges.get(i)[1];
      if (resumeBefore != null) {
        if (Bytes.compareTo(start, resumeBefore) >= 0) continue;
        if (stop.length == 0 || Bytes.compareTo(stop, resumeBefore) > 0) stop = resumeBefore;
      }
      if (stop.length != 0 && Bytes.compareTo(start, stop) >= 0) continue;
      rows.scanDescending(start, stop, wanted - hits.count(), hits::add);
    }
    return withRegion(hits.page(limit, pageBytes, true))
        .setCacheHit(false)
        .setRegionReady(regionReady)
        .build();
  }

  /** How many entries {@code ranges} hold, counted up to {@code limit} (0: all). */
  private LookupResponse.Builder count(List<byte[][]> ranges, int limit) throws IOException {
    int wanted = limit <= 0 || limit == Integer.MAX_VALUE ? Integer.MAX_VALUE : limit + 1;
    long[] n = new long[1];
    for (byte[][] range : ranges) {
      if (n[0] >= wanted) break;
      if (range[1].length != 0 && Bytes.compareTo(range[0], range[1]) >= 0) continue;
      rows.scan(range[0], range[1], (int) (wanted - n[0]), c -> n[0]++);
    }
    // Over the limit, the count is limit + 1: enough to say "more than the limit".
    boolean over = n[0] >= wanted;
    return LookupResponse.newBuilder().setValueEstimate(n[0]).setOverLimit(over).setCacheHit(false);
  }

  /** The key ranges a range lookup reads, in key order. */
  private List<byte[][]> rangesOf(byte[] lo, byte[] hi, byte[] fromKey, byte[] toKey) {
    if (!routedByKey())
      return Collections.singletonList(IndexKeyCodec.rangeBounds(bucket, alias, lo, hi));
    byte[] from = IndexKeyCodec.maxStart(regionStart, fromKey == null ? new byte[0] : fromKey);
    byte[] to = IndexKeyCodec.minEnd(regionEnd, toKey == null ? new byte[0] : toKey);
    List<byte[][]> out = new ArrayList<>();
    // A BY_VALUE index's values sit under 256 slots, an ORDERED one's under its streams.
    int salts = spec.layout() == IndexSpec.Layout.BY_VALUE ? IndexKeyCodec.SLOTS : spec.buckets();
    int first = from.length == 0 ? 0 : from[0] & 0xff;
    int last = Math.min(to.length == 0 ? salts - 1 : to[0] & 0xff, salts - 1);
    for (int slot = first; slot <= last; slot++) {
      byte[][] b = IndexKeyCodec.rangeBounds(slot, alias, lo, hi);
      byte[] start = IndexKeyCodec.maxStart(b[0], from);
      byte[] stop = IndexKeyCodec.minEnd(b[1], to);
      if (stop.length == 0 || Bytes.compareTo(start, stop) < 0) out.add(new byte[][] {start, stop});
    }
    return out;
  }

  /** A page's resume point must be a key of the range: a client cannot make it read elsewhere. */
  private static void checkResume(byte[] resume, List<byte[][]> ranges)
      throws DoNotRetryIOException {
    for (byte[][] r : ranges) {
      if (within(resume, r[0], r[1])) return;
    }
    throw new DoNotRetryIOException("resume_after is not an index row key of this range");
  }

  /**
   * {@link #checkResume} for a descending page, which resumes below its key: the key may also be a
   * range's end here. A region split exactly at the key a descending read resumes at is asked next
   * with the key as its end; the keys below it are the region's to answer.
   */
  private static void checkResumeBefore(byte[] resume, List<byte[][]> ranges)
      throws DoNotRetryIOException {
    for (byte[][] r : ranges) {
      if (within(resume, r[0], r[1]) || Arrays.equals(resume, r[1])) return;
    }
    throw new DoNotRetryIOException("resume_after is not an index row key of this range");
  }

  private static boolean within(byte[] key, byte[] start, byte[] stop) {
    return Bytes.compareTo(key, start) >= 0 && (stop.length == 0 || Bytes.compareTo(key, stop) < 0);
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
    int n = pageCount(hits.size(), limit, pageBytes, i -> hits.get(i).getSerializedSize());
    LookupResponse.Builder out = LookupResponse.newBuilder().addAllHits(hits.subList(0, n));
    return n < hits.size() ? out.setResumeAfter(hits.get(n - 1).getRow()) : out;
  }

  /**
   * How many of {@code count} entries a page holds: at most {@code limit} ({@code > 0}), and no
   * more once their bytes reach {@code pageBytes} (always at least one).
   */
  private static int pageCount(int count, int limit, int pageBytes, IntUnaryOperator bytesOf) {
    long bytes = 0;
    int n = 0;
    while (n < count && n < limit && (bytes < pageBytes || n == 0))
      bytes += bytesOf.applyAsInt(n++);
    return n;
  }

  /** {@link #scan(List, int, int, boolean, boolean, boolean)} of the one range [start, stop). */
  private LookupResponse scan(
      byte[] start, byte[] stop, int limit, int pageBytes, boolean resumeAtKey) throws IOException {
    return scan(
            Collections.singletonList(new byte[][] {start, stop}),
            limit,
            pageBytes,
            resumeAtKey,
            false,
            false)
        .build();
  }

  /**
   * Index entries in the key ranges {@code ranges} (in key order): all (limit 0), or a page of them
   * that resumes after its last entry's user row (one value), or after its index row key if {@code
   * resumeAtKey} (a range, where the value varies); {@code packed} as {@link PackedHits}.
   */
  private LookupResponse.Builder scan(
      List<byte[][]> ranges,
      int limit,
      int pageBytes,
      boolean resumeAtKey,
      boolean withValues,
      boolean packed)
      throws IOException {
    Collected hits = new Collected(packed, withValues);
    // One more than the page: whether more remain.
    int wanted = limit <= 0 || limit == Integer.MAX_VALUE ? Integer.MAX_VALUE : limit + 1;
    for (byte[][] range : ranges) {
      if (hits.count() >= wanted) break;
      if (range[1].length != 0 && Bytes.compareTo(range[0], range[1]) >= 0) continue; // empty
      rows.scan(range[0], range[1], wanted - hits.count(), hits::add);
    }
    return hits.page(limit, pageBytes, resumeAtKey);
  }

  /**
   * The entries a lookup read, in order, as {@code IndexHit} messages or {@link PackedHits}, and
   * their index row keys (where a page resumes).
   */
  private static final class Collected {
    private final boolean withValues;
    private final List<byte[]> keys = new ArrayList<>();
    private final List<IndexHit> hits;
    private final PackedHits.Writer packed;

    Collected(boolean packed, boolean withValues) {
      this.withValues = withValues;
      this.hits = packed ? null : new ArrayList<>();
      this.packed = packed ? new PackedHits.Writer() : null;
    }

    int count() {
      return keys.size();
    }

    /** Adds the entry of the index row whose cell is {@code c}. */
    void add(Cell c) {
      byte[] key = CellUtil.cloneRow(c);
      keys.add(key);
      int rowStart = IndexKeyCodec.filterKeyEnd(key);
      byte[] value = withValues ? IndexKeyCodec.valueOfKey(key) : null;
      if (packed != null) {
        packed.add(key, rowStart, value, c.getValueArray(), c.getValueOffset(), c.getValueLength());
        return;
      }
      IndexHit.Builder hit =
          IndexHit.newBuilder().setRow(ByteString.copyFrom(key, rowStart, key.length - rowStart));
      if (value != null) hit.setValue(ByteString.copyFrom(value));
      if (c.getValueLength() > 0) {
        hit.setCovered(
            ByteString.copyFrom(c.getValueArray(), c.getValueOffset(), c.getValueLength()));
      }
      hits.add(hit.build());
    }

    /**
     * All entries (limit 0), or the first {@code limit} of them (fewer if their bytes reach {@code
     * pageBytes}) and, if more remain, where to resume: after the last entry's index row key if
     * {@code resumeAtKey}, else after its user row.
     */
    LookupResponse.Builder page(int limit, int pageBytes, boolean resumeAtKey) {
      if (packed == null) {
        LookupResponse.Builder page =
            limit <= 0
                ? LookupResponse.newBuilder().addAllHits(hits)
                : IndexLookups.page(hits, limit, pageBytes);
        if (resumeAtKey && page.hasResumeAfter()) {
          page.setResumeAfter(ByteString.copyFrom(keys.get(page.getHitsCount() - 1)));
        }
        return page;
      }
      int n =
          limit <= 0
              ? packed.count()
              : pageCount(packed.count(), limit, pageBytes, packed::bytesOf);
      LookupResponse.Builder page =
          LookupResponse.newBuilder().setPackedHits(packed.first(n)).setPackedCount(n);
      if (n < packed.count()) {
        byte[] last = keys.get(n - 1);
        int from = resumeAtKey ? 0 : IndexKeyCodec.filterKeyEnd(last);
        page.setResumeAfter(ByteString.copyFrom(last, from, last.length - from));
      }
      return page;
    }
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
