package io.scbf.hbase.ycsb;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicLong;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * A YCSB binding for a SQL table through JDBC, as YCSB's JDBC binding does it with auto-commit on:
 * one {@code UPSERT} per insert or update, one {@code SELECT} per read. Used for Apache Phoenix
 * (the driver is on the class path only with the {@code phoenix} profile); its indexes are kept by
 * Phoenix, so one binding measures Phoenix's unindexed and indexed tables alike.
 */
final class JdbcDB extends DB {
  private final String url;
  private final String table;
  private final AtomicLong errors;
  private Connection connection;
  private final Map<String, PreparedStatement> upserts = new HashMap<>();
  private PreparedStatement read;

  JdbcDB(String url, String table, AtomicLong errors) {
    this.url = url;
    this.table = table;
    this.errors = errors;
  }

  @Override
  public void init() throws DBException {
    try {
      connection = DriverManager.getConnection(url);
      connection.setAutoCommit(true);
      read = connection.prepareStatement("SELECT * FROM " + table + " WHERE YCSB_KEY = ?");
    } catch (SQLException e) {
      throw new DBException(e);
    }
  }

  @Override
  public void cleanup() throws DBException {
    try {
      if (connection != null) connection.close();
    } catch (SQLException e) {
      throw new DBException(e);
    }
  }

  @Override
  public Status read(String t, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      read.setString(1, key);
      try (ResultSet rs = read.executeQuery()) {
        if (!rs.next()) return failed(Status.NOT_FOUND);
        ResultSetMetaData md = rs.getMetaData();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          String column = md.getColumnName(i).toLowerCase(java.util.Locale.ROOT);
          if (fields == null || fields.contains(column)) {
            String v = rs.getString(i);
            if (v != null) result.put(column, new StringByteIterator(v));
          }
        }
        return Status.OK;
      }
    } catch (SQLException e) {
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
    return Status.NOT_IMPLEMENTED; // workload A scans nothing
  }

  @Override
  public Status update(String t, String key, Map<String, ByteIterator> values) {
    return insert(t, key, values);
  }

  @Override
  public Status insert(String t, String key, Map<String, ByteIterator> values) {
    Map<String, ByteIterator> sorted = new TreeMap<>(values);
    String columns = String.join(",", sorted.keySet());
    try {
      PreparedStatement upsert = upserts.get(columns);
      if (upsert == null) {
        List<String> marks = new ArrayList<>();
        for (int i = 0; i <= sorted.size(); i++) marks.add("?");
        upsert =
            connection.prepareStatement(
                "UPSERT INTO "
                    + table
                    + " (YCSB_KEY,"
                    + columns
                    + ") VALUES ("
                    + String.join(",", marks)
                    + ")");
        upserts.put(columns, upsert);
      }
      upsert.setString(1, key);
      int i = 2;
      for (ByteIterator v : sorted.values()) upsert.setString(i++, v.toString());
      upsert.executeUpdate();
      return Status.OK;
    } catch (SQLException e) {
      return failed(Status.ERROR);
    }
  }

  @Override
  public Status delete(String t, String key) {
    return Status.NOT_IMPLEMENTED;
  }

  private Status failed(Status s) {
    errors.incrementAndGet();
    return s;
  }
}
