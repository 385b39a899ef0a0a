package io.scbf.hbase;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Table;

/**
 * Writes index mutations on the index RPC priority ({@link IndexRpcSchedulerFactory}) and turns
 * any failure into a clear {@link IndexWriteException}.
 */
final class IndexWriter {
  private final RegionServerResources resources;

  IndexWriter(RegionServerResources resources) {
    this.resources = resources;
  }

  /** Writes every mutation or throws {@link IndexWriteException}; returns when all are durable. */
  void write(String dataTable, Map<TableName, List<Mutation>> byIndexTable) throws IndexWriteException {
    for (Map.Entry<TableName, List<Mutation>> e : byIndexTable.entrySet()) {
      List<Mutation> mutations = e.getValue();
      for (Mutation m : mutations) m.setPriority(IndexRpcSchedulerFactory.INDEX_QOS);
      try {
        Connection connection = resources.connection();
        try (Table table = connection.getTable(e.getKey())) {
          table.batch(mutations, new Object[mutations.size()]);
        }
      } catch (InterruptedException | InterruptedIOException ex) {
        Thread.currentThread().interrupt();
        throw failure(dataTable, e.getKey(), mutations.size(), ex);
      } catch (IOException ex) {
        throw failure(dataTable, e.getKey(), mutations.size(), ex);
      }
    }
  }

  private static IndexWriteException failure(String dataTable, TableName indexTable, int count,
      Exception cause) {
    return new IndexWriteException("scbf: writing " + count + " index mutation(s) to " + indexTable
        + " failed, so the write to " + dataTable + " was not applied (data rows unchanged): "
        + cause, cause);
  }
}
