package io.scbf.hbase.master;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.UndoableDeletes;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HBaseInterfaceAudience;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.SnapshotDescription;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessor;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.MasterObserver;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Rejects, on the master, every table descriptor whose scbf attributes the region servers could not
 * use: any user with CREATE or ALTER can write a table attribute, and a descriptor is read by every
 * server that opens one of the table's regions. The servers tolerate a bad attribute (they disable
 * that index and keep serving); this observer keeps one from being stored at all, with an error
 * that names the attribute and the reason.
 *
 * <p>It also takes out of every modified descriptor the split policy class that earlier releases
 * wrote into tables with local indexes, so that no descriptor keeps naming a class of the jar.
 */
@InterfaceAudience.LimitedPrivate(HBaseInterfaceAudience.CONFIG)
public class IndexDescriptorValidator implements MasterCoprocessor, MasterObserver {
  @Override
  public Optional<MasterObserver> getMasterObserver() {
    return Optional.of(this);
  }

  @Override
  public void preCreateTable(
      ObserverContext<MasterCoprocessorEnvironment> ctx, TableDescriptor desc, RegionInfo[] regions)
      throws IOException {
    check(null, desc);
  }

  @Override
  public TableDescriptor preModifyTable(
      ObserverContext<MasterCoprocessorEnvironment> ctx,
      TableName tableName,
      TableDescriptor currentDescriptor,
      TableDescriptor newDescriptor)
      throws IOException {
    check(currentDescriptor, newDescriptor);
    return IndexCatalog.withoutLegacySplitPolicy(newDescriptor);
  }

  @Override
  public void preCloneSnapshot(
      ObserverContext<MasterCoprocessorEnvironment> ctx,
      SnapshotDescription snapshot,
      TableDescriptor desc)
      throws IOException {
    check(desc);
  }

  @Override
  public void preRestoreSnapshot(
      ObserverContext<MasterCoprocessorEnvironment> ctx,
      SnapshotDescription snapshot,
      TableDescriptor desc)
      throws IOException {
    check(desc);
  }

  /**
   * Snapshots are checked without the indexes' families ({@link UndoableDeletes}): a snapshot's
   * indexes were accepted when its table was changed last, and a restore must not be refused then.
   */
  static void check(TableDescriptor desc) throws DoNotRetryIOException {
    refuse(desc, problems(desc));
  }

  /** A created ({@code current} null) or modified table's descriptor. */
  static void check(TableDescriptor current, TableDescriptor next) throws DoNotRetryIOException {
    List<String> problems = problems(next);
    problems.addAll(UndoableDeletes.problems(current, next));
    refuse(next, problems);
  }

  private static void refuse(TableDescriptor desc, List<String> problems)
      throws DoNotRetryIOException {
    if (!problems.isEmpty()) {
      throw new DoNotRetryIOException(
          "scbf: table " + desc.getTableName() + " rejected: " + String.join("; ", problems));
    }
  }

  /** Everything wrong with a descriptor's scbf attributes; empty if nothing is. */
  static List<String> problems(TableDescriptor desc) {
    List<String> problems = new ArrayList<>();
    IndexCatalog.Specs read = IndexCatalog.readSpecs(desc);
    for (Map.Entry<String, String> bad : read.invalid().entrySet()) {
      problems.add("attribute " + bad.getKey() + " is not a valid index spec: " + bad.getValue());
    }
    for (IndexSpec spec : read.valid()) {
      for (IndexSpec.Column c : IndexValues.watchedColumns(spec)) {
        if (!desc.hasColumnFamily(c.family())) {
          problems.add(
              "index '" + spec.alias() + "' uses column " + c + ", whose family is absent");
        }
      }
    }
    try {
      IndexCatalog.specOfIndexTable(desc);
    } catch (IllegalArgumentException e) {
      problems.add(
          "attribute "
              + IndexCatalog.INDEX_SPEC_ATTR
              + " is not a valid index spec: "
              + e.getMessage());
    }
    return problems;
  }
}
