package io.scbf.hbase.client;

import io.scbf.hbase.IndexEntry;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.shared.CoveredValues;
import io.scbf.hbase.shared.PackedHits;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Index entries as the region servers send them. */
final class IndexEntries {
  private IndexEntries() {}

  /** The entry of one hit: its row, and the covered values in the spec's covered-column order. */
  static IndexEntry of(IndexSpec spec, PackedHits.Hit hit) {
    Map<IndexSpec.Column, byte[]> covered = new LinkedHashMap<>();
    if (hit.covered() != null) {
      List<byte[]> values = CoveredValues.decode(hit.covered());
      List<IndexSpec.Column> columns = spec.covered();
      for (int i = 0; i < Math.min(values.size(), columns.size()); i++) {
        if (values.get(i) != null) covered.put(columns.get(i), values.get(i));
      }
    }
    return new IndexEntry(
        hit.row(), covered, hit.value() == null ? null : IndexValues.rawForm(spec, hit.value()));
  }
}
