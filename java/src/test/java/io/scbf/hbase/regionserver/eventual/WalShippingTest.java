package io.scbf.hbase.regionserver.eventual;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hbase.regionserver.wal.WALCellCodec;
import org.apache.hadoop.hbase.shaded.protobuf.generated.WALProtos.WALHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a WAL's entries start, as awaitIndexed's marks need it: a WAL holding its header only has
 * nothing to ship, and its source never records a position in it (a mark at its length would be
 * waited for until the await timed out; the lifecycle test's idle server did).
 */
class WalShippingTest {
  @TempDir Path dir;

  private long headerEnd(byte[] file) throws IOException {
    Path wal = dir.resolve("wal");
    Files.write(wal, file);
    return WalShipping.headerEnd(
        FileSystem.getLocal(new Configuration()), new org.apache.hadoop.fs.Path(wal.toString()));
  }

  /** HBase's own magic: in AbstractProtobufWALReader on 2.6, ProtobufLogReader on 2.5. */
  private static byte[] hbaseMagic() throws ReflectiveOperationException {
    for (String c :
        new String[] {
          "org.apache.hadoop.hbase.regionserver.wal.AbstractProtobufWALReader",
          "org.apache.hadoop.hbase.regionserver.wal.ProtobufLogReader"
        }) {
      try {
        return (byte[]) Class.forName(c).getField("PB_WAL_MAGIC").get(null);
      } catch (ClassNotFoundException | NoSuchFieldException notThisLine) {
        // the other HBase line's class
      }
    }
    throw new AssertionError("no PB_WAL_MAGIC in this HBase");
  }

  /** The magic and the header as HBase's protobuf WAL writers write them. */
  private static byte[] header(String writerClass) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(hbaseMagic());
    WALHeader.newBuilder()
        .setHasCompression(false)
        .setWriterClsName(writerClass)
        .setCellCodecClsName(WALCellCodec.class.getName())
        .build()
        .writeDelimitedTo(out);
    return out.toByteArray();
  }

  @Test
  void entriesStartRightAfterTheHeader() throws Exception {
    byte[] header = header("ProtobufLogWriter");
    assertEquals(header.length, headerEnd(header));
    byte[] withEntry = Arrays.copyOf(header, header.length + 40);
    assertEquals(header.length, headerEnd(withEntry), "entries after it do not move it");
    // A header over 127 bytes: its length takes two varint bytes.
    byte[] longer = header("x".repeat(200));
    assertEquals(longer.length, headerEnd(longer));
  }

  @Test
  void aFileThatDoesNotReadAsAWalIsMarkedWhole() throws Exception {
    byte[] header = header("ProtobufLogWriter");
    assertEquals(0L, headerEnd("NOPE".getBytes()), "another magic");
    assertEquals(0L, headerEnd(Arrays.copyOf(header, 3)), "cut in the magic");
    assertEquals(0L, headerEnd(Arrays.copyOf(header, 4)), "cut before the length");
    assertEquals(
        0L,
        WalShipping.headerEnd(
            FileSystem.getLocal(new Configuration()),
            new org.apache.hadoop.fs.Path(dir.resolve("absent").toString())),
        "gone");
  }
}
