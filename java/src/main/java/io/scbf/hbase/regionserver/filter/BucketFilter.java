package io.scbf.hbase.regionserver.filter;

import io.scbf.MembershipFilter;
import io.scbf.ScalableFilterStats;
import io.scbf.ScalableSplitCountingBloomFilter;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.RowEstimates;
import io.scbf.hbase.shared.proto.IndexProtos.ValueCounts;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The counting filter of one index region (bucket) over the filter keys {@code
 * esc(alias)|esc(value)} of its index rows: +1 per index row created, -1 per index row deleted.
 *
 * <p>It starts "building" (routing treats the bucket as unsure) and becomes ready once {@link
 * #build} has added the keys of every index row the region holds. Writes during a build or a
 * compaction add normally, but their removes are skipped: the scan may or may not have counted the
 * deleted row, and decrementing a key the filter never counted could hide another row's key (a
 * false negative). A skipped remove only leaves an extra count, i.e. a slightly higher
 * false-positive rate, until the next compaction. Deletes of rows that may not be there are never
 * applied either ({@link #leaveCounted}). Those extra counts are the filter's residue: past half
 * its entries (or the first sub-filter's eighth), {@link #needsCompaction} asks for a compaction,
 * which counts the region's rows again.
 *
 * <p>It also keeps the region's {@link ValueFrequencies} for the query planner. They follow the
 * same adds; removes go to them once the filter is ready, {@link #leaveCounted}'s included (their
 * estimates only steer plans, so a remove of a row that was not there costs an under-count until
 * the next compaction, which counts them again from the region's rows with the filter).
 *
 * <p>{@link #version()} changes with every change of the filter; versions start at the open time
 * shifted left by 20 bits, so a reopened region never reuses an earlier instance's versions.
 */
@InterfaceAudience.Private
public final class BucketFilter implements AutoCloseable {
  private final ScalableSplitCountingBloomFilter filter;
  private final AtomicLong version = new AtomicLong(System.currentTimeMillis() << 20);
  private final AtomicInteger removesSuspended = new AtomicInteger(1); // building
  private final AtomicLong skippedRemoves = new AtomicLong();
  private final AtomicLong unappliedRemoves = new AtomicLong(); // since the last count of the rows
  private final AtomicLong compactionsStarted = new AtomicLong();
  private final AtomicLong compactionsFinished = new AtomicLong();
  private final long minResidueForCompaction;
  private volatile ValueFrequencies frequencies = new ValueFrequencies();

  /** The frequencies a running compaction counts: its scan's keys and the adds meanwhile. */
  private volatile ValueFrequencies recount;

  private volatile boolean ready;

  BucketFilter(IndexSpec spec) {
    this.filter = ScalableSplitCountingBloomFilter.create(spec.initialCapacity(), spec.fpp());
    this.minResidueForCompaction = Math.max(1, spec.initialCapacity() / 8);
  }

  /** Counts the index row {@code rowKey} (an index row key; its filter key is a slice of it). */
  void add(byte[] rowKey) {
    int length = IndexKeyCodec.filterKeyEnd(rowKey) - 1;
    filter.add(rowKey, 1, length);
    ValueFrequencies counting = recount; // before the swap that ends a compaction
    ValueFrequencies current = frequencies;
    current.add(rowKey, 1, length);
    if (counting != null && counting != current) counting.add(rowKey, 1, length);
    version.incrementAndGet();
  }

  /** Uncounts a deleted index row, unless a build or compaction is running (see class comment). */
  void remove(byte[] rowKey) {
    int length = IndexKeyCodec.filterKeyEnd(rowKey) - 1;
    if (ready) frequencies.remove(rowKey, 1, length);
    if (removesSuspended.get() > 0) {
      skippedRemoves.incrementAndGet();
      unappliedRemoves.incrementAndGet();
      return;
    }
    filter.remove(rowKey, 1, length);
    version.incrementAndGet();
  }

  /**
   * A delete of an index row that may not have been there (a resent call, a stale row already
   * repaired): its count stays, as residue, until the next compaction counts the region's rows
   * again. Decrementing instead would need to know the row existed, a read per deleted row.
   */
  void leaveCounted(byte[] rowKey) {
    if (ready) {
      frequencies.remove(rowKey, 1, IndexKeyCodec.filterKeyEnd(rowKey) - 1);
      // The counts changed: a new version makes the publisher send them if they moved enough.
      version.incrementAndGet();
    }
    unappliedRemoves.incrementAndGet();
  }

  /** Adds the filter keys of all existing index rows, then makes the filter ready. */
  void build(Iterator<byte[]> filterKeys) {
    while (filterKeys.hasNext()) {
      byte[] key = filterKeys.next();
      filter.add(key);
      frequencies.add(key, 0, key.length);
    }
    version.incrementAndGet();
    ready = true;
    removesSuspended.decrementAndGet();
  }

  /**
   * Rebuilds one right-sized filter from the region's keys (after residue or growth). Keys added
   * while it runs are kept, but a key counted before it began whose row the scan could not see yet
   * (counted before the write, visible after it) is in neither: the writer adds it again ({@link
   * #compactionOverlapped}). So the scan, which fixes the rows it sees, is opened ({@code
   * openScan}) only once the compaction counts as started and the native compaction pulls its first
   * key (from then on it keeps concurrent adds): a writer that finished before either would have
   * found no compaction overlapping it, or added its row to counts the compaction replaces, and its
   * row would lie after the scan's read point.
   */
  void compact(long expectedKeys, Supplier<Iterator<byte[]>> openScan) {
    // Residue noted before the scan starts is of rows already gone: the scan does not count them.
    long before = unappliedRemoves.get();
    ValueFrequencies fresh = new ValueFrequencies();
    recount = fresh; // removes skip it, as they skip the filter while the scan runs
    removesSuspended.incrementAndGet();
    compactionsStarted.incrementAndGet();
    try {
      filter.compact(expectedKeys, new CountedInto(fresh, openScan));
      frequencies = fresh;
      unappliedRemoves.addAndGet(-before);
      version.incrementAndGet();
    } finally {
      recount = null;
      compactionsFinished.incrementAndGet();
      removesSuspended.decrementAndGet();
    }
  }

  /**
   * The keys of a compaction's scan, opened at the first key pulled, each counted into its
   * frequencies as the filter reads it.
   */
  private static final class CountedInto implements Iterator<byte[]> {
    private final ValueFrequencies frequencies;
    private final Supplier<Iterator<byte[]>> openScan;
    private Iterator<byte[]> keys;

    CountedInto(ValueFrequencies frequencies, Supplier<Iterator<byte[]>> openScan) {
      this.frequencies = frequencies;
      this.openScan = openScan;
    }

    @Override
    public boolean hasNext() {
      if (keys == null) keys = openScan.get();
      return keys.hasNext();
    }

    @Override
    public byte[] next() {
      if (!hasNext()) throw new NoSuchElementException();
      byte[] key = keys.next();
      frequencies.add(key, 0, key.length);
      return key;
    }
  }

  /** Read by a writer before it counts its rows, for {@link #compactionOverlapped}. */
  long compactionsFinished() {
    return compactionsFinished.get();
  }

  /**
   * Whether a compaction ran at some moment since the writer read {@code finishedBefore} (one was
   * running then, or one started since): its scan may have missed the writer's rows.
   */
  boolean compactionOverlapped(long finishedBefore) {
    return compactionsStarted.get() > finishedBefore;
  }

  /**
   * Whether the region may hold an index row with this filter key. Only a ready filter's "no" is an
   * answer: before {@link #build} completes it has not counted the existing rows.
   */
  public boolean mightContain(byte[] filterKey) {
    return filter.mightContain(filterKey);
  }

  /** The estimated rows of a filter key (never below the truth once the filter is ready). */
  public long estimate(byte[] filterKey) {
    return frequencies.estimate(RowEstimates.hash(filterKey, 0, filterKey.length));
  }

  /** The index rows counted. */
  public long entries() {
    return frequencies.entries();
  }

  public boolean needsCompaction() {
    if (!ready) return false;
    long r = unappliedRemoves.get();
    return (r > minResidueForCompaction && r > entries() / 2) || filter.needsCompaction();
  }

  public boolean isReady() {
    return ready;
  }

  public long version() {
    return version.get();
  }

  public long skippedRemoves() {
    return skippedRemoves.get();
  }

  /** Removes not applied since the last compaction: counts of rows that may be gone. */
  public long unappliedRemoves() {
    return unappliedRemoves.get();
  }

  /**
   * The extra counts the filter carries: removes it skipped as ambiguous and removes not applied.
   * Reads every counter, as {@link #stats} does.
   */
  public long residue() {
    return residue(filter.stats());
  }

  /** {@link #residue()} for stats the caller has just read. */
  public long residue(ScalableFilterStats stats) {
    return stats.residue() + unappliedRemoves.get();
  }

  /** The routing bitmap of the filter now (the caller closes it). */
  public MembershipFilter membership() {
    return MembershipFilter.of(filter);
  }

  /** The region's entries and heavy values now (one caller at a time: the publisher). */
  public ValueCounts counts() {
    return frequencies.counts();
  }

  public ScalableFilterStats stats() {
    return filter.stats();
  }

  @Override
  public void close() {
    filter.close();
  }
}
