package io.scbf.hbase.regionserver;

import io.scbf.hbase.shared.Settings;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.coprocessor.HasRegionServerServices;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.RegionServerCoprocessorHost;

/**
 * The scbf state of one region server, owned by its {@link IndexRegionServerCoprocessor}: the
 * settings, the metrics, and the {@link IndexServices} (hot cache, index-write connection, filter
 * publisher, threads) that run while at least one indexed or index region is open.
 *
 * <p>Region coprocessors find it with {@link #of} and {@link #attach} it when their region opens;
 * the services start with the first attachment and stop with the last detachment. HBase never stops
 * region-server coprocessors, so tying the services to the open regions is what makes a stopped or
 * aborted server (or a finished mini cluster) leave no thread or native memory behind.
 */
final class RegionServerContext {
  private final ServerName server;
  private final Configuration conf;
  private final Settings settings;
  private final RegionServerMetrics metrics;
  private int attachments; // guarded by this
  private volatile IndexServices services;

  RegionServerContext(ServerName server, Configuration conf, RegionServerMetrics metrics) {
    this.server = server;
    this.conf = conf;
    this.settings = Settings.from(conf);
    this.metrics = metrics;
  }

  /**
   * The context of the server hosting a region, or empty if {@link IndexRegionServerCoprocessor} is
   * not loaded there (the region coprocessors must then refuse what they cannot do safely). Needs
   * the region coprocessor to be a {@code @CoreCoprocessor} (for the server's services).
   */
  static Optional<RegionServerContext> of(RegionCoprocessorEnvironment env) {
    if (env instanceof HasRegionServerServices h
        && h.getRegionServerServices() instanceof HRegionServer rs) {
      return of(rs);
    }
    return Optional.empty();
  }

  /**
   * The context of a region server, or empty if {@link IndexRegionServerCoprocessor} is not loaded.
   */
  static Optional<RegionServerContext> of(HRegionServer rs) {
    RegionServerCoprocessorHost host = rs.getRegionServerCoprocessorHost();
    IndexRegionServerCoprocessor cp =
        host == null ? null : host.findCoprocessor(IndexRegionServerCoprocessor.class);
    return cp == null ? Optional.empty() : Optional.ofNullable(cp.context());
  }

  RegionServerMetrics metrics() {
    return metrics;
  }

  Settings settings() {
    return settings;
  }

  /** Starts the services if this is the first attachment; every attach needs one detach. */
  synchronized IndexServices attach() {
    if (attachments++ == 0) services = new IndexServices(server, conf, settings);
    return services;
  }

  synchronized void detach() {
    if (attachments == 0) throw new IllegalStateException("detach without attach");
    if (--attachments > 0) return;
    IndexServices s = services;
    services = null;
    s.close();
  }

  /** The running services, or null while no region is attached (metrics read zeros then). */
  IndexServices servicesOrNull() {
    return services;
  }
}
