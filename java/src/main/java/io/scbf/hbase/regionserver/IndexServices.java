package io.scbf.hbase.regionserver;

import io.scbf.CacheStats;
import io.scbf.HotscoreCache;
import io.scbf.hbase.regionserver.index.FilterCompactor;
import io.scbf.hbase.regionserver.index.FilterPublisher;
import io.scbf.hbase.regionserver.index.IndexRegionHost;
import io.scbf.hbase.regionserver.index.OpenIndexRegions;
import io.scbf.hbase.regionserver.write.IndexWriter;
import io.scbf.hbase.shared.DaemonThreads;
import io.scbf.hbase.shared.Settings;
import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.ipc.RpcControllerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the scbf region coprocessors of one server share while any of their regions is open (started
 * and stopped by {@link RegionServerContext}): the native hot cache, the connection for index
 * writes and publications, the filter publisher, a thread for filter builds, the pool that sends
 * index batches in parallel and the one that sends index deletes after data writes.
 */
final class IndexServices implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IndexServices.class);

  private final ServerName server;
  private final Configuration conf;
  private final Settings settings;
  private final ScheduledExecutorService publishing;
  private final ExecutorService builder;
  private final ExecutorService watchedRowsBuilder;
  private final ExecutorService indexWriters;
  private final IndexWriter.SharedCalls indexCalls = new IndexWriter.SharedCalls();
  private final ThreadPoolExecutor indexCleanup;
  private final OpenIndexRegions regions = new OpenIndexRegions();
  private final FilterPublisher publisher;
  private final FilterCompactor compactor;
  private HotscoreCache cache; // guarded by this
  private Connection connection; // guarded by this
  private ThreadPoolExecutor connectionPool; // guarded by this

  IndexServices(ServerName server, Configuration conf, Settings settings) {
    this.server = server;
    this.conf = conf;
    this.settings = settings;
    this.publishing =
        Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("scbf-publisher-" + server.getPort()));
    this.builder =
        Executors.newSingleThreadExecutor(
            DaemonThreads.named("scbf-filter-builder-" + server.getPort()));
    this.watchedRowsBuilder =
        Executors.newSingleThreadExecutor(
            DaemonThreads.named("scbf-watched-rows-" + server.getPort()));
    // Fixed size, unbounded queue: a task only waits on an index RPC, which the index handler pool
    // serves without waiting on anything remote, never on a data handler or on another task; so
    // queued tasks always get to run (the deadlock argument of IndexRpcSchedulerFactory holds).
    this.indexWriters =
        Executors.newFixedThreadPool(
            settings.indexWriteThreads(),
            DaemonThreads.named("scbf-index-writer-" + server.getPort()));
    // Bounded: when cleanups pile up, the writer that adds one sends it itself (its locks are
    // released by then), which slows writers down instead of growing the queue without limit. The
    // same happens after shutdown, so a registered cleanup always runs and ends.
    this.indexCleanup =
        new ThreadPoolExecutor(
            settings.indexWriteThreads(),
            settings.indexWriteThreads(),
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(4 * settings.indexWriteThreads()),
            DaemonThreads.named("scbf-index-cleanup-" + server.getPort()),
            (task, pool) -> task.run());
    this.publisher =
        new FilterPublisher(
            server,
            regions,
            this::connection,
            publishing,
            settings.publishIntervalMs(),
            settings.routeStaleMs() / 3);
    long interval = settings.publishIntervalMs();
    this.compactor = new FilterCompactor(regions, builder);
    publishing.scheduleWithFixedDelay(compactor, interval, interval, TimeUnit.MILLISECONDS);
  }

  Settings settings() {
    return settings;
  }

  OpenIndexRegions regions() {
    return regions;
  }

  FilterPublisher publisher() {
    return publisher;
  }

  FilterCompactor compactor() {
    return compactor;
  }

  /** What this server's index regions (global buckets and local indexes) share. */
  IndexRegionHost indexRegionHost() {
    return new IndexRegionHost(cache(), regions, publisher, builder);
  }

  /** The single thread that builds and compacts bucket filters. */
  ExecutorService builder() {
    return builder;
  }

  /**
   * The thread that fills data regions' {@link WatchedRows} filters (apart from {@link #builder}:
   * routing waits for bucket filters, nothing waits for these).
   */
  ExecutorService watchedRowsBuilder() {
    return watchedRowsBuilder;
  }

  /**
   * Threads that send the per-server index calls of a data write in parallel ({@link IndexWriter}).
   */
  ExecutorService indexWriters() {
    return indexWriters;
  }

  /** The index calls in flight from this server, which its index writers group with. */
  IndexWriter.SharedCalls indexCallsInFlight() {
    return indexCalls;
  }

  /**
   * Threads that send index deletes after data writes ({@link IndexCleanups}). Separate from {@link
   * #indexWriters}: a cleanup waits on index-writer tasks, and a pool whose tasks wait on tasks of
   * the same pool can starve.
   */
  Executor indexCleanup() {
    return indexCleanup;
  }

  synchronized HotscoreCache cache() {
    if (cache == null) {
      cache =
          HotscoreCache.builder()
              .capacityBytes(settings.cacheCapacityBytes())
              .policy(
                  HotscoreCache.Policy.valueOf(
                      settings.cachePolicy().toUpperCase(java.util.Locale.ROOT)))
              .period(settings.cachePeriod())
              .decay(settings.cacheDecay())
              .build();
    }
    return cache;
  }

  /** Cache statistics without creating the cache. */
  synchronized CacheStats cacheStatsOrNull() {
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
      c.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, settings.indexWriteRetries());
      c.setLong(HConstants.HBASE_CLIENT_PAUSE, 100);
      c.setInt(HConstants.HBASE_RPC_TIMEOUT_KEY, settings.indexRpcTimeoutMs());
      c.setInt(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, settings.indexOperationTimeoutMs());
      // Index priority on every index-table call, Deletes included (see IndexRpcControllerFactory).
      c.set(
          RpcControllerFactory.CUSTOM_CONTROLLER_CONF_KEY,
          IndexRpcControllerFactory.class.getName());
      // Our pool, not the connection's own: HBase's close() waits up to 10 s for its own pool's
      // tasks, and a scan retrying against a region that closed with the server would hold every
      // region server stop that long. Ours is interrupted at close instead (see close()).
      int threads = c.getInt("hbase.hconnection.threads.max", 256);
      connectionPool =
          new ThreadPoolExecutor(
              threads,
              threads,
              60,
              TimeUnit.SECONDS,
              new LinkedBlockingQueue<>(),
              DaemonThreads.named("scbf-index-connection-" + server.getPort()));
      connectionPool.allowCoreThreadTimeOut(true);
      // A plain client connection, not the environment's (createConnection / getConnection): it
      // authenticates as the user this server logged in as (its Kerberos principal on a secure
      // cluster), a superuser. The environment's short-circuits calls to this server's own
      // regions, which then run in the context of the RPC being served and are authorized as its
      // caller: with the AccessController, a writer's index writes and the EVENTUAL applier's
      // calls were refused (SecureClusterTest, tried), and its close waits on HBase's own pool.
      connection = ConnectionFactory.createConnection(c, connectionPool);
    }
    return connection;
  }

  /** The last region is closed: no data handler waits on a task any more. */
  @Override
  public void close() {
    publisher.stop();
    publishing.shutdownNow();
    builder.shutdownNow();
    watchedRowsBuilder.shutdownNow();
    indexCleanup.shutdown();
    indexWriters.shutdown();
    synchronized (this) {
      if (cache != null) cache.close();
      if (connection != null) {
        try {
          connection.close();
        } catch (IOException e) {
          LOG.warn("closing the scbf index connection of {}", server, e);
        }
        // Whatever still runs there (a retrying scan or write of a stopped reader) is given up,
        // as it would be when the server process exits.
        connectionPool.shutdownNow();
      }
    }
  }
}
