package io.scbf.hbase;

import io.scbf.hbase.shared.CoveredValues;
import io.scbf.hbase.shared.proto.IndexProtos.IndexHit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One index entry: a data row key and the covered columns' values stored with it (as of the last
 * index write; not re-checked against the data row).
 */
public record IndexEntry(byte[] row, Map<IndexSpec.Column, byte[]> covered) {

  static IndexEntry of(IndexSpec spec, IndexHit hit) {
    Map<IndexSpec.Column, byte[]> covered = new LinkedHashMap<>();
    if (hit.hasCovered()) {
      List<byte[]> values = CoveredValues.decode(hit.getCovered().toByteArray());
      List<IndexSpec.Column> columns = new ArrayList<>(spec.covered());
      for (int i = 0; i < Math.min(values.size(), columns.size()); i++) {
        if (values.get(i) != null) covered.put(columns.get(i), values.get(i));
      }
    }
    return new IndexEntry(hit.getRow().toByteArray(), covered);
  }
}
