package io.scbf.hbase.regionserver;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import java.util.Optional;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.ipc.RpcServer;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.Superusers;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessController;
import org.apache.hadoop.hbase.security.access.AuthManager;
import org.apache.hadoop.hbase.security.access.Permission.Action;

/**
 * Index reads need what reading the data would: an index answer carries data row keys and covered
 * values, so a caller must hold READ on the data table's indexed and covered columns (and on the
 * whole table for answers that are whole rows), whether or not HBase checks EXEC permission on
 * endpoints. The grants are HBase's own, read from the region's {@link AccessController}; without
 * one, authorization is off on this server and HBase lets anyone read, so the index does too. Cell
 * ACLs are not consulted: a caller whose only grants are on cells is refused (fail closed).
 */
final class IndexReadAccess {
  private IndexReadAccess() {}

  /** Throws unless the caller may read {@code spec}'s columns of {@code dataTable}. */
  static void requireColumns(Region region, TableName dataTable, IndexSpec spec)
      throws AccessDeniedException {
    Checked c = checked(region);
    if (c == null) return;
    for (IndexSpec.Column col : IndexValues.watchedColumns(spec)) {
      if (!c.auth.authorizeUserTable(
          c.user, dataTable, col.family(), col.qualifier(), Action.READ)) {
        throw denied(c.user, dataTable + ":" + col, spec);
      }
    }
  }

  /** Throws unless the caller may read every column of {@code dataTable}. */
  static void requireTable(Region region, TableName dataTable, IndexSpec spec)
      throws AccessDeniedException {
    Checked c = checked(region);
    if (c != null && !c.auth.authorizeUserTable(c.user, dataTable, Action.READ)) {
      throw denied(c.user, "table " + dataTable + " (whole rows)", spec);
    }
  }

  /** Throws unless the caller holds READ on some part of {@code table}. */
  static void requireSomeRead(Region region, TableName table) throws AccessDeniedException {
    Checked c = checked(region);
    if (c != null
        && !c.auth.authorizeUserTable(c.user, table, Action.READ)
        && !c.auth.accessUserTable(c.user, table, Action.READ)) {
      throw new AccessDeniedException(
          "scbf: " + c.user.getShortName() + " may not read table " + table);
    }
  }

  private record Checked(User user, AuthManager auth) {}

  /** The caller and the server's grants, or null if there is nothing to check. */
  private static Checked checked(Region region) {
    Optional<User> caller = RpcServer.getRequestUser();
    if (caller.isEmpty() || Superusers.isSuperUser(caller.get())) return null;
    AccessController ac =
        region instanceof HRegion h && h.getCoprocessorHost() != null
            ? h.getCoprocessorHost().findCoprocessor(AccessController.class)
            : null;
    return ac == null ? null : new Checked(caller.get(), ac.getAuthManager());
  }

  private static AccessDeniedException denied(User user, String what, IndexSpec spec) {
    return new AccessDeniedException(
        "scbf: "
            + user.getShortName()
            + " may not read index '"
            + spec.alias()
            + "': it needs READ on "
            + what
            + ", as reading the data would");
  }
}
