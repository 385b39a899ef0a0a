package io.scbf.hbase.shared;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import io.scbf.hbase.shared.proto.IndexProtos.IndexHit;
import io.scbf.hbase.shared.proto.IndexProtos.LookupResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Index hits packed into one byte string, the form of a range answer that asked for it: a covered
 * range of thousands of entries as one protobuf field, not one {@code IndexHit} message each (whose
 * building, sizing and parsing cost the index region and the client more than reading the entries).
 * Per hit: varint row length, row; varint (value length + 1), value (0: no value); varint (covered
 * length + 1), covered (0: none).
 */
@InterfaceAudience.Private
public final class PackedHits {
  private PackedHits() {}

  /** One index entry as an answer carries it: its user row, indexed value and covered values. */
  public static final class Hit {
    private final byte[] row;
    private final byte[] value;
    private final byte[] covered;

    public Hit(byte[] row, byte[] value, byte[] covered) {
      this.row = row;
      this.value = value;
      this.covered = covered;
    }

    /** The hit an {@code IndexHit} message carries. */
    public static Hit of(IndexHit h) {
      return new Hit(
          h.getRow().toByteArray(),
          h.hasValue() ? h.getValue().toByteArray() : null,
          h.hasCovered() ? h.getCovered().toByteArray() : null);
    }

    public byte[] row() {
      return row;
    }

    /** The indexed value (index form), or null if the request did not ask for values. */
    public byte[] value() {
      return value;
    }

    /** The {@link CoveredValues} encoding, or null if the index covers nothing. */
    public byte[] covered() {
      return covered;
    }
  }

  /** Collects hits in order; a prefix of them becomes a page. */
  public static final class Writer {
    private byte[] buf = new byte[256];
    private int size;
    private int[] ends = new int[16];
    private int count;

    /** Appends a hit whose row is {@code key[rowStart..]} (the tail of an index row key). */
    public void add(
        byte[] key,
        int rowStart,
        byte[] value,
        byte[] coveredArray,
        int coveredOffset,
        int coveredLength) {
      int rowLength = key.length - rowStart;
      int valueLength = value == null ? 0 : value.length;
      ensure(15 + rowLength + valueLength + coveredLength);
      putVarint(rowLength);
      putBytes(key, rowStart, rowLength);
      putVarint(value == null ? 0 : valueLength + 1);
      if (value != null) putBytes(value, 0, valueLength);
      putVarint(coveredLength == 0 ? 0 : coveredLength + 1);
      putBytes(coveredArray, coveredOffset, coveredLength);
      if (count == ends.length) ends = Arrays.copyOf(ends, count * 2);
      ends[count++] = size;
    }

    public int count() {
      return count;
    }

    /** The bytes of hit {@code i}. */
    public int bytesOf(int i) {
      return ends[i] - (i == 0 ? 0 : ends[i - 1]);
    }

    /** The first {@code n} hits, packed. */
    public ByteString first(int n) {
      return n == 0 ? ByteString.EMPTY : ByteString.copyFrom(buf, 0, ends[n - 1]);
    }

    private void ensure(int more) {
      if (size + more > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
    }

    private void putVarint(int v) {
      while ((v & ~0x7f) != 0) {
        buf[size++] = (byte) ((v & 0x7f) | 0x80);
        v >>>= 7;
      }
      buf[size++] = (byte) v;
    }

    private void putBytes(byte[] b, int offset, int length) {
      if (length == 0) return;
      System.arraycopy(b, offset, buf, size, length);
      size += length;
    }
  }

  /** The hits of an answer, packed or as messages (a server of an earlier release sends those). */
  public static List<Hit> of(LookupResponse r) throws IOException {
    List<Hit> out = new ArrayList<>(count(r));
    for (IndexHit h : r.getHitsList()) out.add(Hit.of(h));
    if (r.getPackedCount() > 0) read(r.getPackedHits(), r.getPackedCount(), out);
    return out;
  }

  /** How many hits an answer holds, in either form. */
  public static int count(LookupResponse r) {
    return r.getHitsCount() + r.getPackedCount();
  }

  private static void read(ByteString packed, int count, List<Hit> out) throws IOException {
    CodedInputStream in = packed.newCodedInput();
    try {
      for (int i = 0; i < count; i++) {
        byte[] row = in.readRawBytes(in.readRawVarint32());
        byte[] value = optional(in);
        out.add(new Hit(row, value, optional(in)));
      }
    } catch (IOException | RuntimeException e) {
      throw new IOException(
          "malformed packed index answer (" + count + " hits in " + packed.size() + " bytes)", e);
    }
    if (!in.isAtEnd()) {
      throw new IOException("packed index answer holds bytes after its " + count + " hits");
    }
  }

  private static byte[] optional(CodedInputStream in) throws IOException {
    int n = in.readRawVarint32();
    return n == 0 ? null : in.readRawBytes(n - 1);
  }
}
