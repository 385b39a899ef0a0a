package io.scbf.hbase.shared;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.KeepDeletedCells;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The families no index may read: those whose deletes HBase itself can undo. On a family with
 * NEW_VERSION_BEHAVIOR that keeps deleted cells (KEEP_DELETED_CELLS TRUE or TTL), HBase 2.6.1 shows
 * again, once a region reopens and compacts, a Put that a delete of its row had hidden, with no
 * write to the row (the differential tester's seed 1268, reproduced on HBase without the product;
 * with KEEP_DELETED_CELLS FALSE it did not). An index follows writes; an answer that changes
 * without one it cannot follow, so it would miss the row. Such an index is refused instead (fail
 * closed), at its creation and at an alter of its family into that combination.
 *
 * <p>Indexes that already read such a family (defined by an earlier release) are left as they are,
 * so that other alters of their table still go through: only what a descriptor change adds is
 * refused.
 */
@InterfaceAudience.Private
public final class UndoableDeletes {
  private UndoableDeletes() {}

  /** Why no index may read {@code family}; null if one may. */
  public static String whyNotIndexable(ColumnFamilyDescriptor family) {
    if (!family.isNewVersionBehavior() || family.getKeepDeletedCells() == KeepDeletedCells.FALSE) {
      return null;
    }
    return "family "
        + family.getNameAsString()
        + " has NEW_VERSION_BEHAVIOR and KEEP_DELETED_CELLS => "
        + family.getKeepDeletedCells()
        + ", with which HBase can show again, after a compaction, a cell a delete had hidden, and"
        + " no index can follow that; set KEEP_DELETED_CELLS => FALSE or NEW_VERSION_BEHAVIOR =>"
        + " false on it";
  }

  /**
   * One sentence per index of {@code next} that reads a family no index may read, leaving out the
   * indexes {@code current} (null for a new table) already had over that family as it was.
   */
  public static List<String> problems(TableDescriptor current, TableDescriptor next) {
    Set<String> problems = new LinkedHashSet<>();
    for (IndexSpec spec : IndexCatalog.readSpecs(next).valid()) {
      for (IndexSpec.Column c : IndexValues.watchedColumns(spec)) {
        ColumnFamilyDescriptor family = next.getColumnFamily(c.family());
        if (family == null || whyNotIndexable(family) == null || hadIt(current, spec, c)) continue;
        problems.add(
            "index '" + spec.alias() + "' reads column " + c + ", and " + whyNotIndexable(family));
      }
    }
    return new ArrayList<>(problems);
  }

  private static boolean hadIt(TableDescriptor current, IndexSpec spec, IndexSpec.Column c) {
    if (current == null) return false;
    ColumnFamilyDescriptor family = current.getColumnFamily(c.family());
    if (family == null || whyNotIndexable(family) == null) return false;
    return IndexCatalog.readSpecs(current).valid().stream()
        .anyMatch(s -> s.alias().equals(spec.alias()) && IndexValues.watchedColumns(s).contains(c));
  }
}
