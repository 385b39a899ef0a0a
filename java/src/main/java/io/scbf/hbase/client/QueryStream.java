package io.scbf.hbase.client;

import java.io.IOException;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * A streamed query's rows ({@code IndexedTable.stream}): pages fetched one at a time, so the client
 * holds one page (at most {@code scbf.client.page.rows} rows) whatever the answer's size.
 */
@InterfaceAudience.Private
public final class QueryStream implements ResultScanner {
  /** Where pages come from: the index's regions, or a scan of the data table. */
  interface Pages extends AutoCloseable {
    /** The next rows (possibly none), or null at the end. */
    List<Result> next() throws IOException;

    @Override
    default void close() {}
  }

  /** Rows read at once. */
  interface Rows {
    List<Result> read() throws IOException;
  }

  /** Rows read at once, as a stream of one page. */
  static Pages onePage(Rows rows) {
    return new Pages() {
      boolean done;

      @Override
      public List<Result> next() throws IOException {
        if (done) return null;
        done = true;
        return rows.read();
      }
    };
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
  public int largestPage() {
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
