package io.scbf.hbase.shared;

import java.io.IOException;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Threads;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Serializes the changes of the EVENTUAL peer's table list, made by clients (an index created or
 * switched) and the master (a table deleted). HBase replaces a peer's configuration whole, so two
 * changes at once read the same list and the later drops the earlier's table, whose EVENTUAL
 * indexes then never receive its edits; and two first uses both add the peer, one failing. The lock
 * is a cell of the record table, taken and given back with {@code checkAndMutate}. Its value says
 * until when it is held, so a holder that died frees it after {@link #LEASE_MS}. Only puts: a
 * delete could mask the next holder's put of the same millisecond.
 */
@InterfaceAudience.Private
public final class EventualPeerLock {
  static final long LEASE_MS = 60_000;
  static final long WAIT_MS = 120_000;

  /** Beside the probe ({@code \x00p}) and held ({@code \x00h}) rows, apart from the records. */
  private static final byte[] ROW = {0, 'l'};

  private static final byte[] QUALIFIER = Bytes.toBytes("peer");
  private static final byte[] FREE = Bytes.toBytes(0L);

  /** A change of the peer made under the lock. */
  public interface Change {
    void apply() throws IOException;
  }

  private EventualPeerLock() {}

  /**
   * Runs {@code change} holding the lock. Without a record table (no EVENTUAL index was ever
   * created) there is no peer to race on, and the change runs alone.
   */
  public static void holding(Admin admin, Change change) throws IOException {
    if (!admin.tableExists(EventualRecords.TABLE)) {
      change.apply();
      return;
    }
    try (Table records = admin.getConnection().getTable(EventualRecords.TABLE)) {
      byte[] mine = take(records);
      try {
        change.apply();
      } finally {
        records.checkAndMutate(
            CheckAndMutate.newBuilder(ROW)
                .ifEquals(EventualRecords.FAMILY, QUALIFIER, mine)
                .build(put(FREE)));
      }
    }
  }

  private static byte[] take(Table records) throws IOException {
    byte[] holder = Bytes.toBytes(UUID.randomUUID().toString());
    long deadline = System.currentTimeMillis() + WAIT_MS;
    while (true) {
      long now = System.currentTimeMillis();
      byte[] held =
          records
              .get(new Get(ROW).addColumn(EventualRecords.FAMILY, QUALIFIER))
              .getValue(EventualRecords.FAMILY, QUALIFIER);
      if (held == null || held.length < Bytes.SIZEOF_LONG || Bytes.toLong(held) < now) {
        byte[] mine = Bytes.add(Bytes.toBytes(now + LEASE_MS), holder);
        CheckAndMutate.Builder when = CheckAndMutate.newBuilder(ROW);
        CheckAndMutate take =
            held == null
                ? when.ifNotExists(EventualRecords.FAMILY, QUALIFIER).build(put(mine))
                : when.ifEquals(EventualRecords.FAMILY, QUALIFIER, held).build(put(mine));
        if (records.checkAndMutate(take).isSuccess()) return mine;
      }
      if (now >= deadline) {
        throw new IOException(
            "scbf: waited "
                + WAIT_MS
                + " ms for the lock on the table list of replication peer "
                + EventualRecords.PEER_ID
                + " (row \\x00l of "
                + EventualRecords.TABLE
                + "), which another change holds; its lease ends within "
                + LEASE_MS
                + " ms of its start: try again");
      }
      Threads.sleep(10 + ThreadLocalRandom.current().nextInt(40));
    }
  }

  private static Put put(byte[] value) {
    return new Put(ROW).addColumn(EventualRecords.FAMILY, QUALIFIER, value);
  }
}
