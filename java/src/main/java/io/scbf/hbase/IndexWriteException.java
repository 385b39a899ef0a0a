package io.scbf.hbase;

import org.apache.hadoop.hbase.DoNotRetryIOException;

/**
 * The index rows of a data mutation could not be written, so the data mutation was not applied (the
 * data row is unchanged). Not retried by the HBase client: the client or the application decides
 * whether to retry once the index table is available again.
 */
public class IndexWriteException extends DoNotRetryIOException {
  private static final long serialVersionUID = 1L;

  public IndexWriteException(String message) {
    super(message);
  }

  public IndexWriteException(String message, Throwable cause) {
    super(message, cause);
  }
}
