package io.scbf.hbase;

import org.apache.yetus.audience.InterfaceAudience;

/**
 * How far a long index job has come: a backfill ({@link IndexAdmin#createIndex}, {@link
 * IndexAdmin#rebuildIndex}) or a part of a verify. Reported to a {@link Listener} about once a
 * second while the job runs, and once when it ends ({@link #finished}).
 *
 * @param job what runs, e.g. "backfill city of people"
 * @param rows rows read so far
 * @param invalidRows rows read so far that a backfill did not index because an indexed column of a
 *     declared type ({@link IndexSpec.ValueType}) holds a value that is not one of it (written
 *     before the index existed: the index refuses such writes); 0 in a verify's reports
 * @param regionsDone data regions finished
 * @param regions data regions in all
 * @param elapsedMs since the job started
 * @param rowsPerSecond rows over elapsed time
 * @param etaMs estimated time left: the share of the table's store size in finished regions,
 *     extrapolated; -1 until a region has finished
 * @param finished true in the last report
 */
@InterfaceAudience.Public
public record BuildProgress(
    String job,
    long rows,
    long invalidRows,
    int regionsDone,
    int regions,
    long elapsedMs,
    double rowsPerSecond,
    long etaMs,
    boolean finished) {

  /**
   * A report without {@code invalidRows} (0): the constructor of releases before typed columns,
   * kept so that code built against them links and compiles unchanged.
   */
  public BuildProgress(
      String job,
      long rows,
      int regionsDone,
      int regions,
      long elapsedMs,
      double rowsPerSecond,
      long etaMs,
      boolean finished) {
    this(job, rows, 0, regionsDone, regions, elapsedMs, rowsPerSecond, etaMs, finished);
  }

  /** Receives progress reports; called from the job's threads, one call at a time. */
  @FunctionalInterface
  public interface Listener {
    void onProgress(BuildProgress progress);

    /** A listener that ignores every report. */
    Listener NONE = p -> {};
  }

  @Override
  public String toString() {
    return String.format(
        "%s: %,d rows%s, %d/%d regions, %,.0f rows/s, %s",
        job,
        rows,
        invalidRows == 0
            ? ""
            : String.format(" (%,d not indexed: a value not of its column's type)", invalidRows),
        regionsDone,
        regions,
        rowsPerSecond,
        finished
            ? String.format("done in %.1f s", elapsedMs / 1e3)
            : etaMs < 0 ? "ETA unknown" : String.format("ETA %.0f s", etaMs / 1e3));
  }
}
