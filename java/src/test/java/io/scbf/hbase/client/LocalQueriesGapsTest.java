package io.scbf.hbase.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * The parts of a table that a route's regions (candidates and skipped) leave uncovered: a
 * read-after-ack query asks them by key range, so that no row falls between the regions of a
 * routing copy that missed a split or a merge.
 */
class LocalQueriesGapsTest {
  static RegionRef region(String start, String end) {
    return RegionRef.newBuilder()
        .setStartKey(ByteString.copyFromUtf8(start))
        .setEndKey(ByteString.copyFromUtf8(end))
        .setEncodedRegion(start + "-" + end)
        .build();
  }

  static List<String> gaps(RegionRef... regions) {
    List<String> out = new ArrayList<>();
    for (LocalQueries.KeyRange k : LocalQueries.gaps(List.of(regions))) {
      out.add("[" + Bytes.toString(k.start()) + "," + Bytes.toString(k.end()) + ")");
    }
    return out;
  }

  @Test
  void aWholeTableInAnyOrderHasNoGap() {
    assertEquals(List.of(), gaps(region("", "")));
    assertEquals(List.of(), gaps(region("m", ""), region("", "f"), region("f", "m")));
  }

  @Test
  void missingRegionsAreGaps() {
    assertEquals(List.of("[,f)"), gaps(region("f", "")));
    assertEquals(List.of("[m,)"), gaps(region("", "f"), region("f", "m")));
    assertEquals(List.of("[f,m)"), gaps(region("", "f"), region("m", "")));
    assertEquals(List.of("[,)"), gaps());
  }

  @Test
  void overlappingRegionsCoverTheirUnion() {
    // A parent and its daughters both listed (a copy taken during a split): no gap, no error.
    assertEquals(
        List.of(), gaps(region("", "m"), region("", "f"), region("f", "m"), region("m", "")));
    assertEquals(List.of("[p,)"), gaps(region("", "p"), region("c", "h")));
  }
}
