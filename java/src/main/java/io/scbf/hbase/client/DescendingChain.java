package io.scbf.hbase.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.shared.proto.IndexProtos.IndexLookupService;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * One key range [from, to) of an {@code ORDERED} index table read backwards, region after region
 * from the top, page after page: {@link RegionChain} in reverse. HBase addresses a call to the
 * region holding a row, and the keys just below a region's start key are in the region before it,
 * which no row names exactly; so each call is addressed to a key a little below where reading
 * resumes, and an answer from a region that ends below that point (a boundary fell in between) is
 * dropped and asked again from that region's end, which the next region holds. Each key of the
 * range is answered by exactly one region, in descending order, whatever splits or moves happen.
 */
final class DescendingChain implements PageCursor.Chain {
  /** One call: the region's stub, the range's end for this call (exclusive), the page resume. */
  interface Ask {
    LookupResponse ask(IndexLookupService.BlockingInterface region, byte[] to, ByteString resume)
        throws ServiceException;
  }

  private final Table table;
  private final Ask ask;
  private final byte[] from;
  private byte[] to;
  private ByteString resume;
  private boolean done;
  private int regions;

  /**
   * @param to end of the range (exclusive, never empty: an index range always has one)
   */
  DescendingChain(Table table, byte[] from, byte[] to, Ask ask) {
    if (to.length == 0) throw new IllegalArgumentException("a descending read needs an end key");
    this.table = table;
    this.from = from;
    this.to = to;
    this.ask = ask;
  }

  @Override
  public LookupResponse next() throws IOException {
    if (done) return null;
    byte[] top = resume != null ? resume.toByteArray() : to;
    byte[] at = below(top);
    while (true) {
      LookupResponse r;
      try {
        r = ask.ask(IndexLookupService.newBlockingStub(table.coprocessorService(at)), to, resume);
      } catch (ServiceException e) {
        throw Rpcs.unwrap(e);
      }
      if (r.getIndexBuilding()) {
        done = true;
        return r;
      }
      if (!r.hasRegionEnd() || !r.hasRegionStart()) {
        throw new IOException("index region answered without its key range: not an ORDERED region");
      }
      byte[] end = r.getRegionEnd().toByteArray();
      if (end.length != 0 && Bytes.compareTo(end, top) < 0) {
        // The region ends below where reading resumes: its answer would skip [end, top).
        at = end;
        continue;
      }
      if (resume == null) regions++;
      if (r.hasResumeAfter()) {
        resume = r.getResumeAfter();
        return r;
      }
      resume = null;
      byte[] start = r.getRegionStart().toByteArray();
      if (start.length == 0 || Bytes.compareTo(start, from) <= 0) {
        done = true;
      } else {
        to = start;
      }
      return r;
    }
  }

  /**
   * A key below {@code key} and close to it: no byte string is just below another, so this is the
   * key without its last byte if that is 0, else with its last byte one less and then high bytes.
   */
  static byte[] below(byte[] key) {
    int last = key.length - 1;
    if (key[last] == 0) return Arrays.copyOf(key, last);
    byte[] out = Arrays.copyOf(key, key.length + 8);
    out[last]--;
    Arrays.fill(out, key.length, out.length, (byte) 0xff);
    return out;
  }

  /** Regions asked so far (first pages). */
  @Override
  public int regions() {
    return regions;
  }

  @Override
  public boolean atStart() {
    return regions == 0 && resume == null;
  }
}
