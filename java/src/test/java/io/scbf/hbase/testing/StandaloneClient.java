package io.scbf.hbase.testing;

import io.scbf.Native;
import io.scbf.hbase.IndexedTable;
import java.util.ArrayList;
import java.util.List;
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
