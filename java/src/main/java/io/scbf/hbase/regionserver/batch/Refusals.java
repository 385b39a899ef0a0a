package io.scbf.hbase.regionserver.batch;

import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HConstants.OperationStatusCode;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.OperationStatus;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * How a coprocessor refuses mutations of a mini-batch so that the client is told. A batch of
 * several rows takes a status per mutation and writes the rest. A mini-batch of one row may be
 * atomic (a {@code RowMutations}, a {@code checkAndMutate} of several mutations), and HBase's
 * {@code HRegion.mutateRow} ignores the statuses a coprocessor sets: a refused mutation would be
 * left unapplied while the client is told the call succeeded. Such a batch is failed whole with the
 * refusal instead. (An atomic batch of several rows, {@code MultiRowMutationEndpoint}, is not told
 * apart from a plain batch.)
 */
@InterfaceAudience.Private
public final class Refusals {
  private Refusals() {}

  /** Fails mutation {@code i} of {@code batch} with {@code why}. */
  public static void refuse(MiniBatchOperationInProgress<Mutation> batch, int i, String why)
      throws DoNotRetryIOException {
    if (oneRow(batch)) throw new DoNotRetryIOException(why);
    batch.setOperationStatus(i, new OperationStatus(OperationStatusCode.SANITY_CHECK_FAILURE, why));
  }

  /** Fails the batch's undecided mutations of {@code row}; the rest of the batch is written. */
  public static void refuseRow(MiniBatchOperationInProgress<Mutation> batch, byte[] row, String why)
      throws DoNotRetryIOException {
    if (oneRow(batch)) throw new DoNotRetryIOException(why);
    for (int i = 0; i < batch.size(); i++) {
      if (batch.getOperationStatus(i).getOperationStatusCode() == OperationStatusCode.NOT_RUN
          && Bytes.equals(batch.getOperation(i).getRow(), row)) {
        batch.setOperationStatus(
            i, new OperationStatus(OperationStatusCode.SANITY_CHECK_FAILURE, why));
      }
    }
  }

  private static boolean oneRow(MiniBatchOperationInProgress<Mutation> batch) {
    for (int i = 1; i < batch.size(); i++) {
      if (!Bytes.equals(batch.getOperation(i).getRow(), batch.getOperation(0).getRow())) {
        return false;
      }
    }
    return true;
  }
}
