package io.scbf.hbase.regionserver;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.regionserver.eventual.EventualApplier;
import io.scbf.hbase.regionserver.eventual.EventualLag;
import io.scbf.hbase.regionserver.eventual.EventualPolling;
import io.scbf.hbase.regionserver.eventual.HeldRows;
import io.scbf.hbase.regionserver.eventual.WatchedCells;
import io.scbf.hbase.regionserver.write.IndexWriter;
import io.scbf.hbase.shared.EventualRecords;
import io.scbf.hbase.shared.IndexCatalog;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseInterfaceAudience;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.replication.BaseReplicationEndpoint;
import org.apache.hadoop.hbase.replication.NamespaceTableCfWALEntryFilter;
import org.apache.hadoop.hbase.replication.WALEntryFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.apache.hadoop.hbase.wal.WAL;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The EVENTUAL mode's replication endpoint (peer {@code scbf_eventual}, added by {@code IndexAdmin}
 * with the data tables that have EVENTUAL indexes as its table-cfs): HBase's replication reads each
 * region server's WAL and hands the edits of those tables here, in WAL order, and moves the queue
 * on only when {@link #replicate} returns true. This endpoint then applies the current data of
 * every row whose edits touched a column a global index watches ({@link WatchedCells}) to the
 * table's global indexes ({@link EventualApplier}) and answers true only once the index rows are
 * durable; so an acknowledged write is in the WAL until its index rows are, and a server's death
 * hands its queues, with the edits not yet applied, to another server.
 *
 * <p>Its WAL filter is the table-cfs filter alone, without the replication-scope filter: the data
 * families need no {@code REPLICATION_SCOPE}, so other peers ship exactly what they shipped before.
 * It also passes the probe markers that data regions write for {@code awaitIndexed} (meta-family
 * edits without replication scopes, which other peers' scope filters drop) and records each once
 * the edits before it are applied.
 */
@InterfaceAudience.LimitedPrivate(HBaseInterfaceAudience.CONFIG)
public class EventualIndexEndpoint extends BaseReplicationEndpoint {
  private static final Logger LOG = LoggerFactory.getLogger(EventualIndexEndpoint.class);

  private RegionServerContext context;
  private HRegionServer server;
  private IndexServices services;
  private EventualApplier applier;
  private HeldRows held;

  /** Applies the rows set aside ({@link HeldRows#drain}); this source's own thread. */
  private ScheduledExecutorService drains;

  /** Chunks of a batch applied in parallel; this source's own threads, stopped with it. */
  private ExecutorService chunks;

  private static final int CHUNK_THREADS = 4;

  /**
   * Sets this peer's WAL polling ({@link EventualPolling}) on the configuration HBase hands the
   * endpoint: the replication source's own copy, which its WAL readers and shippers, created after
   * this call, read their back-off from.
   */
  @Override
  public void init(Context context) throws IOException {
    super.init(context);
    EventualPolling.apply(context.getLocalConfiguration(), ctx.getPeerId());
  }

  @Override
  public boolean canReplicateToSameCluster() {
    return true;
  }

  @Override
  public UUID getPeerUUID() {
    return ctx.getClusterId();
  }

  @Override
  public WALEntryFilter getWALEntryfilter() {
    return new NamespaceTableCfWALEntryFilter(ctx.getReplicationPeer());
  }

  @Override
  public void start() {
    startAsync();
  }

  @Override
  public void stop() {
    stopAsync();
  }

  @Override
  protected void doStart() {
    if (ctx.getAbortable() instanceof HRegionServer rs) {
      server = rs;
      context = RegionServerContext.of(rs).orElse(null);
    }
    if (context == null) {
      // Edits stay queued (replicate answers false) until the coprocessor is loaded.
      LOG.error(
          "scbf: {} is not loaded on this region server; EVENTUAL indexes are not applied here",
          IndexRegionServerCoprocessor.class.getName());
    } else {
      services = context.attach();
      IndexWriter writer =
          new IndexWriter(
              context.settings(),
              services::connection,
              services.indexWriters(),
              services.indexCallsInFlight(),
              (t, us) -> {},
              server::isStopped);
      chunks =
          Executors.newFixedThreadPool(
              CHUNK_THREADS,
              r -> {
                Thread t = new Thread(r, "scbf-eventual-" + ctx.getPeerId());
                t.setDaemon(true);
                return t;
              });
      applier = new EventualApplier(services::connection, writer, chunks, server::getRegions);
      held =
          new HeldRows(services::connection, applier, this::specsOf, context.metrics().eventual());
      drains =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "scbf-eventual-held-" + ctx.getPeerId());
                t.setDaemon(true);
                return t;
              });
      long every = context.settings().eventualHeldRetryMs();
      drains.scheduleWithFixedDelay(this::drainHeld, every, every, TimeUnit.MILLISECONDS);
    }
    notifyStarted();
  }

  @Override
  protected void doStop() {
    if (drains != null) drains.shutdownNow();
    if (chunks != null) chunks.shutdownNow();
    if (services != null) {
      services = null;
      context.detach();
    }
    notifyStopped();
  }

  @Override
  public boolean replicate(ReplicateContext replicateContext) {
    if (applier == null) return false;
    List<WAL.Entry> entries = replicateContext.getEntries();
    long oldest = Long.MAX_VALUE;
    for (WAL.Entry e : entries) oldest = Math.min(oldest, e.getKey().getWriteTime());
    EventualLag lag = context.metrics().eventual();
    lag.started(this, oldest == Long.MAX_VALUE ? EnvironmentEdgeManager.currentTime() : oldest);
    int applied = 0;
    boolean ok = false;
    try {
      Map<TableName, WatchedCells> watched = new LinkedHashMap<>();
      Map<TableName, IOException> unreadable = new LinkedHashMap<>();
      Map<TableName, List<IndexSpec>> specs = new LinkedHashMap<>();
      for (WAL.Entry e : entries) {
        TableName table = e.getKey().getTableName();
        if (specs.containsKey(table) || unreadable.containsKey(table)) continue;
        try {
          specs.put(table, specsOf(table));
          watched.put(table, new WatchedCells(specs.get(table)));
        } catch (InterruptedIOException stopping) {
          throw stopping;
        } catch (IOException failed) {
          unreadable.put(table, failed); // all its rows are held: which columns count is unknown
        }
      }
      Map<TableName, Set<byte[]>> rows = new LinkedHashMap<>();
      List<Long> probes = new ArrayList<>();
      for (WAL.Entry e : entries) {
        TableName table = e.getKey().getTableName();
        WatchedCells tableWatched = watched.get(table);
        for (Cell c : e.getEdit().getCells()) {
          if (WALEdit.isMetaEditFamily(c)) {
            if (CellUtil.matchingQualifier(c, EventualRecords.PROBE_QUALIFIER)) {
              probes.add(Bytes.toLong(CellUtil.cloneValue(c)));
            }
          } else if (tableWatched == null || tableWatched.touches(c)) {
            rows.computeIfAbsent(table, t -> new TreeSet<>(Bytes.BYTES_COMPARATOR))
                .add(CellUtil.cloneRow(c));
          }
        }
      }
      // One table that cannot be applied must not hold up the others' edits behind it on this
      // WAL: its rows are set aside durably and applied from their data later (HeldRows), and the
      // batch is acknowledged. A probe of a held table is recorded too: awaitIndexed then waits
      // for the table's held rows.
      for (Map.Entry<TableName, Set<byte[]>> t : rows.entrySet()) {
        TableName table = t.getKey();
        if (unreadable.containsKey(table)) {
          held.hold(table, t.getValue(), unreadable.get(table));
        } else if (held.failing(table)) {
          held.hold(table, t.getValue(), null);
        } else {
          try {
            applier.apply(table, specs.get(table), t.getValue());
            applied += t.getValue().size();
          } catch (InterruptedIOException stopping) {
            throw stopping;
          } catch (IOException | RuntimeException failed) {
            held.hold(table, t.getValue(), failed);
          }
        }
      }
      recordProbes(probes);
      ok = true;
    } catch (IOException | RuntimeException e) {
      // Not acknowledged: replication sends the same edits again after its sleep.
      LOG.warn(
          "scbf: applying {} WAL edits to EVENTUAL indexes failed; retried: {}", entries.size(), e);
    } finally {
      lag.finished(this, ok, entries.size(), applied);
    }
    return ok;
  }

  /**
   * The table's index specs as its regions here see them (they reopen when it changes), else as the
   * master has them (a queue claimed from a dead server, a region moved away since).
   */
  private List<IndexSpec> specsOf(TableName table) throws IOException {
    for (Region r : server.getRegions(table)) {
      return IndexCatalog.readSpecs(r.getTableDescriptor()).valid();
    }
    try (Admin admin = services.connection().getAdmin()) {
      TableDescriptor td = admin.getDescriptor(table);
      return IndexCatalog.readSpecs(td).valid();
    } catch (org.apache.hadoop.hbase.TableNotFoundException gone) {
      return List.of(); // deleted since: its indexes went with it
    }
  }

  private void drainHeld() {
    try {
      held.drain();
    } catch (IOException | RuntimeException e) {
      LOG.debug("scbf: applying held rows failed; tried again later: {}", e.toString());
    }
  }

  private void recordProbes(List<Long> probes) throws IOException {
    if (probes.isEmpty()) return;
    List<Put> puts = new ArrayList<>(probes.size());
    long now = EnvironmentEdgeManager.currentTime();
    for (long id : probes) {
      puts.add(
          new Put(EventualRecords.probeRow(id))
              .addColumn(
                  EventualRecords.FAMILY, EventualRecords.PROBE_QUALIFIER, Bytes.toBytes(now)));
    }
    try (Table t = services.connection().getTable(EventualRecords.TABLE)) {
      t.put(puts);
    }
  }
}
