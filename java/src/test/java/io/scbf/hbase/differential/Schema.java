package io.scbf.hbase.differential;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexSpec.Layout;
import io.scbf.hbase.IndexSpec.ValueType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.hbase.KeepDeletedCells;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/** A sequence's table: its families and their settings, its columns, its indexes and its rows. */
record Schema(List<Family> families, List<Column> columns, List<Index> indexes, List<String> rows) {

  record Family(
      String name,
      int versions,
      int ttlSeconds,
      int minVersions,
      boolean keepDeletedCells,
      boolean newVersionBehavior) {
    @Override
    public String toString() {
      return String.format(
          "%s{VERSIONS=%d, TTL=%s, MIN_VERSIONS=%d, KEEP_DELETED_CELLS=%s, NEW_VERSION_BEHAVIOR=%s}",
          name,
          versions,
          ttlSeconds == 0 ? "FOREVER" : ttlSeconds + "s",
          minVersions,
          keepDeletedCells,
          newVersionBehavior);
    }
  }

  /** A column and the few values the generator writes to it (few, so that values collide). */
  record Column(String name, ValueType type, List<String> domain) {
    byte[] family() {
      return Bytes.toBytes(name.substring(0, name.indexOf(':')));
    }

    byte[] qualifier() {
      return Bytes.toBytes(name.substring(name.indexOf(':') + 1));
    }

    String familyName() {
      return name.substring(0, name.indexOf(':'));
    }
  }

  enum Kind {
    BY_VALUE,
    BY_ROW,
    ORDERED,
    LOCAL
  }

  record Index(
      String alias, String column, Kind kind, int buckets, List<String> covered, boolean eventual) {
    boolean global() {
      return kind != Kind.LOCAL;
    }

    @Override
    public String toString() {
      return String.format(
          "%s on %s %s%s%s%s",
          alias,
          column,
          kind,
          buckets > 1 ? " buckets=" + buckets : "",
          covered.isEmpty() ? "" : " covered=" + covered,
          eventual ? " EVENTUAL" : "");
    }
  }

  Column column(String name) {
    return columns.stream().filter(c -> c.name.equals(name)).findFirst().orElseThrow();
  }

  Index index(String alias) {
    return indexes.stream().filter(i -> i.alias.equals(alias)).findFirst().orElseThrow();
  }

  Family family(String name) {
    return families.stream().filter(f -> f.name.equals(name)).findFirst().orElseThrow();
  }

  /** Columns an index reads: indexed or covered; the product refuses some writes of them. */
  boolean watched(String column) {
    return indexes.stream().anyMatch(i -> i.column.equals(column) || i.covered.contains(column));
  }

  boolean watchesFamily(String family) {
    return columns.stream().anyMatch(c -> c.familyName().equals(family) && watched(c.name));
  }

  boolean expires() {
    return families.stream().anyMatch(f -> f.ttlSeconds > 0);
  }

  Optional<Index> indexOn(String column) {
    return indexes.stream().filter(i -> i.column.equals(column)).findFirst();
  }

  IndexSpec spec(Index index, boolean eventual) {
    Column c = column(index.column);
    IndexSpec.Builder b =
        IndexSpec.builder(c.family(), c.qualifier()).alias(index.alias).type(c.type());
    switch (index.kind) {
      case LOCAL -> b.local();
      case BY_ROW -> b.layout(Layout.BY_ROW).buckets(index.buckets);
      case BY_VALUE -> b.layout(Layout.BY_VALUE).buckets(index.buckets);
      case ORDERED -> b.layout(Layout.ORDERED).buckets(index.buckets);
    }
    for (String cov : index.covered) b.covered(column(cov).family(), column(cov).qualifier());
    if (eventual) b.consistency(IndexSpec.Consistency.EVENTUAL);
    return b.build();
  }

  TableDescriptor descriptor(TableName name) {
    TableDescriptorBuilder t = TableDescriptorBuilder.newBuilder(name);
    for (Family f : families) {
      ColumnFamilyDescriptorBuilder b =
          ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes(f.name))
              .setMaxVersions(f.versions)
              .setMinVersions(f.minVersions)
              .setKeepDeletedCells(
                  f.keepDeletedCells ? KeepDeletedCells.TRUE : KeepDeletedCells.FALSE)
              .setNewVersionBehavior(f.newVersionBehavior);
      if (f.ttlSeconds > 0) b.setTimeToLive(f.ttlSeconds);
      t.setColumnFamily(b.build());
    }
    return t.build();
  }

  @Override
  public String toString() {
    List<String> lines = new ArrayList<>();
    lines.add("families " + families);
    lines.add("indexes " + indexes);
    lines.add("rows " + rows);
    return String.join("; ", lines);
  }
}
