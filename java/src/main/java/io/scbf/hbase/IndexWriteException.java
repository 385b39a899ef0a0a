package io.scbf.hbase;

import java.io.IOException;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The index rows of a data mutation could not be written, so the data mutation was not applied (the
 * data row is unchanged). Retriable: the HBase client retries the mutation within its usual budget
 * ({@code hbase.client.retries.number}, {@code hbase.client.pause}), which is safe because nothing
 * of the failed attempt was applied; a write during a short index outage (a bucket moving, a server
 * restarting) then succeeds late instead of failing. Writes the index can never accept (a
 * misconfigured server, a region refusing writes) fail at once with a {@code DoNotRetryIOException}
 * instead.
 */
@InterfaceAudience.Public
public class IndexWriteException extends IOException {
  private static final long serialVersionUID = 1L;

  public IndexWriteException(String message) {
    super(message);
  }

  public IndexWriteException(String message, Throwable cause) {
    super(message, cause);
  }
}
