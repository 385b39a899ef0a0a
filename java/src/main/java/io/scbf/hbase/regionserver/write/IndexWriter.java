package io.scbf.hbase.regionserver.write;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.IndexWriteException;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRegionWrites;
import io.scbf.hbase.shared.proto.IndexProtos.IndexRowMutation;
import io.scbf.hbase.shared.proto.IndexProtos.IndexWriteRequest;
import io.scbf.hbase.shared.proto.IndexProtos.IndexWriteResponse;
import io.scbf.hbase.shared.proto.IndexProtos.IndexWriteService;
import io.scbf.hbase.shared.proto.IndexProtos.RegionWriteFailure;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Writes the index mutations of one data mini-batch: one {@link IndexWriteEndpoint} call per index
 * region server, the calls in parallel (on the region server's index writer pool, the last one in
 * the calling thread), each applying all of its regions' rows and syncing the WAL once. Calls carry
 * the index RPC priority ({@link IndexRpcSchedulerFactory}, set by the connection's {@link
 * IndexRpcControllerFactory}).
 *
 * <p>Regions that fail (moved, split, closing, too busy, server down) are re-located and resent
 * until {@code scbf.index.write.retries} attempts or {@code scbf.index.operation.timeout.ms} are
 * used up: index rows are idempotent (a put of an index row writes the same bytes; a delete of an
 * absent row changes nothing), so resending a region whose rows were partly applied is safe. Then
 * the write fails with a clear {@link IndexWriteException}. A write of a server that stops fails
 * after its first attempt instead: the regions it would wait for are often the ones its own stop
 * closed, and re-locating them held a data region's close until Hadoop's shutdown hook gave up (30
 * s); the client retries the data write on the region's next server.
 */
@InterfaceAudience.Private
public final class IndexWriter {
  /**
   * When index mutations are written relative to their data write; it decides what a failure means.
   */
  public enum Phase {
    /** Index puts before the data write: a failure fails the data write, which is not applied. */
    BEFORE_DATA,
    /** Index deletes after the data write: a failure leaves stale index rows, the write stands. */
    AFTER_DATA,
    /**
     * The EVENTUAL applier's puts and deletes, long after the data write was acknowledged: a
     * failure fails the applier's batch, which replication ships again.
     */
    APPLIER
  }

  /** The index-write connection, created on first use (see {@code IndexServices}). */
  public interface ConnectionSource {
    Connection get() throws IOException;
  }

  /** Told, per index table, how long a data write waited for that index's rows to be durable. */
  public interface WaitListener {
    void indexWritten(String indexTable, long micros);
  }

  /**
   * What one grouped call carries at most, in index mutations (a data batch heavier than that goes
   * alone): about what HBase's own client sends per server and call.
   */
  static final int MAX_GROUP_MUTATIONS = 1_000;

  /** What the index writers of one region server share: their calls in flight, by server. */
  public static final class SharedCalls {
    private final CallGroups<ServerName, List<RegionRows>, Failed> groups =
        new CallGroups<>(MAX_GROUP_MUTATIONS);

    /** Grouped calls sent (with {@code scbf.index.write.grouping}). */
    public long calls() {
      return groups.calls();
    }

    /** The index writes of data batches those calls carried. */
    public long writesCarried() {
      return groups.parts();
    }
  }

  private final Settings settings;
  private final ConnectionSource connections;
  private final ExecutorService writers;
  private final CallGroups<ServerName, List<RegionRows>, Failed> groups; // null: each call alone
  private final WaitListener waits;
  private final BooleanSupplier serverStopping;

  /**
   * The Admin of the current connection, kept: it only makes the per-server channels (HBase's
   * HBaseAdmin makes each from the connection alone, so threads may share it), and making one per
   * call cost about 1% of an indexed write's CPU.
   */
  private volatile AdminOf admin;

  private record AdminOf(Connection connection, Admin admin) {}

  /**
   * @param writers the threads that send the per-server index calls of a data write in parallel
   * @param shared the calls of the server's other index writers, to group with ({@link
   *     CallGroups}); each call goes alone if null or {@code scbf.index.write.grouping} is false
   * @param waits told after each successful {@link Phase#BEFORE_DATA} write, per index table, the
   *     time from the write's start until the last call carrying that index's rows returned
   *     (retries included): what the data write waited for that index
   * @param serverStopping whether this writer's region server is stopping (then a failed attempt is
   *     not retried)
   */
  public IndexWriter(
      Settings settings,
      ConnectionSource connections,
      ExecutorService writers,
      SharedCalls shared,
      WaitListener waits,
      BooleanSupplier serverStopping) {
    this.settings = settings;
    this.connections = connections;
    this.writers = writers;
    this.groups = shared != null && settings.indexWriteGrouping() ? shared.groups : null;
    this.waits = waits;
    this.serverStopping = serverStopping;
  }

  /** The rows of one index region, as located. */
  record RegionRows(TableName table, HRegionLocation location, List<Mutation> mutations) {}

  /** What one attempt left to do: regions to resend, and the last reason. */
  static final class Failed {
    final List<RegionRows> regions = new ArrayList<>();
    String reason;
    boolean fatal;

    void add(RegionRows r, String why, boolean retriable) {
      regions.add(r);
      if (reason == null || !retriable)
        reason = r.location().getRegion().getEncodedName() + ": " + why;
      fatal |= !retriable;
    }

    void addAll(Failed other) {
      regions.addAll(other.regions);
      if (other.reason != null && (reason == null || other.fatal)) reason = other.reason;
      fatal |= other.fatal;
    }
  }

  /** The connection index rows are written through, for reads that decide what to write. */
  public Connection connection() throws IOException {
    return connections.get();
  }

  /** Writes every mutation or throws {@link IndexWriteException}; returns when all are durable. */
  public void write(String dataTable, Map<TableName, List<Mutation>> byIndexTable, Phase phase)
      throws IndexWriteException {
    long start = System.nanoTime();
    // Only the before-data wait is reported: the data write does not wait for the deletes after it.
    Map<TableName, Long> doneAt = phase == Phase.BEFORE_DATA ? new ConcurrentHashMap<>() : null;
    int count = byIndexTable.values().stream().mapToInt(List::size).sum();
    String tables = byIndexTable.keySet().toString();
    long deadline = EnvironmentEdgeManager.currentTime() + settings.indexOperationTimeoutMs();
    int attempts = settings.indexWriteRetries() + 1;
    List<RegionRows> pending;
    Connection connection;
    try {
      connection = connections.get();
      pending = locate(connection, byIndexTable, false);
    } catch (IOException e) {
      throw failure(dataTable, tables, count, phase, e.toString(), e);
    }
    for (int attempt = 1; ; attempt++) {
      Failed failed = sendAll(connection, pending, doneAt);
      if (failed.regions.isEmpty()) {
        if (doneAt != null) {
          doneAt.forEach((t, end) -> waits.indexWritten(t.getNameAsString(), (end - start) / 1000));
        }
        return;
      }
      boolean stopping = serverStopping.getAsBoolean();
      if (failed.fatal
          || stopping
          || attempt >= attempts
          || EnvironmentEdgeManager.currentTime() >= deadline) {
        throw failure(
            dataTable,
            tables,
            failed.regions.stream().mapToInt(r -> r.mutations().size()).sum(),
            phase,
            failed.reason
                + " (after "
                + attempt
                + " attempt(s)"
                + (stopping ? "; not retried: this region server is stopping" : "")
                + ")",
            null);
      }
      try {
        Thread.sleep(
            Math.min(100L * attempt, Math.max(0, deadline - EnvironmentEdgeManager.currentTime())));
        Map<TableName, List<Mutation>> again = new LinkedHashMap<>();
        for (RegionRows r : failed.regions)
          again.computeIfAbsent(r.table(), t -> new ArrayList<>()).addAll(r.mutations());
        pending = locate(connection, again, true);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw failure(dataTable, tables, count, phase, "interrupted", e);
      } catch (IOException e) {
        throw failure(dataTable, tables, count, phase, e.toString(), e);
      }
    }
  }

  private static List<RegionRows> locate(
      Connection connection, Map<TableName, List<Mutation>> byIndexTable, boolean reload)
      throws IOException {
    List<RegionRows> out = new ArrayList<>();
    for (Map.Entry<TableName, List<Mutation>> e : byIndexTable.entrySet()) {
      Map<String, RegionRows> byRegion = new LinkedHashMap<>();
      // Regions located in this call, by start key: a mini-batch's hundreds of rows fall in a few
      // buckets, and each locator call costs about a microsecond (tracing, names).
      TreeMap<byte[], HRegionLocation> located = new TreeMap<>(Bytes.BYTES_COMPARATOR);
      try (RegionLocator locator = connection.getRegionLocator(e.getKey())) {
        for (Mutation m : e.getValue()) {
          Map.Entry<byte[], HRegionLocation> floor = located.floorEntry(m.getRow());
          HRegionLocation loc =
              floor != null && floor.getValue().getRegion().containsRow(m.getRow())
                  ? floor.getValue()
                  : locator.getRegionLocation(m.getRow(), reload);
          located.put(loc.getRegion().getStartKey(), loc);
          byRegion
              .computeIfAbsent(
                  loc.getRegion().getEncodedName(),
                  r -> new RegionRows(e.getKey(), loc, new ArrayList<>()))
              .mutations()
              .add(m);
        }
      }
      out.addAll(byRegion.values());
    }
    return out;
  }

  /**
   * One call per server, in parallel; every call ends before this returns. {@code doneAt}: per
   * index table, the latest time a call carrying its rows returned (null: not timed).
   */
  private Failed sendAll(
      Connection connection, List<RegionRows> regions, Map<TableName, Long> doneAt) {
    if (regions.isEmpty()) return new Failed();
    Map<ServerName, List<RegionRows>> byServer = new LinkedHashMap<>();
    for (RegionRows r : regions)
      byServer.computeIfAbsent(r.location().getServerName(), s -> new ArrayList<>()).add(r);
    List<Map.Entry<ServerName, List<RegionRows>>> calls = new ArrayList<>(byServer.entrySet());
    List<Future<Failed>> others = new ArrayList<>(calls.size() - 1);
    for (Map.Entry<ServerName, List<RegionRows>> c : calls.subList(0, calls.size() - 1)) {
      others.add(writers.submit(() -> timed(connection, c.getKey(), c.getValue(), doneAt)));
    }
    Map.Entry<ServerName, List<RegionRows>> last = calls.get(calls.size() - 1);
    Failed failed = timed(connection, last.getKey(), last.getValue(), doneAt);
    for (int i = 0; i < others.size(); i++) {
      try {
        failed.addAll(getUninterruptibly(others.get(i)));
      } catch (ExecutionException e) {
        for (RegionRows r : calls.get(i).getValue()) failed.add(r, e.getCause().toString(), true);
      }
    }
    return failed;
  }

  private Failed timed(
      Connection connection,
      ServerName server,
      List<RegionRows> regions,
      Map<TableName, Long> doneAt) {
    Failed failed =
        groups == null
            ? send(connection, server, regions)
            : groups.call(
                server,
                regions,
                regions.stream().mapToInt(r -> r.mutations().size()).sum(),
                (s, parts) -> sendGroup(connection, s, parts));
    if (doneAt != null) {
      long end = System.nanoTime();
      for (RegionRows r : regions) doneAt.merge(r.table(), end, Math::max);
    }
    return failed;
  }

  /**
   * One call carrying several data writes' rows for one server, a result for each. A region's
   * failure does not say whose rows caused it, so each write with rows in a failed region is sent
   * again alone and gets its own answer (index writes are idempotent; the rows that were applied
   * stay applied).
   */
  private List<Failed> sendGroup(
      Connection connection, ServerName server, List<List<RegionRows>> parts) {
    if (parts.size() == 1) return List.of(send(connection, server, parts.get(0)));
    Map<String, RegionRows> merged = new LinkedHashMap<>();
    for (List<RegionRows> part : parts) {
      for (RegionRows r : part) {
        merged
            .computeIfAbsent(
                r.location().getRegion().getEncodedName(),
                e -> new RegionRows(r.table(), r.location(), new ArrayList<>()))
            .mutations()
            .addAll(r.mutations());
      }
    }
    Failed together = send(connection, server, new ArrayList<>(merged.values()));
    Set<String> failedRegions = new HashSet<>();
    for (RegionRows r : together.regions)
      failedRegions.add(r.location().getRegion().getEncodedName());
    List<Failed> out = new ArrayList<>(parts.size());
    for (List<RegionRows> part : parts) {
      boolean inFailedRegion =
          part.stream()
              .anyMatch(r -> failedRegions.contains(r.location().getRegion().getEncodedName()));
      out.add(inFailedRegion ? send(connection, server, part) : new Failed());
    }
    return out;
  }

  private Failed send(Connection connection, ServerName server, List<RegionRows> regions) {
    Failed failed = new Failed();
    IndexWriteRequest.Builder request = IndexWriteRequest.newBuilder();
    Map<String, RegionRows> byEncoded = new LinkedHashMap<>();
    for (RegionRows r : regions) {
      String encoded = r.location().getRegion().getEncodedName();
      byEncoded.put(encoded, r);
      IndexRegionWrites.Builder w = IndexRegionWrites.newBuilder().setEncodedRegion(encoded);
      for (Mutation m : r.mutations()) w.addMutations(toProto(m));
      request.addRegions(w);
    }
    try {
      IndexWriteResponse response =
          IndexWriteService.newBlockingStub(admin(connection).coprocessorService(server))
              .write(null, request.build());
      for (RegionWriteFailure f : response.getFailuresList()) {
        RegionRows r = byEncoded.get(f.getEncodedRegion());
        if (r != null) failed.add(r, f.getMessage(), f.getRetriable());
      }
    } catch (ServiceException | IOException | RuntimeException e) {
      Throwable cause = e instanceof ServiceException && e.getCause() != null ? e.getCause() : e;
      boolean retriable = !(cause instanceof AccessDeniedException);
      for (RegionRows r : regions) failed.add(r, server + ": " + cause, retriable);
    }
    return failed;
  }

  private Admin admin(Connection connection) throws IOException {
    AdminOf current = admin;
    if (current == null || current.connection() != connection) {
      current = new AdminOf(connection, connection.getAdmin());
      admin = current;
    }
    return current.admin();
  }

  /**
   * Index mutations are a Put of the one index cell, or a Delete: whole-row, or one family delete
   * marker at a timestamp (the fence, see {@code IndexUpdatePlanner#indexTimestamp}).
   */
  static IndexRowMutation toProto(Mutation m) {
    IndexRowMutation.Builder b =
        IndexRowMutation.newBuilder().setRow(ByteString.copyFrom(m.getRow()));
    if (m instanceof Delete && m.getFamilyCellMap().isEmpty()) return b.build();
    List<Cell> cells = m.getFamilyCellMap().get(IndexCatalog.INDEX_FAMILY);
    if (cells == null || cells.size() != 1 || m.getFamilyCellMap().size() != 1) {
      throw new IllegalArgumentException("scbf: not an index row mutation: " + m);
    }
    Cell cell = cells.get(0);
    if (cell.getTimestamp() != HConstants.LATEST_TIMESTAMP) b.setTimestamp(cell.getTimestamp());
    if (m instanceof Delete) {
      if (cell.getType() != Cell.Type.DeleteFamily) {
        throw new IllegalArgumentException("scbf: not an index row delete: " + m);
      }
      return b.build();
    }
    if (!(m instanceof Put)) throw new IllegalArgumentException("scbf: not an index row put: " + m);
    return b.setValue(ByteString.copyFrom(CellUtil.cloneValue(cell)))
        .setNewRow(m.getAttribute(IndexCatalog.NEW_INDEX_ROW_ATTR) != null)
        .build();
  }

  private static <T> T getUninterruptibly(Future<T> f) throws ExecutionException {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return f.get();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) Thread.currentThread().interrupt();
    }
  }

  private static IndexWriteException failure(
      String dataTable, String indexTable, int count, Phase phase, String why, Exception cause) {
    String outcome =
        switch (phase) {
          case BEFORE_DATA ->
              "so the write to " + dataTable + " was not applied (data rows unchanged)";
          case AFTER_DATA ->
              "after the write to "
                  + dataTable
                  + " was applied (it stands; the replaced values' index"
                  + " rows remain as stale rows, which queries re-check away)";
          case APPLIER ->
              "so the EVENTUAL applier's batch of "
                  + dataTable
                  + " edits failed (replication ships it again; the index lags meanwhile)";
        };
    if (cause instanceof InterruptedException || cause instanceof InterruptedIOException) {
      Thread.currentThread().interrupt();
    }
    return new IndexWriteException(
        "scbf: writing "
            + count
            + " index mutation(s) to "
            + indexTable
            + " failed, "
            + outcome
            + ": "
            + why,
        cause);
  }
}
