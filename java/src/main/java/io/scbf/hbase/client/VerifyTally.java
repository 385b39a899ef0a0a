package io.scbf.hbase.client;

import io.scbf.hbase.VerifyReport;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.util.Bytes;

/** A verify's counts while it runs, then its {@link VerifyReport}. */
final class VerifyTally {
  private final TableName table;
  private final String alias;
  private final boolean repair;
  long dataRows, indexRows, missing, wrongCovered, stale, written, removed, keptCurrent;
  final List<String> missingSamples = new ArrayList<>();
  final List<String> staleSamples = new ArrayList<>();

  VerifyTally(TableName table, String alias, boolean repair) {
    this.table = table;
    this.alias = alias;
    this.repair = repair;
  }

  void sample(List<String> samples, byte[] key) {
    if (samples.size() < 10) samples.add(Bytes.toStringBinary(key));
  }

  VerifyReport build() {
    return new VerifyReport(
        table,
        alias,
        repair,
        dataRows,
        indexRows,
        missing,
        wrongCovered,
        stale,
        written,
        removed,
        keptCurrent,
        List.copyOf(missingSamples),
        List.copyOf(staleSamples));
  }
}
