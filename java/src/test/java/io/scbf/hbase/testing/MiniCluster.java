package io.scbf.hbase.testing;

import io.scbf.hbase.Coprocessors;
import io.scbf.hbase.shared.Settings;
import java.io.IOException;
import java.security.PrivilegedExceptionAction;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.StartMiniClusterOption;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.coprocessor.CoprocessorHost;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessController;
import org.apache.hadoop.hbase.util.JVMClusterUtil.MasterThread;
import org.apache.hadoop.hbase.util.JVMClusterUtil.RegionServerThread;

/**
 * An in-process HBase (mini ZooKeeper, HDFS-less local file system) with the scbf coprocessors.
 * Without Kerberos its servers run as {@link #serverUser}, a member of {@code supergroup} (an HBase
 * superuser, see {@link Coprocessors#trustInProcessRegionServers}), and the tests' own connections
 * as the test process's user, who is not one: as in a deployment, where the HBase service user is
 * not the applications' user. Servers a test starts later go through {@link #startRegionServer} and
 * {@link #startMaster} for the same reason.
 */
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
    // A region server a test aborts may never finish aborting in-process; HBase then halts the
    // JVM 20 minutes later, with every test class that runs after it in the same fork.
    conf.setLong("hbase.regionserver.abort.timeout", TimeUnit.DAYS.toMillis(7));
    // The local file system instead of a mini HDFS, as scripts/cluster.sh runs HBase: a cluster
    // starts and stops in about half the time, and each table operation writes its layout faster.
    // Without checksum files (see UnchecksummedLocalFileSystem: an EVENTUAL index's awaitIndexed
    // timed out on the checksummed one).
    conf.set("fs.defaultFS", "file:///");
    conf.set("fs.file.impl", UnchecksummedLocalFileSystem.class.getName());
    conf.set("hbase.wal.provider", "filesystem");
    conf.setBoolean("hbase.unsafe.stream.capability.enforce", false);
    overrides.accept(conf);
    util.startMiniZKCluster();
    asServer(
        util,
        () ->
            util.startMiniHBaseCluster(
                StartMiniClusterOption.builder().numRegionServers(regionServers).build()));
    // Starting made the utility's connection as the servers' user: the tests' is their own.
    util.closeConnection();
    return util;
  }

  /** Puts HBase's AccessController first on the master, the regions and the region servers. */
  public static void withAccessController(Configuration conf) {
    String ac = AccessController.class.getName();
    for (String key :
        List.of(
            CoprocessorHost.MASTER_COPROCESSOR_CONF_KEY,
            CoprocessorHost.REGION_COPROCESSOR_CONF_KEY,
            CoprocessorHost.REGIONSERVER_COPROCESSOR_CONF_KEY)) {
      conf.set(key, ac + "," + conf.get(key));
    }
  }

  /**
   * The user in-process servers run as. Without HDFS, HBase's mini cluster would run them as the
   * test process's user, which makes every test client a superuser that index tables and the
   * servers' own calls accept.
   */
  public static User serverUser(Configuration conf) throws IOException {
    return User.createUserForTesting(
        conf, User.getCurrent().getShortName() + ".hbase", new String[] {"supergroup"});
  }

  /**
   * For {@link #start(int, Consumer)}: no block cache, and every block read into HBase's pooled
   * off-heap buffers, as with a BucketCache in production. A cell kept past its scanner then reads
   * a buffer handed on to another read (or past its end: the JVM crashes) instead of passing.
   */
  public static void readBlocksOffHeap(Configuration conf) {
    conf.setFloat(HConstants.HFILE_BLOCK_CACHE_SIZE_KEY, 0f);
    conf.setInt(ByteBuffAllocator.MIN_ALLOCATE_SIZE_KEY, 0);
  }

  /** Starts one more region server as {@link #serverUser}. */
  public static RegionServerThread startRegionServer(HBaseTestingUtility util) throws Exception {
    return asServer(util, () -> util.getMiniHBaseCluster().startRegionServer());
  }

  /** Starts a master as {@link #serverUser}. */
  public static MasterThread startMaster(HBaseTestingUtility util) throws Exception {
    return asServer(util, () -> util.getMiniHBaseCluster().startMaster());
  }

  private static <T> T asServer(HBaseTestingUtility util, PrivilegedExceptionAction<T> start)
      throws Exception {
    Configuration conf = util.getConfiguration();
    // With Kerberos the servers log in as their own principal, which must stay their identity.
    if (User.isHBaseSecurityEnabled(conf)) return start.run();
    return serverUser(conf).runAs(start);
  }

  /**
   * Sleeps until a routed query from another client must find the rows acknowledged at {@code
   * ackedAtMillis} on a {@code BY_ROW} global index (or a local one queried with {@code
   * scbf.client.local.read.after.ack=false}): the consistency contract's bound (publication
   * interval plus the client's routing refresh, docs/design.md), with a margin for a loaded machine
   * whose publishing chore runs late. Before that bound a miss is allowed. A local index's routed
   * queries need no wait: they find every row acknowledged before they start.
   */
  public static void awaitRoutingBound(long ackedAtMillis) throws InterruptedException {
    long bound = 500 + Settings.DEFAULT_CLIENT_ROUTING_REFRESH_MS + 2_000;
    long left = ackedAtMillis + bound - System.currentTimeMillis();
    if (left > 0) Thread.sleep(left);
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
