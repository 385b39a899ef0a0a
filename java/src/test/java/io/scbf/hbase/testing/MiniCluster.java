package io.scbf.hbase.testing;

import io.scbf.hbase.Coprocessors;
import java.io.IOException;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.StartMiniClusterOption;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.security.User;

/** An in-process HBase (mini ZooKeeper, HDFS-less local file system) with the scbf coprocessors. */
public final class MiniCluster {
  private MiniCluster() {}

  /** Starts a cluster with {@code regionServers} region servers; publishing every 500 ms. */
  public static HBaseTestingUtility start(int regionServers) throws Exception {
    return start(regionServers, conf -> {});
  }

  /** As {@link #start(int)}, with {@code overrides} applied to the configuration last. */
  public static HBaseTestingUtility start(int regionServers, Consumer<Configuration> overrides)
      throws Exception {
    HBaseTestingUtility util = new HBaseTestingUtility();
    Configuration conf = util.getConfiguration();
    Coprocessors.configure(conf);
    Coprocessors.trustInProcessRegionServers(conf);
    conf.setLong(Coprocessors.PUBLISH_INTERVAL_MS, 500);
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    conf.setInt("hbase.regionserver.handler.count", 10);
    conf.setInt("hbase.regionserver.metahandler.count", 5);
    conf.setLong(Coprocessors.CACHE_CAPACITY_BYTES, 8L << 20);
    overrides.accept(conf);
    util.startMiniCluster(
        StartMiniClusterOption.builder().numRegionServers(regionServers).numDataNodes(1).build());
    return util;
  }

  /**
   * A connection as a user of the cluster's superuser group, like the HBase service user: the only
   * clients that index tables accept writes from once the index is built. Tests that damage an
   * index on purpose use it.
   */
  public static Connection superuser(HBaseTestingUtility util) throws IOException {
    Configuration conf = util.getConfiguration();
    return ConnectionFactory.createConnection(
        conf, User.createUserForTesting(conf, "hbase-admin", new String[] {"supergroup"}));
  }
}
