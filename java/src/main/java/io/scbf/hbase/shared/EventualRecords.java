package io.scbf.hbase.shared;

import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
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
 * 0, index row key; empty value; timestamp = the index row's. Probe rows ({@link #probeRow}) start
 * with a 0 byte, which no table name does.
 */
@InterfaceAudience.Private
public final class EventualRecords {
  /** The replication peer of the EVENTUAL mode (custom endpoint, table-cfs of its data tables). */
  public static final String PEER_ID = "scbf_eventual";

  public static final TableName TABLE = TableName.valueOf("scbf_eventual_rows");
  public static final byte[] FAMILY = Bytes.toBytes("r");
  private static final byte[] EMPTY = new byte[0];

  /** The qualifier of the WAL marker a data region writes when a writer awaits the applier. */
  public static final byte[] PROBE_QUALIFIER = Bytes.toBytes("SCBF::EVENTUAL_PROBE");

  private static final byte[] PROBE_PREFIX = {0, 'p'};

  private EventualRecords() {}

  public static TableDescriptor tableDescriptor() {
    return TableDescriptorBuilder.newBuilder(TABLE)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY).setMaxVersions(1).build())
        .build();
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
}
