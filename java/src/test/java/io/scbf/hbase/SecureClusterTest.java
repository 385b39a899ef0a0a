package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.scbf.hbase.shared.EventualRecords;
import io.scbf.hbase.testing.MiniCluster;
import io.scbf.hbase.testing.Oracle;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.HBaseKerberosUtils;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.provider.SaslClientAuthenticationProviders;
import org.apache.hadoop.hbase.security.provider.SaslServerAuthenticationProviders;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 52, secure clusters: Kerberos authentication (a MiniKdc) and HBase's AccessController. The
 * region server's index writes and EVENTUAL applier run as the server's own Kerberos principal;
 * clients log in as principals of their own and get what their grants allow (docs/user-guide.md,
 * "Index reads are authorized like data reads" and the EVENTUAL section's grants).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecureClusterTest {
  static final TableName TABLE = TableName.valueOf("kerberized");
  static final TableName EVENTUAL = TableName.valueOf("kerberized_eventual");
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] AGE = Bytes.toBytes("age");
  static final byte[] NANJING = Bytes.toBytes("Nanjing");
  static final byte[] SUZHOU = Bytes.toBytes("Suzhou");

  MiniKdc kdc;
  File keytab;
  HBaseTestingUtility util;
  Connection admin;
  Connection writer;
  Connection reader;
  Connection stranger;

  @BeforeAll
  void startCluster(@TempDir Path dir) throws Throwable {
    kdc = new MiniKdc(MiniKdc.createConf(), dir.toFile());
    kdc.start();
    keytab = new File(dir.toFile(), "principals.keytab");
    kdc.createPrincipal(keytab, "hbase/localhost", "admin", "writer", "reader", "stranger");
    String service = principal("hbase/localhost");
    // HBase keeps the SASL providers of the first configuration it saw in this JVM: an earlier
    // test class's, without Kerberos, would have every server connect with simple auth.
    SaslClientAuthenticationProviders.reset();
    SaslServerAuthenticationProviders.reset();
    util =
        MiniCluster.start(
            1,
            conf -> {
              HBaseKerberosUtils.setPrincipalForTesting(service);
              HBaseKerberosUtils.setKeytabFileForTesting(keytab.getPath());
              HBaseKerberosUtils.setSecuredConfiguration(conf);
              conf.set("hbase.master.keytab.file", keytab.getPath());
              // Rules naming the realm, not DEFAULT alone: Hadoop reads the default realm once
              // per JVM, possibly before this KDC existed (for an earlier test class), and
              // DEFAULT shortens only names of that realm (hbase/localhost@REALM to "hbase").
              conf.set(
                  "hadoop.security.auth_to_local",
                  String.format(
                      "RULE:[1:$1@$0](.*@%1$s)s/@.*//%nRULE:[2:$1@$0](.*@%1$s)s/@.*//%nDEFAULT",
                      kdc.getRealm()));
              // Only the administrator: MiniCluster's test group would let any caller in it
              // write index tables, and the region servers must be trusted as "hbase", the
              // principal they log in as, which HBase makes a superuser by itself.
              conf.setStrings("hbase.superuser", "admin");
              MiniCluster.withAccessController(conf);
              UserGroupInformation.setConfiguration(conf);
              try {
                UserGroupInformation.loginUserFromKeytab(service, keytab.getPath());
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    admin = connect("admin");
    try (Admin a = admin.getAdmin()) {
      for (TableName t : List.of(TABLE, EVENTUAL)) {
        a.createTable(
            TableDescriptorBuilder.newBuilder(t)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(D))
                .build());
      }
    }
    IndexAdmin indexes = new IndexAdmin(admin);
    indexes.createIndex(
        TABLE, IndexSpec.builder(D, CITY).alias("city").layout(IndexSpec.Layout.BY_VALUE).build());
    indexes.createIndex(TABLE, IndexSpec.builder(D, AGE).alias("age").local().build());
    indexes.createIndex(
        EVENTUAL,
        IndexSpec.builder(D, CITY)
            .alias("city")
            .consistency(IndexSpec.Consistency.EVENTUAL)
            .build());
    // The grants the user guide names: a writer of an EVENTUAL table that awaits its writes needs
    // READ and WRITE on the table and on the record table; a reader READ on the table.
    AccessControlClient.grant(admin, TABLE, "writer", null, null, Permission.Action.WRITE);
    for (TableName t : List.of(EVENTUAL, EventualRecords.TABLE)) {
      AccessControlClient.grant(
          admin, t, "writer", null, null, Permission.Action.READ, Permission.Action.WRITE);
    }
    for (TableName t : List.of(TABLE, EVENTUAL)) {
      AccessControlClient.grant(admin, t, "reader", null, null, Permission.Action.READ);
    }
    writer = connect("writer");
    reader = connect("reader");
    stranger = connect("stranger");
  }

  String principal(String name) {
    return name + "@" + kdc.getRealm();
  }

  /** A connection authenticated by Kerberos as {@code name}, logged in from the keytab. */
  Connection connect(String name) throws IOException {
    Configuration conf = util.getConfiguration();
    return ConnectionFactory.createConnection(
        conf,
        User.create(
            UserGroupInformation.loginUserFromKeytabAndReturnUGI(
                principal(name), keytab.getPath())));
  }

  @AfterAll
  void stopCluster() throws Exception {
    for (Connection c : new Connection[] {writer, reader, stranger, admin}) {
      if (c != null) c.close();
    }
    try {
      if (util != null) util.shutdownMiniCluster();
    } finally {
      // The test classes that run after this one in the same JVM use simple authentication.
      UserGroupInformation.reset();
      SaslClientAuthenticationProviders.reset();
      SaslServerAuthenticationProviders.reset();
      System.clearProperty(HBaseKerberosUtils.KRB_PRINCIPAL);
      System.clearProperty(HBaseKerberosUtils.KRB_KEYTAB_FILE);
      if (kdc != null) kdc.stop();
    }
  }

  static List<Put> people(int from, int to) {
    List<Put> puts = new ArrayList<>();
    for (int i = from; i < to; i++) {
      puts.add(
          new Put(Bytes.toBytes(String.format("row-%04d", i)))
              .addColumn(D, CITY, i % 3 == 0 ? NANJING : SUZHOU)
              .addColumn(D, AGE, Bytes.toBytes(i % 7)));
    }
    return puts;
  }

  static void assertRefused(Executable call) {
    Throwable e = assertThrows(Throwable.class, call::run);
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof AccessDeniedException) return;
    }
    fail("no AccessDeniedException in the cause chain", e);
  }

  interface Executable {
    void run() throws Exception;
  }

  /**
   * The writer has WRITE on the table only: its puts reach the global and local indexes because the
   * region server writes them as its own principal, the only non-administrator superuser.
   */
  @Test
  void aWritersRowsAreIndexedByTheServerAndFoundByAReader() throws Exception {
    try (Table t = writer.getTable(TABLE)) {
      t.put(people(0, 60));
    }
    byte[] three = Bytes.toBytes(3);
    try (IndexedTable t = new IndexedTable(reader, TABLE)) {
      List<String> nanjing = new Oracle(admin, TABLE, D, CITY).rows(NANJING);
      assertEquals(20, nanjing.size());
      assertEquals(
          nanjing, Oracle.resultRows(t.get(IndexQuery.onIndex("city").withValue(NANJING))));
      List<String> aged3 = new Oracle(admin, TABLE, D, AGE).rows(three);
      assertEquals(9, aged3.size());
      assertEquals(aged3, Oracle.resultRows(t.get(IndexQuery.onIndex("age").withValue(three))));
    }
  }

  @Test
  void aWriterAwaitsAnEventualIndexThatAReaderThenQueries() throws Exception {
    try (Table t = writer.getTable(EVENTUAL)) {
      t.put(people(0, 30));
    }
    // The wait's calls that HBase allows only to global ADMIN are relayed by a data region, as
    // the server's principal.
    assertTrue(new IndexAdmin(writer).awaitIndexed(EVENTUAL, 60_000));
    try (IndexedTable t = new IndexedTable(reader, EVENTUAL)) {
      List<String> nanjing = new Oracle(admin, EVENTUAL, D, CITY).rows(NANJING);
      assertEquals(10, nanjing.size());
      assertEquals(
          nanjing, Oracle.resultRows(t.get(IndexQuery.onIndex("city").withValue(NANJING))));
    }
  }

  @Test
  void principalsAreRefusedWhatTheyWereNotGranted() {
    assertRefused(
        () -> {
          try (IndexedTable t = new IndexedTable(stranger, TABLE)) {
            t.get(IndexQuery.onIndex("city").withValue(NANJING));
          }
        });
    assertRefused(() -> new IndexAdmin(stranger).awaitIndexed(EVENTUAL, 10_000));
    // Nor may a reader write.
    assertRefused(
        () -> {
          try (Table t = reader.getTable(TABLE)) {
            t.put(people(100, 101).get(0));
          }
        });
  }
}
