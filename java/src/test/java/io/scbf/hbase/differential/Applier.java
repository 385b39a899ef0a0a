package io.scbf.hbase.differential;

import io.scbf.hbase.IndexAdmin;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.differential.Schema.Column;
import io.scbf.hbase.differential.Schema.Index;
import io.scbf.hbase.shared.IndexCatalog;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeepDeletedCells;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.visibility.CellVisibility;
import org.apache.hadoop.hbase.util.Bytes;

/** Turns ops into HBase and scbf calls on one sequence's table. */
final class Applier {
  private final HBaseTestingUtility util;
  private final Connection connection;
  private final IndexAdmin indexAdmin;
  private final TableName table;
  private final Schema schema;
  private final long clock;

  /** Each index's consistency now (events switch it). */
  final Map<String, Boolean> eventual;

  Applier(
      HBaseTestingUtility util,
      Connection connection,
      TableName table,
      Schema schema,
      long clock,
      Map<String, Boolean> eventual) {
    this.util = util;
    this.connection = connection;
    this.indexAdmin = new IndexAdmin(connection);
    this.table = table;
    this.schema = schema;
    this.clock = clock;
    this.eventual = eventual;
  }

  void write(Op.Write op) throws Exception {
    try (Table t = connection.getTable(table)) {
      if (op instanceof Op.Batch b) {
        List<Row> rows = new ArrayList<>();
        for (Op.Write w : b.writes()) rows.add(mutation(w));
        t.batch(rows, new Object[rows.size()]);
      } else if (op instanceof Op.Mutations m) {
        RowMutations rm = new RowMutations(Bytes.toBytes(m.row()));
        for (Op.Write w : m.writes()) rm.add(mutation(w));
        t.mutateRow(rm);
      } else if (op instanceof Op.CheckAndPut c) {
        Column col = schema.column(c.column());
        CheckAndMutate.Builder b = CheckAndMutate.newBuilder(Bytes.toBytes(c.row()));
        b =
            c.expected() == null
                ? b.ifNotExists(col.family(), col.qualifier())
                : b.ifEquals(col.family(), col.qualifier(), Values.bytes(c.expected()));
        t.checkAndMutate(b.build((Put) mutation(c.then())));
      } else if (op instanceof Op.Increment i) {
        Column col = schema.column(i.column());
        t.increment(
            new Increment(Bytes.toBytes(i.row())).addColumn(col.family(), col.qualifier(), 1));
      } else if (op instanceof Op.Append a) {
        Column col = schema.column(a.column());
        t.append(
            new Append(Bytes.toBytes(a.row()))
                .addColumn(col.family(), col.qualifier(), Values.bytes(a.value())));
      } else {
        Mutation m = mutation(op);
        if (m instanceof Put p) t.put(p);
        else t.delete((Delete) m);
      }
    }
  }

  private Long stamp(Long offset) {
    return offset == null ? null : clock + offset;
  }

  Mutation mutation(Op.Write op) {
    byte[] row = Bytes.toBytes(op.row());
    if (op instanceof Op.Put p) {
      Put put = new Put(row);
      for (int i = 0; i < p.cells().size(); i += 2) {
        Column c = schema.column(p.cells().get(i));
        byte[] v = Values.bytes(p.cells().get(i + 1));
        if (p.ts() == null) put.addColumn(c.family(), c.qualifier(), v);
        else put.addColumn(c.family(), c.qualifier(), stamp(p.ts()), v);
      }
      return put;
    } else if (op instanceof Op.PutWithTtl p) {
      Column c = schema.column(p.column());
      return new Put(row)
          .addColumn(c.family(), c.qualifier(), Values.bytes(p.value()))
          .setTTL(60_000);
    } else if (op instanceof Op.PutWithVisibility p) {
      Column c = schema.column(p.column());
      Put put = new Put(row).addColumn(c.family(), c.qualifier(), Values.bytes(p.value()));
      put.setCellVisibility(new CellVisibility("secret"));
      return put;
    } else if (op instanceof Op.DeleteRow d) {
      return d.ts() == null ? new Delete(row) : new Delete(row, stamp(d.ts()));
    } else if (op instanceof Op.DeleteFamily d) {
      byte[] f = Bytes.toBytes(d.family());
      return d.ts() == null
          ? new Delete(row).addFamily(f)
          : new Delete(row).addFamily(f, stamp(d.ts()));
    } else if (op instanceof Op.DeleteColumns d) {
      Column c = schema.column(d.column());
      return d.ts() == null
          ? new Delete(row).addColumns(c.family(), c.qualifier())
          : new Delete(row).addColumns(c.family(), c.qualifier(), stamp(d.ts()));
    } else if (op instanceof Op.DeleteVersion d) {
      Column c = schema.column(d.column());
      return d.ts() == null
          ? new Delete(row).addColumn(c.family(), c.qualifier())
          : new Delete(row).addColumn(c.family(), c.qualifier(), stamp(d.ts()));
    } else if (op instanceof Op.DeleteFamilyVersion d) {
      return new Delete(row).addFamilyVersion(schema.column(d.column()).family(), stamp(d.ts()));
    } else {
      throw new IllegalArgumentException("not a single mutation: " + op);
    }
  }

  /** Applies an event; false if HBase declined it (a split at a region's start key, say). */
  boolean event(Op op) throws Exception {
    try (Admin admin = connection.getAdmin()) {
      if (op instanceof Op.Flush f) {
        admin.flush(table);
        for (TableName t : indexTables()) admin.flush(t);
      } else if (op instanceof Op.MajorCompact m) {
        admin.majorCompact(table);
      } else if (op instanceof Op.SplitData s) {
        byte[] at = Bytes.toBytes(s.row());
        RegionInfo region = null;
        for (RegionInfo r : admin.getRegions(table)) if (r.containsRow(at)) region = r;
        if (region == null || Bytes.equals(region.getStartKey(), at)) return false;
        try {
          admin.splitRegionAsync(region.getRegionName(), at).get(60, TimeUnit.SECONDS);
        } catch (IOException | java.util.concurrent.ExecutionException e) {
          // A daughter still holding references to its parent's files cannot split yet, nor can
          // a region in transition (seed 1254: "is not OPEN; state=CLOSING").
          String why = String.valueOf(e.getMessage());
          if (why.contains("NOT splittable") || why.contains("is not OPEN")) return false;
          throw e;
        }
      } else if (op instanceof Op.SplitIndex s) {
        TableName t = IndexCatalog.indexTableName(table, s.alias());
        admin.flush(t);
        try {
          admin.split(t);
        } catch (IOException e) {
          return false; // nothing to split at in a tiny index table
        }
      } else if (op instanceof Op.Move m) {
        move(admin, m);
      } else if (op instanceof Op.Merge m) {
        return merge(admin, m);
      } else if (op instanceof Op.RollWal w) {
        for (ServerName server : admin.getRegionServers()) admin.rollWALWriter(server);
      } else if (op instanceof Op.SetConsistency s) {
        indexAdmin.setConsistency(
            table,
            s.alias(),
            s.eventual() ? IndexSpec.Consistency.EVENTUAL : IndexSpec.Consistency.STRONG);
        eventual.put(s.alias(), s.eventual());
      } else if (op instanceof Op.RecreateIndex r) {
        indexAdmin.dropIndex(table, r.alias());
        Index index = schema.index(r.alias());
        indexAdmin.createIndex(table, schema.spec(index, eventual.get(r.alias())));
      } else if (op instanceof Op.Rebuild r) {
        indexAdmin.rebuildIndex(table, r.alias());
      } else if (op instanceof Op.Repair r) {
        indexAdmin.repair(table, r.alias());
      } else if (op instanceof Op.DisableEnable d) {
        admin.disableTable(table);
        admin.enableTable(table);
      } else if (op instanceof Op.Truncate t) {
        admin.disableTable(table);
        admin.truncateTable(table, true);
      } else if (op instanceof Op.AlterFamily a) {
        alter(admin, a);
      } else if (op instanceof Op.Sleep s) {
        Thread.sleep(s.ms());
      } else {
        throw new IllegalArgumentException("not an event: " + op);
      }
    }
    return true;
  }

  /** Whether the product refuses this alter of the table as it is now. */
  boolean refuses(Op.AlterFamily a) throws IOException {
    if (!schema.watchesFamily(a.family())) return false;
    try (Admin admin = connection.getAdmin()) {
      ColumnFamilyDescriptor f =
          admin.getDescriptor(table).getColumnFamily(Bytes.toBytes(a.family()));
      int ttl = f.getTimeToLive() == HConstants.FOREVER ? 0 : f.getTimeToLive();
      return new Schema.Family(
              a.family(),
              f.getMaxVersions(),
              ttl,
              f.getMinVersions(),
              f.getKeepDeletedCells() != KeepDeletedCells.FALSE,
              f.isNewVersionBehavior())
          .alterRefused(a.setting(), a.value());
    }
  }

  private void alter(Admin admin, Op.AlterFamily a) throws IOException {
    TableDescriptor current = admin.getDescriptor(table);
    ColumnFamilyDescriptorBuilder f =
        ColumnFamilyDescriptorBuilder.newBuilder(
            current.getColumnFamily(Bytes.toBytes(a.family())));
    switch (a.setting()) {
      case "VERSIONS" -> f.setMaxVersions(a.value());
      case "TTL" -> f.setTimeToLive(a.value() == 0 ? HConstants.FOREVER : a.value());
      case "MIN_VERSIONS" -> f.setMinVersions(a.value());
      case "KEEP_DELETED_CELLS" ->
          f.setKeepDeletedCells(a.value() == 1 ? KeepDeletedCells.TRUE : KeepDeletedCells.FALSE);
      case "NEW_VERSION_BEHAVIOR" -> f.setNewVersionBehavior(a.value() == 1);
      default -> throw new IllegalArgumentException(a.setting());
    }
    admin.modifyTable(
        TableDescriptorBuilder.newBuilder(current).modifyColumnFamily(f.build()).build());
  }

  List<TableName> indexTables() {
    List<TableName> out = new ArrayList<>();
    for (Index i : schema.indexes()) {
      if (i.global()) out.add(IndexCatalog.indexTableName(table, i.alias()));
    }
    return out;
  }

  private boolean merge(Admin admin, Op.Merge m) throws Exception {
    TableName t = m.alias() == null ? table : IndexCatalog.indexTableName(table, m.alias());
    List<RegionInfo> regions = new ArrayList<>(admin.getRegions(t));
    if (regions.size() < 2) return false;
    regions.sort(RegionInfo.COMPARATOR);
    byte[][] pair = {regions.get(0).getRegionName(), regions.get(1).getRegionName()};
    try {
      admin.mergeRegionsAsync(pair, false).get(60, TimeUnit.SECONDS);
      return true;
    } catch (IOException | java.util.concurrent.ExecutionException e) {
      // A daughter still holding references to its parent's files cannot merge (on a NEW_VERSION_
      // BEHAVIOR family even a major compaction left one in place here), nor can a region in
      // transition: HBase declines (MergeRegionException).
      String why = String.valueOf(e.getMessage()) + " " + e.getCause();
      if (why.contains("MergeRegionException") || why.contains("is not OPEN")) return false;
      throw e;
    }
  }

  /** Every region of the table and its index tables to the server it is not on. */
  private void move(Admin admin, Op.Move m) throws IOException {
    List<ServerName> servers = new ArrayList<>();
    util.getMiniHBaseCluster()
        .getLiveRegionServerThreads()
        .forEach(t -> servers.add(t.getRegionServer().getServerName()));
    // The data table and one index table: moving every index table's regions takes seconds each.
    List<TableName> tables = new ArrayList<>();
    tables.add(table);
    if (m.alias() != null) tables.add(IndexCatalog.indexTableName(table, m.alias()));
    for (TableName t : tables) {
      for (RegionInfo r : admin.getRegions(t)) {
        ServerName at = null;
        try {
          at =
              connection
                  .getRegionLocator(t)
                  .getRegionLocation(r.getStartKey(), true)
                  .getServerName();
        } catch (IOException e) {
          continue;
        }
        for (ServerName s : servers) {
          if (!s.equals(at)) {
            admin.move(r.getEncodedNameAsBytes(), s);
            break;
          }
        }
      }
    }
  }
}
