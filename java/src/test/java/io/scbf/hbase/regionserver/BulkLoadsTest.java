package io.scbf.hbase.regionserver;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexCatalog;
import java.util.List;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class BulkLoadsTest {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] C = Bytes.toBytes("c");
  static final byte[] X = Bytes.toBytes("x");

  final List<IndexSpec> specs =
      List.of(
          IndexSpec.builder(D, Bytes.toBytes("city")).alias("city").build(),
          IndexSpec.builder(D, Bytes.toBytes("age"))
              .alias("age")
              .local()
              .covered(C, Bytes.toBytes("name"))
              .build());

  @Test
  void familiesWithIndexedOrCoveredColumnsOrLocalEntriesAreRefused() {
    String indexed = BulkLoads.refusal(specs, D);
    assertNotNull(indexed);
    assertTrue(indexed.contains("d:city") && indexed.contains("'city'"), indexed);
    assertTrue(BulkLoads.refusal(specs, C).contains("c:name"));
    assertTrue(BulkLoads.refusal(specs, IndexCatalog.localFamily("age")).contains("local index"));
  }

  @Test
  void otherFamiliesLoad() {
    assertNull(BulkLoads.refusal(specs, X));
    assertNull(BulkLoads.refusal(List.of(), D));
  }
}
