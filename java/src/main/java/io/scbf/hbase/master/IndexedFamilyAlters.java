package io.scbf.hbase.master;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.shared.IndexCatalog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The alters of a family an index reads that would change what HBase shows with no write to follow,
 * which {@link IndexLifecycleObserver} refuses. The user guide's way around each is to drop the
 * family's indexes, alter, and create them again (their backfill reads what HBase shows then).
 *
 * <p><b>Raising the TTL or MIN_VERSIONS of a family that has a TTL.</b> A region drops a cell past
 * its family's TTL (beyond MIN_VERSIONS) only when a flush or a compaction rewrites it; until then
 * it holds the cell, hidden. Raising either shows again the expired cells a region still holds.
 * Data regions, index regions and a data region's local index families (stores of their own) are
 * flushed and compacted at different times, so after such a raise one side can show what the other
 * has dropped: a row the index misses, or an index entry whose row HBase no longer shows (the
 * differential tester's seed 1050). Neither side records which expired cells the other still holds,
 * so the index cannot be brought back in line. Lowering either setting hides cells on both sides by
 * the same timestamps, and a family without a TTL hides nothing: those alters go through.
 *
 * <p><b>Changing NEW_VERSION_BEHAVIOR.</b> With it a delete masks the writes before it; without it,
 * every cell stamped at or below it. Turning it off hides a Put written after a delete stamped
 * above it, which the index holds (its entry then answers a row HBase no longer shows:
 * IndexFenceClusterTest); turning it on changes which cells the markers already stored mask too.
 */
final class IndexedFamilyAlters {
  private static final String AROUND =
      "drop those indexes, alter the family, then create them again";

  private IndexedFamilyAlters() {}

  /** One sentence per family whose alter is refused; empty if none is. */
  static List<String> problems(TableDescriptor current, TableDescriptor next) {
    Set<String> kept =
        IndexCatalog.readSpecs(next).valid().stream()
            .map(IndexSpec::alias)
            .collect(Collectors.toSet());
    Map<String, Set<String>> aliasesByFamily = new TreeMap<>();
    for (IndexSpec spec : IndexCatalog.readSpecs(current).valid()) {
      if (!kept.contains(spec.alias())) continue; // dropped in this alter
      for (IndexSpec.Column c : IndexValues.watchedColumns(spec)) {
        aliasesByFamily
            .computeIfAbsent(Bytes.toString(c.family()), f -> new TreeSet<>())
            .add(spec.alias());
      }
    }
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, Set<String>> e : aliasesByFamily.entrySet()) {
      byte[] family = Bytes.toBytes(e.getKey());
      ColumnFamilyDescriptor before = current.getColumnFamily(family);
      ColumnFamilyDescriptor after = next.getColumnFamily(family);
      if (before == null || after == null) continue;
      String indexes = String.join(", ", e.getValue());
      String raised = before.getTimeToLive() == HConstants.FOREVER ? null : raised(before, after);
      if (raised != null) {
        problems.add(
            "raising "
                + raised
                + " of family "
                + e.getKey()
                + ", which has a TTL, would show again cells past the old TTL that regions still"
                + " hold, and its indexes ("
                + indexes
                + ") drop such cells at other times than the data regions: "
                + AROUND);
      }
      if (before.isNewVersionBehavior() != after.isNewVersionBehavior()) {
        problems.add(
            "changing NEW_VERSION_BEHAVIOR of family "
                + e.getKey()
                + " would change which cells its stored delete markers mask, with no write its"
                + " indexes ("
                + indexes
                + ") could follow: "
                + AROUND);
      }
    }
    return problems;
  }

  private static String raised(ColumnFamilyDescriptor before, ColumnFamilyDescriptor after) {
    if (after.getTimeToLive() > before.getTimeToLive()) {
      return "TTL (" + before.getTimeToLive() + " s to " + ttl(after.getTimeToLive()) + ")";
    }
    if (after.getMinVersions() > before.getMinVersions()) {
      return "MIN_VERSIONS (" + before.getMinVersions() + " to " + after.getMinVersions() + ")";
    }
    return null;
  }

  private static String ttl(int seconds) {
    return seconds == HConstants.FOREVER ? "FOREVER" : seconds + " s";
  }
}
