package io.scbf.hbase.regionserver.write;

import io.scbf.hbase.shared.EventualRecords;
import java.io.IOException;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.MultiVersionConcurrencyControl;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.apache.hadoop.hbase.wal.WAL;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.apache.hadoop.hbase.wal.WALKeyImpl;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Writes an awaitIndexed probe into a data region's WAL, the way HBase writes its own flush and
 * region-event markers: a meta-family edit, after every edit the region acknowledged before it, and
 * without replication scopes, so that peers other than the EVENTUAL one (their scope filter) drop
 * it, and a WAL split does not replay it into the region.
 */
@InterfaceAudience.Private
public final class EventualProbes {
  private EventualProbes() {}

  /** Writes and syncs a probe marker; returns its id. */
  public static long write(HRegion region) throws IOException {
    long id = ThreadLocalRandom.current().nextLong();
    long now = EnvironmentEdgeManager.currentTime();
    WAL wal = region.getWAL();
    MultiVersionConcurrencyControl mvcc = region.getMVCC();
    WALKeyImpl key =
        new WALKeyImpl(
            region.getRegionInfo().getEncodedNameAsBytes(),
            region.getRegionInfo().getTable(),
            now,
            mvcc,
            new TreeMap<>(Bytes.BYTES_COMPARATOR));
    WALEdit edit = new WALEdit();
    edit.add(
        new KeyValue(
            region.getRegionInfo().getStartKey(),
            WALEdit.METAFAMILY,
            EventualRecords.PROBE_QUALIFIER,
            now,
            Bytes.toBytes(id)),
        WALEdit.METAFAMILY);
    try {
      wal.sync(wal.appendMarker(region.getRegionInfo(), key, edit));
    } finally {
      if (key.getWriteEntry() != null) mvcc.complete(key.getWriteEntry());
    }
    return id;
  }
}
