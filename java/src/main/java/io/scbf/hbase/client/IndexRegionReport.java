package io.scbf.hbase.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.proto.IndexProtos.IndexLookupService;
import io.scbf.hbase.shared.proto.IndexProtos.LocalIndexService;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStatusRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RegionStatusResponse;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * What the regions of one index say of themselves ({@code scbf-admin status}): filters, entries,
 * lookups served and how many came from the hot cache. Every layout is asked region by region (a
 * {@code BY_VALUE} index publishes nothing to the master, and the master sees no lookups). A region
 * that cannot answer (running an earlier release without the call, closing, moving) is counted and
 * named, not fatal: a status is read while the cluster changes.
 */
@InterfaceAudience.Private
public final class IndexRegionReport {
  /** Regions asked at once. */
  private static final int THREADS = 8;

  /** The regions' answers summed, and why the others did not answer. */
  public record Summary(
      int regions,
      int answered,
      int ready,
      long entries,
      long filterBytes,
      double estimatedFprMax,
      long residue,
      long lookups,
      long cacheHits,
      List<String> unanswered) {

    /** Lookups answered from the hot cache, of all lookups; NaN before the first lookup. */
    public double cacheHitRatio() {
      return lookups == 0 ? Double.NaN : (double) cacheHits / lookups;
    }
  }

  /** One region's status, or why it gave none. */
  private record Answer(RegionStatusResponse status, String failure) {}

  private IndexRegionReport() {}

  public static Summary of(Connection connection, TableName dataTable, IndexSpec spec)
      throws IOException {
    TableName regionsOf = IndexCatalog.regionsOf(dataTable, spec);
    RegionStatusRequest request =
        RegionStatusRequest.newBuilder().setAlias(ByteString.copyFromUtf8(spec.alias())).build();
    List<HRegionLocation> locations;
    try (RegionLocator locator = connection.getRegionLocator(regionsOf)) {
      locations = locator.getAllRegionLocations();
    }
    List<Answer> answers;
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (Table table = connection.getTable(regionsOf)) {
      List<Future<Answer>> calls = new ArrayList<>(locations.size());
      for (HRegionLocation l : locations) {
        byte[] row = l.getRegion().getStartKey();
        Callable<Answer> call =
            () -> {
              try {
                return new Answer(
                    spec.isLocal()
                        ? LocalIndexService.newBlockingStub(table.coprocessorService(row))
                            .regionStatus(null, request)
                        : IndexLookupService.newBlockingStub(table.coprocessorService(row))
                            .regionStatus(null, request),
                    null);
              } catch (ServiceException e) {
                return new Answer(
                    null, l.getRegion().getEncodedName() + ": " + Rpcs.unwrap(e).getMessage());
              }
            };
        calls.add(pool.submit(call));
      }
      answers = new ArrayList<>(calls.size());
      for (Future<Answer> f : calls) answers.add(f.get());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("status of index " + spec.alias() + " interrupted");
    } catch (ExecutionException e) {
      throw new IOException("status of index " + spec.alias() + " failed", e.getCause());
    } finally {
      pool.shutdownNow();
    }
    return summarize(answers);
  }

  private static Summary summarize(List<Answer> answers) {
    int answered = 0, ready = 0;
    long entries = 0, bytes = 0, residue = 0, lookups = 0, hits = 0;
    double fprMax = 0;
    List<String> unanswered = new ArrayList<>();
    for (Answer a : answers) {
      RegionStatusResponse r = a.status();
      if (r == null) {
        unanswered.add(a.failure());
        continue;
      }
      answered++;
      if (r.getReady()) ready++;
      entries += r.getEntries();
      bytes += r.getFilterBytes();
      fprMax = Math.max(fprMax, r.getEstimatedFpr());
      residue += r.getResidue();
      lookups += r.getLookups();
      hits += r.getCacheHits();
    }
    return new Summary(
        answers.size(),
        answered,
        ready,
        entries,
        bytes,
        fprMax,
        residue,
        lookups,
        hits,
        unanswered);
  }
}
