package io.scbf.hbase.regionserver.write;

import io.scbf.hbase.shared.IndexRowVersions;
import io.scbf.hbase.shared.IndexUpdatePlanner;
import java.io.IOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Index writes stamped in the past, raised to the version their index row holds: deletes of
 * replaced rows, and rewrites of a row whose value stays (a covered column changed).
 *
 * <p>Why: an index row carries its data cells' newest timestamp, or a later one when a delete of a
 * covered cell left only older cells (the rewrite must top the row it replaces, {@code
 * IndexUpdatePlanner#rewrittenAt}). The row's next change reads the cells only, so a write stamped
 * from them can sit below that version: a delete misses it (issue 49: a covered column deleted,
 * then the indexed value changed at a client timestamp two seconds in the past, left the old
 * value's entry for good), and a rewrite hides under it (another covered column then written in the
 * past kept the entry's old covered values). A rewrite is never stamped past the server's clock
 * (unless its own cells are), so a server-stamped write tops it; only writes stamped below the
 * clock pay this read. Safe: the data row's writers take turns (its row lock for the rewrite; its
 * next writer waits for the deletes, {@link IndexCleanups}), so the version read belongs to the row
 * being replaced, not to a later write of it. Local indexes need neither: their deletes are stamped
 * at least at the clock, and their answers take covered values from the rows they read.
 */
@InterfaceAudience.Private
final class PastStampedIndexRows {
  private PastStampedIndexRows() {}

  /** The index rows' deletes, each stamped at least at the version its row holds. */
  static Map<TableName, List<Mutation>> raiseDeletes(
      Connection connection, Map<TableName, List<Mutation>> deletes, long now) throws IOException {
    return raise(connection, deletes, now, m -> true);
  }

  /**
   * The index rows' puts, each rewrite of an existing row (not one that {@code creates}) stamped at
   * least at the version that row holds.
   */
  static Map<TableName, List<Mutation>> raiseRewrites(
      Connection connection,
      Map<TableName, List<Mutation>> puts,
      long now,
      Predicate<Mutation> creates)
      throws IOException {
    return raise(connection, puts, now, creates.negate());
  }

  private static Map<TableName, List<Mutation>> raise(
      Connection connection,
      Map<TableName, List<Mutation>> writes,
      long now,
      Predicate<Mutation> which)
      throws IOException {
    Map<TableName, List<Mutation>> out = new LinkedHashMap<>();
    for (Map.Entry<TableName, List<Mutation>> e : writes.entrySet()) {
      List<Mutation> past = new ArrayList<>();
      for (Mutation m : e.getValue()) {
        if (which.test(m)
            && IndexUpdatePlanner.timestampOf(m) < now - IndexUpdatePlanner.SERVER_STAMP_SLACK_MS) {
          past.add(m);
        }
      }
      if (past.isEmpty()) {
        out.put(e.getKey(), e.getValue());
        continue;
      }
      List<Mutation> raisedPast = IndexRowVersions.raise(connection, e.getKey(), past);
      Map<Mutation, Mutation> raisedOf = new IdentityHashMap<>();
      for (int i = 0; i < past.size(); i++) raisedOf.put(past.get(i), raisedPast.get(i));
      List<Mutation> raised = new ArrayList<>(e.getValue().size());
      for (Mutation m : e.getValue()) raised.add(raisedOf.getOrDefault(m, m));
      out.put(e.getKey(), raised);
    }
    return out;
  }
}
