package io.scbf.hbase.regionserver.filter;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.regionserver.region.IndexRegionRows;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one index region's {@link BucketFilter} counting at least its rows: builds it from the rows
 * when the region opens, counts the index rows writes create before they become visible (so no
 * lookup can find a row that routing would skip), uncounts the rows deletes are known to remove,
 * rebuilds it after a bulk load and compacts it when it asks to.
 */
@InterfaceAudience.Private
public final class FilterBookkeeping {
  private static final Logger LOG = LoggerFactory.getLogger(FilterBookkeeping.class);

  private final IndexSpec spec;
  private final IndexRegionRows rows;
  private final String name;
  private final BooleanSupplier closing;

  /** Replaced by {@link #rebuildAfterBulkLoad}; every user reads it once into a local. */
  private volatile BucketFilter filter;

  /**
   * Filters replaced by rebuilds: a handler may still hold one, so they are freed with the region.
   */
  private final List<BucketFilter> retired = new ArrayList<>();

  public FilterBookkeeping(
      IndexSpec spec, IndexRegionRows rows, String name, BooleanSupplier closing) {
    this.spec = spec;
    this.rows = rows;
    this.name = name;
    this.closing = closing;
    this.filter = new BucketFilter(spec);
  }

  public BucketFilter filter() {
    return filter;
  }

  /** Counts every row of the region, then makes the filter ready (the region is opening). */
  public void build() {
    BucketFilter target = filter; // a bulk load may replace it meanwhile: that one builds itself
    target.build(rows.filterKeys(closing));
    LOG.info("scbf filter of {} ready: {}", name, target.stats());
  }

  /**
   * Index rows arrived by bulk load, which bypasses the write hooks: a fresh filter built from the
   * region's rows exactly as {@link #build} does (each row once, in row order), so it equals the
   * filter of a region that received the same rows by writes. Until it is built, routing treats the
   * bucket as unsure; writes meanwhile count into it (see {@link #afterWrites}).
   */
  public synchronized void rebuildAfterBulkLoad() {
    BucketFilter fresh = new BucketFilter(spec);
    retired.add(filter);
    filter = fresh;
    fresh.build(new RowsThenInFlight().open());
    LOG.info("scbf filter of {} rebuilt after a bulk load: {}", name, fresh.stats());
  }

  /**
   * What a mini-batch of index writes must do once applied, the filter it counted its puts in and
   * that filter's compactions finished before it did. {@code deletesKnown}: every row of {@code
   * deletedRows} is there, so it may be uncounted. Compared by identity: it is a key of {@link
   * #inFlight}.
   */
  public static final class PendingEffects {
    private final BucketFilter counted;
    private final long compactionsFinished;
    private final List<byte[]> addedRows;
    private final List<byte[]> deletedRows;
    private final boolean deletesKnown;
    private final List<byte[]> touchedRows;

    PendingEffects(
        BucketFilter counted,
        long compactionsFinished,
        List<byte[]> addedRows,
        List<byte[]> deletedRows,
        boolean deletesKnown,
        List<byte[]> touchedRows) {
      this.counted = counted;
      this.compactionsFinished = compactionsFinished;
      this.addedRows = addedRows;
      this.deletedRows = deletedRows;
      this.deletesKnown = deletesKnown;
      this.touchedRows = touchedRows;
    }

    public List<byte[]> touchedRows() {
      return touchedRows;
    }
  }

  /**
   * Mini-batches counted and not yet applied. Their rows are counted before they are visible, so a
   * scan that rebuilds or compacts the filter meanwhile cannot see them: it counts them from here
   * once it has read the region ({@link #rowsThenInFlight}); a batch applied before that counts its
   * rows again itself ({@link #afterWrites}).
   */
  private final Set<PendingEffects> inFlight = ConcurrentHashMap.newKeySet();

  /**
   * Why the bookkeeping cannot follow a write to an index region, or null if it can. Index
   * maintenance only writes Puts and family Deletes: whole-row Deletes, or family delete markers at
   * the replaced data cell's timestamp (the fence against late deletes, see {@code
   * IndexUpdatePlanner#indexTimestamp}), which mask only the versions up to it. A family delete
   * never makes a row appear, and deletes are not uncounted here ({@link #afterWrites} leaves them
   * as residue), so whether it removes its row or not, the filter still counts every row. A Delete
   * of some columns or versions, an Append or an Increment could make a row appear or disappear
   * without the filter knowing, and a later routed query would then skip a bucket that holds the
   * row.
   */
  public static String unsupported(Mutation m) {
    if (m instanceof Put) return null;
    if (m instanceof Delete d) {
      for (List<Cell> cells : d.getFamilyCellMap().values()) {
        for (Cell c : cells) {
          if (c.getType() != Cell.Type.DeleteFamily) return "a Delete of columns or versions";
        }
      }
      return null;
    }
    return "a " + m.getClass().getSimpleName();
  }

  /**
   * Before the writes apply: counts the index rows a put creates and notes the rows deletes name.
   * Only a put of an absent row is counted, so re-writing a row never counts it twice. A put marked
   * {@link IndexCatalog#NEW_INDEX_ROW_ATTR} (its value is new to its data row) is counted without
   * the existence read: if the row was there after all, it is counted twice, an over-count that
   * costs false positives, never a missed row. Deletes are not read either: whether their row was
   * there is unknown, so {@link #afterWrites} leaves their counts as residue.
   */
  public PendingEffects beforeWrites(List<Mutation> mutations) throws IOException {
    BucketFilter counted = filter;
    long compactions = counted.compactionsFinished();
    List<byte[]> added = new ArrayList<>();
    List<byte[]> deleted = new ArrayList<>();
    List<byte[]> touched = new ArrayList<>(mutations.size());
    List<byte[]> toRead = new ArrayList<>(mutations.size());
    for (Mutation m : mutations) {
      if (m instanceof Put && !isNewRow(m)) toRead.add(m.getRow());
    }
    Set<byte[]> existing = toRead.isEmpty() ? Set.of() : rows.existing(toRead);
    for (Mutation m : mutations) {
      byte[] row = m.getRow();
      if (m instanceof Delete) {
        deleted.add(row);
      } else if (isNewRow(m) || !existing.contains(row)) {
        counted.add(row);
        added.add(row);
      }
      touched.add(row);
    }
    return track(new PendingEffects(counted, compactions, added, deleted, false, touched));
  }

  private PendingEffects track(PendingEffects effects) {
    inFlight.add(effects);
    return effects;
  }

  private static boolean isNewRow(Mutation m) {
    return m instanceof Put && m.getAttribute(IndexCatalog.NEW_INDEX_ROW_ATTR) != null;
  }

  /**
   * Before writes whose effect on the index rows is known without reading them: the local index
   * entries of a data write, derived from the data row's current values read under its exclusive
   * row lock. {@code created} rows are absent (their value is new for the row), {@code deleted}
   * rows present (the row's current value): every complete region holds exactly the entries of its
   * rows' current values, and until the entries are complete the filter is building, so removes are
   * skipped anyway. Saves the existence read of {@link #beforeWrites}.
   */
  public PendingEffects beforeKnownWrites(
      List<byte[]> created, List<byte[]> deleted, List<byte[]> touched) {
    BucketFilter counted = filter;
    long compactions = counted.compactionsFinished();
    for (byte[] row : created) counted.add(row);
    return track(new PendingEffects(counted, compactions, created, deleted, true, touched));
  }

  /**
   * After the writes are visible (or failed): uncounts deleted rows known to have been there and
   * leaves the others' counts as residue. If a bulk-load rebuild replaced the filter since {@link
   * #beforeWrites}, or a compaction ran meanwhile, its scan may have started before these rows were
   * visible and replaced the counts made before it began: the new rows are counted again in the
   * current filter (at worst twice, never zero times), and no remove is applied (the scan may not
   * have counted the deleted rows either).
   */
  public void afterWrites(PendingEffects effects, boolean success) {
    try {
      if (success) apply(effects);
    } finally {
      inFlight.remove(effects); // after its rows are counted again, if they had to be
    }
  }

  private void apply(PendingEffects effects) {
    BucketFilter current = filter;
    boolean rescanned =
        current != effects.counted || current.compactionOverlapped(effects.compactionsFinished);
    if (rescanned) {
      for (byte[] row : effects.addedRows) current.add(row);
    }
    for (byte[] row : effects.deletedRows) {
      if (effects.deletesKnown && !rescanned) current.remove(row);
      else current.leaveCounted(row);
    }
  }

  /**
   * The filter keys of the region's rows, then those of the rows counted by writes still in flight
   * when the scan ends: a write counted before the rebuild or compaction began and visible only
   * after its scan started is in neither the scan nor the new counts. Counted as they are read.
   */
  private final class RowsThenInFlight implements Iterator<byte[]> {
    private Iterator<byte[]> scan;
    private Iterator<byte[]> pending;
    private long read;

    /**
     * Opens the scan, which fixes the rows it sees. A compaction opens it only once it counts as
     * started ({@link BucketFilter#compact}): a write finished between the two would otherwise be
     * in neither the scan, nor the writes in flight, nor those that count their rows again.
     */
    RowsThenInFlight open() {
      scan = rows.filterKeys(closing);
      return this;
    }

    @Override
    public boolean hasNext() {
      if (pending == null) {
        if (scan.hasNext()) return true;
        List<byte[]> keys = new ArrayList<>();
        for (PendingEffects e : inFlight) {
          for (byte[] row : e.addedRows) keys.add(IndexKeyCodec.filterKeyOf(row));
        }
        pending = keys.iterator();
      }
      return pending.hasNext();
    }

    @Override
    public byte[] next() {
      if (!hasNext()) throw new NoSuchElementException();
      read++;
      return pending == null ? scan.next() : pending.next();
    }
  }

  /**
   * Rebuilds one right-sized filter if the current one asks for it (residue, growth); returns the
   * index rows the compaction read (those of writes in flight included), or empty if none ran to
   * its end.
   */
  public OptionalLong compactIfNeeded() {
    BucketFilter target = filter; // not one a bulk-load rebuild swaps in meanwhile
    if (!target.needsCompaction() || closing.getAsBoolean()) return OptionalLong.empty();
    try {
      long expected = Math.max(spec.initialCapacity(), target.entries());
      RowsThenInFlight keys = new RowsThenInFlight();
      target.compact(expected, keys::open);
      LOG.info("scbf filter of {} compacted from {} rows: {}", name, keys.read, target.stats());
      return OptionalLong.of(keys.read);
    } catch (CancellationException e) {
      LOG.debug("scbf compaction of {} cancelled: region closing", name);
    } catch (RuntimeException e) {
      LOG.warn("scbf compaction of {} failed; the filter is unchanged", name, e);
    }
    return OptionalLong.empty();
  }

  /** The region is closed and no operation runs any more: frees the native filters. */
  public synchronized void free() {
    filter.close();
    for (BucketFilter f : retired) f.close();
  }
}
