package io.scbf.hbase.client;

import java.io.IOException;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The first {@code limit} rows of a stream: it is closed once they are answered, so no page after
 * the one holding the last of them is read.
 */
@InterfaceAudience.Private
final class LimitedScanner implements ResultScanner {
  private final ResultScanner rows;
  private int left;

  LimitedScanner(ResultScanner rows, int limit) {
    this.rows = rows;
    this.left = limit;
  }

  @Override
  public Result next() throws IOException {
    if (left == 0) return null;
    Result r = rows.next();
    if (r == null || --left == 0) rows.close();
    return r;
  }

  @Override
  public void close() {
    left = 0;
    rows.close();
  }

  @Override
  public boolean renewLease() {
    return left > 0 && rows.renewLease();
  }

  @Override
  public ScanMetrics getScanMetrics() {
    return rows.getScanMetrics();
  }
}
