package io.scbf.hbase.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import io.scbf.hbase.shared.proto.IndexProtos.IndexLookupService;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * One key range [from, to) of a {@code BY_VALUE} index table, read region after region and page
 * after page. Each call is addressed to the row where reading resumes, so HBase sends it to the
 * region holding that row now; the region answers what it holds of the range from there and names
 * its end key, and the next call starts at that end. Whatever splits, merges or moves happen in
 * between, every key of the range is answered by exactly one region: no row is missed and none is
 * sent twice.
 */
final class RegionChain implements PageCursor.Chain {
  /** One call: the region's stub, where the range resumes, and the page resume point (or null). */
  interface Ask {
    LookupResponse ask(IndexLookupService.BlockingInterface region, byte[] from, ByteString resume)
        throws ServiceException;
  }

  private final Table table;
  private final Ask ask;
  private final byte[] to;
  private final Function<ByteString, byte[]> resumeRow;
  private byte[] from;
  private ByteString resume;
  private boolean done;
  private int regions;

  /**
   * @param to end of the range (empty: the end of the table)
   * @param resumeRow the index row a page's resume point lies in (the call is addressed there)
   */
  RegionChain(
      Table table, byte[] from, byte[] to, Function<ByteString, byte[]> resumeRow, Ask ask) {
    this.table = table;
    this.from = from;
    this.to = to;
    this.resumeRow = resumeRow;
    this.ask = ask;
  }

  /** The next answer (a region's part, or one page of it), or null once the range is read. */
  @Override
  public LookupResponse next() throws IOException {
    if (done) return null;
    byte[] at = resume == null ? from : resumeRow.apply(resume);
    LookupResponse r;
    try {
      r = ask.ask(IndexLookupService.newBlockingStub(table.coprocessorService(at)), from, resume);
    } catch (ServiceException e) {
      throw Rpcs.unwrap(e);
    }
    if (resume == null) regions++;
    if (r.getIndexBuilding() || r.getOverLimit()) {
      done = true; // the caller scans the data table instead
      return r;
    }
    if (r.hasResumeAfter()) {
      resume = r.getResumeAfter();
      return r;
    }
    resume = null;
    if (!r.hasRegionEnd()) {
      throw new IOException("index region answered without its end key: not a BY_VALUE region");
    }
    byte[] end = r.getRegionEnd().toByteArray();
    if (end.length == 0 || (to.length != 0 && Bytes.compareTo(end, to) >= 0)) {
      done = true;
    } else {
      from = end;
    }
    return r;
  }

  /** Every remaining answer. */
  List<LookupResponse> all() throws IOException {
    List<LookupResponse> out = new ArrayList<>();
    for (LookupResponse r = next(); r != null; r = next()) out.add(r);
    return out;
  }

  /** Regions asked so far (first pages). */
  @Override
  public int regions() {
    return regions;
  }

  @Override
  public boolean atStart() {
    return regions == 0;
  }
}
