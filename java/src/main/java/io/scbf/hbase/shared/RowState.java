package io.scbf.hbase.shared;

import io.scbf.hbase.IndexSpec.Column;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The latest visible version (value, timestamp) of each watched column of one data row: what the
 * index must reflect. Also the delete markers applied while simulating a mini-batch: a marker masks
 * every put with a timestamp up to its own, even a put that comes later in the batch (all mutations
 * of a mini-batch share one timestamp); and the markers the region already holds at or above the
 * batch's put timestamps ({@link #masked}), which mask a put stamped at or below them in the same
 * way (a Put stamped into the past, or under a Delete stamped into the future). Immutable; {@link
 * IndexUpdatePlanner} derives successors from mutations.
 */
@InterfaceAudience.Private
public final class RowState {
  public static final RowState EMPTY = new RowState(Map.of(), Map.of(), StoredMarkers.NONE);

  public record Version(byte[] value, long timestamp) {}

  private final Map<Column, Version> latest;
  private final Map<Column, Long> deleteMarks;
  private final StoredMarkers stored;

  private RowState(
      Map<Column, Version> latest, Map<Column, Long> deleteMarks, StoredMarkers stored) {
    this.latest = latest;
    this.deleteMarks = deleteMarks;
    this.stored = stored;
  }

  /**
   * Delete markers the region holds for a row (read before the batch): per column the newest "all
   * versions up to" marker, and the timestamps that single-version markers mask. They decide
   * whether a put of the batch becomes visible; unlike the batch's own markers they do not stamp
   * index rows (a put that they do not mask is newer than all of them).
   */
  public record StoredMarkers(Map<Column, Long> upTo, Map<Column, Set<Long>> exact) {
    public static final StoredMarkers NONE = new StoredMarkers(Map.of(), Map.of());

    boolean masks(Column c, long timestamp) {
      return timestamp <= upTo.getOrDefault(c, Long.MIN_VALUE)
          || exact.getOrDefault(c, Set.of()).contains(timestamp);
    }
  }

  /** True if a marker the region already holds masks a put of {@code c} at {@code timestamp}. */
  public boolean masked(Column c, long timestamp) {
    return stored.masks(c, timestamp);
  }

  /** Latest version of the column, or null if the row has no visible value there. */
  public Version get(Column c) {
    return latest.get(c);
  }

  /**
   * The highest "delete all versions up to" marker applied to the column while simulating a
   * mini-batch, or Long.MIN_VALUE (a state read from the region has none).
   */
  public long deleteMark(Column c) {
    return deleteMarks.getOrDefault(c, Long.MIN_VALUE);
  }

  public byte[] value(Column c) {
    Version v = latest.get(c);
    return v == null ? null : v.value();
  }

  /** The state of a row read from the region: the latest version of each column read. */
  public static RowState of(Iterable<Cell> cells) {
    return of(cells, StoredMarkers.NONE);
  }

  /** As {@link #of(Iterable)}, with the delete markers the region holds for the row. */
  public static RowState of(Iterable<Cell> cells, StoredMarkers stored) {
    Builder b = new Builder(new HashMap<>(), new HashMap<>(), stored);
    for (Cell cell : cells) {
      b.put(
          new Column(CellUtil.cloneFamily(cell), CellUtil.cloneQualifier(cell)),
          CellUtil.cloneValue(cell),
          cell.getTimestamp());
    }
    return b.build();
  }

  public static Builder builder() {
    return new Builder(new HashMap<>(), new HashMap<>(), StoredMarkers.NONE);
  }

  public Builder toBuilder() {
    return new Builder(new HashMap<>(latest), new HashMap<>(deleteMarks), stored);
  }

  public static final class Builder {
    private final Map<Column, Version> latest;
    private final Map<Column, Long> deleteMarks;
    private final StoredMarkers stored;

    private Builder(
        Map<Column, Version> latest, Map<Column, Long> deleteMarks, StoredMarkers stored) {
      this.latest = latest;
      this.deleteMarks = deleteMarks;
      this.stored = stored;
    }

    /** True if a put of {@code c} at {@code timestamp} would be masked by a marker. */
    boolean masked(Column c, long timestamp) {
      return timestamp <= deleteMark(c) || stored.masks(c, timestamp);
    }

    /**
     * True if only a marker the region already holds masks a put of {@code c} at {@code timestamp}:
     * one that a major compaction may purge while the put is still in the memstore, which HBase
     * then shows (a marker of the same batch is flushed and compacted with the put).
     */
    boolean maskedOnlyByStored(Column c, long timestamp) {
      return timestamp > deleteMark(c) && stored.masks(c, timestamp);
    }

    /** True if a stored "all versions up to" marker of {@code c} lies above {@code timestamp}. */
    boolean storedMarkerAbove(Column c, long timestamp) {
      return stored.upTo().getOrDefault(c, Long.MIN_VALUE) > timestamp;
    }

    /** Highest delete marker timestamp applied to the column, or Long.MIN_VALUE. */
    long deleteMark(Column c) {
      return deleteMarks.getOrDefault(c, Long.MIN_VALUE);
    }

    /** Applies a "delete all versions up to {@code timestamp}" marker to the column. */
    public Builder delete(Column c, long timestamp) {
      Version v = latest.get(c);
      if (v != null && v.timestamp() <= timestamp) latest.remove(c);
      deleteMarks.merge(c, timestamp, Math::max);
      return this;
    }

    Version get(Column c) {
      return latest.get(c);
    }

    public Builder put(Column c, byte[] value, long timestamp) {
      latest.put(c, new Version(value, timestamp));
      return this;
    }

    public RowState build() {
      return new RowState(Map.copyOf(latest), Map.copyOf(deleteMarks), stored);
    }
  }
}
