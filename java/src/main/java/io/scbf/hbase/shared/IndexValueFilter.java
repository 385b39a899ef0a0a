package io.scbf.hbase.shared;

import io.scbf.hbase.IndexSpec;
import io.scbf.hbase.IndexValues;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.FilterBase;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The scan filter of a typed index's scan plan: keeps the rows whose value of the index ({@link
 * IndexValues#valueOf}, in index form) lies in [lo, hi) (null: unbounded), tested in the region
 * servers as the client would test it. HBase's own value filters compare the columns' raw bytes,
 * whose order is not a typed column's order (a negative long sorts after every positive one). Runs
 * on region servers, which have the scbf jar on their class path, like the coprocessors.
 */
@InterfaceAudience.Private
public final class IndexValueFilter extends FilterBase {
  private final IndexSpec spec;
  private final byte[] lo;
  private final byte[] hi;
  private boolean keep;

  /** Rows with {@code lo <= value < hi}, in index form (a null bound is unbounded). */
  public IndexValueFilter(IndexSpec spec, byte[] lo, byte[] hi) {
    this.spec = spec;
    this.lo = lo;
    this.hi = hi;
  }

  /** Rows whose value of the index equals {@code value} (index form). */
  public static IndexValueFilter equalTo(IndexSpec spec, byte[] value) {
    return new IndexValueFilter(spec, value, Bytes.add(value, new byte[1])); // value only
  }

  @Override
  public void reset() {
    keep = false;
  }

  @Override
  public boolean hasFilterRow() {
    return true;
  }

  @Override
  public void filterRowCells(List<Cell> cells) {
    byte[] v =
        IndexValues.valueOf(
            spec,
            c -> {
              byte[] f = c.family(), q = c.qualifier();
              // The latest version of a column comes first among its cells.
              for (Cell cell : cells) {
                if (CellUtil.matchingColumn(cell, f, q)) return CellUtil.cloneValue(cell);
              }
              return null;
            });
    keep = v != null && IndexKeyCodec.inRange(v, lo, hi);
  }

  @Override
  public boolean filterRow() {
    return !keep;
  }

  @Override
  public byte[] toByteArray() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeUTF(spec.encode());
      writeBound(out, lo);
      writeBound(out, hi);
    }
    return bytes.toByteArray();
  }

  private static void writeBound(DataOutputStream out, byte[] bound) throws IOException {
    out.writeInt(bound == null ? -1 : bound.length);
    if (bound != null) out.write(bound);
  }

  /** HBase's filter deserializer calls this by name. */
  public static IndexValueFilter parseFrom(byte[] bytes) throws DeserializationException {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      IndexSpec spec = IndexSpec.decode(in.readUTF());
      return new IndexValueFilter(spec, readBound(in), readBound(in));
    } catch (IOException | IllegalArgumentException e) {
      throw new DeserializationException("malformed scbf index value filter", e);
    }
  }

  private static byte[] readBound(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0) return null;
    if (length > IndexKeyCodec.MAX_ROW_KEY_LENGTH) throw new IOException("bound too long");
    byte[] b = new byte[length];
    in.readFully(b);
    return b;
  }

  @Override
  public String toString() {
    return "IndexValueFilter{"
        + spec.alias()
        + " in ["
        + (lo == null ? "-inf" : Bytes.toStringBinary(lo))
        + ", "
        + (hi == null ? "+inf" : Bytes.toStringBinary(hi))
        + ")}";
  }
}
