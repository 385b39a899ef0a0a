package io.scbf.hbase.regionserver.region;

import java.io.IOException;
import java.util.Collection;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.hadoop.hbase.Cell;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * What the parts of an {@link IndexRegion} read from their HBase region: the seam that lets each
 * part be tested on an in-memory region ({@link HRegionRows} is the real one).
 */
@InterfaceAudience.Private
public interface IndexRegionRows {
  /** Which of {@code rows} exist now (any order, duplicates allowed). */
  Set<byte[]> existing(Collection<byte[]> rows) throws IOException;

  /** The index cells of the first {@code limit} rows in [{@code start}, {@code stop}), in order. */
  void scan(byte[] start, byte[] stop, int limit, Consumer<Cell> cells) throws IOException;

  /**
   * {@link #scan} in descending key order: the last {@code limit} rows of [{@code start}, {@code
   * stop}), from the last one down. Only index tables' regions read backwards (an {@code ORDERED}
   * index's descending queries).
   */
  default void scanDescending(byte[] start, byte[] stop, int limit, Consumer<Cell> cells)
      throws IOException {
    throw new UnsupportedOperationException("this store does not read backwards");
  }

  /**
   * The filter key of every index row of the region, in row order, read lazily; {@code next} throws
   * {@link CancellationException} once {@code cancelled} says so (the region is closing).
   */
  Iterator<byte[]> filterKeys(BooleanSupplier cancelled);

  /**
   * True if the rows expire (their family has a TTL, the data family's): an answer read from them
   * may then lose rows without any write, so it is not cached.
   */
  default boolean expires() {
    return false;
  }
}
