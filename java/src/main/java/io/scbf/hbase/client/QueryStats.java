package io.scbf.hbase.client;

import io.scbf.hbase.QueryPlan;
import io.scbf.hbase.QueryTrace;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.LongAdder;
import javax.management.JMException;
import javax.management.ObjectName;
import org.apache.hadoop.hbase.TableName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts an {@code IndexedTable}'s queries from their traces and shows them on the platform MBean
 * server while the table is open. A client that cannot register (a security manager, a name taken)
 * keeps querying: the counts are only not on JMX then.
 */
final class QueryStats implements QueryStatsMXBean {
  private static final Logger LOG = LoggerFactory.getLogger(QueryStats.class);

  private final LongAdder queries = new LongAdder();
  private final LongAdder indexPlans = new LongAdder();
  private final LongAdder scanPlans = new LongAdder();
  private final LongAdder regionsAsked = new LongAdder();
  private final LongAdder regionsTotal = new LongAdder();
  private final LongAdder routingFailures = new LongAdder();
  private final LongAdder cacheHits = new LongAdder();
  private final LongAdder micros = new LongAdder();
  private ObjectName name;

  /** Counts one query by its final trace (null: nothing to count). */
  void count(QueryTrace trace) {
    if (trace == null) return;
    queries.increment();
    boolean scanned =
        trace.plan() != null
            ? trace.plan().kind() == QueryPlan.Kind.DATA_SCAN
            : trace.kind().contains("scan");
    (scanned ? scanPlans : indexPlans).increment();
    if (trace.regions().asked() >= 0) regionsAsked.add(trace.regions().asked());
    if (trace.regions().total() >= 0) regionsTotal.add(trace.regions().total());
    if (trace.routing().failed()) routingFailures.increment();
    cacheHits.add(trace.lookups().cacheHits());
    micros.add(trace.totalMicros());
  }

  void register(TableName table) {
    try {
      name =
          new ObjectName(
              "io.scbf.hbase:type=IndexedTable,table="
                  + ObjectName.quote(table.getNameAsString())
                  + ",id="
                  + System.identityHashCode(this));
      ManagementFactory.getPlatformMBeanServer().registerMBean(this, name);
    } catch (JMException | SecurityException e) {
      LOG.debug("scbf: query statistics of {} not on JMX: {}", table, e.toString());
      name = null;
    }
  }

  void unregister() {
    if (name == null) return;
    try {
      ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
    } catch (JMException | SecurityException e) {
      LOG.debug("scbf: could not unregister {}: {}", name, e.toString());
    }
  }

  @Override
  public long getQueries() {
    return queries.sum();
  }

  @Override
  public long getIndexPlans() {
    return indexPlans.sum();
  }

  @Override
  public long getScanPlans() {
    return scanPlans.sum();
  }

  @Override
  public long getRegionsAsked() {
    return regionsAsked.sum();
  }

  @Override
  public long getRegionsTotal() {
    return regionsTotal.sum();
  }

  @Override
  public long getRoutingFailures() {
    return routingFailures.sum();
  }

  @Override
  public long getLookupCacheHits() {
    return cacheHits.sum();
  }

  @Override
  public long getTotalMicros() {
    return micros.sum();
  }
}
