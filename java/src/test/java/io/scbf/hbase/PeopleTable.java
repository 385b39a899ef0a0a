package io.scbf.hbase;

import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * {@link IndexClusterTest}'s table: its schema and city index, the random workload written to it,
 * and its index rows read directly. Not a test class of its own: every test of the class shares one
 * mini cluster.
 */
final class PeopleTable {
  static final TableName TABLE = TableName.valueOf("people");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] X = Bytes.toBytes("x");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] NAME = Bytes.toBytes("name");
  static final byte[] SCORE = Bytes.toBytes("score");
  static final int CITY_BUCKETS = 8;
  static final double CITY_FPP = 0.01;

  private PeopleTable() {}

  /** The table (split in four regions) and its city index: BY_ROW, covering the name. */
  static void create(Connection connection) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(X))
              .build(),
          new byte[][] {Bytes.toBytes("row-1"), Bytes.toBytes("row-2"), Bytes.toBytes("row-3")});
    }
    new IndexAdmin(connection)
        .createIndex(
            TABLE,
            IndexSpec.builder(D, CITY)
                .alias("city")
                .layout(IndexSpec.Layout.BY_ROW)
                .buckets(CITY_BUCKETS)
                .fpp(CITY_FPP)
                .covered(D, NAME)
                .build());
  }

  private static String city(int i) {
    return "city-" + i;
  }

  private static byte[] row(int i) {
    return Bytes.toBytes(String.format("row-%04d", i));
  }

  /** The index rows of a value, read directly from the index table (no endpoint, no cache). */
  static List<String> rawIndexRows(Connection connection, byte[] value) throws IOException {
    List<String> rows = new ArrayList<>();
    try (Table t = connection.getTable(IndexCatalog.indexTableName(TABLE, "city"))) {
      for (int b = 0; b < CITY_BUCKETS; b++) {
        byte[] prefix = IndexKeyCodec.valuePrefix(b, Bytes.toBytes("city"), value);
        try (var scanner =
            t.getScanner(
                new org.apache.hadoop.hbase.client.Scan().setStartStopRowForPrefixScan(prefix))) {
          for (Result r : scanner)
            rows.add(Bytes.toStringBinary(IndexKeyCodec.parse(r.getRow()).userRow()));
        }
      }
    }
    return rows;
  }

  /** Puts, value changes, multi-column puts, column/family/row deletes, batched and single. */
  static void randomWrites(Connection connection, Random rnd, int rows, int ops)
      throws IOException {
    try (Table t = connection.getTable(TABLE)) {
      List<Mutation> batch = new ArrayList<>();
      for (int i = 0; i < ops; i++) {
        byte[] row = row(rnd.nextInt(rows));
        int kind = rnd.nextInt(10);
        Mutation m;
        if (kind < 4) {
          m = new Put(row).addColumn(D, CITY, Bytes.toBytes(city(rnd.nextInt(40))));
        } else if (kind < 6) {
          m =
              new Put(row)
                  .addColumn(D, CITY, Bytes.toBytes(city(rnd.nextInt(40))))
                  .addColumn(D, NAME, Bytes.toBytes("n" + rnd.nextInt(1000)))
                  .addColumn(X, SCORE, Bytes.toBytes(rnd.nextInt()));
        } else if (kind == 6) {
          m = new Delete(row).addColumns(D, CITY);
        } else if (kind == 7) {
          m = new Delete(row).addFamily(D);
        } else if (kind == 8) {
          m = new Delete(row);
        } else {
          m = new Put(row).addColumn(D, NAME, Bytes.toBytes("n" + rnd.nextInt(1000)));
        }
        if (rnd.nextBoolean()) {
          batch.add(m);
          if (batch.size() >= 20) {
            batch(t, batch);
          }
        } else if (m instanceof Put p) {
          t.put(p);
        } else {
          t.delete((Delete) m);
        }
      }
      batch(t, batch);
    }
  }

  private static void batch(Table t, List<Mutation> batch) throws IOException {
    try {
      t.batch(batch, new Object[batch.size()]);
    } catch (InterruptedException e) {
      throw new IOException(e);
    }
    batch.clear();
  }
}
