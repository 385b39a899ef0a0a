package io.scbf.hbase.ycsb;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * A YCSB binding for an HBase table, as YCSB's own HBase binding does it with client-side buffering
 * off: one {@link Put} per insert or update, one {@link Get} per read. Indexes are kept by the
 * coprocessors, so the same binding measures an unindexed table and an indexed one; the benchmark
 * gives each instance (one per client thread) the connection and table.
 */
final class HBaseDB extends DB {
  private final Connection connection;
  private final TableName tableName;
  private final byte[] family;
  private final AtomicLong errors;
  private Table table;

  HBaseDB(Connection connection, TableName tableName, byte[] family, AtomicLong errors) {
    this.connection = connection;
    this.tableName = tableName;
    this.family = family;
    this.errors = errors;
  }

  @Override
  public void init() throws DBException {
    try {
      table = connection.getTable(tableName);
    } catch (IOException e) {
      throw new DBException(e);
    }
  }

  @Override
  public void cleanup() throws DBException {
    try {
      if (table != null) table.close();
    } catch (IOException e) {
      throw new DBException(e);
    }
  }

  @Override
  public Status read(String t, String key, Set<String> fields, Map<String, ByteIterator> result) {
    Get get = new Get(Bytes.toBytes(key));
    if (fields == null) {
      get.addFamily(family);
    } else {
      for (String f : fields) get.addColumn(family, Bytes.toBytes(f));
    }
    try {
      Result r = table.get(get);
      if (r.isEmpty()) return failed(Status.NOT_FOUND);
      copy(r, result);
      return Status.OK;
    } catch (IOException e) {
      return failed(Status.ERROR);
    }
  }

  @Override
  public Status scan(
      String t,
      String startKey,
      int count,
      Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    Scan scan = new Scan().withStartRow(Bytes.toBytes(startKey)).setLimit(count).setCaching(count);
    if (fields == null) {
      scan.addFamily(family);
    } else {
      for (String f : fields) scan.addColumn(family, Bytes.toBytes(f));
    }
    try (ResultScanner rows = table.getScanner(scan)) {
      for (Result r : rows) {
        HashMap<String, ByteIterator> row = new HashMap<>();
        copy(r, row);
        result.add(row);
      }
      return Status.OK;
    } catch (IOException e) {
      return failed(Status.ERROR);
    }
  }

  @Override
  public Status update(String t, String key, Map<String, ByteIterator> values) {
    return insert(t, key, values);
  }

  @Override
  public Status insert(String t, String key, Map<String, ByteIterator> values) {
    Put put = new Put(Bytes.toBytes(key));
    for (Map.Entry<String, ByteIterator> v : values.entrySet()) {
      put.addColumn(family, Bytes.toBytes(v.getKey()), v.getValue().toArray());
    }
    try {
      table.put(put);
      return Status.OK;
    } catch (IOException e) {
      return failed(Status.ERROR);
    }
  }

  @Override
  public Status delete(String t, String key) {
    try {
      table.delete(new Delete(Bytes.toBytes(key)));
      return Status.OK;
    } catch (IOException e) {
      return failed(Status.ERROR);
    }
  }

  private Status failed(Status s) {
    errors.incrementAndGet();
    return s;
  }

  private static void copy(Result r, Map<String, ByteIterator> out) {
    for (Cell c : r.rawCells()) {
      out.put(
          Bytes.toString(CellUtil.cloneQualifier(c)),
          new ByteArrayByteIterator(CellUtil.cloneValue(c)));
    }
  }
}
