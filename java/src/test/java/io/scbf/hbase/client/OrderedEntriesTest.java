package io.scbf.hbase.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.scbf.hbase.shared.PackedHits;
import io.scbf.hbase.shared.proto.IndexProtos.IndexHit;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** The merge of salted streams into one value order, and the key just below another. */
class OrderedEntriesTest {
  /** A stream answering its entries in pages of {@code page}. */
  static PageCursor.Chain stream(List<IndexHit> hits, int page) {
    Iterator<IndexHit> it = hits.iterator();
    return new PageCursor.Chain() {
      int asked;

      @Override
      public LookupResponse next() {
        if (!it.hasNext() && asked > 0) return null;
        asked++;
        LookupResponse.Builder r = LookupResponse.newBuilder();
        for (int i = 0; i < page && it.hasNext(); i++) r.addHits(it.next());
        return r.build();
      }

      @Override
      public boolean atStart() {
        return asked == 0;
      }

      @Override
      public int regions() {
        return asked;
      }
    };
  }

  static IndexHit hit(int value, String row) {
    return IndexHit.newBuilder()
        .setValue(ByteString.copyFrom(Bytes.toBytes(value ^ Integer.MIN_VALUE)))
        .setRow(ByteString.copyFromUtf8(row))
        .build();
  }

  @Test
  void streamsMergeIntoValueThenRowOrderBothWays() throws Exception {
    Random random = new Random(38);
    List<List<IndexHit>> streams = new ArrayList<>();
    List<String> all = new ArrayList<>();
    for (int s = 0; s < 4; s++) streams.add(new ArrayList<>());
    for (int i = 0; i < 500; i++) {
      int v = random.nextInt(50) - 25; // ties across streams
      String row = String.format("r%04d", i);
      streams.get(random.nextInt(4)).add(hit(v, row));
      all.add(String.format("%+04d %s", v + 100, row));
    }
    List<PageCursor.Chain> ascending = new ArrayList<>();
    List<PageCursor.Chain> descending = new ArrayList<>();
    for (List<IndexHit> s : streams) {
      List<IndexHit> sorted = new ArrayList<>(s);
      sorted.sort(
          (a, b) -> {
            int c = Bytes.compareTo(a.getValue().toByteArray(), b.getValue().toByteArray());
            return c != 0 ? c : a.getRow().toStringUtf8().compareTo(b.getRow().toStringUtf8());
          });
      ascending.add(stream(sorted, 7));
      List<IndexHit> reversed = new ArrayList<>(sorted);
      java.util.Collections.reverse(reversed);
      descending.add(stream(reversed, 7));
    }
    all.sort(null);
    assertEquals(all, read(new OrderedEntries(ascending, false)));
    List<String> down = new ArrayList<>(all);
    java.util.Collections.reverse(down);
    assertEquals(down, read(new OrderedEntries(descending, true)));
  }

  @Test
  void theFirstEntriesReadOnePagePerStream() throws Exception {
    List<PageCursor.Chain> streams = new ArrayList<>();
    for (int s = 0; s < 3; s++) {
      List<IndexHit> hits = new ArrayList<>();
      for (int i = 0; i < 100; i++) hits.add(hit(i * 3 + s, "r" + s));
      streams.add(stream(hits, 10));
    }
    OrderedEntries merged = new OrderedEntries(streams, false);
    for (int i = 0; i < 10; i++) merged.next();
    assertEquals(3, merged.regions(), "one page of each stream");
  }

  @Test
  void aKeyJustBelowSortsBelowAndCloseToIt() {
    byte[][] keys = {{5}, {5, 0}, {1, 2, 3}, {0, 0, 7}, {(byte) 0xff}};
    for (byte[] k : keys) {
      byte[] below = DescendingChain.below(k);
      assertTrue(Bytes.compareTo(below, k) < 0, Bytes.toStringBinary(below));
    }
    // Nothing sorts between {5, 0} and the key below it, {5}.
    assertEquals(0, Bytes.compareTo(new byte[] {5}, DescendingChain.below(new byte[] {5, 0})));
  }

  private static List<String> read(OrderedEntries entries) throws Exception {
    List<String> out = new ArrayList<>();
    for (PackedHits.Hit h = entries.next(); h != null; h = entries.next()) {
      int v = Bytes.toInt(h.value()) ^ Integer.MIN_VALUE;
      out.add(String.format("%+04d %s", v + 100, Bytes.toString(h.row())));
    }
    return out;
  }
}
