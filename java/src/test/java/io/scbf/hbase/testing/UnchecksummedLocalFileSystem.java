package io.scbf.hbase.testing;

import org.apache.hadoop.fs.LocalFileSystem;

/**
 * The local file system without checksum files, for {@link MiniCluster}. The checksummed stream's
 * hflush leaves the last bytes written in a buffer (it flushes into the raw stream, not through
 * it): a WAL's last edits stayed invisible to a replication source tailing it, such as an EVENTUAL
 * index's peer, until the server wrote more. Unchecksummed, FSHLog's sync hands every byte to the
 * operating system. (The raw file system itself cannot be configured: HBase casts {@code
 * FileSystem.getLocal} to this class.)
 */
public final class UnchecksummedLocalFileSystem extends LocalFileSystem {
  public UnchecksummedLocalFileSystem() {
    setWriteChecksum(false);
  }
}
