package io.scbf.hbase.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.IndexSpec;
import java.util.List;
import org.apache.hadoop.hbase.KeepDeletedCells;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** Which descriptors {@link UndoableDeletes} refuses: what adds an index over such a family. */
class UndoableDeletesTest {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] E = Bytes.toBytes("e");
  static final IndexSpec CITY_COVERING_E =
      IndexSpec.builder(D, Bytes.toBytes("city"))
          .alias("city")
          .covered(E, Bytes.toBytes("name"))
          .build();

  private static TableDescriptor table(
      boolean newVersionBehavior, KeepDeletedCells keep, IndexSpec... specs) {
    TableDescriptor t =
        TableDescriptorBuilder.newBuilder(TableName.valueOf("t"))
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
            .setColumnFamily(
                ColumnFamilyDescriptorBuilder.newBuilder(E)
                    .setNewVersionBehavior(newVersionBehavior)
                    .setKeepDeletedCells(keep)
                    .build())
            .build();
    for (IndexSpec spec : specs) t = IndexCatalog.withIndex(t, spec);
    return t;
  }

  @Test
  void onlyNewVersionBehaviorWithKeptDeletesIsNotIndexable() {
    for (boolean nvb : new boolean[] {false, true}) {
      for (KeepDeletedCells keep : KeepDeletedCells.values()) {
        String why = UndoableDeletes.whyNotIndexable(table(nvb, keep).getColumnFamily(E));
        if (nvb && keep != KeepDeletedCells.FALSE) {
          assertTrue(why.contains("KEEP_DELETED_CELLS => " + keep), why);
        } else {
          assertNull(why, nvb + " " + keep);
        }
      }
    }
  }

  @Test
  void aNewTableOrIndexOverSuchAFamilyIsRefused() {
    List<String> created =
        UndoableDeletes.problems(null, table(true, KeepDeletedCells.TRUE, CITY_COVERING_E));
    assertEquals(1, created.size(), created.toString());
    assertTrue(created.get(0).startsWith("index 'city' reads column e:name"), created.get(0));
    List<String> added =
        UndoableDeletes.problems(
            table(true, KeepDeletedCells.TTL), table(true, KeepDeletedCells.TTL, CITY_COVERING_E));
    assertEquals(1, added.size(), added.toString());
  }

  @Test
  void anAlterIntoTheCombinationIsRefusedOnlyWhereAnIndexReads() {
    assertEquals(
        1,
        UndoableDeletes.problems(
                table(true, KeepDeletedCells.FALSE, CITY_COVERING_E),
                table(true, KeepDeletedCells.TRUE, CITY_COVERING_E))
            .size());
    assertEquals(
        1,
        UndoableDeletes.problems(
                table(false, KeepDeletedCells.TRUE, CITY_COVERING_E),
                table(true, KeepDeletedCells.TRUE, CITY_COVERING_E))
            .size());
    IndexSpec onD = IndexSpec.builder(D, Bytes.toBytes("city")).alias("city").build();
    assertEquals(
        List.of(),
        UndoableDeletes.problems(
            table(false, KeepDeletedCells.FALSE, onD), table(true, KeepDeletedCells.TRUE, onD)));
  }

  @Test
  void anIndexAnEarlierReleaseDefinedOverSuchAFamilyIsLeftAsItIs() {
    TableDescriptor legacy = table(true, KeepDeletedCells.TRUE, CITY_COVERING_E);
    TableDescriptor otherAlter =
        TableDescriptorBuilder.newBuilder(legacy)
            .modifyColumnFamily(
                ColumnFamilyDescriptorBuilder.newBuilder(legacy.getColumnFamily(D))
                    .setMaxVersions(3)
                    .build())
            .build();
    assertEquals(List.of(), UndoableDeletes.problems(legacy, otherAlter));
  }
}
