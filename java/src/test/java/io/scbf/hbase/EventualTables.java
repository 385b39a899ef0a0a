package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.scbf.hbase.shared.EventualRecords;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.replication.ReplicationPeerDescription;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * {@link EventualIndexClusterTest}'s tables and rows: random writes recorded in an {@link Oracle},
 * and what the data, its indexes, the EVENTUAL peer and the record table hold, checked against it.
 * Not a test class of its own: every test of the class shares one mini cluster.
 */
final class EventualTables {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] ZIP = Bytes.toBytes("zip");
  static final byte[] AGE = Bytes.toBytes("age");
  static final long AWAIT_MS = 30_000;

  /** Row key prefixes that fall in each of the three regions {@link #createTable} makes. */
  static final String[] REGION_PREFIXES = {"a", "r07", "s"};

  private final Connection connection;

  EventualTables(Connection connection) {
    this.connection = connection;
  }

  /** The usual EVENTUAL index: city, 2 buckets. */
  static IndexSpec.Builder eventualCity() {
    return IndexSpec.builder(D, CITY)
        .alias("city")
        .consistency(IndexSpec.Consistency.EVENTUAL)
        .buckets(2);
  }

  /** The zip index beside it: BY_ROW, so both global layouts are checked. */
  static IndexSpec eventualZip() {
    return IndexSpec.builder(D, ZIP)
        .alias("zip")
        .layout(IndexSpec.Layout.BY_ROW)
        .consistency(IndexSpec.Consistency.EVENTUAL)
        .buckets(2)
        .build();
  }

  void createTable(TableName table, int scope) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(table)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(D).setScope(scope).build())
              .build(),
          new byte[][] {Bytes.toBytes("r05"), Bytes.toBytes("r10")});
    }
  }

  /** The test's oracle: row to value, per column. */
  static final class Oracle {
    final Map<String, Map<String, String>> byColumn = new HashMap<>();
    long cellsWritten; // puts' cells and deletes' family markers

    void put(String column, String row, String value) {
      byColumn.computeIfAbsent(column, c -> new HashMap<>()).put(row, value);
    }

    void delete(String row) {
      byColumn.values().forEach(m -> m.remove(row));
    }

    TreeSet<String> rowsOf(String column, String value) {
      TreeSet<String> out = new TreeSet<>();
      byColumn
          .getOrDefault(column, Map.of())
          .forEach(
              (r, v) -> {
                if (v.equals(value)) out.add(r);
              });
      return out;
    }
  }

  static String row(int i) {
    return String.format("r%02d", i);
  }

  /** Writes {@code n} random city and zip values (some rows twice) and deletes a few rows. */
  void writeRandom(TableName table, Oracle oracle, Random random, int n, int values)
      throws IOException, InterruptedException {
    try (Table t = connection.getTable(table)) {
      List<Mutation> batch = new ArrayList<>();
      for (int k = 0; k < n; k++) {
        String r = row(random.nextInt(15));
        if (random.nextInt(8) == 0) {
          t.put(batch.stream().filter(Put.class::isInstance).map(Put.class::cast).toList());
          batch.clear();
          t.delete(new Delete(Bytes.toBytes(r)));
          // HBase masks a put stamped in the delete's millisecond (26 of 500 immediate re-puts
          // were on this machine): the row's next put must come a millisecond later for the
          // data to be what the oracle says it is.
          Thread.sleep(2);
          oracle.delete(r);
          oracle.cellsWritten++;
          continue;
        }
        String city = "c" + random.nextInt(values);
        String zip = "z" + random.nextInt(values);
        batch.add(
            new Put(Bytes.toBytes(r))
                .addColumn(D, CITY, Bytes.toBytes(city))
                .addColumn(D, ZIP, Bytes.toBytes(zip)));
        oracle.put("city", r, city);
        oracle.put("zip", r, zip);
        oracle.cellsWritten += 2;
        if (batch.size() >= 10) {
          t.put(batch.stream().map(Put.class::cast).toList());
          batch.clear();
        }
      }
      t.put(batch.stream().map(Put.class::cast).toList());
    }
  }

  TreeSet<String> found(TableName table, byte[] qualifier, String value) throws IOException {
    // Strict: a BY_ROW index's routed queries see a write once its bucket has published, whether
    // the write reached the index synchronously or through the applier (user guide, "Consistency
    // contract").
    try (IndexedTable t = new IndexedTable(connection, table).setStrict(true)) {
      TreeSet<String> out = new TreeSet<>();
      for (byte[] r : t.findRowKeys(D, qualifier, Bytes.toBytes(value))) out.add(Bytes.toString(r));
      return out;
    }
  }

  void assertMatchesOracle(TableName table, Oracle oracle, int values) throws IOException {
    assertDataMatchesOracle(table, oracle);
    for (int v = 0; v < values; v++) {
      assertEquals(oracle.rowsOf("city", "c" + v), found(table, CITY, "c" + v), "city c" + v);
      assertEquals(oracle.rowsOf("zip", "z" + v), found(table, ZIP, "z" + v), "zip z" + v);
    }
  }

  /** The data itself first: an index can only be as right as the oracle of what was written. */
  private void assertDataMatchesOracle(TableName table, Oracle oracle) throws IOException {
    Map<String, Map<String, String>> data = new HashMap<>();
    try (Table t = connection.getTable(table);
        ResultScanner s = t.getScanner(D)) {
      for (Result r : s) {
        String row = Bytes.toString(r.getRow());
        for (Cell c : r.rawCells()) {
          data.computeIfAbsent(Bytes.toString(CellUtil.cloneQualifier(c)), q -> new HashMap<>())
              .put(row, Bytes.toString(CellUtil.cloneValue(c)));
        }
      }
    }
    for (String column : List.of("city", "zip")) {
      assertEquals(
          new TreeMap<>(oracle.byColumn.getOrDefault(column, Map.of())),
          new TreeMap<>(data.getOrDefault(column, Map.of())),
          "data of " + column);
    }
  }

  /** The record table's cells of {@code table}'s rows for index {@code alias} (null: any index). */
  int recordCells(TableName table, String alias) throws IOException {
    int n = 0;
    try (Table t = connection.getTable(EventualRecords.TABLE);
        ResultScanner s =
            t.getScanner(
                new org.apache.hadoop.hbase.client.Scan()
                    .setRowPrefixFilter(EventualRecords.rowKey(table, new byte[0])))) {
      for (Result r : s) {
        for (Cell c : r.rawCells()) {
          if (alias == null
              || EventualRecords.indexRowOf(alias, CellUtil.cloneQualifier(c)) != null) {
            n++;
          }
        }
      }
    }
    return n;
  }

  boolean covered(TableName table) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      for (ReplicationPeerDescription d : admin.listReplicationPeers()) {
        if (d.getPeerId().equals(EventualRecords.PEER_ID)) {
          return d.getPeerConfig().needToReplicate(table);
        }
      }
    }
    return false;
  }

  /** The record table's rows held back for {@code table}: any row outside the tables' record. */
  int heldRows(TableName table) throws IOException {
    int n = 0;
    byte[] name = table.getName();
    try (Table t = connection.getTable(EventualRecords.TABLE);
        ResultScanner s = t.getScanner(new org.apache.hadoop.hbase.client.Scan())) {
      for (Result r : s) {
        byte[] row = r.getRow();
        if (row.length > 0 && row[0] == 0 && Bytes.indexOf(row, name) >= 0) n++;
      }
    }
    return n;
  }
}
