package io.scbf.hbase.regionserver.write;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexCatalog;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
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

  final TableDescriptor table =
      TableDescriptorBuilder.newBuilder(TableName.valueOf("t"))
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
          .build();

  @Test
  void familiesWithIndexedOrCoveredColumnsOrLocalEntriesAreRefused() {
    String indexed = BulkLoads.refusal(specs, table, D);
    assertNotNull(indexed);
    assertTrue(indexed.contains("d:city") && indexed.contains("'city'"), indexed);
    assertTrue(BulkLoads.refusal(specs, table, C).contains("c:name"));
    String entries = BulkLoads.refusal(specs, table, IndexCatalog.localFamily("age"));
    assertTrue(entries.contains("local index 'age'") && entries.contains("defineIndex"), entries);
  }

  @Test
  void otherFamiliesLoad() {
    assertNull(BulkLoads.refusal(specs, table, X));
    assertNull(BulkLoads.refusal(List.of(), table, D));
  }

  @Test
  void entriesOfALocalIndexWaitingForItsBulkBuildLoad() {
    TableDescriptor building = IndexCatalog.withLocalBuilding(table, "age", true);
    assertNull(BulkLoads.refusal(specs, building, IndexCatalog.localFamily("age")));
    assertNotNull(BulkLoads.refusal(specs, building, D), "its data columns still refuse");
    TableDescriptor built = IndexCatalog.withLocalBuilding(building, "age", false);
    assertNotNull(BulkLoads.refusal(specs, built, IndexCatalog.localFamily("age")));
  }
}
