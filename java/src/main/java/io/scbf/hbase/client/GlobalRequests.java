package io.scbf.hbase.client;

import com.google.protobuf.ByteString;
import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.shared.IndexKeyCodec;
import io.scbf.hbase.shared.proto.IndexProtos.LookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RangeLookupRequest;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import io.scbf.hbase.shared.proto.IndexProtos.RouteResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * What a global index's lookups are addressed to: the requests, the buckets a query asks, the key
 * ranges of a value or a value range, and the {@link RegionChain}s reading them. Shared by the
 * list-form lookups ({@link GlobalLookups}), the streams ({@link GlobalPages}) and the range sizing
 * ({@link RangeSizes}), so that all three read an index's keys the same way.
 */
final class GlobalRequests {
  private GlobalRequests() {}

  /** A range request; its answers come packed (an older server ignores that and sends hits). */
  static RangeLookupRequest.Builder rangeRequest(IndexSpec spec, byte[] lo, byte[] hi) {
    RangeLookupRequest.Builder request =
        RangeLookupRequest.newBuilder()
            .setAlias(ByteString.copyFrom(spec.alias().getBytes(StandardCharsets.UTF_8)))
            .setPacked(true);
    if (lo != null) request.setLo(ByteString.copyFrom(lo));
    if (hi != null) request.setHi(ByteString.copyFrom(hi));
    return request;
  }

  static LookupRequest.Builder lookupRequest(IndexSpec spec, byte[] value) {
    return LookupRequest.newBuilder()
        .setAlias(ByteString.copyFrom(spec.alias().getBytes(StandardCharsets.UTF_8)))
        .setValue(ByteString.copyFrom(value));
  }

  /** Start keys of the buckets a point query asks: the route's candidates, or every bucket. */
  static List<byte[]> bucketsOf(IndexSpec spec, RouteResponse route) {
    if (route == null) return allBuckets(spec);
    List<byte[]> buckets = new ArrayList<>(route.getCandidatesCount());
    for (RegionRef r : route.getCandidatesList()) buckets.add(r.getStartKey().toByteArray());
    return buckets;
  }

  /** Start keys of every bucket's region: {}, {1}, ..., {B-1} (fixed at index creation). */
  static List<byte[]> allBuckets(IndexSpec spec) {
    List<byte[]> keys = new ArrayList<>(spec.buckets());
    keys.add(new byte[0]);
    keys.addAll(Arrays.asList(IndexKeyCodec.splitKeys(spec.buckets())));
    return keys;
  }

  /**
   * The key ranges [start, stop) of {@code lo <= value < hi} in each salted stream of an {@code
   * ORDERED} index.
   */
  static List<byte[][]> streamBounds(IndexSpec spec, byte[] lo, byte[] hi) {
    byte[] alias = spec.alias().getBytes(StandardCharsets.UTF_8);
    List<byte[][]> out = new ArrayList<>(spec.buckets());
    for (int s = 0; s < spec.buckets(); s++) out.add(IndexKeyCodec.rangeBounds(s, alias, lo, hi));
    return out;
  }

  /**
   * The chains reading {@code value}'s key ranges: one of a {@code BY_VALUE} index (the value's
   * slot), one per salted stream of an {@code ORDERED} one.
   */
  static List<RegionChain> valueChains(
      Table index, IndexSpec spec, byte[] value, LookupRequest request) {
    byte[] alias = spec.alias().getBytes(StandardCharsets.UTF_8);
    if (spec.layout() == IndexSpec.Layout.BY_VALUE) {
      return List.of(valueChain(index, IndexKeyCodec.slotPrefix(alias, value), request));
    }
    List<RegionChain> chains = new ArrayList<>(spec.buckets());
    for (int s = 0; s < spec.buckets(); s++) {
      chains.add(valueChain(index, IndexKeyCodec.valuePrefix(s, alias, value), request));
    }
    return chains;
  }

  /** The chain reading the key range of the index rows starting with {@code prefix}. */
  private static RegionChain valueChain(Table index, byte[] prefix, LookupRequest request) {
    return new RegionChain(
        index,
        prefix,
        IndexKeyCodec.prefixSuccessor(prefix),
        resume -> Bytes.add(prefix, resume.toByteArray(), new byte[1]),
        (region, from, resume) -> {
          LookupRequest.Builder b = request.toBuilder().setFromKey(ByteString.copyFrom(from));
          if (resume != null) b.setResumeAfter(resume);
          return region.lookup(null, b.build());
        });
  }

  /** The chain reading a range request's entries in the key range [from, to). */
  static RegionChain rangeChain(Table index, byte[] from, byte[] to, RangeLookupRequest request) {
    return new RegionChain(
        index,
        from,
        to,
        ByteString::toByteArray,
        (region, at, resume) -> {
          RangeLookupRequest.Builder b =
              request.toBuilder()
                  .setFromKey(ByteString.copyFrom(at))
                  .setToKey(ByteString.copyFrom(to));
          if (resume != null) b.setResumeAfter(resume);
          return region.rangeLookup(null, b.build());
        });
  }
}
