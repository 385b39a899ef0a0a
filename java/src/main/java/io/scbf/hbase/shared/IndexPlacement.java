package io.scbf.hbase.shared;

import io.scbf.hbase.IndexSpec;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Where an index row lives, by the index's layout: its salt byte, the first byte of its key (see
 * {@link IndexKeyCodec}). Apart from the codec because the codec is used by {@link IndexSpec}
 * itself (composite values), and this needs the spec.
 */
@InterfaceAudience.Private
public final class IndexPlacement {
  private IndexPlacement() {}

  /**
   * The salt byte of the index row of ({@code userRow}, {@code value}): the row's bucket ({@code
   * BY_ROW}), the value's slot ({@code BY_VALUE}), or the row's salted stream ({@code ORDERED}, 0
   * when unsalted).
   */
  public static int salt(IndexSpec spec, byte[] alias, byte[] value, byte[] userRow) {
    if (spec.layout() == IndexSpec.Layout.BY_ROW) {
      return IndexKeyCodec.bucket(userRow, spec.buckets());
    }
    if (spec.layout() == IndexSpec.Layout.ORDERED) {
      return spec.buckets() == 1 ? 0 : IndexKeyCodec.bucket(userRow, spec.buckets());
    }
    byte[] filterKey = IndexKeyCodec.filterKey(alias, value);
    return IndexKeyCodec.slot(filterKey, 0, filterKey.length);
  }
}
