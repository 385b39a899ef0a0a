package io.scbf.hbase.client;

import io.scbf.Native;
import org.apache.hadoop.hbase.TableName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this client can keep routing copies: reading the regions' routing bitmaps takes the
 * native library, the only thing a client uses it for. Without it (a platform the jar carries no
 * library for, or a jar built without one) every routed query asks the master for its route, one
 * master call per query (counted by {@code IndexedTable.routingMasterCalls}), and is answered
 * exactly as with the library.
 */
final class NativeRouting {
  private static final Logger LOG = LoggerFactory.getLogger(NativeRouting.class);

  private NativeRouting() {}

  static boolean available(TableName dataTable) {
    try {
      Native.load();
      return true;
    } catch (LinkageError e) {
      LOG.warn(
          "scbf: no native library in this client ({}); routed queries of {} ask the master for"
              + " each route (one master call per query) instead of routing from a local copy",
          e.getMessage(),
          dataTable);
      return false;
    }
  }
}
