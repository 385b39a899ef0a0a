package io.scbf.hbase;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.coprocessor.CoprocessorHost;
import org.apache.hadoop.hbase.regionserver.RSRpcServices;

/**
 * The site configuration that deploys scbf-hbase: the coprocessors load from the server class
 * path for every table (each one is a no-op on tables that are neither indexed nor index tables),
 * so the JNI library is loaded once per JVM by the system class loader, and index writes get
 * their own RPC handler pool. Tests, the demo and operators use this one call; the README shows
 * the equivalent hbase-site.xml.
 *
 * <p>Loading the coprocessors as table attributes from a jar on HDFS instead gives each table its
 * own class loader. io.scbf.Native then extracts and loads a private copy of libscbfjni.so per
 * loader (the JDK binds one library file to one loader), so it works, but every table gets its own
 * copy of the native code and of the "per region server" hot cache, whose capacity then applies
 * per table; and the master endpoint and the index RPC pool cannot be loaded that way at all.
 */
public final class Coprocessors {
  private Coprocessors() {}

  /** Interval between filter publications to the master, ms (default 1000). */
  public static final String PUBLISH_INTERVAL_MS = "scbf.publish.interval.ms";
  public static final long DEFAULT_PUBLISH_INTERVAL_MS = 1000;
  /** A region not heard from for this long is "unsure" to routing, ms (default 3 intervals + 2 s). */
  public static final String ROUTE_STALE_MS = "scbf.route.stale.ms";
  /** Bytes of native memory for the hotscore lookup cache of each region server (default 64 MiB). */
  public static final String CACHE_CAPACITY_BYTES = "scbf.cache.capacity.bytes";
  public static final long DEFAULT_CACHE_CAPACITY_BYTES = 64L << 20;
  /** Lookups per hotscore period (default 1000) and decay a in (0, 1] (default 0.5). */
  public static final String CACHE_PERIOD = "scbf.cache.period";
  public static final String CACHE_DECAY = "scbf.cache.decay";
  /** Client retries of an index write before the data write fails (default 5). */
  public static final String INDEX_WRITE_RETRIES = "scbf.index.write.retries";
  /**
   * Threads per region server that send the per-index-region batches of data writes in parallel
   * with the data handlers' own (default 16).
   */
  public static final String INDEX_WRITE_THREADS = "scbf.index.write.threads";
  public static final int DEFAULT_INDEX_WRITE_THREADS = 16;

  static final String[] REGION_COPROCESSORS = {
      DataTableObserver.class.getName(), IndexRegionCoprocessor.class.getName()};
  static final String[] MASTER_COPROCESSORS = {RoutingMasterEndpoint.class.getName()};

  /** Adds the scbf coprocessors and the index RPC scheduler to a server configuration. */
  public static Configuration configure(Configuration conf) {
    append(conf, CoprocessorHost.REGION_COPROCESSOR_CONF_KEY, REGION_COPROCESSORS);
    append(conf, CoprocessorHost.MASTER_COPROCESSOR_CONF_KEY, MASTER_COPROCESSORS);
    conf.set(RSRpcServices.REGION_SERVER_RPC_SCHEDULER_FACTORY_CLASS,
        IndexRpcSchedulerFactory.class.getName());
    return conf;
  }

  static long publishIntervalMs(Configuration conf) {
    return conf.getLong(PUBLISH_INTERVAL_MS, DEFAULT_PUBLISH_INTERVAL_MS);
  }

  static long routeStaleMs(Configuration conf) {
    return conf.getLong(ROUTE_STALE_MS, 3 * publishIntervalMs(conf) + 2000);
  }

  private static void append(Configuration conf, String key, String[] classes) {
    List<String> all = new ArrayList<>(Arrays.asList(conf.getTrimmedStrings(key)));
    for (String c : classes) {
      if (!all.contains(c)) all.add(c);
    }
    conf.setStrings(key, all.toArray(new String[0]));
  }
}
