package io.scbf.hbase;

import io.scbf.hbase.shared.Settings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The site configuration that deploys scbf-hbase: the coprocessors load from the server class path
 * for every table (each one is a no-op on tables that are neither indexed nor index tables), so the
 * JNI library is loaded once per JVM by the system class loader, and index writes get their own RPC
 * handler pool. Tests, the demo and operators use this one call; the README shows the equivalent
 * hbase-site.xml.
 *
 * <p>Classes are named, not referenced, so that this class loads on a client with hbase-client
 * alone (a test checks that each name is the real class and each key HBase's own).
 *
 * <p>Loading the coprocessors as table attributes from a jar on HDFS instead gives each table its
 * own class loader. io.scbf.Native then extracts and loads a private copy of libscbfjni.so per
 * loader (the JDK binds one library file to one loader), so it works, but every table gets its own
 * copy of the native code and of the "per region server" hot cache, whose capacity then applies per
 * table; and the master endpoint, the region-server coprocessor and the index RPC pool cannot be
 * loaded that way at all.
 */
@InterfaceAudience.Public
public final class Coprocessors {
  private Coprocessors() {}

  /**
   * Interval between filter publications to the master, ms (default {@value
   * #DEFAULT_PUBLISH_INTERVAL_MS}).
   */
  public static final String PUBLISH_INTERVAL_MS = Settings.PUBLISH_INTERVAL_MS;

  public static final long DEFAULT_PUBLISH_INTERVAL_MS = Settings.DEFAULT_PUBLISH_INTERVAL_MS;

  /**
   * A region not heard from for this long is "unsure" to routing, ms (default 3 intervals + 2 s).
   */
  public static final String ROUTE_STALE_MS = Settings.ROUTE_STALE_MS;

  /**
   * Bytes of native memory for the hotscore lookup cache of each region server (default 64 MiB).
   */
  public static final String CACHE_CAPACITY_BYTES = Settings.CACHE_CAPACITY_BYTES;

  public static final long DEFAULT_CACHE_CAPACITY_BYTES = Settings.DEFAULT_CACHE_CAPACITY_BYTES;

  /** Policy of the hot cache: hotscore (adaptive, default), paper or lru. */
  public static final String CACHE_POLICY = Settings.CACHE_POLICY;

  /** Policy paper: lookups per period (default 1000) and decay a in (0, 1] (default 0.5). */
  public static final String CACHE_PERIOD = Settings.CACHE_PERIOD;

  public static final String CACHE_DECAY = Settings.CACHE_DECAY;

  /** Client retries of an index write before the data write fails (default 5). */
  public static final String INDEX_WRITE_RETRIES = Settings.INDEX_WRITE_RETRIES;

  /**
   * Threads per region server that send the per-index-region batches of data writes in parallel
   * with the data handlers' own (default 16).
   */
  public static final String INDEX_WRITE_THREADS = Settings.INDEX_WRITE_THREADS;

  public static final int DEFAULT_INDEX_WRITE_THREADS = Settings.DEFAULT_INDEX_WRITE_THREADS;

  /** HBase's keys (CoprocessorHost's and RSRpcServices' constants, in hbase-server). */
  static final String REGION_COPROCESSOR_KEY = "hbase.coprocessor.region.classes";

  static final String REGIONSERVER_COPROCESSOR_KEY = "hbase.coprocessor.regionserver.classes";
  static final String MASTER_COPROCESSOR_KEY = "hbase.coprocessor.master.classes";
  static final String RPC_SCHEDULER_FACTORY_KEY = "hbase.region.server.rpc.scheduler.factory.class";
  static final String SPLIT_POLICY_KEY = "hbase.regionserver.region.split.policy";
  static final String HBASE_DEFAULT_SPLIT_POLICY =
      "org.apache.hadoop.hbase.regionserver.SteppingSplitPolicy";

  private static final String SERVER = "io.scbf.hbase.regionserver.";
  static final String[] REGION_COPROCESSORS = {
    SERVER + "DataTableObserver", SERVER + "IndexRegionCoprocessor"
  };
  static final String[] REGIONSERVER_COPROCESSORS = {SERVER + "IndexRegionServerCoprocessor"};
  private static final String MASTER = "io.scbf.hbase.master.";
  static final String[] MASTER_COPROCESSORS = {
    MASTER + "RoutingMasterEndpoint",
    MASTER + "IndexDescriptorValidator", // first: a rejected descriptor changes nothing
    MASTER + "IndexLifecycleObserver"
  };
  static final String RPC_SCHEDULER_FACTORY = SERVER + "IndexRpcSchedulerFactory";
  static final String SPLIT_POLICY = SERVER + "LocalIndexSplitPolicy";

  /**
   * The RPC scheduler factory that receives every call the index pool does not take: HBase's own by
   * default; {@link #configure} moves a scheduler already configured (e.g. Apache Phoenix's {@code
   * org.apache.hadoop.hbase.ipc.PhoenixRpcSchedulerFactory}) here.
   */
  public static final String RPC_SCHEDULER_DELEGATE = Settings.RPC_SCHEDULER_DELEGATE;

  /** Priority of index writes, which sends them to the index handler pool (default 1500). */
  public static final String INDEX_RPC_PRIORITY = Settings.INDEX_RPC_PRIORITY;

  /**
   * Adds the scbf coprocessors and the index RPC scheduler to a server configuration. A scheduler
   * already configured (another product's, such as Apache Phoenix's) is kept behind the index pool
   * as {@link #RPC_SCHEDULER_DELEGATE}, unless a delegate is set already. The servers' default
   * split policy becomes HBase's default with split points from data families only on tables with
   * local indexes (LocalIndexSplitPolicy), unless the site chose another one: so no table
   * descriptor needs to name a class of the jar.
   */
  public static Configuration configure(Configuration conf) {
    append(conf, REGION_COPROCESSOR_KEY, REGION_COPROCESSORS);
    append(conf, REGIONSERVER_COPROCESSOR_KEY, REGIONSERVER_COPROCESSORS);
    append(conf, MASTER_COPROCESSOR_KEY, MASTER_COPROCESSORS);
    String current = conf.getTrimmed(RPC_SCHEDULER_FACTORY_KEY);
    if (current != null
        && !current.equals(RPC_SCHEDULER_FACTORY)
        && conf.getTrimmed(RPC_SCHEDULER_DELEGATE) == null) {
      conf.set(RPC_SCHEDULER_DELEGATE, current);
    }
    conf.set(RPC_SCHEDULER_FACTORY_KEY, RPC_SCHEDULER_FACTORY);
    String policy = conf.getTrimmed(SPLIT_POLICY_KEY);
    if (policy == null || policy.equals(HBASE_DEFAULT_SPLIT_POLICY)) {
      conf.set(SPLIT_POLICY_KEY, SPLIT_POLICY);
    }
    return conf;
  }

  /**
   * For an in-process cluster (HBaseTestingUtility) only: makes its region servers superusers, as
   * the HBase service user is in production. The testing utility runs each region server as its own
   * test user ({@code <user>.hfs.<n>}, group {@code supergroup}), and only superusers may publish
   * routing state and write index rows through the region servers' endpoint.
   */
  public static Configuration trustInProcessRegionServers(Configuration conf) {
    append(conf, "hbase.superuser", new String[] {"@supergroup"});
    return conf;
  }

  private static void append(Configuration conf, String key, String[] classes) {
    List<String> all = new ArrayList<>(Arrays.asList(conf.getTrimmedStrings(key)));
    for (String c : classes) {
      if (!all.contains(c)) all.add(c);
    }
    conf.setStrings(key, all.toArray(new String[0]));
  }
}
