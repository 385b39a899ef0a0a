package io.scbf.hbase.shared;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexSpec.Column;
import io.scbf.hbase.IndexValues;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.TagType;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.security.visibility.VisibilityConstants;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Pure logic of the data-table observer: which mutations concern the indexes of a table, the row
 * state a mutation leaves behind (latest version per watched column), and the index puts and
 * deletes turning the index rows of one state into those of another.
 *
 * <p>Only the latest version of a column is indexed. A put with an older timestamp than the visible
 * version changes nothing; a "delete all versions up to T" of a column or family removes the
 * visible version iff its timestamp is &lt;= T. Deleting a single version of a watched column would
 * expose an older version the region has not shown us yet, so it is rejected, as are Increment and
 * Append (their result is only known inside the region), a cell TTL (its expiry exposes an older
 * version too) and cell visibility labels (index answers carry no labels).
 */
@InterfaceAudience.Private
public final class IndexUpdatePlanner {
  private final List<IndexSpec> specs;
  private final Set<Column> watched = new LinkedHashSet<>();

  /**
   * The watched columns with their names copied once: a Column hands out copies, and the write path
   * matches every cell of every mutation against them.
   */
  private final List<Named> named = new ArrayList<>();

  private record Named(Column column, byte[] family, byte[] qualifier) {}

  /** Indexes whose rows expire (family TTL): a newer version of the same value rewrites the row. */
  private final Predicate<IndexSpec> expires;

  public IndexUpdatePlanner(List<IndexSpec> specs) {
    this(specs, s -> false);
  }

  /**
   * @param expires true for the indexes whose rows expire with their data (a family TTL): the index
   *     row of a value written again at a newer timestamp is rewritten at that timestamp, so it
   *     lives as long as the data cell does. Without a TTL the row is left as it is (one index
   *     write less per rewrite of an unchanged value).
   */
  public IndexUpdatePlanner(List<IndexSpec> specs, Predicate<IndexSpec> expires) {
    this.expires = expires;
    this.specs = List.copyOf(specs);
    for (IndexSpec s : specs) watched.addAll(IndexValues.watchedColumns(s));
    for (Column c : watched) named.add(new Named(c, c.family(), c.qualifier()));
  }

  public List<IndexSpec> specs() {
    return specs;
  }

  /** The columns to read before a mutation: every indexed or covered column. */
  public Set<Column> watchedColumns() {
    return watched;
  }

  /** True if the mutation may change a watched column (and so the index rows). */
  public boolean concernsIndex(Mutation m) {
    for (Map.Entry<byte[], List<Cell>> e : m.getFamilyCellMap().entrySet()) {
      for (Cell c : e.getValue()) {
        Cell.Type t = c.getType();
        if (t == Cell.Type.DeleteFamily || t == Cell.Type.DeleteFamilyVersion) {
          if (watchesFamily(e.getKey())) return true;
        } else if (watchedColumn(e.getKey(), c) != null) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * True if the mutation writes some but not all columns deciding an index's value ({@link
   * IndexValues#decidingColumns}: a composite index's tuple, a partial index's WHERE): the row's
   * other columns decide whether and how it is indexed, so even an insert-only table must read
   * them.
   */
  public boolean writesPartOfATuple(Mutation m) {
    for (IndexSpec spec : specs) {
      List<Column> deciding = IndexValues.decidingColumns(spec);
      if (deciding.size() < 2) continue;
      int written = 0;
      for (Column col : deciding) {
        if (m.has(col.family(), col.qualifier())) written++;
      }
      if (written > 0 && written < deciding.size()) return true;
    }
    return false;
  }

  /** Rejects mutations whose effect on a watched column cannot be known before they apply. */
  public void checkSupported(Mutation m) throws DoNotRetryIOException {
    if (m instanceof Increment || m instanceof Append) {
      if (concernsIndex(m)) {
        throw new DoNotRetryIOException(
            m.getClass().getSimpleName()
                + " on an indexed or covered"
                + " column ("
                + describeWatched(m)
                + ") is not supported by scbf indexes: its result is"
                + " only known inside the region. Read, compute, and Put the new value instead.");
      }
      return;
    }
    if (m.getTTL() != Long.MAX_VALUE && concernsIndex(m)) {
      throw new DoNotRetryIOException(
          "a cell TTL (Mutation.setTTL) on a write of indexed or covered column ("
              + describeWatched(m)
              + ") is not supported by scbf indexes: once the cells expire HBase shows the"
              + " column's older version again, whose index entry this write replaced. Write"
              + " without a TTL, or give the column family a TTL (index entries expire with"
              + " it).");
    }
    if (m.getAttribute(VisibilityConstants.VISIBILITY_LABELS_ATTR_KEY) != null
        && concernsIndex(m)) {
      throw new DoNotRetryIOException(
          "cell visibility labels (Mutation.setCellVisibility) on a write of indexed or covered"
              + " column ("
              + describeWatched(m)
              + ") are not supported by scbf indexes: index answers (findRowKeys, findEntries)"
              + " would show a labelled value, or the row, to readers without the label. Keep"
              + " labelled data out of indexed and covered columns.");
    }
    for (Map.Entry<byte[], List<Cell>> e : m.getFamilyCellMap().entrySet()) {
      for (Cell c : e.getValue()) {
        if (c.getTagsLength() > 0 && watchedColumn(e.getKey(), c) != null) checkTags(c, e.getKey());
        if (c.getType() == Cell.Type.Put) checkKeyLength(m.getRow(), e.getKey(), c);
        if (c.getType() == Cell.Type.Delete && watchedColumn(e.getKey(), c) != null) {
          throw new DoNotRetryIOException(
              "deleting a single version of indexed or covered column "
                  + watchedColumn(e.getKey(), c)
                  + " is not supported by scbf indexes (an older"
                  + " version could become visible); delete all versions with Delete.addColumns,"
                  + " addFamily or a row delete.");
        }
        if (c.getType() == Cell.Type.DeleteFamilyVersion && watchesFamily(e.getKey())) {
          throw new DoNotRetryIOException(
              "Delete.addFamilyVersion on family "
                  + new String(e.getKey(), StandardCharsets.UTF_8)
                  + ", which holds indexed or"
                  + " covered columns, is not supported by scbf indexes; use addFamily or addColumns.");
        }
      }
    }
  }

  /**
   * Tags a client sent with a cell (a codec with tags) that would make the cell expire or hide it
   * from some readers, as {@link Mutation#setTTL} and {@link Mutation#setCellVisibility} do.
   */
  private void checkTags(Cell c, byte[] family) throws DoNotRetryIOException {
    for (byte type : new byte[] {TagType.TTL_TAG_TYPE, TagType.VISIBILITY_TAG_TYPE}) {
      if (PrivateCellUtil.getTag(c, type).isPresent()) {
        throw new DoNotRetryIOException(
            (type == TagType.TTL_TAG_TYPE ? "a TTL" : "a visibility")
                + " tag on indexed or covered column "
                + watchedColumn(family, c)
                + " is not supported by scbf indexes");
      }
    }
  }

  /**
   * An indexed value becomes part of an index row key, which HBase limits to 32767 bytes. For a
   * composite index this checks the cell's share of the tuple; {@link #diff} checks the whole.
   */
  private void checkKeyLength(byte[] row, byte[] family, Cell c) throws DoNotRetryIOException {
    Column col = watchedColumn(family, c); // every indexed column is watched
    if (col == null) return;
    for (IndexSpec spec : specs) {
      if (!spec.columns().contains(col)) continue;
      byte[] value = CellUtil.cloneValue(c);
      String invalid = IndexValues.invalidValue(spec, col, value);
      if (invalid != null) {
        throw new DoNotRetryIOException(
            "the write was refused: "
                + invalid
                + ". Write the value as Bytes.toBytes of the declared type, or index the column"
                + " with type BYTES.");
      }
      if (spec.expression() != null) value = spec.expression().apply(value);
      if (value == null) continue; // not indexed, so no key to be too long
      byte[] form = IndexValues.indexForm(spec, spec.columns().indexOf(col), value);
      byte[] indexed = spec.isComposite() ? CompositeValue.encode(List.of(form)) : form;
      String tooLong = tooLong(spec, indexed, row);
      if (tooLong != null) {
        throw new DoNotRetryIOException(
            "value of indexed column " + col + " (" + c.getValueLength() + " bytes) " + tooLong);
      }
    }
  }

  /** Why the index row key of {@code value} is too long for HBase; null if it is not. */
  private static String tooLong(IndexSpec spec, byte[] value, byte[] row) {
    int length =
        IndexKeyCodec.rowKeyLength(spec.alias().getBytes(StandardCharsets.UTF_8), value, row);
    if (length <= IndexKeyCodec.MAX_ROW_KEY_LENGTH) return null;
    return "is too large for index '"
        + spec.alias()
        + "': its index row key would be "
        + length
        + " bytes, HBase allows "
        + IndexKeyCodec.MAX_ROW_KEY_LENGTH
        + " (row key + value, with each 0x00 byte counted twice)";
  }

  /**
   * A row whose composite value (the tuple of its indexed columns) makes an index row key longer
   * than HBase allows: its write fails, as a single column's too large value does.
   */
  public static final class KeyTooLongException extends IllegalArgumentException {
    KeyTooLongException(String message) {
      super(message);
    }
  }

  /**
   * Within this much of now, a Put's timestamp is taken for the server's stamp: a write racing a
   * delete of its row within one millisecond is masked by it (HBase's rule), and is not refused; it
   * is not indexed, as HBase hides it. Only a major compaction purging that marker in the same
   * moment, with the Put still in the memstore, could show it again.
   */
  public static final long SERVER_STAMP_SLACK_MS = 1000;

  private static boolean serverStamped(long timestamp) {
    return Math.abs(EnvironmentEdgeManager.currentTime() - timestamp) <= SERVER_STAMP_SLACK_MS;
  }

  /**
   * A Put of an indexed or covered column that only a stored delete marker masks (issue 49): HBase
   * shows it again if a major compaction purges the marker while the put is in the memstore, and no
   * write reaches the index then. Its row's mutations are refused, as a too long key's are.
   */
  public static final class MaskedPutException extends IllegalArgumentException {
    MaskedPutException(String message) {
      super(message);
    }
  }

  /**
   * Family delete markers at two timestamps for one row and family in one mini-batch, on a family
   * with NEW_VERSION_BEHAVIOR (issue 49, seed 1030: a RowMutations of a row delete now and one 4 s
   * in the past). Every cell of a mini-batch shares one sequence id, and HBase's {@code
   * NewVersionBehaviorTracker} keeps one family marker per sequence id: the last it reads, the
   * oldest. So HBase shows the cells between the two timestamps, where every other reader of
   * markers (this planner included) applies the newest. Refused rather than followed: HBase's
   * answer here is an accident of its tracker, not a documented rule.
   */
  public static final class UnfollowableDeletesException extends IllegalArgumentException {
    UnfollowableDeletesException(String message) {
      super(message);
    }
  }

  /**
   * Throws {@link UnfollowableDeletesException} if the mutations of one row in one mini-batch hold
   * family delete markers at more than one timestamp for a family holding watched columns that
   * {@code newVersionBehavior} names. Column markers are not concerned: a column's cells sort after
   * the family markers, and one of its own markers replaces the family's only once HBase has read
   * it, above the cells it masks.
   */
  public void checkOneBatchFamilyMarkers(
      List<Mutation> ofRow, Predicate<byte[]> newVersionBehavior) {
    Map<String, Long> first = new HashMap<>();
    for (Mutation m : ofRow) {
      for (Map.Entry<byte[], List<Cell>> e : m.getFamilyCellMap().entrySet()) {
        if (!watchesFamily(e.getKey()) || !newVersionBehavior.test(e.getKey())) continue;
        String family = new String(e.getKey(), StandardCharsets.UTF_8);
        for (Cell c : e.getValue()) {
          if (c.getType() != Cell.Type.DeleteFamily) continue;
          Long earlier = first.putIfAbsent(family, c.getTimestamp());
          if (earlier != null && earlier != c.getTimestamp()) {
            throw new UnfollowableDeletesException(
                "scbf: deletes of family "
                    + family
                    + " at two timestamps ("
                    + earlier
                    + ", "
                    + c.getTimestamp()
                    + ") in one batch of one row: on a NEW_VERSION_BEHAVIOR family HBase then"
                    + " applies only the oldest and shows the cells between them, which the"
                    + " indexes cannot follow: refused. Send the deletes in separate calls, or at"
                    + " one timestamp");
          }
        }
      }
    }
  }

  /** The row state after a Put or Delete (with server-assigned timestamps) applies to {@code s}. */
  public RowState apply(RowState s, Mutation m) {
    RowState.Builder next = s.toBuilder();
    for (Map.Entry<byte[], List<Cell>> e : m.getFamilyCellMap().entrySet()) {
      byte[] family = e.getKey();
      for (Cell c : e.getValue()) {
        switch (c.getType()) {
          case Put -> {
            Column col = watchedColumn(family, c);
            if (col != null
                && next.maskedOnlyByStored(col, c.getTimestamp())
                && (next.storedMarkerAbove(col, c.getTimestamp())
                    || !serverStamped(c.getTimestamp()))) {
              throw new MaskedPutException(
                  "scbf: the Put of "
                      + col
                      + " at timestamp "
                      + c.getTimestamp()
                      + " is masked by a delete marker the region holds; HBase hides it until a"
                      + " major compaction purges the marker, and may show it after, which no"
                      + " index can follow: refused. Stamp it above the delete, or give the"
                      + " family NEW_VERSION_BEHAVIOR (where a delete masks only earlier writes)");
            }
            // Same timestamp: the later write wins, as in the region; a delete marker at or after
            // the put's timestamp (of the batch, or already in the region) masks it.
            if (col != null
                && !next.masked(col, c.getTimestamp())
                && (next.get(col) == null || c.getTimestamp() >= next.get(col).timestamp())) {
              next.put(col, CellUtil.cloneValue(c), c.getTimestamp());
            }
          }
          case DeleteColumn -> {
            Column col = watchedColumn(family, c);
            if (col != null) next.delete(col, c.getTimestamp());
          }
          case DeleteFamily -> {
            for (Column col : watched) {
              if (col.inFamily(family)) next.delete(col, c.getTimestamp());
            }
          }
          default -> {} // single-version deletes of watched columns are rejected by checkSupported
        }
      }
    }
    return next.build();
  }

  /**
   * Index mutations turning the index rows of {@code before} into those of {@code after}.
   *
   * @throws KeyTooLongException if a composite value of {@code after} is too long to index
   */
  public List<IndexMutation> diff(byte[] row, RowState before, RowState after) {
    List<IndexMutation> out = new ArrayList<>();
    for (IndexSpec spec : specs) {
      byte[] alias = spec.alias().getBytes(StandardCharsets.UTF_8);
      byte[] oldValue = IndexValues.valueOf(spec, before::value);
      byte[] newValue = IndexValues.valueOf(spec, after::value);
      boolean valueChanged = !Arrays.equals(oldValue, newValue);
      if (newValue != null && valueChanged && spec.isComposite()) {
        String tooLong = tooLong(spec, newValue, row);
        if (tooLong != null) {
          throw new KeyTooLongException(
              "the values of composite index columns " + spec.columns() + " " + tooLong);
        }
      }
      if (oldValue != null && valueChanged) {
        // At the time of the replacement: masks the old index row and none put back later.
        out.add(
            new IndexMutation(
                spec,
                new Delete(
                        IndexKeyCodec.rowKey(
                            IndexPlacement.salt(spec, alias, oldValue, row), alias, oldValue, row))
                    .addFamily(IndexCatalog.INDEX_FAMILY, replacedAt(spec, before, after)),
                false));
      }
      boolean renewed =
          newValue != null
              && !valueChanged
              && expires.test(spec)
              && indexTimestamp(spec, after) != indexTimestamp(spec, before);
      if (newValue != null && (valueChanged || renewed || coveredChanged(spec, before, after))) {
        long ts = valueChanged ? indexTimestamp(spec, after) : rewrittenAt(spec, before, after);
        Put put =
            new Put(
                IndexKeyCodec.rowKey(
                    IndexPlacement.salt(spec, alias, newValue, row), alias, newValue, row),
                ts);
        put.addColumn(
            IndexCatalog.INDEX_FAMILY,
            IndexCatalog.INDEX_QUALIFIER,
            ts,
            coveredValues(spec, after));
        out.add(new IndexMutation(spec, put, valueChanged));
      }
    }
    return out;
  }

  /**
   * The timestamp of the index row of {@code state}'s value: the newest of the cells it reflects
   * (indexed and covered; for a single-column index without covered columns, the indexed cell's),
   * or the latest timestamp (the index region's clock) if the cells have none yet. Index rows carry
   * it and the deletes of replaced index rows the time of the replacement ({@link #replacedAt}), so
   * a delete that lands late (a call that timed out but still runs, a zombie server, a region that
   * closed or moved in between) masks only the row it was meant for: a later write of the same
   * value has a newer timestamp (see docs/design.md, "Write path"). It depends on the visible cells
   * only, not on the delete markers of the batch that left them: the next change of the row reads
   * the cells back and must find the same timestamp, or its delete misses the row (issue 49, seed
   * 1097: a covered column deleted an hour ahead, where it held nothing, stamped its index row an
   * hour ahead, and the row's delete a moment later kept it). And the index row expires with its
   * newest cell under the family's TTL.
   */
  public static long indexTimestamp(IndexSpec spec, RowState state) {
    long ts = Long.MIN_VALUE;
    for (Column c : IndexValues.watchedColumns(spec)) {
      RowState.Version v = state.get(c);
      if (v != null) ts = Math.max(ts, v.timestamp());
    }
    return ts == Long.MIN_VALUE ? HConstants.LATEST_TIMESTAMP : ts;
  }

  /**
   * The timestamp of a rewrite of an index row whose value stays (covered values changed, or the
   * row renewed under a TTL): {@link #indexTimestamp} of {@code after}, unless the batch deleted a
   * cell the row reflected, leaving only older ones. Then the rewrite must still be at least as new
   * as the row it replaces (a put below the row's version would stay hidden under it): at the
   * replaced row's timestamp (a version at the same timestamp and a later sequence id wins) or at
   * the delete's, which also tops rows stamped by the index server's clock (written before 0.4),
   * but not beyond now, so a delete stamped into the future does not carry the row out of reach of
   * the row's next server-stamped change.
   */
  static long rewrittenAt(IndexSpec spec, RowState before, RowState after) {
    long ts = indexTimestamp(spec, after);
    long replaced = indexTimestamp(spec, before);
    long now = EnvironmentEdgeManager.currentTime();
    for (Column c : IndexValues.watchedColumns(spec)) {
      if (before.get(c) == null || after.get(c) != null) continue;
      ts = Math.max(ts, Math.max(replaced, Math.min(after.deleteMark(c), now)));
    }
    return ts;
  }

  /**
   * The timestamp of the delete of the index row of {@code before}'s value, which {@code after}
   * replaces: the newest of the replaced index row's ({@link #indexTimestamp}), the replacing
   * indexed (and, for a partial index, WHERE) cells' and the delete markers' that removed the
   * value. A value written back later is visible only as a newer version of each of these columns
   * (or newer than the marker), so its index row is newer than this delete. Fencing at the
   * replacement rather than at the replaced cell also masks index rows of the old value stamped
   * after their cell: those written before 0.4 carry the index server's clock at the time of their
   * write.
   */
  public static long replacedAt(IndexSpec spec, RowState before, RowState after) {
    long ts = indexTimestamp(spec, before);
    for (Column c : IndexValues.decidingColumns(spec)) {
      RowState.Version v = after.get(c);
      if (v != null) ts = Math.max(ts, v.timestamp());
      ts = Math.max(ts, after.deleteMark(c));
    }
    return ts;
  }

  /** The timestamp of an index put or delete of {@link #diff} (the latest timestamp if none). */
  public static long timestampOf(Mutation indexMutation) {
    for (List<Cell> cells : indexMutation.getFamilyCellMap().values()) {
      for (Cell c : cells) return c.getTimestamp();
    }
    return HConstants.LATEST_TIMESTAMP;
  }

  private static boolean coveredChanged(IndexSpec spec, RowState before, RowState after) {
    for (Column c : spec.covered()) {
      if (!Arrays.equals(before.value(c), after.value(c))) return true;
    }
    return false;
  }

  public static byte[] coveredValues(IndexSpec spec, RowState state) {
    if (spec.covered().isEmpty()) return new byte[0];
    List<byte[]> values = new ArrayList<>(spec.covered().size());
    for (Column c : spec.covered()) values.add(state.value(c));
    return CoveredValues.encode(values);
  }

  private Column watchedColumn(byte[] family, Cell c) {
    for (Named n : named) {
      if (Arrays.equals(n.family(), family) && CellUtil.matchingQualifier(c, n.qualifier())) {
        return n.column();
      }
    }
    return null;
  }

  /**
   * The watched columns' share of delete markers read from the region for one row (cells of other
   * types are ignored): what {@link RowState#masked} needs to tell a put the markers hide.
   */
  public RowState.StoredMarkers markers(List<Cell> cells) {
    Map<Column, Long> upTo = new HashMap<>();
    Map<Column, Set<Long>> exact = new HashMap<>();
    for (Cell c : cells) {
      byte[] family = CellUtil.cloneFamily(c);
      switch (c.getType()) {
        case DeleteColumn, Delete -> {
          Column col = watchedColumn(family, c);
          if (col == null) continue;
          if (c.getType() == Cell.Type.DeleteColumn) upTo.merge(col, c.getTimestamp(), Math::max);
          else exact.computeIfAbsent(col, k -> new HashSet<>()).add(c.getTimestamp());
        }
        case DeleteFamily, DeleteFamilyVersion -> {
          for (Column col : watched) {
            if (!col.inFamily(family)) continue;
            if (c.getType() == Cell.Type.DeleteFamily) upTo.merge(col, c.getTimestamp(), Math::max);
            else exact.computeIfAbsent(col, k -> new HashSet<>()).add(c.getTimestamp());
          }
        }
        default -> {}
      }
    }
    return new RowState.StoredMarkers(Map.copyOf(upTo), Map.copyOf(exact));
  }

  /** True if {@code family} holds a watched column. */
  public boolean watchesFamily(byte[] family) {
    for (Column col : watched) {
      if (col.inFamily(family)) return true;
    }
    return false;
  }

  private String describeWatched(Mutation m) {
    List<String> cols = new ArrayList<>();
    for (Map.Entry<byte[], List<Cell>> e : m.getFamilyCellMap().entrySet()) {
      for (Cell c : e.getValue()) {
        Column col = watchedColumn(e.getKey(), c);
        if (col != null) cols.add(col.toString());
      }
    }
    return String.join(", ", cols);
  }

  /**
   * One index-table mutation and the index it belongs to. {@code createsRow}: a put for a value the
   * data row did not hold before, so the index row is new (unless a stale copy or a resend is
   * there); false for deletes and for puts that only rewrite covered values.
   */
  public record IndexMutation(IndexSpec spec, Mutation mutation, boolean createsRow) {}
}
