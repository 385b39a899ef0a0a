package io.scbf.hbase.regionserver.eventual;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.scbf.hbase.shared.Settings;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class EventualPollingTest {
  private static Configuration applied(Configuration conf) {
    EventualPolling.apply(conf, "scbf_eventual");
    return conf;
  }

  private static Configuration conf(String... keysAndValues) {
    Configuration conf = new Configuration(false);
    for (int i = 0; i < keysAndValues.length; i += 2)
      conf.set(keysAndValues[i], keysAndValues[i + 1]);
    return conf;
  }

  @Test
  void hBaseDefaultsBecomeTheProductsPolling() {
    Configuration c = applied(conf());
    assertEquals(20, c.getLong(EventualPolling.SLEEP, -1));
    assertEquals(5, c.getInt(EventualPolling.MULTIPLIER, -1));
  }

  @Test
  void aServerThatAlreadyPollsFasterKeepsItsSettings() {
    Configuration c = applied(conf(EventualPolling.SLEEP, "10", EventualPolling.MULTIPLIER, "3"));
    assertEquals(10, c.getLong(EventualPolling.SLEEP, -1));
    assertEquals(3, c.getInt(EventualPolling.MULTIPLIER, -1));
  }

  @Test
  void theOperatorsPollingIsUsed() {
    Configuration c =
        applied(conf(Settings.EVENTUAL_POLL_MS, "50", Settings.EVENTUAL_POLL_MAX_MS, "1000"));
    assertEquals(50, c.getLong(EventualPolling.SLEEP, -1));
    assertEquals(20, c.getInt(EventualPolling.MULTIPLIER, -1));
  }

  @Test
  void aLongestWaitBelowThePollMeansNoBackOff() {
    Configuration c =
        applied(conf(Settings.EVENTUAL_POLL_MS, "50", Settings.EVENTUAL_POLL_MAX_MS, "10"));
    assertEquals(50, c.getLong(EventualPolling.SLEEP, -1));
    assertEquals(1, c.getInt(EventualPolling.MULTIPLIER, -1));
  }

  @Test
  void zeroLeavesHBasesSettings() {
    Configuration c = applied(conf(Settings.EVENTUAL_POLL_MS, "0"));
    assertEquals(null, c.get(EventualPolling.SLEEP));
    assertEquals(null, c.get(EventualPolling.MULTIPLIER));
  }

  @Test
  void anInvalidValueFallsBackToTheDefault() {
    Configuration c = applied(conf(Settings.EVENTUAL_POLL_MS, "fast"));
    assertEquals(20, c.getLong(EventualPolling.SLEEP, -1));
  }
}
