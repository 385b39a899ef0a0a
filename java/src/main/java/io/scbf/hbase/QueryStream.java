package io.scbf.hbase;

import java.io.IOException;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;

/**
 * A streamed query's rows ({@link IndexedTable#stream}): pages fetched one at a time, so the client
 * holds one page (at most {@code scbf.client.page.rows} rows) whatever the answer's size.
 */
final class QueryStream implements ResultScanner {
  /** Where pages come from: the index's regions, or a scan of the data table. */
  interface Pages extends AutoCloseable {
    /** The next rows (possibly none), or null at the end. */
    List<Result> next() throws IOException;

    @Override
    default void close() {}
  }

  private final Pages pages;
  private Iterator<Result> page = Collections.emptyIterator();
  private int largestPage;
  private boolean done;

  QueryStream(Pages pages) {
    this.pages = pages;
  }

  @Override
  public Result next() throws IOException {
    while (!page.hasNext()) {
      if (done) return null;
      List<Result> rows = pages.next();
      if (rows == null) {
        close();
        return null;
      }
      largestPage = Math.max(largestPage, rows.size());
      page = rows.iterator();
    }
    return page.next();
  }

  /** The most rows one page held so far: what bounds the stream's memory. */
  int largestPage() {
    return largestPage;
  }

  @Override
  public void close() {
    if (done) return;
    done = true;
    page = Collections.emptyIterator();
    pages.close();
  }

  /** Index pages need no lease; a data scan renews its own on each page. */
  @Override
  public boolean renewLease() {
    return !done;
  }

  @Override
  public ScanMetrics getScanMetrics() {
    return null;
  }
}
