package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.StandaloneClient;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 52: a client application on {@code hbase-shaded-client} (a JVM of its own whose class path
 * is the shaded client, the few jars it depends on, and scbf's {@code hbase-shaded-client} jar)
 * queries a global and a local index of a mini cluster and gets the rows written; the plain jar
 * does not link there (its endpoint stubs take the unshaded protobuf the shaded client relocates),
 * which is why the second jar exists. Run by failsafe after {@code package}, which makes that jar.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShadedClientIT {
  static final TableName TABLE = TableName.valueOf("shaded");
  static final byte[] D = Bytes.toBytes("d");
  static final int ROWS = 120;

  HBaseTestingUtility util;

  @BeforeAll
  void start() throws Exception {
    util = MiniCluster.start(1);
    try (Admin admin = util.getConnection().getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TABLE)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
              .build(),
          new byte[][] {Bytes.toBytes("row-0060")});
    }
    IndexAdmin indexes = new IndexAdmin(util.getConnection());
    indexes.createIndex(TABLE, IndexSpec.builder(D, Bytes.toBytes("city")).alias("city").build());
    indexes.createIndex(
        TABLE, IndexSpec.builder(D, Bytes.toBytes("zip")).alias("zip").local().build());
    try (Table t = util.getConnection().getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < ROWS; i++) {
        puts.add(
            new Put(Bytes.toBytes(String.format("row-%04d", i)))
                .addColumn(D, Bytes.toBytes("city"), Bytes.toBytes("c" + i % 10))
                .addColumn(D, Bytes.toBytes("zip"), Bytes.toBytes("z" + i % 10)));
      }
      t.put(puts);
    }
  }

  @AfterAll
  void stop() throws Exception {
    if (util != null) util.shutdownMiniCluster();
  }

  static List<String> expected(int value) {
    List<String> rows = new ArrayList<>();
    for (int i = value; i < ROWS; i += 10) rows.add(String.format("row-%04d", i));
    return rows;
  }

  @Test
  void aClientOnTheShadedClientAndTheShadedClientJarAnswersGlobalAndLocalIndexes()
      throws Exception {
    Run run = client(System.getProperty("scbf.test.shaded.client.jar"), false);
    assertEquals(0, run.status(), run.output());
    for (int v : List.of(0, 3, 9)) {
      assertTrue(
          run.output().contains("Q d:city=c" + v + " " + expected(v) + " "),
          "global, value " + v + "\n" + run.output());
      assertTrue(
          run.output().contains("Q d:zip=z" + v + " " + expected(v) + " "),
          "local, value " + v + "\n" + run.output());
    }
    assertTrue(run.output().contains("native-loaded true"), run.output());
  }

  @Test
  void thePlainJarDoesNotLinkOnTheShadedClient() throws Exception {
    // With the protobuf 2.5 the plain jar depends on, as an application would add it.
    Run run = client(System.getProperty("scbf.test.jar"), true);
    assertNotEquals(0, run.status(), run.output());
    assertTrue(
        run.output().contains("does not implement the requested interface com.google.protobuf"),
        run.output());
  }

  record Run(int status, String output) {}

  /**
   * StandaloneClient on the shaded client, its dependencies and {@code scbfJar} (with protobuf-java
   * 2.5 if {@code withProtobuf}).
   */
  Run client(String scbfJar, boolean withProtobuf) throws Exception {
    List<String> classPath = new ArrayList<>();
    classPath.add(System.getProperty("hbase.shaded.client.jar"));
    classPath.add(scbfJar);
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      // The shaded client's own dependencies (its pom's), and this test's classes for the client's
      // main class (no product class is among them).
      if (entry.matches(
              ".*/(opentelemetry-(api|context|semconv)|slf4j-api|commons-logging"
                  + "|audience-annotations|jakarta\\.activation-api)-[0-9][^/]*\\.jar")
          || entry.endsWith("test-classes")
          || (withProtobuf && entry.matches(".*/protobuf-java-2\\.5\\.0\\.jar"))) {
        classPath.add(entry);
      }
    }
    Configuration conf = util.getConfiguration();
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("-cp");
    command.add(String.join(File.pathSeparator, classPath));
    command.add(StandaloneClient.class.getName());
    command.add(conf.get("hbase.zookeeper.quorum"));
    command.add(conf.get("hbase.zookeeper.property.clientPort"));
    command.add(TABLE.getNameAsString());
    for (int v : List.of(0, 3, 9)) {
      command.add("d:city=c" + v);
      command.add("d:zip=z" + v);
    }
    Path log = Files.createTempFile("shaded-client", ".log");
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      assertTrue(p.waitFor(180, TimeUnit.SECONDS), "the client did not finish: " + log);
      return new Run(p.exitValue(), Files.readString(log));
    } finally {
      Files.delete(log);
    }
  }
}
