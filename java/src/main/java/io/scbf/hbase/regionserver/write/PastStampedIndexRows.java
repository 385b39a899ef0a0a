package io.scbf.hbase.regionserver.write;

import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexUpdatePlanner;
import java.io.IOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Deletes of replaced index rows stamped in the past, raised to the version the index row holds.
 *
 * <p>Why: an index row carries its data cells' newest timestamp, or a later one when a delete of a
 * covered cell left only older cells (the rewrite must top the row it replaces, {@code
 * IndexUpdatePlanner#rewrittenAt}). The row's next change reads the cells only, so a delete stamped
 * from them can sit below that version and miss it (issue 49: a covered column deleted, then the
 * indexed value changed at a client timestamp two seconds in the past, left the old value's entry
 * for good). A rewrite is never stamped past the server's clock (unless its own cells are), so a
 * server-stamped delete tops it; only deletes stamped below the clock pay this read. Safe: the data
 * row's next writer waits for this cleanup ({@link IndexCleanups}), so the version read belongs to
 * the replaced row, not to a write-back of the same value.
 */
@InterfaceAudience.Private
final class PastStampedDeletes {
  private PastStampedDeletes() {}

  static Map<TableName, List<Mutation>> raise(
      Connection connection, Map<TableName, List<Mutation>> deletes, long now) throws IOException {
    Map<TableName, List<Mutation>> out = new LinkedHashMap<>();
    for (Map.Entry<TableName, List<Mutation>> e : deletes.entrySet()) {
      List<Mutation> past = new ArrayList<>();
      for (Mutation m : e.getValue()) {
        if (IndexUpdatePlanner.timestampOf(m) < now - IndexUpdatePlanner.SERVER_STAMP_SLACK_MS)
          past.add(m);
      }
      if (past.isEmpty()) {
        out.put(e.getKey(), e.getValue());
        continue;
      }
      long[] versions = IndexRowVersions.newest(connection, e.getKey(), past);
      Map<Mutation, Long> newest = new IdentityHashMap<>();
      for (int i = 0; i < versions.length; i++) newest.put(past.get(i), versions[i]);
      List<Mutation> raised = new ArrayList<>(e.getValue().size());
      for (Mutation m : e.getValue()) {
        long version = newest.getOrDefault(m, IndexRowVersions.NONE);
        raised.add(version <= IndexUpdatePlanner.timestampOf(m) ? m : at(m, version));
      }
      out.put(e.getKey(), raised);
    }
    return out;
  }

  private static Delete at(Mutation delete, long ts) {
    Delete raised = new Delete(delete.getRow()).addFamily(IndexCatalog.INDEX_FAMILY, ts);
    delete.getAttributesMap().forEach(raised::setAttribute);
    return raised;
  }
}
