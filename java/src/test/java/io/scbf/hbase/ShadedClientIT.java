package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.StandaloneClient;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
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
    StandaloneClient.Run run = client(System.getProperty("scbf.test.shaded.client.jar"), false);
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
    StandaloneClient.Run run = client(System.getProperty("scbf.test.jar"), true);
    assertNotEquals(0, run.status(), run.output());
    assertTrue(
        run.output().contains("does not implement the requested interface com.google.protobuf"),
        run.output());
  }

  /**
   * StandaloneClient on the shaded client, its dependencies and {@code scbfJar} (with protobuf-java
   * 2.5 if {@code withProtobuf}).
   */
  StandaloneClient.Run client(String scbfJar, boolean withProtobuf) throws Exception {
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
    List<String> queries = new ArrayList<>();
    for (int v : List.of(0, 3, 9)) {
      queries.add("d:city=c" + v);
      queries.add("d:zip=z" + v);
    }
    return StandaloneClient.run(
        util.getConfiguration(),
        List.of(),
        String.join(File.pathSeparator, classPath),
        TABLE,
        queries);
  }
}
