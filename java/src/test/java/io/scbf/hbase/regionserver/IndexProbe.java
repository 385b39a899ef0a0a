package io.scbf.hbase.regionserver;

import io.scbf.MembershipFilter;
import io.scbf.hbase.regionserver.filter.BucketFilter;
import io.scbf.hbase.regionserver.index.IndexRegion;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import java.io.IOException;
import java.util.List;
import java.util.TreeMap;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Test access from other packages (io.scbf.hbase, io.scbf.mapreduce) to the test cluster, the
 * brute-force oracle and the region servers' internals (index regions' filters, the index RPC
 * pool), which stay package-private in production code.
 */
public final class IndexProbe {
  private IndexProbe() {}

  /** The scbf mini cluster of this package's tests ({@link MiniCluster}). */
  public static HBaseTestingUtility startCluster(int regionServers) throws Exception {
    return MiniCluster.start(regionServers);
  }

  /** One index region's filter as its bucket holds it: bytes and number of counted index rows. */
  public record BucketFilterState(byte[] bitmap, long adds) {}

  /** The filter of every bucket of an index table, once each is ready (waits up to 60 s). */
  public static TreeMap<Integer, BucketFilterState> filters(
      HBaseTestingUtility util, TableName indexTable) throws InterruptedException {
    TreeMap<Integer, BucketFilterState> out = new TreeMap<>();
    for (HRegion r : util.getMiniHBaseCluster().getRegions(indexTable)) {
      IndexRegion index =
          r.getCoprocessorHost().findCoprocessor(IndexRegionCoprocessor.class).indexRegion();
      long deadline = System.currentTimeMillis() + 60_000;
      while (!index.filter().isReady()) {
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException(
              "filter of " + index.encodedName() + " never became ready");
        }
        Thread.sleep(50);
      }
      BucketFilter f = index.filter();
      try (MembershipFilter bitmap = f.membership()) {
        out.put(
            IndexKeyCodec.bucketOfRegion(r.getRegionInfo().getStartKey()),
            new BucketFilterState(bitmap.toByteArray(), f.stats().adds()));
      }
    }
    return out;
  }

  /**
   * Calls the region servers' index RPC pools have served so far (the scbfIndexRpcCalls metric).
   */
  public static long indexCalls(HBaseTestingUtility util) {
    long calls = 0;
    for (var t : util.getMiniHBaseCluster().getLiveRegionServerThreads()) {
      if (t.getRegionServer().getRpcServer().getScheduler()
          instanceof IndexRpcSchedulerFactory.IndexRpcScheduler s) {
        calls += s.indexCalls();
      }
    }
    return calls;
  }

  /** The scheduler behind a region server's index pool, or null if it has no index pool. */
  public static org.apache.hadoop.hbase.ipc.RpcScheduler behindIndexPool(
      org.apache.hadoop.hbase.ipc.RpcScheduler scheduler) {
    return scheduler instanceof IndexRpcSchedulerFactory.IndexRpcScheduler s ? s.delegate() : null;
  }

  /** Indexed writes, over all region servers, whose rows were proved new (no old-value read). */
  public static long oldRowReadsSkipped(HBaseTestingUtility util) {
    return sumOfMetric(util, RegionServerMetrics::oldRowReadsSkipped);
  }

  /** Local index entries that data regions built from their rows, over all region servers. */
  public static long localEntriesBuilt(HBaseTestingUtility util) {
    return sumOfMetric(util, RegionServerMetrics::localEntriesBuilt);
  }

  /**
   * Index write calls the region servers sent through {@code scbf.index.write.grouping}, each
   * carrying one or more data writes' index rows (servers without scbf's coprocessor send none).
   */
  public static long indexWriteCallsSent(HBaseTestingUtility util) {
    long sum = 0;
    for (var t : util.getMiniHBaseCluster().getLiveRegionServerThreads()) {
      IndexRegionServerCoprocessor scbf =
          t.getRegionServer()
              .getRegionServerCoprocessorHost()
              .findCoprocessor(IndexRegionServerCoprocessor.class);
      IndexServices services = scbf == null ? null : scbf.context().servicesOrNull();
      if (services != null) sum += services.indexCallsInFlight().calls();
    }
    return sum;
  }

  private static long sumOfMetric(
      HBaseTestingUtility util, java.util.function.ToLongFunction<RegionServerMetrics> metric) {
    long sum = 0;
    for (var t : util.getMiniHBaseCluster().getLiveRegionServerThreads()) {
      sum +=
          metric.applyAsLong(
              t.getRegionServer()
                  .getRegionServerCoprocessorHost()
                  .findCoprocessor(IndexRegionServerCoprocessor.class)
                  .context()
                  .metrics());
    }
    return sum;
  }

  /**
   * Entries counted in the filter of each data region (by encoded name) of a local index, once
   * every open one is routable (waits up to 60 s).
   */
  public static TreeMap<String, Long> localFilterAdds(
      HBaseTestingUtility util, TableName dataTable, String alias) throws InterruptedException {
    String index = IndexCatalog.indexTableName(dataTable, alias).getNameAsString();
    long deadline = System.currentTimeMillis() + 60_000;
    while (true) {
      TreeMap<String, Long> out = new TreeMap<>();
      boolean ready = true;
      for (var t : util.getMiniHBaseCluster().getLiveRegionServerThreads()) {
        IndexServices services =
            t.getRegionServer()
                .getRegionServerCoprocessorHost()
                .findCoprocessor(IndexRegionServerCoprocessor.class)
                .context()
                .servicesOrNull();
        if (services == null) continue;
        for (IndexRegion r : services.regions().list()) {
          if (!r.indexTable().equals(index)) continue;
          ready &= r.routable(r.filter());
          out.put(r.encodedName(), r.filter().stats().adds());
        }
      }
      if (ready && out.size() == util.getMiniHBaseCluster().getRegions(dataTable).size()) {
        return out;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("local index " + alias + " not routable: " + out);
      }
      Thread.sleep(50);
    }
  }

  /** A full-scan answer for one column ({@link Oracle}), with row keys as toStringBinary. */
  public static final class Answers {
    private final Oracle oracle;

    public Answers(Connection connection, TableName table, byte[] family, byte[] qualifier)
        throws IOException {
      this.oracle = new Oracle(connection, table, family, qualifier);
    }

    public List<String> rows(byte[] value) {
      return oracle.rows(value);
    }

    public List<String> range(byte[] lo, byte[] hi) {
      return oracle.range(lo, hi);
    }

    public List<byte[]> values() {
      return oracle.values();
    }

    /** Index rows each bucket must hold: one per row having the column, in the row's bucket. */
    public TreeMap<Integer, Long> rowsPerBucket(int buckets) {
      TreeMap<Integer, Long> counts = new TreeMap<>();
      for (int b = 0; b < buckets; b++) counts.put(b, 0L);
      for (String row : oracle.range(null, null)) {
        counts.merge(IndexKeyCodec.bucket(Bytes.toBytesBinary(row), buckets), 1L, Long::sum);
      }
      return counts;
    }
  }

  public static List<String> strings(Iterable<byte[]> rows) {
    return Oracle.strings(rows);
  }

  public static List<String> resultRows(List<org.apache.hadoop.hbase.client.Result> results) {
    return Oracle.resultRows(results);
  }

  /** Publication bytes sent by every region server so far (each server's ScbfPublishedBytes). */
  public static long publishedBytes(HBaseTestingUtility util) {
    return sumOverServers(util, s -> s.publisher().publishedBytes());
  }

  /** Bytes of every open index region's counting filter, over all region servers. */
  public static long countingFilterBytes(HBaseTestingUtility util) {
    return sumOverServers(
        util,
        s -> {
          long sum = 0;
          for (IndexRegion r : s.regions().list()) sum += r.filter().stats().bytes();
          return sum;
        });
  }

  /** Filter compactions run to their end on every region server (scbfFilterCompactions). */
  public static long filterCompactions(HBaseTestingUtility util) {
    return sumOverServers(util, s -> s.compactor().compactions());
  }

  /**
   * Waits (up to 60 s) until {@code indexTable} has {@code regions} open regions whose filters are
   * all built: their "absent" answers and estimates count then.
   */
  public static void awaitIndexRegionsReady(
      HBaseTestingUtility util, TableName indexTable, int regions) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 60_000;
    while (!indexRegionsReady(util, indexTable, regions)) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(
            indexTable + ": " + regions + " index regions with ready filters never opened");
      }
      Thread.sleep(50);
    }
  }

  private static boolean indexRegionsReady(
      HBaseTestingUtility util, TableName indexTable, int regions) {
    List<HRegion> open = util.getMiniHBaseCluster().getRegions(indexTable);
    if (open.size() != regions) return false;
    for (HRegion r : open) {
      IndexRegionCoprocessor cp =
          r.getCoprocessorHost().findCoprocessor(IndexRegionCoprocessor.class);
      if (cp == null || cp.indexRegion() == null || !cp.indexRegion().filter().isReady()) {
        return false;
      }
    }
    return true;
  }

  private static long sumOverServers(
      HBaseTestingUtility util, java.util.function.ToLongFunction<IndexServices> f) {
    long sum = 0;
    for (var t : util.getMiniHBaseCluster().getLiveRegionServerThreads()) {
      IndexRegionServerCoprocessor cp =
          t.getRegionServer()
              .getRegionServerCoprocessorHost()
              .findCoprocessor(IndexRegionServerCoprocessor.class);
      IndexServices services = cp == null ? null : cp.context().servicesOrNull();
      if (services != null) sum += f.applyAsLong(services);
    }
    return sum;
  }
}
