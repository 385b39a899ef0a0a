package io.scbf.hbase.client;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.NotServingRegionException;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.RetriesExhaustedException;
import org.apache.hadoop.hbase.client.RetriesExhaustedException.ThrowableWithExtraContext;
import org.apache.hadoop.hbase.exceptions.RegionMovedException;
import org.junit.jupiter.api.Test;

/** Which failures {@link FreshLocations#movedOn} sends to a read with fresh locations. */
class FreshLocationsTest {
  private static ThrowableWithExtraContext attempt(Throwable t) {
    return new ThrowableWithExtraContext(t, System.currentTimeMillis(), "attempt");
  }

  private static RegionMovedException moved(int port) {
    return new RegionMovedException(ServerName.valueOf("localhost", port, 1L), 18);
  }

  @Test
  void aMovedRegionAnywhereInTheCausesIsMovedOn() {
    assertTrue(FreshLocations.movedOn(new IOException("call", moved(1))));
    assertTrue(FreshLocations.movedOn(new UncheckedIOException(new IOException(moved(1)))));
  }

  /**
   * Differential seed 1314: HBase's client followed two servers' "moved to" records of a dropped
   * index table's region 15 times, then met the region not served at all: the exhausted retries'
   * cause is only that last exception, and the stream failed instead of reading again.
   */
  @Test
  void retriesThatEndedNotServedAfterMovedRecordsAreMovedOn() {
    RetriesExhaustedException exhausted =
        new RetriesExhaustedException(
            16,
            List.of(
                attempt(moved(1)),
                attempt(moved(2)),
                attempt(new NotServingRegionException("t__idx_in,,1.abc. is not online"))));
    assertTrue(FreshLocations.movedOn(new UncheckedIOException(exhausted)));
  }

  @Test
  void otherFailuresAreNot() {
    assertFalse(FreshLocations.movedOn(new DoNotRetryIOException("scbf: refused")));
    assertFalse(
        FreshLocations.movedOn(
            new RetriesExhaustedException(
                3, List.of(attempt(new IOException("connection refused"))))));
  }
}
