package io.scbf.hbase.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexCatalog;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * Which family alters {@link IndexedFamilyAlters} refuses: only those that show expired cells again
 * or change what stored delete markers mask.
 */
class IndexedFamilyAltersTest {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] E = Bytes.toBytes("e");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] NAME = Bytes.toBytes("name");

  /** A table with d {TTL 60 s} and e {no TTL}, a global index on d:city covering e:name. */
  private static TableDescriptor table(int ttlOfD, int minVersionsOfD) {
    TableDescriptor plain =
        TableDescriptorBuilder.newBuilder(TableName.valueOf("t"))
            .setColumnFamily(
                ColumnFamilyDescriptorBuilder.newBuilder(D)
                    .setTimeToLive(ttlOfD)
                    .setMinVersions(minVersionsOfD)
                    .build())
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(E))
            .build();
    return IndexCatalog.withIndex(
        plain, IndexSpec.builder(D, CITY).alias("city").covered(E, NAME).build());
  }

  private static List<String> alter(
      TableDescriptor current, byte[] family, UnaryOperator<ColumnFamilyDescriptorBuilder> change) {
    TableDescriptor next =
        TableDescriptorBuilder.newBuilder(current)
            .modifyColumnFamily(
                change
                    .apply(
                        ColumnFamilyDescriptorBuilder.newBuilder(current.getColumnFamily(family)))
                    .build())
            .build();
    return IndexedFamilyAlters.problems(current, next);
  }

  @Test
  void raisingTheTtlOrMinVersionsOfAnIndexedFamilyWithATtlIsRefused() {
    List<String> ttl = alter(table(60, 0), D, f -> f.setTimeToLive(120));
    assertEquals(1, ttl.size(), ttl.toString());
    assertTrue(ttl.get(0).contains("TTL (60 s to 120 s) of family d"), ttl.get(0));
    assertTrue(ttl.get(0).contains("(city)"), ttl.get(0));
    List<String> forever = alter(table(60, 0), D, f -> f.setTimeToLive(HConstants.FOREVER));
    assertTrue(forever.get(0).contains("60 s to FOREVER"), forever.toString());
    List<String> min = alter(table(60, 0), D, f -> f.setMinVersions(1));
    assertTrue(min.get(0).contains("MIN_VERSIONS (0 to 1)"), min.toString());
    assertEquals(1, alter(table(60, 1), D, f -> f.setMinVersions(2)).size());
    assertEquals(1, alter(table(60, 1), D, f -> f.setTimeToLive(61)).size());
  }

  @Test
  void changingNewVersionBehaviorOfAnIndexedFamilyIsRefused() {
    List<String> on = alter(table(HConstants.FOREVER, 0), D, f -> f.setNewVersionBehavior(true));
    assertEquals(1, on.size(), on.toString());
    assertTrue(on.get(0).contains("NEW_VERSION_BEHAVIOR of family d"), on.get(0));
    TableDescriptor nvb =
        TableDescriptorBuilder.newBuilder(table(HConstants.FOREVER, 0))
            .modifyColumnFamily(
                ColumnFamilyDescriptorBuilder.newBuilder(D).setNewVersionBehavior(true).build())
            .build();
    assertEquals(1, alter(nvb, D, f -> f.setNewVersionBehavior(false)).size());
    TableDescriptor withF =
        TableDescriptorBuilder.newBuilder(table(HConstants.FOREVER, 0))
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(Bytes.toBytes("f")))
            .build();
    assertEquals(List.of(), alter(withF, Bytes.toBytes("f"), f -> f.setNewVersionBehavior(true)));
  }

  @Test
  void alterationsThatHideNothingMoreOrLessGoThrough() {
    assertEquals(List.of(), alter(table(60, 0), D, f -> f.setTimeToLive(30)));
    assertEquals(List.of(), alter(table(60, 1), D, f -> f.setMinVersions(0)));
    assertEquals(List.of(), alter(table(60, 0), D, f -> f.setMaxVersions(5)));
    TableDescriptor noTtl = table(HConstants.FOREVER, 0);
    assertEquals(List.of(), alter(noTtl, D, f -> f.setMinVersions(1)));
    assertEquals(List.of(), alter(noTtl, D, f -> f.setTimeToLive(60)));
  }

  @Test
  void aCoveredColumnsFamilyCountsAndAnUnindexedOrDroppedOneDoesNot() {
    TableDescriptor eWithTtl =
        TableDescriptorBuilder.newBuilder(table(60, 0))
            .modifyColumnFamily(
                ColumnFamilyDescriptorBuilder.newBuilder(E).setTimeToLive(60).build())
            .build();
    assertEquals(1, alter(eWithTtl, E, f -> f.setTimeToLive(120)).size());
    TableDescriptor withF =
        TableDescriptorBuilder.newBuilder(table(60, 0))
            .setColumnFamily(
                ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("f"))
                    .setTimeToLive(60)
                    .build())
            .build();
    assertEquals(List.of(), alter(withF, Bytes.toBytes("f"), f -> f.setTimeToLive(120)));
    TableDescriptor current = table(60, 0);
    TableDescriptor dropped = IndexCatalog.withoutIndex(current, "city");
    TableDescriptor next =
        TableDescriptorBuilder.newBuilder(dropped)
            .modifyColumnFamily(
                ColumnFamilyDescriptorBuilder.newBuilder(D).setTimeToLive(120).build())
            .build();
    assertEquals(List.of(), IndexedFamilyAlters.problems(current, next));
  }
}
