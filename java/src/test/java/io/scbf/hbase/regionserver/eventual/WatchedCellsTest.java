package io.scbf.hbase.regionserver.eventual;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.Condition;
import io.scbf.hbase.IndexSpec;
import java.util.List;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class WatchedCellsTest {
  static final byte[] ROW = Bytes.toBytes("r1");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] X = Bytes.toBytes("x");

  static KeyValue cell(byte[] family, String qualifier, KeyValue.Type type) {
    return new KeyValue(ROW, family, Bytes.toBytes(qualifier), 5L, type);
  }

  private final WatchedCells watched =
      new WatchedCells(
          List.of(
              IndexSpec.builder(D, Bytes.toBytes("city"))
                  .alias("city")
                  .covered(D, Bytes.toBytes("age"))
                  .where(Condition.eq(D, Bytes.toBytes("status"), Bytes.toBytes("A")))
                  .build(),
              IndexSpec.builder(X, Bytes.toBytes("local")).alias("loc").local().build()));

  @Test
  void theIndexedCoveredAndWhereColumnsAreWatched() {
    for (String q : List.of("city", "age", "status")) {
      assertTrue(watched.touches(cell(D, q, KeyValue.Type.Put)), q);
      assertTrue(watched.touches(cell(D, q, KeyValue.Type.DeleteColumn)), q);
      assertTrue(watched.touches(cell(D, q, KeyValue.Type.Delete)), q);
    }
  }

  @Test
  void otherColumnsAndLocalIndexesAreNot() {
    assertFalse(watched.touches(cell(D, "name", KeyValue.Type.Put)));
    assertFalse(watched.touches(cell(D, "name", KeyValue.Type.DeleteColumn)));
    assertFalse(watched.touches(cell(X, "local", KeyValue.Type.Put)), "a local index's column");
    assertFalse(watched.touches(cell(X, "", KeyValue.Type.DeleteFamily)));
  }

  @Test
  void aFamilyDeleteOfAWatchedFamilyIsWatched() {
    assertTrue(watched.touches(cell(D, "", KeyValue.Type.DeleteFamily)));
    assertTrue(watched.touches(cell(D, "", KeyValue.Type.DeleteFamilyVersion)));
  }
}
