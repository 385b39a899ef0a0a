package io.scbf.hbase.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.proto.IndexProtos.IndexesRequest;
import io.scbf.hbase.shared.proto.IndexProtos.IndexesResponse;
import io.scbf.hbase.shared.proto.IndexProtos.LocalIndexService;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A data table's indexes as a client read them when it opened the table, found by column or by
 * name, with errors that list what the table does index.
 */
final class TableIndexes {
  private static final Logger LOG = LoggerFactory.getLogger(TableIndexes.class);

  private final TableName dataTable;
  private final List<IndexSpec> specs;
  private final Map<String, String> invalid;

  private TableIndexes(TableName dataTable, IndexCatalog.Specs read) {
    this.dataTable = dataTable;
    this.specs = read.valid();
    this.invalid = read.invalid();
    // The region servers ignore these attributes too, so the other indexes stay usable.
    invalid.forEach(
        (attr, why) ->
            LOG.warn(
                "scbf: table {} attribute {} is not a valid index spec: {}", dataTable, attr, why));
  }

  static TableIndexes read(Connection connection, Admin admin, TableName dataTable)
      throws IOException {
    return new TableIndexes(
        dataTable, IndexCatalog.readSpecs(indexesOf(connection, admin, dataTable)));
  }

  /**
   * The part of the table's descriptor queries need (scbf attributes, families), from a data
   * region's scbf endpoint: a region server call, so a client opens without the master, and a
   * reader with READ gets it (HBase gives the descriptor itself only to CREATE or ADMIN). A table
   * whose regions lack the endpoint is read from the master.
   */
  private static TableDescriptor indexesOf(Connection connection, Admin admin, TableName table)
      throws IOException {
    IndexesResponse r;
    try (Table t = connection.getTable(table)) {
      r =
          LocalIndexService.newBlockingStub(t.coprocessorService(HConstants.EMPTY_START_ROW))
              .indexes(null, IndexesRequest.getDefaultInstance());
    } catch (ServiceException e) {
      IOException cause = Rpcs.unwrap(e);
      if (cause instanceof AccessDeniedException) throw cause;
      return admin.getDescriptor(table);
    }
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(table);
    for (int i = 0; i < r.getAttributeKeysCount(); i++) {
      b.setValue(r.getAttributeKeys(i), r.getAttributeValues(i));
    }
    for (ByteString f : r.getFamiliesList()) {
      b.setColumnFamily(ColumnFamilyDescriptorBuilder.of(f.toByteArray()));
    }
    return b.build();
  }

  List<IndexSpec> all() {
    return specs;
  }

  /**
   * The one-column index on {@code family:qualifier} holding every row's own value (not an
   * expression or partial index: see {@link IndexSpec#answersByColumn}).
   */
  IndexSpec onColumn(byte[] family, byte[] qualifier) {
    IndexSpec found = byColumn(family, qualifier);
    if (found != null) return found;
    List<String> derived =
        derivedOn(new IndexSpec.Column(family, qualifier)).stream().map(IndexSpec::alias).toList();
    throw new IllegalArgumentException(
        "column "
            + Bytes.toStringBinary(family)
            + ":"
            + Bytes.toStringBinary(qualifier)
            + " of table "
            + dataTable
            + " has no scbf index"
            + (derived.isEmpty()
                ? ""
                : " of its own values (expression or partial indexes "
                    + derived
                    + " are asked by alias, or by find(Condition...))")
            + "; indexed columns: "
            + describe());
  }

  /** {@link #onColumn}, or null if there is none. */
  IndexSpec byColumn(byte[] family, byte[] qualifier) {
    if (family == null || qualifier == null) {
      throw new IllegalArgumentException("family and qualifier must not be null");
    }
    IndexSpec.Column column = new IndexSpec.Column(family, qualifier);
    IndexSpec found = null;
    for (IndexSpec s : specs) {
      // While a new index is built beside an older one (a migration), the older layout answers:
      // BY_ROW, then BY_VALUE, then ORDERED (the new one is asked by its alias meanwhile).
      if (!s.isComposite()
          && s.answersByColumn()
          && s.column().equals(column)
          && (found == null || s.layout().ordinal() < found.layout().ordinal())) {
        found = s;
      }
    }
    return found;
  }

  /** The one-column expression and partial indexes on {@code column}. */
  List<IndexSpec> derivedOn(IndexSpec.Column column) {
    return specs.stream()
        .filter(s -> !s.isComposite() && !s.answersByColumn() && s.column().equals(column))
        .toList();
  }

  /** The index named {@code alias}. */
  IndexSpec named(String alias) {
    for (IndexSpec s : specs) {
      if (s.alias().equals(alias)) return s;
    }
    throw new IllegalArgumentException(
        "table " + dataTable + " has no scbf index named '" + alias + "'; indexes: " + describe());
  }

  private String describe() {
    List<String> names = specs.stream().map(s -> s.columnsText() + " (" + s.alias() + ")").toList();
    return (names.isEmpty() ? "none" : String.join(", ", names))
        + (invalid.isEmpty()
            ? ""
            : "; attributes that are not valid index specs (drop and recreate the index): "
                + invalid);
  }
}
