package io.scbf.hbase.bench;

import io.scbf.hbase.Coprocessors;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.StartMiniClusterOption;

/**
 * The benchmarks' mini cluster: the scbf coprocessors with their production defaults (unlike the
 * tests' {@code MiniCluster}, which publishes faster and shrinks pools and caches), one datanode,
 * no web UIs.
 */
final class BenchCluster {
  private BenchCluster() {}

  static HBaseTestingUtility start(int regionServers) throws Exception {
    return start(regionServers, conf -> {});
  }

  /**
   * The user guide's settings for EVENTUAL indexes: HBase's WAL reader backs off to seconds while a
   * WAL is idle.
   */
  static void eventualSettings(Configuration conf) {
    conf.setLong("replication.source.sleepforretries", 20);
    conf.setInt("replication.source.maxretriesmultiplier", 5);
  }

  /** As {@link #start(int)}, with a benchmark's own {@code settings} applied last. */
  static HBaseTestingUtility start(int regionServers, Consumer<Configuration> settings)
      throws Exception {
    HBaseTestingUtility util = new HBaseTestingUtility();
    Configuration conf = util.getConfiguration();
    Coprocessors.configure(conf);
    Coprocessors.trustInProcessRegionServers(conf);
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    settings.accept(conf);
    util.startMiniCluster(
        StartMiniClusterOption.builder().numRegionServers(regionServers).numDataNodes(1).build());
    return util;
  }
}
