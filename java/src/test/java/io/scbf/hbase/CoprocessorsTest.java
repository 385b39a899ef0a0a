package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Coprocessor;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.coprocessor.CoprocessorHost;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionServerCoprocessor;
import org.apache.hadoop.hbase.regionserver.RSRpcServices;
import org.apache.hadoop.hbase.regionserver.RegionSplitPolicy;
import org.apache.hadoop.hbase.regionserver.RpcSchedulerFactory;
import org.junit.jupiter.api.Test;

/** Coprocessors names classes and keys as strings (so it loads with hbase-client alone). */
class CoprocessorsTest {
  @Test
  void keysAreHBases() {
    assertEquals(CoprocessorHost.REGION_COPROCESSOR_CONF_KEY, Coprocessors.REGION_COPROCESSOR_KEY);
    assertEquals(
        CoprocessorHost.REGIONSERVER_COPROCESSOR_CONF_KEY,
        Coprocessors.REGIONSERVER_COPROCESSOR_KEY);
    assertEquals(CoprocessorHost.MASTER_COPROCESSOR_CONF_KEY, Coprocessors.MASTER_COPROCESSOR_KEY);
    assertEquals(
        RSRpcServices.REGION_SERVER_RPC_SCHEDULER_FACTORY_CLASS,
        Coprocessors.RPC_SCHEDULER_FACTORY_KEY);
    assertEquals(HConstants.HBASE_REGION_SPLIT_POLICY_KEY, Coprocessors.SPLIT_POLICY_KEY);
    assertEquals(
        HBaseConfiguration.create().get(HConstants.HBASE_REGION_SPLIT_POLICY_KEY),
        Coprocessors.HBASE_DEFAULT_SPLIT_POLICY);
  }

  @Test
  void namesAreTheRealClasses() throws Exception {
    for (String c : Coprocessors.REGION_COPROCESSORS) assertKind(c, RegionCoprocessor.class);
    for (String c : Coprocessors.REGIONSERVER_COPROCESSORS) {
      assertKind(c, RegionServerCoprocessor.class);
    }
    for (String c : Coprocessors.MASTER_COPROCESSORS) assertKind(c, MasterCoprocessor.class);
    assertKind(Coprocessors.RPC_SCHEDULER_FACTORY, RpcSchedulerFactory.class);
    assertKind(Coprocessors.SPLIT_POLICY, RegionSplitPolicy.class);
  }

  @Test
  void configureAddsOnceAndKeepsOtherCoprocessors() {
    Configuration conf = new Configuration(false);
    conf.set(CoprocessorHost.REGION_COPROCESSOR_CONF_KEY, "org.example.Other");
    Coprocessors.configure(Coprocessors.configure(conf));
    List<String> region =
        List.of(conf.getTrimmedStrings(CoprocessorHost.REGION_COPROCESSOR_CONF_KEY));
    assertEquals(1 + Coprocessors.REGION_COPROCESSORS.length, region.size(), region.toString());
    assertEquals("org.example.Other", region.get(0));
    assertEquals(
        Coprocessors.RPC_SCHEDULER_FACTORY,
        conf.get(RSRpcServices.REGION_SERVER_RPC_SCHEDULER_FACTORY_CLASS));
  }

  @Test
  void configureKeepsTheSchedulerAlreadyThereBehindTheIndexPool() {
    String phoenix = "org.apache.hadoop.hbase.ipc.PhoenixRpcSchedulerFactory";
    Configuration conf = new Configuration(false);
    conf.set(RSRpcServices.REGION_SERVER_RPC_SCHEDULER_FACTORY_CLASS, phoenix);
    Coprocessors.configure(Coprocessors.configure(conf));
    assertEquals(
        Coprocessors.RPC_SCHEDULER_FACTORY,
        conf.get(RSRpcServices.REGION_SERVER_RPC_SCHEDULER_FACTORY_CLASS));
    assertEquals(phoenix, conf.get(Coprocessors.RPC_SCHEDULER_DELEGATE));

    Configuration plain = Coprocessors.configure(new Configuration(false));
    assertEquals(null, plain.get(Coprocessors.RPC_SCHEDULER_DELEGATE), "HBase's own by default");
  }

  @Test
  void configureSetsTheSplitPolicyOnlyWhereTheSiteKeepsHBasesDefault() {
    Configuration site = Coprocessors.configure(HBaseConfiguration.create());
    assertEquals(Coprocessors.SPLIT_POLICY, site.get(HConstants.HBASE_REGION_SPLIT_POLICY_KEY));
    Configuration chosen = HBaseConfiguration.create();
    String constant = "org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy";
    chosen.set(HConstants.HBASE_REGION_SPLIT_POLICY_KEY, constant);
    assertEquals(
        constant,
        Coprocessors.configure(chosen).get(HConstants.HBASE_REGION_SPLIT_POLICY_KEY),
        "the site's own choice is kept");
  }

  /**
   * The binary release's example site, which operators merge into theirs (and the multi-process
   * tests run with): exactly what configure sets on an empty site, plus the README's replication
   * setting for EVENTUAL indexes, value for value.
   */
  @Test
  void theReleaseExampleSiteIsWhatConfigureSets() throws Exception {
    Configuration example = new Configuration(false);
    example.addResource(Path.of("dist/conf/hbase-site.xml").toUri().toURL());
    Configuration expected = Coprocessors.configure(new Configuration(false));
    assertEquals(entries(expected), entries(example));
  }

  private static Map<String, String> entries(Configuration conf) {
    Map<String, String> entries = new TreeMap<>();
    for (Map.Entry<String, String> e : conf) entries.put(e.getKey(), e.getValue());
    return entries;
  }

  private static void assertKind(String name, Class<?> kind) throws Exception {
    Class<?> c = Class.forName(name);
    assertTrue(kind.isAssignableFrom(c), name + " is not a " + kind.getSimpleName());
    if (Coprocessor.class.isAssignableFrom(c)) {
      assertTrue(java.lang.reflect.Modifier.isPublic(c.getModifiers()), name + " must be public");
    }
  }
}
