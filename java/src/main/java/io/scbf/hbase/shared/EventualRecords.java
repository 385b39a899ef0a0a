package io.scbf.hbase.shared;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * What the EVENTUAL mode keeps beside the indexes: the replication peer that ships the data tables'
 * write-ahead logs to the region servers' applier, and the record table holding, per data row and
 * index, the index rows the applier (or the seed before a switch) has written for it. A WAL edit
 * carries only the new cells, so this record is how an update finds the entry of the value it
 * replaced (see docs/design.md, "EVENTUAL indexes").
 *
 * <p>Record rows: key = data table name, 0, data row; one column per index row: qualifier = alias,
 * 0, index row key; empty value; timestamp = the index row's. Probe rows ({@link #probeRow}) and
 * held rows ({@link #heldRow}) start with a 0 byte, which no table name does.
 */
@InterfaceAudience.Private
public final class EventualRecords {
  /** The replication peer of the EVENTUAL mode (custom endpoint, table-cfs of its data tables). */
  public static final String PEER_ID = "scbf_eventual";

  public static final TableName TABLE = TableName.valueOf("scbf_eventual_rows");
  public static final byte[] FAMILY = Bytes.toBytes("r");
  private static final byte[] EMPTY = new byte[0];
  private static final int BATCH = 1000;

  /** The qualifier of the WAL marker a data region writes when a writer awaits the applier. */
  public static final byte[] PROBE_QUALIFIER = Bytes.toBytes("SCBF::EVENTUAL_PROBE");

  private static final byte[] PROBE_PREFIX = {0, 'p'};

  private static final byte[] HELD_PREFIX = {0, 'h'};

  private EventualRecords() {}

  /**
   * The record table. Its family's deletes mask only earlier writes (NEW_VERSION_BEHAVIOR): a
   * record cell is deleted at its index row's timestamp (a switch to STRONG, a drop, the applier's
   * own deletes) and may be written again at that same timestamp (the seed of a switch back or a
   * re-create, a value written back with a repeated client timestamp or within the millisecond). A
   * masked record would hide the index row from the applier, which then never deletes it.
   */
  public static TableDescriptor tableDescriptor() {
    return TableDescriptorBuilder.newBuilder(TABLE).setColumnFamily(familyDescriptor(null)).build();
  }

  /** {@code current} (or a new family) with the record family's settings. */
  public static ColumnFamilyDescriptor familyDescriptor(ColumnFamilyDescriptor current) {
    ColumnFamilyDescriptorBuilder b =
        current == null
            ? ColumnFamilyDescriptorBuilder.newBuilder(FAMILY).setMaxVersions(1)
            : ColumnFamilyDescriptorBuilder.newBuilder(current);
    return b.setNewVersionBehavior(true).build();
  }

  /**
   * True if the record table, as created by releases before 0.4, lets a delete mask a later write
   * at the same timestamp ({@link #tableDescriptor}).
   */
  public static boolean needsFence(TableDescriptor records) {
    ColumnFamilyDescriptor cf = records.getColumnFamily(FAMILY);
    return cf != null && !cf.isNewVersionBehavior();
  }

  public static byte[] rowKey(TableName dataTable, byte[] dataRow) {
    return Bytes.add(dataTable.getName(), new byte[] {0}, dataRow);
  }

  public static byte[] member(String alias, byte[] indexRow) {
    return Bytes.add(Bytes.toBytes(alias), new byte[] {0}, indexRow);
  }

  public static byte[] value() {
    return EMPTY;
  }

  /** The index row of a {@link #member} qualifier of index {@code alias}, or null if another's. */
  public static byte[] indexRowOf(String alias, byte[] member) {
    byte[] prefix = Bytes.add(Bytes.toBytes(alias), new byte[] {0});
    return Bytes.startsWith(member, prefix)
        ? Bytes.copy(member, prefix.length, member.length - prefix.length)
        : null;
  }

  /** The index rows (key to timestamp) a record row holds for index {@code alias}. */
  public static Map<Bytes, Long> members(Result record, String alias) {
    Map<Bytes, Long> out = new HashMap<>();
    if (record == null || record.isEmpty()) return out;
    NavigableMap<byte[], byte[]> family = record.getFamilyMap(FAMILY);
    if (family == null) return out;
    byte[] prefix = Bytes.add(Bytes.toBytes(alias), new byte[] {0});
    for (byte[] q : family.keySet()) {
      if (Bytes.startsWith(q, prefix)) {
        byte[] key = Bytes.copy(q, prefix.length, q.length - prefix.length);
        out.put(new Bytes(key), record.getColumnLatestCell(FAMILY, q).getTimestamp());
      }
    }
    return out;
  }

  /** The row recording that the applier has applied everything before probe {@code id}. */
  public static byte[] probeRow(long id) {
    return Bytes.add(PROBE_PREFIX, Bytes.toBytes(id));
  }

  /**
   * The row marking that the applier set {@code dataRow} aside (its table could not be applied when
   * its edits were shipped) and applies it later from the row's current data: held prefix, then the
   * row's {@link #rowKey}. Each hold is its own column ({@link #holdQualifier}), so a release
   * deletes exactly the holds it applied.
   */
  public static byte[] heldRow(TableName dataTable, byte[] dataRow) {
    return Bytes.add(HELD_PREFIX, rowKey(dataTable, dataRow));
  }

  public static byte[] heldPrefix(TableName dataTable) {
    return heldRow(dataTable, EMPTY);
  }

  /** The first held row key of any table. */
  public static byte[] heldStart() {
    return HELD_PREFIX.clone();
  }

  /** Past the last held row key of any table. */
  public static byte[] heldStop() {
    return new byte[] {0, 'h' + 1};
  }

  /** Past the held rows of {@code dataTable} (no table name holds a byte below '-'). */
  public static byte[] heldAfter(TableName dataTable) {
    return Bytes.add(HELD_PREFIX, dataTable.getName(), new byte[] {1});
  }

  public static TableName heldTableOf(byte[] heldRow) {
    int end = HELD_PREFIX.length;
    while (heldRow[end] != 0) end++;
    return TableName.valueOf(Bytes.copy(heldRow, HELD_PREFIX.length, end - HELD_PREFIX.length));
  }

  public static byte[] heldDataRow(TableName dataTable, byte[] heldRow) {
    int from = heldPrefix(dataTable).length;
    return Bytes.copy(heldRow, from, heldRow.length - from);
  }

  /** A new hold's qualifier: distinct from every other hold of the row. */
  public static byte[] holdQualifier() {
    return Bytes.toBytes(ThreadLocalRandom.current().nextLong());
  }

  /** True if {@code records} holds rows of {@code dataTable} the applier has not applied yet. */
  public static boolean holds(Table records, TableName dataTable) throws IOException {
    Scan scan =
        new Scan()
            .setRowPrefixFilter(heldPrefix(dataTable))
            .addFamily(FAMILY)
            .setLimit(1)
            .setCaching(1);
    try (ResultScanner s = records.getScanner(scan)) {
      return s.next() != null;
    }
  }

  /**
   * Removes from the record table what it holds for {@code dataTable}'s index {@code alias}, or for
   * all its indexes if {@code alias} is null: after a drop, or once the table has left the peer or
   * deleted (the applier then writes no record for it; a later switch to EVENTUAL seeds a fresh
   * one), with the table's held rows. A record the applier still writes for a batch in flight may
   * be left; it only names index rows, whose deletion the applier fences, so a later record of the
   * same index is not misled by it.
   *
   * @return the record cells removed
   */
  public static long forget(Connection connection, TableName dataTable, String alias)
      throws IOException {
    try (Admin admin = connection.getAdmin()) {
      if (!admin.tableExists(TABLE)) return 0;
    }
    Scan scan =
        new Scan().setRowPrefixFilter(rowKey(dataTable, EMPTY)).addFamily(FAMILY).setCaching(BATCH);
    if (alias != null) scan.setFilter(new ColumnPrefixFilter(member(alias, EMPTY)));
    long removed = removeAll(connection, scan);
    if (alias == null) {
      removeAll(
          connection,
          new Scan().setRowPrefixFilter(heldPrefix(dataTable)).addFamily(FAMILY).setCaching(BATCH));
    }
    return removed;
  }

  /** Deletes the cells {@code scan} reads, each at its timestamp; returns how many. */
  private static long removeAll(Connection connection, Scan scan) throws IOException {
    long removed = 0;
    try (Table records = connection.getTable(TABLE);
        ResultScanner scanner = records.getScanner(scan)) {
      List<Delete> batch = new ArrayList<>(BATCH);
      for (Result r : scanner) {
        Delete d = new Delete(r.getRow());
        for (Cell c : r.rawCells()) {
          d.addColumns(FAMILY, CellUtil.cloneQualifier(c), c.getTimestamp());
          removed++;
        }
        batch.add(d);
        if (batch.size() >= BATCH) {
          records.delete(batch);
          batch.clear();
        }
      }
      if (!batch.isEmpty()) records.delete(batch);
    }
    return removed;
  }
}
