package io.scbf.hbase.regionserver.region;

import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.IndexKeyCodec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.util.Bytes;

/** An index region held in a sorted map: the parts of IndexRegion tested without a cluster. */
public class InMemoryIndexRows implements IndexRegionRows {
  public final TreeMap<byte[], byte[]> rows = new TreeMap<>(Bytes.BYTES_COMPARATOR);
  public int scans;
  public int existenceReads; // rows asked about by existing()

  public void put(byte[] row, byte[] covered) {
    rows.put(row, covered);
  }

  public void delete(byte[] row) {
    rows.remove(row);
  }

  @Override
  public Set<byte[]> existing(Collection<byte[]> keys) {
    Set<byte[]> out = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    existenceReads += keys.size();
    for (byte[] k : keys) if (rows.containsKey(k)) out.add(k);
    return out;
  }

  @Override
  public void scan(byte[] start, byte[] stop, int limit, Consumer<Cell> cells) {
    scans++;
    int n = 0;
    for (Map.Entry<byte[], byte[]> e : rows.subMap(start, stop).entrySet()) {
      if (n++ == limit) return;
      cells.accept(
          new KeyValue(
              e.getKey(), IndexCatalog.INDEX_FAMILY, IndexCatalog.INDEX_QUALIFIER, e.getValue()));
    }
  }

  @Override
  public Iterator<byte[]> filterKeys(BooleanSupplier cancelled) {
    List<byte[]> keys = new ArrayList<>();
    for (byte[] row : rows.keySet()) {
      keys.add(IndexKeyCodec.filterKeyOf(row));
    }
    Iterator<byte[]> it = keys.iterator();
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        if (cancelled.getAsBoolean()) throw new CancellationException();
        return it.hasNext();
      }

      @Override
      public byte[] next() {
        return it.next();
      }
    };
  }
}
