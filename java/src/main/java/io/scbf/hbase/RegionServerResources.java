package io.scbf.hbase;

import io.scbf.HotscoreCache;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the scbf coprocessors of one region server share: the native hotscore cache, the
 * connection used for index writes and publications, the publisher of the bucket filters, and a
 * thread for filter builds. Created when the first index-related region opens on the server and
 * released with the last one (reference counted), keyed by server name so that several region
 * servers in one JVM (a mini cluster) stay separate.
 */
final class RegionServerResources {
  private static final Logger LOG = LoggerFactory.getLogger(RegionServerResources.class);
  private static final Map<ServerName, RegionServerResources> BY_SERVER = new HashMap<>();

  private final ServerName server;
  private final Configuration conf;
  private int references;
  private HotscoreCache cache;
  private Connection connection;
  private final ScheduledExecutorService scheduler;
  private final ExecutorService builder;
  private final ExecutorService indexWriters;
  private final FilterPublisher publisher;

  private RegionServerResources(RegionCoprocessorEnvironment env) {
    this.server = env.getServerName();
    this.conf = env.getConfiguration();
    this.scheduler = Executors.newSingleThreadScheduledExecutor(
        daemon("scbf-publisher-" + server.getPort()));
    this.builder = Executors.newSingleThreadExecutor(daemon("scbf-filter-builder-" + server.getPort()));
    // Fixed size, unbounded queue: a task only waits on an index RPC, which the index handler pool
    // serves without waiting on anything remote, never on a data handler or on another task; so
    // queued tasks always get to run (the deadlock argument of IndexRpcSchedulerFactory holds).
    this.indexWriters = Executors.newFixedThreadPool(
        conf.getInt(Coprocessors.INDEX_WRITE_THREADS, Coprocessors.DEFAULT_INDEX_WRITE_THREADS),
        daemon("scbf-index-writer-" + server.getPort()));
    this.publisher = new FilterPublisher(this, scheduler, Coprocessors.publishIntervalMs(conf));
  }

  static RegionServerResources acquire(RegionCoprocessorEnvironment env) {
    synchronized (BY_SERVER) {
      RegionServerResources r = BY_SERVER.computeIfAbsent(env.getServerName(),
          s -> new RegionServerResources(env));
      if (r.references++ == 0) IndexMetrics.registerRegionServer(env.getMetricRegistryForRegionServer());
      return r;
    }
  }

  void release() {
    synchronized (BY_SERVER) {
      if (--references > 0) return;
      BY_SERVER.remove(server);
    }
    publisher.stop();
    scheduler.shutdownNow();
    builder.shutdownNow();
    indexWriters.shutdown(); // the last region is closed: no data handler waits on a task any more
    synchronized (this) {
      if (cache != null) cache.close();
      if (connection != null) {
        try {
          connection.close();
        } catch (IOException e) {
          LOG.warn("closing the scbf index connection of {}", server, e);
        }
      }
    }
  }

  /** All live resources of this JVM (one per region server), for the metrics gauges. */
  static Iterable<RegionServerResources> all() {
    synchronized (BY_SERVER) {
      return java.util.List.copyOf(BY_SERVER.values());
    }
  }

  ServerName server() {
    return server;
  }

  FilterPublisher publisher() {
    return publisher;
  }

  ExecutorService builder() {
    return builder;
  }

  /** Threads that send the per-index-region batches of a data write in parallel ({@link IndexWriter}). */
  ExecutorService indexWriters() {
    return indexWriters;
  }

  synchronized HotscoreCache cache() {
    if (cache == null) {
      cache = HotscoreCache.builder()
          .capacityBytes(conf.getLong(Coprocessors.CACHE_CAPACITY_BYTES,
              Coprocessors.DEFAULT_CACHE_CAPACITY_BYTES))
          .policy(HotscoreCache.Policy.HOTSCORE)
          .period(conf.getInt(Coprocessors.CACHE_PERIOD, 1000))
          .decay(conf.getDouble(Coprocessors.CACHE_DECAY, 0.5))
          .build();
    }
    return cache;
  }

  /** Cache statistics without creating the cache. */
  synchronized io.scbf.CacheStats cacheStatsOrNull() {
    return cache == null ? null : cache.stats();
  }

  /**
   * The connection for index writes and publications: few, short retries, so that an unavailable
   * index table fails the data write within seconds (holding its row locks meanwhile) instead of
   * after the default minutes of retries.
   */
  synchronized Connection connection() throws IOException {
    if (connection == null) {
      // A copy through HBaseConfiguration: the environment's configuration is a read-only view
      // whose entries a plain Configuration copy constructor would not see.
      Configuration c = HBaseConfiguration.create(conf);
      c.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, conf.getInt(Coprocessors.INDEX_WRITE_RETRIES, 5));
      c.setLong(HConstants.HBASE_CLIENT_PAUSE, 100);
      c.setInt(HConstants.HBASE_RPC_TIMEOUT_KEY, 10_000);
      c.setInt(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, 20_000);
      // Index priority on every index-table call, Deletes included (see IndexRpcControllerFactory).
      c.set(org.apache.hadoop.hbase.ipc.RpcControllerFactory.CUSTOM_CONTROLLER_CONF_KEY,
          IndexRpcControllerFactory.class.getName());
      connection = ConnectionFactory.createConnection(c);
    }
    return connection;
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
