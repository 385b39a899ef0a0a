package io.scbf.hbase.regionserver;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.LocalIndexKeys;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.hbase.HBaseInterfaceAudience;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.SteppingSplitPolicy;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * HBase's default split policy ({@link SteppingSplitPolicy}), made the region servers' default by
 * {@code Coprocessors.configure} ({@code hbase.regionserver.region.split.policy}) so that no table
 * descriptor names it. On tables without local indexes it is HBase's policy unchanged; on tables
 * with one, the split point is taken from the data families only: the midpoint of a local index
 * family is an entry key, and splitting there would leave one daughter with entries and almost no
 * rows. A point that would cut a daughter's entry range ({@link LocalIndexKeys#fits}) is refused
 * (no split this time). Correctness never depends on this policy: a region opened with entries it
 * cannot trust rebuilds them, so a table or site that sets another policy loses only balance.
 */
@InterfaceAudience.LimitedPrivate(HBaseInterfaceAudience.CONFIG)
public class LocalIndexSplitPolicy extends SteppingSplitPolicy {
  @Override
  protected byte[] getSplitPoint() {
    List<IndexSpec> specs = IndexCatalog.readSpecs(region.getTableDescriptor()).valid();
    if (specs.stream().noneMatch(IndexSpec::isLocal)) return super.getSplitPoint();
    HStore largest = null;
    byte[] point = null;
    for (HStore store : region.getStores()) {
      if (IndexCatalog.isLocalFamily(specs, Bytes.toBytes(store.getColumnFamilyName()))) continue;
      Optional<byte[]> p = store.getSplitPoint();
      if (p.isPresent() && (largest == null || store.getSize() > largest.getSize())) {
        largest = store;
        point = p.get();
      }
    }
    if (point == null) return null;
    byte[] start = region.getRegionInfo().getStartKey();
    byte[] end = region.getRegionInfo().getEndKey();
    return LocalIndexKeys.fits(start, point) && LocalIndexKeys.fits(point, end) ? point : null;
  }
}
