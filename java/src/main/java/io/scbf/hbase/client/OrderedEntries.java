package io.scbf.hbase.client;

import io.scbf.hbase.shared.PackedHits;
import io.scbf.hbase.shared.PackedHits.Hit;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The entries of an {@code ORDERED} index's range in value order (ties in row order), descending if
 * asked: each salted stream's cursor already answers in that order, and the streams are merged
 * entry by entry. Pages are fetched only when an entry of theirs is next, so reading the first N
 * entries costs about N entries plus one page per stream.
 */
final class OrderedEntries {
  /** One stream's cursor and the page being read. */
  private static final class Stream {
    final PageCursor.Chain cursor;
    Iterator<Hit> page;
    Hit head;

    Stream(PageCursor.Chain cursor) {
      this.cursor = cursor;
    }

    /** Moves to the next entry; false once the stream is read. */
    boolean advance(List<LookupResponse> building) throws IOException {
      while (page == null || !page.hasNext()) {
        LookupResponse r = cursor.next();
        if (r == null) {
          head = null;
          return false;
        }
        if (r.getIndexBuilding()) building.add(r);
        page = PackedHits.of(r).iterator();
      }
      head = page.next();
      return true;
    }
  }

  private static final Comparator<Hit> ASCENDING =
      (a, b) -> {
        int c = Bytes.compareTo(a.value(), b.value());
        return c != 0 ? c : Bytes.compareTo(a.row(), b.row());
      };

  private final PriorityQueue<Stream> heads;
  private final List<Stream> unstarted;
  private final List<LookupResponse> building = new ArrayList<>();

  private final List<PageCursor.Chain> chains;

  OrderedEntries(List<PageCursor.Chain> streams, boolean descending) {
    this.chains = List.copyOf(streams);
    Comparator<Hit> order = descending ? ASCENDING.reversed() : ASCENDING;
    this.heads =
        new PriorityQueue<>(Math.max(1, streams.size()), (a, b) -> order.compare(a.head, b.head));
    this.unstarted = new ArrayList<>();
    for (PageCursor.Chain c : streams) unstarted.add(new Stream(c));
  }

  /** Index regions asked so far, over every stream. */
  int regions() {
    int n = 0;
    for (PageCursor.Chain c : chains) n += c.regions();
    return n;
  }

  /**
   * The next entry in order, or null once every stream is read. A stream whose region says the
   * index is building makes {@link #building()} true: the caller scans instead.
   */
  Hit next() throws IOException {
    if (!unstarted.isEmpty()) {
      for (Stream s : unstarted) {
        if (s.advance(building)) heads.add(s);
      }
      unstarted.clear();
    }
    Stream s = heads.poll();
    if (s == null) return null;
    Hit hit = s.head;
    if (s.advance(building)) heads.add(s);
    return hit;
  }

  /** True if a region said the index is being built (its answers hold nothing). */
  boolean building() {
    return !building.isEmpty();
  }
}
