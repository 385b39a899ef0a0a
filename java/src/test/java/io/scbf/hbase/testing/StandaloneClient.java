package io.scbf.hbase.testing;

import io.scbf.Native;
import io.scbf.hbase.IndexedTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * A client application in a JVM of its own, for tests that start it on a class path of their
 * choosing (the native library made unloadable with {@code -Dscbf.native.path} naming no file;
 * HBase's shaded client): {@code StandaloneClient QUORUM PORT TABLE family:qualifier=value...}
 * prints, per query, {@code Q <query> <rows> <trace>}, then {@code master-calls N} and {@code
 * native-loaded B}.
 */
public final class StandaloneClient {
  private StandaloneClient() {}

  /** What a run printed (standard output and error together), and its exit status. */
  public record Run(int status, String output) {}

  /**
   * Runs this class in a JVM of its own ({@code jvmOptions}, then {@code classPath}) against the
   * cluster of {@code conf}, asking {@code queries} ({@code family:qualifier=value}) of {@code
   * table}; fails if it has not finished within 180 s.
   */
  public static Run run(
      Configuration conf,
      List<String> jvmOptions,
      String classPath,
      TableName table,
      List<String> queries)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classPath);
    command.add(StandaloneClient.class.getName());
    command.add(conf.get("hbase.zookeeper.quorum"));
    command.add(conf.get("hbase.zookeeper.property.clientPort"));
    command.add(table.getNameAsString());
    command.addAll(queries);
    Path log = Files.createTempFile("standalone-client", ".log");
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!p.waitFor(180, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("the client did not finish in 180 s:\n" + Files.readString(log));
      }
      return new Run(p.exitValue(), Files.readString(log));
    } finally {
      Files.delete(log);
    }
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", args[0]);
    conf.set("hbase.zookeeper.property.clientPort", args[1]);
    try (Connection connection = ConnectionFactory.createConnection(conf);
        IndexedTable table = new IndexedTable(connection, TableName.valueOf(args[2]))) {
      for (int i = 3; i < args.length; i++) {
        String query = args[i];
        int colon = query.indexOf(':');
        int equals = query.indexOf('=');
        List<Result> found =
            table.find(
                Bytes.toBytes(query.substring(0, colon)),
                Bytes.toBytes(query.substring(colon + 1, equals)),
                Bytes.toBytes(query.substring(equals + 1)));
        List<String> rows = new ArrayList<>();
        for (Result r : found) rows.add(Bytes.toString(r.getRow()));
        System.out.println("Q " + query + " " + rows + " " + table.lastTrace());
      }
      System.out.println("master-calls " + table.routingMasterCalls());
    }
    System.out.println("native-loaded " + Native.isLoaded());
  }
}
