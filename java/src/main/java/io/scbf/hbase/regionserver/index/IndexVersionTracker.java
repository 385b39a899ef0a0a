package io.scbf.hbase.regionserver.index;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValueUtil;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.regionserver.querymatcher.DeleteTracker;
import org.apache.hadoop.hbase.regionserver.querymatcher.NewVersionBehaviorTracker;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HBase's {@code NEW_VERSION_BEHAVIOR} tracker with the same answers, at a fraction of its cost on
 * the rows an index family holds.
 *
 * <p>Why: index families keep {@code NEW_VERSION_BEHAVIOR} as the write fence (a delete masks only
 * earlier writes, so an index row deleted and put again within one millisecond stays visible), and
 * HBase's {@link NewVersionBehaviorTracker} pays for that on every read: for each row it allocates
 * a map of delete markers, for each column a deep copy of it, for each cell tree lookups and a
 * boxed sequence id, whether or not the row holds a single marker. That was 44% of a covered
 * range's CPU (docs/benchmarks-ranges.md). Almost every index row holds none: one put per column.
 *
 * <p>How: while the current row has shown no delete marker, this class answers itself from the few
 * fields HBase's tracker would consult in that state (the column's previous cell and whether a put
 * was counted in it), allocating nothing. At the row's first marker, or past {@link #MAX_REPLAY}
 * cells, it resets HBase's tracker and replays the row's cells to it, which then answers the rest
 * of the row: the state it reaches is the one it would have reached alone, as its answers depend
 * only on the calls made since its last reset. Only one-version families take this path ({@link
 * #replacing}); the rest keep HBase's tracker. HBase's column tracking (the named column reached,
 * the versions counted), which its delete maps do not touch, stays HBase's code: this class resets
 * its two fields as HBase's reset and prepare would, and keeps them across a hand-over.
 * IndexVersionTrackerTest checks every answer against HBase's tracker on random rows.
 *
 * <p>In a data region the hook cannot tell which family a scan reads (HBase passes none): there the
 * tracker is given the local index families and, from the first cell of its family, stays HBase's
 * tracker on any other, so a user's own {@code NEW_VERSION_BEHAVIOR} family reads as it did.
 */
@InterfaceAudience.Private
public final class IndexVersionTracker extends NewVersionBehaviorTracker {
  private static final Logger LOG = LoggerFactory.getLogger(IndexVersionTracker.class);

  /** Cells of one row answered here before it hands over (it keeps them for the replay). */
  static final int MAX_REPLAY = 64;

  /** The row's cells answered here, in order: what HBase's tracker replays at a hand-over. */
  private ArrayList<Cell> answered;

  /** HBase's tracker answers the rest of this row. */
  private boolean handedOver;

  /** The families this tracker answers for, or null for any. */
  private List<byte[]> families;

  /** The scan's family is not one of {@link #families}: HBase's tracker answers every row. */
  private boolean stockOnly;

  // The fields of HBase's prepare(): the previous cell of the column. Here they are the state in
  // both modes (after a hand-over, for the version count).
  private byte[] lastQualifier;
  private int lastQualifierOffset;
  private int lastQualifierLength;
  private long lastTs;
  private long lastSeq;
  private byte lastType;

  /** HBase's column map is still empty: no column started since the row did. */
  private boolean columnMapEmpty;

  /** A put was counted in the current column (HBase's count of visible puts, one version). */
  private boolean counted;

  private IndexVersionTracker(
      NavigableSet<byte[]> columns,
      CellComparator comparator,
      int minVersions,
      int resultMaxVersions,
      long oldestStamp) {
    super(columns, comparator, minVersions, 1, resultMaxVersions, oldestStamp);
    this.answered = new ArrayList<>();
    startRow();
  }

  /**
   * This tracker in place of {@code tracker} when it is HBase's {@code NEW_VERSION_BEHAVIOR}
   * tracker of a one-version family; else {@code tracker} itself. Its settings are read from its
   * fields (HBase does not pass them to the hook): if they cannot be, HBase's tracker stays.
   */
  public static DeleteTracker replacing(DeleteTracker tracker) {
    return replacing(tracker, null);
  }

  /**
   * As {@link #replacing(DeleteTracker)}, answering only for a scan of one of {@code families}
   * (null: any); a scan of another family gets HBase's answers from HBase's code.
   */
  public static DeleteTracker replacing(DeleteTracker tracker, List<byte[]> families) {
    if (tracker.getClass() != NewVersionBehaviorTracker.class || StockFields.FAILURE != null) {
      return tracker;
    }
    // Called from a coprocessor hook, where HBase aborts the server on anything but an
    // IOException (hbase.coprocessor.abortonerror): a surprise keeps HBase's tracker instead.
    try {
      NewVersionBehaviorTracker stock = (NewVersionBehaviorTracker) tracker;
      if ((int) StockFields.MAX_VERSIONS.get(stock) != 1) return tracker;
      byte[][] named = (byte[][]) StockFields.COLUMNS.get(stock);
      NavigableSet<byte[]> columns = null;
      if (named != null) {
        columns = new TreeSet<>(Bytes.BYTES_COMPARATOR);
        columns.addAll(Arrays.asList(named));
      }
      IndexVersionTracker replaced =
          new IndexVersionTracker(
              columns,
              stock.getCellComparator(),
              (int) StockFields.MIN_VERSIONS.get(stock),
              (int) StockFields.RESULT_MAX_VERSIONS.get(stock),
              (long) StockFields.OLDEST_STAMP.get(stock));
      replaced.families = families;
      return replaced;
    } catch (RuntimeException | LinkageError e) {
      LOG.error("scbf: this scan keeps HBase's version tracker", e);
      return tracker;
    }
  }

  /** Whether HBase's tracker answers every row: the scan's family is not one answered for. */
  boolean readsAsHBase() {
    return stockOnly;
  }

  /** Why {@link #replacing} keeps HBase's tracker on this HBase version, or null. */
  static String unavailableReason() {
    return StockFields.FAILURE;
  }

  @Override
  public void reset() {
    if (answered == null) return; // HBase's constructor calls reset() before ours ran
    if (stockOnly) {
      super.reset();
    } else {
      startRow();
    }
  }

  /** At the scan's first cell: a family not answered for makes this HBase's tracker for good. */
  private void checkFamily(Cell cell) {
    boolean ours = false;
    for (byte[] family : families) ours |= CellUtil.matchingFamily(cell, family);
    families = null;
    if (!ours) {
      stockOnly = true;
      handedOver = true;
      super.reset();
    }
  }

  /** HBase's reset(), but for its delete maps, which only a hand-over needs. */
  private void startRow() {
    StockFields.COLUMN_INDEX.set(this, 0);
    StockFields.COUNT_CURRENT_COL.set(this, 0);
    answered.clear();
    handedOver = false;
    lastQualifier = null;
    lastQualifierOffset = 0;
    lastQualifierLength = 0;
    lastTs = Long.MIN_VALUE;
    lastSeq = 0;
    lastType = 0;
    columnMapEmpty = true;
    counted = false;
  }

  @Override
  public void add(Cell marker) {
    if (families != null) checkFamily(marker);
    if (stockOnly) {
      super.add(marker);
      return;
    }
    if (!handedOver) handOver();
    prepare(marker, delColMap.isEmpty());
    super.add(marker);
  }

  @Override
  public DeleteResult isDeleted(Cell cell) {
    if (families != null) checkFamily(cell);
    if (stockOnly) return super.isDeleted(cell);
    if (!handedOver && (answered.size() >= MAX_REPLAY || cell.getTimestamp() == Long.MIN_VALUE)) {
      handOver(); // Long.MIN_VALUE: HBase's row node's own timestamp, compared with <=
    }
    if (handedOver) {
      prepare(cell, delColMap.isEmpty());
      return super.isDeleted(cell);
    }
    answered.add(cell);
    long duplicateOf = prepare(cell, columnMapEmpty);
    if (columnMapEmpty) {
      return duplicateOf < Long.MAX_VALUE ? DeleteResult.VERSION_MASKED : DeleteResult.NOT_DELETED;
    }
    if (duplicateOf < Long.MAX_VALUE || counted) return DeleteResult.VERSION_MASKED;
    counted = true;
    return DeleteResult.NOT_DELETED;
  }

  /**
   * HBase's {@code prepare}: a new column resets the column's state; a put at the previous put's
   * timestamp is a duplicate (the sequence id of the first is returned); else the cell is
   * remembered.
   */
  private long prepare(Cell cell, boolean columnMapIsEmpty) {
    if (qualifierChanged(cell, columnMapIsEmpty)) {
      columnMapEmpty = false;
      counted = false;
      if (!handedOver) StockFields.COUNT_CURRENT_COL.set(this, 0); // else HBase's prepare does
    } else if (!PrivateCellUtil.isDelete(lastType)
        && lastType == cell.getTypeByte()
        && lastTs == cell.getTimestamp()) {
      return lastSeq;
    }
    lastQualifier = cell.getQualifierArray();
    lastQualifierOffset = cell.getQualifierOffset();
    lastQualifierLength = cell.getQualifierLength();
    lastTs = cell.getTimestamp();
    lastSeq = cell.getSequenceId();
    lastType = cell.getTypeByte();
    return Long.MAX_VALUE;
  }

  private boolean qualifierChanged(Cell cell, boolean columnMapIsEmpty) {
    if (columnMapIsEmpty
        && lastQualifier == null
        && cell.getQualifierLength() == 0
        && (PrivateCellUtil.isDeleteColumns(cell) || PrivateCellUtil.isDeleteColumnVersion(cell))) {
      return true;
    }
    return !PrivateCellUtil.matchingQualifier(
        cell, lastQualifier, lastQualifierOffset, lastQualifierLength);
  }

  /**
   * HBase's tracker takes the row over, brought to where it would be had it answered alone; its
   * column tracking (the column reached, the versions counted) was kept right all along and
   * survives the reset.
   */
  private void handOver() {
    handedOver = true;
    int columnIndex = (int) StockFields.COLUMN_INDEX.get(this);
    int versions = (int) StockFields.COUNT_CURRENT_COL.get(this);
    super.reset();
    for (Cell cell : answered) super.isDeleted(cell);
    answered.clear();
    StockFields.COLUMN_INDEX.set(this, columnIndex);
    StockFields.COUNT_CURRENT_COL.set(this, versions);
  }

  @Override
  public boolean isEmpty() {
    return handedOver || families != null ? super.isEmpty() : !columnMapEmpty;
  }

  /** The cells kept for a replay, and the previous qualifier, may point into released blocks. */
  @Override
  public void beforeShipped() throws IOException {
    super.beforeShipped();
    answered.replaceAll(KeyValueUtil::copyToNewKeyValue);
    if (lastQualifier != null) {
      byte[] copy = new byte[lastQualifierLength];
      System.arraycopy(lastQualifier, lastQualifierOffset, copy, 0, lastQualifierLength);
      lastQualifier = copy;
      lastQualifierOffset = 0;
    }
  }

  /**
   * The fields of HBase's tracker that hold its constructor's arguments (read to build this one)
   * and its column tracking (reset here per row, as its reset() would).
   */
  private static final class StockFields {
    static final VarHandle MAX_VERSIONS;
    static final VarHandle MIN_VERSIONS;
    static final VarHandle RESULT_MAX_VERSIONS;
    static final VarHandle OLDEST_STAMP;
    static final VarHandle COLUMNS;
    static final VarHandle COLUMN_INDEX;
    static final VarHandle COUNT_CURRENT_COL;
    static final String FAILURE;

    static {
      VarHandle[] h = new VarHandle[7];
      String failure = null;
      try {
        MethodHandles.Lookup fields =
            MethodHandles.privateLookupIn(NewVersionBehaviorTracker.class, MethodHandles.lookup());
        Class<?> t = NewVersionBehaviorTracker.class;
        h[0] = fields.findVarHandle(t, "maxVersions", int.class);
        h[1] = fields.findVarHandle(t, "minVersions", int.class);
        h[2] = fields.findVarHandle(t, "resultMaxVersions", int.class);
        h[3] = fields.findVarHandle(t, "oldestStamp", long.class);
        h[4] = fields.findVarHandle(t, "columns", byte[][].class);
        h[5] = fields.findVarHandle(t, "columnIndex", int.class);
        h[6] = fields.findVarHandle(t, "countCurrentCol", int.class);
      } catch (ReflectiveOperationException | RuntimeException e) {
        failure = "HBase's NewVersionBehaviorTracker lacks a field this HBase had: " + e;
        LOG.warn("scbf: index families keep HBase's version tracker: {}", failure);
      }
      MAX_VERSIONS = h[0];
      MIN_VERSIONS = h[1];
      RESULT_MAX_VERSIONS = h[2];
      OLDEST_STAMP = h[3];
      COLUMNS = h[4];
      COLUMN_INDEX = h[5];
      COUNT_CURRENT_COL = h[6];
      FAILURE = failure;
    }
  }
}
