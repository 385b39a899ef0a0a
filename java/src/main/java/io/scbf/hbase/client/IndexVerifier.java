package io.scbf.hbase.client;

import io.scbf.hbase.BuildProgress;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.VerifyReport;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.IndexRows;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Compares a global index with its data table, in two streaming passes with bounded memory (chunks
 * of {@link #CHUNK} rows): every data row's index rows must be in the index with the covered values
 * the row holds now ("missing" otherwise), and every index row must be produced by its data row now
 * ("stale" otherwise). Repair sends both findings to the data regions ({@code repairRows}), which
 * under the rows' index locks remove the stale rows they find still stale and write the index rows
 * the current data of the other rows produces. Run it while the table is written: a finding can be
 * a write in flight, so repair never trusts the client's view; index tables refuse client writes
 * anyway.
 */
@InterfaceAudience.Private
public final class IndexVerifier {
  static final int CHUNK = 1000;

  private final Connection connection;
  private final TableName dataTable;
  private final IndexSpec spec;
  private final IndexRows indexRows;
  private final TableName indexTable;

  public IndexVerifier(Connection connection, TableName dataTable, IndexSpec spec) {
    this.connection = connection;
    this.dataTable = dataTable;
    this.spec = spec;
    this.indexRows = new IndexRows(spec);
    this.indexTable = IndexCatalog.indexTableName(dataTable, spec.alias());
  }

  /** A key range [start, stop); empty arrays are the table's ends. */
  public record Range(byte[] start, byte[] stop) {
    static final Range ALL = new Range(new byte[0], new byte[0]);

    Scan bound(Scan scan) {
      return scan.withStartRow(start).withStopRow(stop);
    }
  }

  public VerifyReport run(boolean repair) throws IOException {
    return run(repair, Range.ALL, Range.ALL);
  }

  /**
   * Pass 1 over the data rows of {@code data}, pass 2 over the index rows of {@code index}; a null
   * range skips its pass (a MapReduce verify runs each part in its own task).
   */
  public VerifyReport run(boolean repair, Range data, Range index) throws IOException {
    return run(repair, data, index, BuildProgress.Listener.NONE);
  }

  /** As {@link #run(boolean, Range, Range)}, reporting rows read to {@code listener}. */
  public VerifyReport run(boolean repair, Range data, Range index, BuildProgress.Listener listener)
      throws IOException {
    VerifyTally report = new VerifyTally(dataTable, spec.alias(), repair);
    int parts = (data == null ? 0 : 1) + (index == null ? 0 : 1);
    ProgressTracker tracker =
        new ProgressTracker(
            (repair ? "repair " : "verify ") + spec.alias() + " of " + dataTable,
            new long[parts],
            listener);
    // Both scans and the repairs go through the caller's cached locations, which a truncate or a
    // drop and re-create since leave pointing at old regions (differential seed 1064).
    FreshLocations.of(connection, dataTable);
    FreshLocations.of(connection, indexTable);
    try (Table dataRows = connection.getTable(dataTable);
        Table indexRowsTable = connection.getTable(indexTable)) {
      if (data != null) {
        findMissing(dataRows, indexRowsTable, data, repair, report, tracker);
        tracker.partDone(0);
      }
      if (index != null) {
        findStale(dataRows, indexRowsTable, index, repair, report, tracker);
        tracker.partDone(parts - 1);
      }
    }
    tracker.finish();
    return report.build();
  }

  /** Pass 1: the index rows each data row produces, looked up in the index. */
  private void findMissing(
      Table data,
      Table index,
      Range range,
      boolean repair,
      VerifyTally report,
      ProgressTracker tracker)
      throws IOException {
    List<Put> expected = new ArrayList<>(CHUNK);
    long tracked = report.dataRows;
    try (ResultScanner rows = data.getScanner(range.bound(indexRows.scan().setCaching(CHUNK)))) {
      for (Result r : rows) {
        report.dataRows++;
        expected.addAll(indexRows.of(r));
        if (expected.size() >= CHUNK) {
          checkPresent(index, expected, repair, report);
          tracker.rows(report.dataRows - tracked);
          tracked = report.dataRows;
        }
      }
    }
    checkPresent(index, expected, repair, report);
    tracker.rows(report.dataRows - tracked);
  }

  private void checkPresent(Table index, List<Put> expected, boolean repair, VerifyTally report)
      throws IOException {
    if (expected.isEmpty()) return;
    List<Get> gets = new ArrayList<>(expected.size());
    for (Put p : expected) gets.add(new Get(p.getRow()).addFamily(IndexCatalog.INDEX_FAMILY));
    Result[] found = index.get(gets);
    List<Put> repairs = new ArrayList<>();
    for (int i = 0; i < expected.size(); i++) {
      Put want = expected.get(i);
      List<Cell> wantCells = want.get(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER);
      byte[] wantValue = wantCells.isEmpty() ? null : CellUtil.cloneValue(wantCells.get(0));
      byte[] have = found[i].getValue(IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER);
      if (found[i].isEmpty()) {
        report.missing++;
        report.sample(report.missingSamples, want.getRow());
        repairs.add(want);
      } else if (!Bytes.equals(wantValue, have)) {
        report.wrongCovered++;
        report.sample(report.missingSamples, want.getRow());
        repairs.add(want);
      }
    }
    if (repair && !repairs.isEmpty()) {
      List<byte[]> rows = new ArrayList<>(repairs.size());
      for (Put p : repairs) rows.add(IndexKeyCodec.parse(p.getRow()).userRow());
      report.written +=
          RowRepairs.send(connection, dataTable, spec.alias(), List.of(), rows).written();
    }
    expected.clear();
  }

  /** Pass 2: each index row's data row, read now, must produce it. */
  private void findStale(
      Table data,
      Table index,
      Range range,
      boolean repair,
      VerifyTally report,
      ProgressTracker tracker)
      throws IOException {
    List<byte[]> keys = new ArrayList<>(CHUNK);
    long tracked = report.indexRows;
    try (ResultScanner rows =
        index.getScanner(
            range.bound(new Scan().addFamily(IndexCatalog.INDEX_FAMILY).setCaching(CHUNK)))) {
      for (Result r : rows) {
        report.indexRows++;
        keys.add(r.getRow());
        if (keys.size() >= CHUNK) {
          checkProduced(data, keys, repair, report);
          tracker.rows(report.indexRows - tracked);
          tracked = report.indexRows;
        }
      }
    }
    checkProduced(data, keys, repair, report);
    tracker.rows(report.indexRows - tracked);
  }

  private void checkProduced(Table data, List<byte[]> keys, boolean repair, VerifyTally report)
      throws IOException {
    if (keys.isEmpty()) return;
    List<Get> gets = new ArrayList<>(keys.size());
    for (byte[] key : keys) gets.add(indexRows.get(IndexKeyCodec.parse(key).userRow()));
    Result[] current = data.get(gets);
    List<byte[]> stale = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      if (!indexRows.keysOf(current[i]).contains(new Bytes(keys.get(i)))) {
        report.stale++;
        report.sample(report.staleSamples, keys.get(i));
        stale.add(keys.get(i));
      }
    }
    if (repair && !stale.isEmpty()) removeStale(stale, report);
    keys.clear();
  }

  private void removeStale(List<byte[]> stale, VerifyTally report) throws IOException {
    RowRepairs.Outcome o = RowRepairs.send(connection, dataTable, spec.alias(), stale, List.of());
    report.removed += o.removed();
    report.keptCurrent += o.kept();
  }
}
