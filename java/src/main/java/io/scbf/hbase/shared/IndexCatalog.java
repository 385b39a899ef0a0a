package io.scbf.hbase.shared;

import io.scbf.hbase.IndexSpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Where index metadata lives: each index is a table attribute {@code scbf.index.<alias>} of its
 * data table (so every data region learns its indexes when it opens), and has its own index table
 * {@code <table>__idx_<alias>} (same namespace) carrying the spec and the data table name.
 */
@InterfaceAudience.Private
public final class IndexCatalog {
  private IndexCatalog() {}

  /** Every table attribute scbf reads starts with this. */
  public static final String ATTR_PREFIX = "scbf.";

  public static final String DATA_ATTR_PREFIX = "scbf.index.";

  /**
   * Data table attribute "true": rows are written once and never have an indexed value replaced
   * (Phoenix's IMMUTABLE_ROWS). Puts then skip the read of the row's current values. Not enforced:
   * a replaced value leaves its old index entry behind, a stale entry that queries re-check away
   * (never a missed row), but {@code findRowKeys} and {@code findEntries} may return it.
   */
  public static final String IMMUTABLE_ROWS_ATTR = "scbf.immutable-rows";

  public static boolean hasImmutableRows(TableDescriptor data) {
    return "true".equals(data.getValue(IMMUTABLE_ROWS_ATTR));
  }

  /**
   * Attribute of an index Put whose data row did not hold the value before: the index region counts
   * the row in its filter without reading whether it exists. If it did exist (a stale copy, a
   * resend) it is counted twice, which only costs false positives until the next compaction; never
   * a missed row. Anything else is counted after an existence read.
   */
  public static final String NEW_INDEX_ROW_ATTR = "scbf.new-index-row";

  public static final String INDEX_SPEC_ATTR = "scbf.index-table.spec";
  public static final String INDEX_DATA_TABLE_ATTR = "scbf.index-table.data";
  public static final byte[] INDEX_FAMILY = Bytes.toBytes("i");
  public static final byte[] INDEX_QUALIFIER = Bytes.toBytes("c");

  public static TableName indexTableName(TableName dataTable, String alias) {
    return TableName.valueOf(
        dataTable.getNamespaceAsString(), dataTable.getQualifierAsString() + "__idx_" + alias);
  }

  /**
   * The table whose regions hold an index's entries: its index table, or (local) the data table.
   */
  public static TableName regionsOf(TableName dataTable, IndexSpec spec) {
    return spec.isLocal() ? dataTable : indexTableName(dataTable, spec.alias());
  }

  /**
   * The indexes recorded in a data table's descriptor, ordered by alias.
   *
   * @throws IllegalArgumentException naming the attribute, if one does not hold a valid spec
   */
  public static List<IndexSpec> specsOf(TableDescriptor data) {
    Specs read = readSpecs(data);
    if (!read.invalid().isEmpty()) {
      Map.Entry<String, String> first = read.invalid().entrySet().iterator().next();
      throw new IllegalArgumentException(
          "table "
              + data.getTableName()
              + " attribute "
              + first.getKey()
              + ": "
              + first.getValue());
    }
    return read.valid();
  }

  /**
   * The specs of a data table's descriptor, split into valid ones (ordered by alias) and invalid
   * attributes (attribute name to the reason). Never throws: servers read descriptors that any user
   * with ALTER may have written, and must not fail to open a region because of one.
   */
  public static Specs readSpecs(TableDescriptor data) {
    List<IndexSpec> valid = new ArrayList<>();
    Map<String, String> invalid = new TreeMap<>();
    for (Map.Entry<Bytes, Bytes> e : data.getValues().entrySet()) {
      String key = Bytes.toString(e.getKey().get());
      if (!key.startsWith(DATA_ATTR_PREFIX)) continue;
      try {
        IndexSpec spec = IndexSpec.decode(Bytes.toString(e.getValue().get()));
        if (!key.equals(DATA_ATTR_PREFIX + spec.alias())) {
          throw new IllegalArgumentException(
              "holds the spec of index '" + spec.alias() + "' (expected " + key + ")");
        }
        // Every indexed write would fail without it (drop the index to remove the family).
        if (spec.isLocal() && !data.hasColumnFamily(localFamily(spec.alias()))) {
          throw new IllegalArgumentException(
              "local index '"
                  + spec.alias()
                  + "' lacks its column family "
                  + LOCAL_FAMILY_PREFIX
                  + spec.alias());
        }
        valid.add(spec);
      } catch (RuntimeException bad) {
        invalid.put(key, bad.getMessage());
      }
    }
    valid.sort(Comparator.comparing(IndexSpec::alias));
    return new Specs(valid, invalid);
  }

  /** A descriptor's index specs: the valid ones, and each invalid attribute with its reason. */
  public record Specs(List<IndexSpec> valid, Map<String, String> invalid) {}

  /** Prefix of the column family that holds a local index's entries in every data region. */
  public static final String LOCAL_FAMILY_PREFIX = "scbf_";

  /**
   * The split policy that tables with local indexes get from the site configuration ({@code
   * Coprocessors.configure} makes it the region servers' default; see {@code
   * LocalIndexSplitPolicy}). Descriptors written by earlier releases name it; {@link
   * #withoutLegacySplitPolicy} takes it out, so that no descriptor names a class of the jar.
   */
  public static final String LOCAL_SPLIT_POLICY =
      "io.scbf.hbase.regionserver.LocalIndexSplitPolicy";

  /** The hidden column family of the local index {@code alias}. */
  public static byte[] localFamily(String alias) {
    return Bytes.toBytes(LOCAL_FAMILY_PREFIX + alias);
  }

  /** True if {@code family} is the family of a local index of {@code specs}. */
  public static boolean isLocalFamily(List<IndexSpec> specs, byte[] family) {
    for (IndexSpec s : specs) {
      if (s.isLocal() && Bytes.equals(localFamily(s.alias()), family)) return true;
    }
    return false;
  }

  /**
   * The descriptor with the index recorded; a local index also gets its column family (one version;
   * deletes mask only earlier writes, as in index tables). No class name: the split policy comes
   * from the site configuration.
   */
  public static TableDescriptor withIndex(TableDescriptor data, IndexSpec spec) {
    TableDescriptorBuilder b =
        TableDescriptorBuilder.newBuilder(withoutLegacySplitPolicy(data))
            .setValue(DATA_ATTR_PREFIX + spec.alias(), spec.encode());
    if (spec.isLocal()) {
      b.setColumnFamily(
          ColumnFamilyDescriptorBuilder.newBuilder(localFamily(spec.alias()))
              .setMaxVersions(1)
              .setNewVersionBehavior(true)
              .setTimeToLive(indexTtl(data, spec))
              .build());
    }
    return b.build();
  }

  /**
   * The TTL (seconds) an index's rows get: that of its indexed columns' family (the shortest, if
   * they span families with different TTLs), {@link HConstants#FOREVER} if none has one. Index rows
   * carry their indexed cell's timestamp, so they expire with it. A family with MIN_VERSIONS keeps
   * each column's newest cells past its TTL (HBase still shows them), so it does not expire index
   * rows.
   */
  public static int indexTtl(TableDescriptor data, IndexSpec spec) {
    int ttl = HConstants.FOREVER;
    for (IndexSpec.Column c : spec.columns()) {
      ColumnFamilyDescriptor cf = data.getColumnFamily(c.family());
      if (cf != null && cf.getMinVersions() == 0) ttl = Math.min(ttl, cf.getTimeToLive());
    }
    return ttl;
  }

  /**
   * The data table's descriptor with each local index family's TTL that of the index's data family
   * ({@link #indexTtl}); the same descriptor if they already agree.
   */
  public static TableDescriptor withLocalTtls(TableDescriptor data) {
    TableDescriptorBuilder b = null;
    for (IndexSpec spec : readSpecs(data).valid()) {
      if (!spec.isLocal()) continue;
      ColumnFamilyDescriptor cf = data.getColumnFamily(localFamily(spec.alias()));
      int ttl = indexTtl(data, spec);
      if (cf == null || cf.getTimeToLive() == ttl) continue;
      if (b == null) b = TableDescriptorBuilder.newBuilder(data);
      b.modifyColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(cf).setTimeToLive(ttl).build());
    }
    return b == null ? data : b.build();
  }

  /** The index table's descriptor with its family's TTL set to {@code ttlSeconds}. */
  public static TableDescriptor withTtl(TableDescriptor indexTable, int ttlSeconds) {
    ColumnFamilyDescriptor cf = indexTable.getColumnFamily(INDEX_FAMILY);
    return TableDescriptorBuilder.newBuilder(indexTable)
        .modifyColumnFamily(
            ColumnFamilyDescriptorBuilder.newBuilder(cf).setTimeToLive(ttlSeconds).build())
        .build();
  }

  /** The TTL (seconds) of an index table's rows. */
  public static int ttlOf(TableDescriptor indexTable) {
    ColumnFamilyDescriptor cf = indexTable.getColumnFamily(INDEX_FAMILY);
    return cf == null ? HConstants.FOREVER : cf.getTimeToLive();
  }

  /**
   * The descriptor without the split policy earlier releases wrote into it ({@link
   * #LOCAL_SPLIT_POLICY}): the site's default policy, which is the same class where scbf is
   * installed, then applies, and the table opens without the jar once its indexes are dropped.
   */
  public static TableDescriptor withoutLegacySplitPolicy(TableDescriptor desc) {
    if (!LOCAL_SPLIT_POLICY.equals(desc.getRegionSplitPolicyClassName())) return desc;
    return TableDescriptorBuilder.newBuilder(desc)
        .removeValue(TableDescriptorBuilder.SPLIT_POLICY)
        .build();
  }

  /**
   * Data table attribute prefix; {@code scbf.local-building.<alias> = "true"}: the local index was
   * defined without its entries ({@code IndexAdmin.defineIndex}), for the MapReduce bulk build to
   * load them. Its regions then do not build their entries themselves: they answer queries by
   * scanning their rows and never offer a filter to routing. {@code IndexAdmin.markBuilt} removes
   * it; the regions reopen, trust the entries the build left (its markers) and build the rest.
   */
  public static final String LOCAL_BUILDING_ATTR_PREFIX = "scbf.local-building.";

  public static boolean isLocalBuilding(TableDescriptor data, String alias) {
    return "true".equals(data.getValue(LOCAL_BUILDING_ATTR_PREFIX + alias));
  }

  /** The data table's descriptor with the local index {@code alias} marked building, or not. */
  public static TableDescriptor withLocalBuilding(
      TableDescriptor data, String alias, boolean building) {
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(data);
    if (building) {
      b.setValue(LOCAL_BUILDING_ATTR_PREFIX + alias, "true");
    } else {
      b.removeValue(LOCAL_BUILDING_ATTR_PREFIX + alias);
    }
    return b.build();
  }

  /** The descriptor without the index (and without a local index's family). */
  public static TableDescriptor withoutIndex(TableDescriptor data, String alias) {
    TableDescriptorBuilder b =
        TableDescriptorBuilder.newBuilder(data)
            .removeValue(DATA_ATTR_PREFIX + alias)
            .removeValue(LOCAL_BUILDING_ATTR_PREFIX + alias);
    if (data.hasColumnFamily(localFamily(alias))) b.removeColumnFamily(localFamily(alias));
    return withoutLegacySplitPolicy(b.build());
  }

  /**
   * Index table attribute "true": the index does not hold an entry for every data row yet (being
   * built, or rebuilt after a snapshot restore or clone). Writes maintain it as usual, but its
   * regions never offer a filter to routing and answer every lookup with "building", so queries
   * scan the data table instead of missing rows. {@code IndexAdmin} clears it once every row is
   * indexed (the regions reopen and build their filters).
   */
  public static final String INDEX_BUILDING_ATTR = "scbf.index-table.building";

  public static boolean isBuilding(TableDescriptor indexTable) {
    return "true".equals(indexTable.getValue(INDEX_BUILDING_ATTR));
  }

  /** The index table's descriptor marked building, or complete. */
  public static TableDescriptor withBuilding(TableDescriptor indexTable, boolean building) {
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(indexTable);
    if (building) {
      b.setValue(INDEX_BUILDING_ATTR, "true");
    } else {
      b.removeValue(INDEX_BUILDING_ATTR);
    }
    return b.build();
  }

  /** True if {@code td} is an index table of {@code dataTable} (by its recorded data table). */
  public static boolean isOwnIndexTable(TableDescriptor td, TableName dataTable) {
    return td.getValue(INDEX_SPEC_ATTR) != null
        && dataTable.getNameAsString().equals(td.getValue(INDEX_DATA_TABLE_ATTR));
  }

  /** The global indexes of a data table, as index table names. */
  public static List<TableName> globalIndexTables(TableName dataTable, List<IndexSpec> specs) {
    List<TableName> out = new ArrayList<>();
    for (IndexSpec s : specs) {
      if (!s.isLocal()) out.add(indexTableName(dataTable, s.alias()));
    }
    return out;
  }

  /** The spec an index table records for a data table's {@code spec}: its STRONG form. */
  public static IndexSpec indexTableSpec(IndexSpec spec) {
    return spec.consistency() == IndexSpec.Consistency.STRONG
        ? spec
        : spec.withConsistency(IndexSpec.Consistency.STRONG);
  }

  /**
   * The spec of an index table, or empty for any other table.
   *
   * @throws IllegalArgumentException if the table's spec attribute is not a valid spec
   */
  public static Optional<IndexSpec> specOfIndexTable(TableDescriptor td) {
    String spec = td.getValue(INDEX_SPEC_ATTR);
    return spec == null ? Optional.empty() : Optional.of(IndexSpec.decode(spec));
  }

  /**
   * The index table: one family whose deletes only mask earlier writes (NEW_VERSION_BEHAVIOR): an
   * index row deleted and re-put within one millisecond stays visible. A {@code BY_ROW} index has
   * one region per bucket that never splits or merges (the bucket is the first key byte); a {@code
   * BY_VALUE} index splits and merges under the cluster's policies like any table. {@code
   * building}: see {@link #INDEX_BUILDING_ATTR}.
   */
  public static TableDescriptor indexTableDescriptor(
      TableName dataTable, IndexSpec spec, boolean building) {
    return indexTableDescriptor(dataTable, spec, building, HConstants.FOREVER);
  }

  /**
   * As {@link #indexTableDescriptor(TableName, IndexSpec, boolean)}, the family's rows expiring
   * after {@code ttlSeconds} ({@link #indexTtl}: the data family's TTL).
   */
  public static TableDescriptor indexTableDescriptor(
      TableName dataTable, IndexSpec spec, boolean building, int ttlSeconds) {
    TableDescriptorBuilder b =
        TableDescriptorBuilder.newBuilder(indexTableName(dataTable, spec.alias()));
    if (building) b.setValue(INDEX_BUILDING_ATTR, "true");
    b.setColumnFamily(
        ColumnFamilyDescriptorBuilder.newBuilder(INDEX_FAMILY)
            .setMaxVersions(1)
            .setNewVersionBehavior(true)
            .setTimeToLive(ttlSeconds)
            .build());
    if (spec.layout() == IndexSpec.Layout.BY_ROW) {
      b.setSplitEnabled(false)
          .setMergeEnabled(false)
          .setNormalizationEnabled(false)
          .setRegionSplitPolicyClassName(
              "org.apache.hadoop.hbase.regionserver.DisabledRegionSplitPolicy");
    }
    // Without the consistency: it is the data table's business, switched without touching this.
    return b.setValue(INDEX_SPEC_ATTR, indexTableSpec(spec).encode())
        .setValue(INDEX_DATA_TABLE_ATTR, dataTable.getNameAsString())
        .build();
  }
}
