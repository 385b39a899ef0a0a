package io.scbf.hbase.regionserver.write;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.shared.IndexCatalog;
import java.util.List;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/** Which bulk loads an indexed table accepts: those that no index could need to see. */
@InterfaceAudience.Private
public final class BulkLoads {
  private BulkLoads() {}

  /**
   * Why an HFile of {@code family} may not be bulk-loaded into table {@code data} with these
   * indexes, or null if it may: the family holds an indexed or covered column, or the entries of a
   * local index that is not waiting for its bulk build (its regions count their entries, and would
   * not count loaded ones; the regions of an index still building count them when it is marked
   * built).
   */
  public static String refusal(List<IndexSpec> specs, TableDescriptor data, byte[] family) {
    for (IndexSpec s : specs) {
      if (s.isLocal() && Bytes.equals(IndexCatalog.localFamily(s.alias()), family)) {
        if (IndexCatalog.isLocalBuilding(data, s.alias())) return null;
        return "family "
            + Bytes.toStringBinary(family)
            + " holds the entries of local index '"
            + s.alias()
            + "', which is built (only an index defined for the bulk build, IndexAdmin.defineIndex,"
            + " takes loaded entries)";
      }
      for (IndexSpec.Column c : IndexValues.watchedColumns(s)) {
        if (c.inFamily(family)) {
          return "family "
              + Bytes.toStringBinary(family)
              + " holds column "
              + c
              + " of index '"
              + s.alias()
              + "', and bulk-loaded cells bypass index maintenance. Load the HFiles into a table"
              + " without that index and write the rows with Puts, or drop the index, load,"
              + " and create it again (IndexAdmin.createIndex, or defineIndex + BuildIndexTool)";
        }
      }
    }
    return null;
  }
}
