package io.scbf.hbase.regionserver.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.shared.RowEstimates;
import io.scbf.hbase.shared.proto.IndexProtos.ValueCounts;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class ValueFrequenciesTest {
  static byte[] key(String v) {
    return Bytes.toBytes("alias|" + v);
  }

  static void add(ValueFrequencies f, String v, int times) {
    byte[] k = key(v);
    for (int i = 0; i < times; i++) f.add(k, 0, k.length);
  }

  static long heavy(ValueCounts c, String v) {
    return RowEstimates.heavyCount(c, RowEstimates.hash(key(v)));
  }

  @Test
  void heavyValuesArePublishedWithCountsNeverBelowTheTruth() {
    ValueFrequencies f = new ValueFrequencies();
    Random random = new Random(7);
    Map<String, Integer> truth = new HashMap<>();
    for (int i = 0; i < 60_000; i++) {
      String v = random.nextInt(10) == 0 ? "popular" : "v" + random.nextInt(20_000);
      truth.merge(v, 1, Integer::sum);
      add(f, v, 1);
    }
    add(f, "second", 2_000);
    truth.put("second", 2_000);
    ValueCounts c = f.counts();
    assertEquals(62_000, c.getEntries());
    assertEquals(62_000 / ValueFrequencies.THRESHOLD_SHARE, c.getHeavyThreshold());
    assertTrue(heavy(c, "popular") >= truth.get("popular"));
    // Over-counts are bounded by about 0.13% of the entries (e / 2048), with high probability.
    assertTrue(heavy(c, "popular") <= truth.get("popular") + 62_000 * 3 / 2048);
    assertTrue(heavy(c, "second") >= 2_000);
    assertEquals(2, c.getHeavyHashCount(), "only the two values above 1/128 of the entries");
    assertEquals(-1, heavy(c, "v17"));
    for (Map.Entry<String, Integer> e : truth.entrySet()) {
      assertTrue(f.estimate(RowEstimates.hash(key(e.getKey()))) >= e.getValue(), e.getKey());
    }
  }

  @Test
  void removesLowerCountsAndDropValuesNoLongerHeavy() {
    ValueFrequencies f = new ValueFrequencies();
    add(f, "a", 500);
    add(f, "b", 500);
    assertEquals(500, heavy(f.counts(), "a"));
    byte[] a = key("a");
    for (int i = 0; i < 480; i++) f.remove(a, 0, a.length);
    ValueCounts c = f.counts();
    assertEquals(520, c.getEntries());
    assertEquals(-1, heavy(c, "a"), "20 < threshold 32: no longer heavy");
    assertEquals(500, heavy(c, "b"));
    add(f, "a", 100);
    assertEquals(120, heavy(f.counts(), "a"), "heavy again at its next adds");
  }

  @Test
  void aSmallRegionHasNoHeavyValuesBelowTheMinimumThreshold() {
    ValueFrequencies f = new ValueFrequencies();
    add(f, "a", (int) ValueFrequencies.MIN_THRESHOLD - 1);
    assertEquals(0, f.counts().getHeavyHashCount());
    add(f, "a", 1);
    assertEquals(ValueFrequencies.MIN_THRESHOLD, heavy(f.counts(), "a"));
  }

  @Test
  void atMostMaxHeavyValuesArePublishedTheLargestFirst() {
    ValueFrequencies f = new ValueFrequencies();
    // 100 values of about 1% each: all above 1/128 of the entries.
    for (int v = 0; v < 100; v++) add(f, "v" + v, 1000 + v);
    ValueCounts c = f.counts();
    assertEquals(ValueFrequencies.MAX_HEAVY, c.getHeavyHashCount());
    for (int i = 1; i < c.getHeavyCountCount(); i++) {
      assertTrue(c.getHeavyCount(i - 1) >= c.getHeavyCount(i));
    }
    assertTrue(heavy(c, "v99") >= 1099);
    assertEquals(-1, heavy(c, "v0"));
  }

  @Test
  void onlyChangesThatMoveAPlanArePublished() {
    ValueFrequencies f = new ValueFrequencies();
    add(f, "a", 1000);
    add(f, "b", 3000);
    ValueCounts sent = f.counts();
    assertTrue(ValueFrequencies.changedEnough(null, sent));
    add(f, "c", 10);
    assertFalse(ValueFrequencies.changedEnough(sent, f.counts()), "a few more entries");
    add(f, "a", 200);
    assertTrue(ValueFrequencies.changedEnough(sent, f.counts()), "a's count moved by 20%");
    sent = f.counts();
    add(f, "new", 100);
    assertTrue(ValueFrequencies.changedEnough(sent, f.counts()), "a new heavy value");
  }
}
