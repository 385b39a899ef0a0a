package io.scbf.hbase.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.shared.proto.IndexProtos.IndexLookupService;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.client.Table;

/**
 * The answers of a global index's lookup, one page at a time: what a stream ({@link GlobalPages})
 * and a reading in value order ({@link OrderedEntries}) pull pages from.
 */
interface PageCursor {
  /** The next page, or null once every region answered. */
  LookupResponse next() throws IOException;

  /** True if no page was asked yet. */
  boolean atStart();

  /** A cursor that reads a key range region after region, and counts the regions it asked. */
  interface Chain extends PageCursor {
    int regions();
  }

  /** One page of one bucket: the first if {@code resume} is null, else the one after it. */
  interface BucketPage {
    LookupResponse ask(IndexLookupService.BlockingInterface bucket, ByteString resume)
        throws ServiceException;
  }

  /**
   * {@code cursor}'s pages, each read again once if HBase's client gave up on stale locations
   * ({@link QueryContext#readAgainIfMoved}): a chain moves on only once a page was answered.
   */
  static Chain readAgainIfMoved(Chain cursor, QueryContext context) {
    return new Chain() {
      @Override
      public LookupResponse next() throws IOException {
        return context.readAgainIfMoved(cursor::next);
      }

      @Override
      public boolean atStart() {
        return cursor.atStart();
      }

      @Override
      public int regions() {
        return cursor.regions();
      }
    };
  }

  /** The cursors' answers one cursor after the other. */
  static PageCursor concat(List<? extends PageCursor> cursors) {
    return new PageCursor() {
      int i;

      @Override
      public LookupResponse next() throws IOException {
        for (; i < cursors.size(); i++) {
          LookupResponse r = cursors.get(i).next();
          if (r != null) return r;
        }
        return null;
      }

      @Override
      public boolean atStart() {
        return i == 0 && cursors.get(0).atStart();
      }
    };
  }

  /** The buckets' pages one bucket after the other. */
  static PageCursor ofBuckets(Table index, List<byte[]> buckets, BucketPage ask) {
    return new PageCursor() {
      int bucket;
      ByteString resume;

      @Override
      public LookupResponse next() throws IOException {
        if (bucket >= buckets.size()) return null;
        LookupResponse r;
        try {
          r =
              ask.ask(
                  IndexLookupService.newBlockingStub(index.coprocessorService(buckets.get(bucket))),
                  resume);
        } catch (ServiceException e) {
          throw Rpcs.unwrap(e);
        }
        resume = r.hasResumeAfter() ? r.getResumeAfter() : null;
        if (resume == null) bucket++;
        return r;
      }

      @Override
      public boolean atStart() {
        return bucket == 0 && resume == null;
      }
    };
  }
}
