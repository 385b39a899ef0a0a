package io.scbf.hbase;

import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * What {@link IndexAdmin#verify} or {@link IndexAdmin#repair} found in a global index.
 *
 * @param dataRows data rows read
 * @param indexRows index rows read
 * @param missing index rows a data row produces that the index lacks
 * @param wrongCovered index rows present with other covered values than the data row holds
 * @param stale index rows no data row produces now (cost only re-checks, but take space)
 * @param written index rows written by the repair (missing + wrongCovered)
 * @param removed stale rows the repair removed
 * @param keptCurrent stale findings the data region found current when it re-checked (a write
 *     landed in between), left in place
 * @param missingSamples up to 10 index row keys of missing or wrong rows, printable
 * @param staleSamples up to 10 stale index row keys, printable
 */
@InterfaceAudience.Public
public record VerifyReport(
    TableName table,
    String alias,
    boolean repaired,
    long dataRows,
    long indexRows,
    long missing,
    long wrongCovered,
    long stale,
    long written,
    long removed,
    long keptCurrent,
    List<String> missingSamples,
    List<String> staleSamples) {

  /** True if the index held exactly the rows its data produces. */
  public boolean isConsistent() {
    return missing == 0 && wrongCovered == 0 && stale == 0;
  }

  @Override
  public String toString() {
    return String.format(
        "index '%s' of %s: %d data rows, %d index rows; missing %d, wrong covered values %d,"
            + " stale %d%s",
        alias,
        table,
        dataRows,
        indexRows,
        missing,
        wrongCovered,
        stale,
        repaired
            ? String.format(
                "; repaired: %d written, %d stale removed, %d found current on re-check",
                written, removed, keptCurrent)
            : "");
  }
}
