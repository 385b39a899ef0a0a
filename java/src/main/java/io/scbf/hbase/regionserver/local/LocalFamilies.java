package io.scbf.hbase.regionserver.local;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.regionserver.batch.Refusals;
import io.scbf.hbase.shared.IndexCatalog;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HConstants.OperationStatusCode;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The column families that hold a data region's local index entries belong to the index: clients
 * neither read nor write them.
 */
@InterfaceAudience.Private
public final class LocalFamilies {
  private LocalFamilies() {}

  /**
   * Takes the local index families out of a client read's families. HBase has already replaced
   * "every family" by the table's families when the read hooks run.
   */
  public static void hide(List<IndexSpec> localSpecs, Map<byte[], ?> families, Region region)
      throws DoNotRetryIOException {
    if (families.isEmpty()) return;
    for (IndexSpec s : localSpecs) families.remove(IndexCatalog.localFamily(s.alias()));
    // Empty would mean "every family" again.
    if (families.isEmpty()) {
      throw new DoNotRetryIOException(
          "scbf: column families "
              + localSpecs.stream()
                  .map(s -> Bytes.toString(IndexCatalog.localFamily(s.alias())))
                  .toList()
              + " of "
              + region.getRegionInfo().getTable()
              + " hold local index entries and are not readable by clients; query them with"
              + " IndexedTable");
    }
  }

  /**
   * Clients may not write local index families: a Put there fails; a Delete loses its cells there
   * (a row Delete arrives expanded into a marker for every family, and must not delete the entry
   * that happens to share the row key).
   */
  public static void refuseWrites(
      List<IndexSpec> localSpecs, MiniBatchOperationInProgress<Mutation> batch)
      throws DoNotRetryIOException {
    for (int i = 0; i < batch.size(); i++) {
      if (batch.getOperationStatus(i).getOperationStatusCode() != OperationStatusCode.NOT_RUN)
        continue;
      Mutation m = batch.getOperation(i);
      for (IndexSpec s : localSpecs) {
        byte[] family = IndexCatalog.localFamily(s.alias());
        if (!m.getFamilyCellMap().containsKey(family)) continue;
        if (m instanceof Delete) {
          m.getFamilyCellMap().remove(family);
        } else {
          Refusals.refuse(
              batch,
              i,
              "scbf: column family "
                  + Bytes.toString(family)
                  + " holds the entries of local index '"
                  + s.alias()
                  + "' and is written by the index only");
          break;
        }
      }
    }
  }
}
