package io.scbf.hbase.regionserver.write;

import io.scbf.hbase.regionserver.batch.Refusals;
import io.scbf.hbase.shared.IndexUpdatePlanner;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HConstants.OperationStatusCode;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The only write-path work of EVENTUAL indexes: refusing, per mutation, what their applier could
 * not follow. It reads the WAL, so a write that skips it would never be indexed; and what the
 * synchronous path refuses (a cell TTL, visibility labels, a key too long) it refuses too, because
 * the applier, like the synchronous path, indexes only what the data shows and stays.
 */
@InterfaceAudience.Private
public final class EventualWrites {
  private EventualWrites() {}

  /**
   * Marks the mutations of {@code batch} that {@code eventual}'s indexes cannot follow as failed.
   */
  public static void refuseUnsupported(
      IndexUpdatePlanner eventual,
      Durability tableDurability,
      MiniBatchOperationInProgress<Mutation> batch)
      throws DoNotRetryIOException {
    for (int i = 0; i < batch.size(); i++) {
      if (batch.getOperationStatus(i).getOperationStatusCode() != OperationStatusCode.NOT_RUN)
        continue;
      Mutation m = batch.getOperation(i);
      if (!eventual.concernsIndex(m)) continue;
      try {
        eventual.checkSupported(m);
        Durability d =
            m.getDurability() == Durability.USE_DEFAULT ? tableDurability : m.getDurability();
        if (d == Durability.SKIP_WAL) {
          throw new DoNotRetryIOException(
              "Durability.SKIP_WAL on a write of a column of an EVENTUAL index is not supported:"
                  + " the index is maintained from the write-ahead log");
        }
      } catch (DoNotRetryIOException e) {
        Refusals.refuse(batch, i, e.getMessage());
      }
    }
  }
}
