package io.scbf.hbase.regionserver.eventual;

import io.scbf.hbase.shared.Settings;
import org.apache.hadoop.conf.Configuration;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How often the EVENTUAL peer's replication source reads its WAL once caught up. HBase's WAL reader
 * sleeps {@code replication.source.sleepforretries} (1 s) times a multiplier that grows while the
 * WAL is idle (up to {@code replication.source.maxretriesmultiplier}, 300), so with HBase's
 * defaults an index lags its writes by about 2 s, and by up to minutes after an idle spell. Those
 * two keys are region-server wide: lowering them in hbase-site.xml also makes every other peer poll
 * and retry faster. HBase 2.x reads no per-peer value, but each replication source copies the
 * server's configuration and hands that copy to its endpoint's {@code init} before it creates its
 * WAL readers and shippers (ReplicationSource#init, #initialize, #tryStartNewShipper), so the
 * endpoint sets them on its own source's copy only.
 */
@InterfaceAudience.Private
public final class EventualPolling {
  private static final Logger LOG = LoggerFactory.getLogger(EventualPolling.class);

  static final String SLEEP = "replication.source.sleepforretries";
  static final String MULTIPLIER = "replication.source.maxretriesmultiplier";
  private static final long HBASE_SLEEP = 1000;
  private static final int HBASE_MULTIPLIER = 300;

  private EventualPolling() {}

  /**
   * Sets {@code sourceConf} (one replication source's copy) to poll every {@link
   * Settings#EVENTUAL_POLL_MS}, backing off to {@link Settings#EVENTUAL_POLL_MAX_MS}; never slower
   * than what the server's own settings already give.
   */
  public static void apply(Configuration sourceConf, String peerId) {
    Settings settings = Settings.from(sourceConf);
    long poll = settings.eventualPollMs();
    if (poll == 0) return;
    long serverSleep = Math.max(1, sourceConf.getLong(SLEEP, HBASE_SLEEP));
    long serverLongest = serverSleep * Math.max(1, sourceConf.getInt(MULTIPLIER, HBASE_MULTIPLIER));
    long sleep = Math.min(poll, serverSleep);
    long longest = Math.max(sleep, Math.min(settings.eventualPollMaxMs(), serverLongest));
    int multiplier = (int) Math.min(Integer.MAX_VALUE, longest / sleep);
    sourceConf.setLong(SLEEP, sleep);
    sourceConf.setInt(MULTIPLIER, multiplier);
    LOG.info(
        "scbf: replication peer {} polls its WAL every {} ms, backing off to {} ms ({}={}, {}={}"
            + " on this peer's source only)",
        peerId,
        sleep,
        sleep * multiplier,
        SLEEP,
        sleep,
        MULTIPLIER,
        multiplier);
  }
}
