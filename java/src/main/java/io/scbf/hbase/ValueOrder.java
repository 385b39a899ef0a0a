package io.scbf.hbase;

import org.apache.yetus.audience.InterfaceAudience;

/**
 * The order of a range's answer on an {@code ORDERED} index: by the indexed value in its type's
 * order ({@link IndexSpec.ValueType}), ties by row key in the same direction.
 */
@InterfaceAudience.Public
public enum ValueOrder {
  ASCENDING,
  DESCENDING
}
