package io.scbf.hbase.client;

import com.google.protobuf.ServiceException;
import java.io.IOException;

/** The client's view of a failed endpoint call. */
final class Rpcs {
  private Rpcs() {}

  /** The IOException an endpoint call failed with (HBase wraps it in a ServiceException). */
  static IOException unwrap(ServiceException e) {
    return e.getCause() instanceof IOException io ? io : new IOException(e);
  }
}
