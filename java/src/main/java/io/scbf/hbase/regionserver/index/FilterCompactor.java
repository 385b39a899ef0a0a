package io.scbf.hbase.regionserver.index;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Periodically asks every open index region's filter whether it needs compacting (residue from
 * removes it could not apply, or growth into several sub-filters) and runs those compactions one at
 * a time on the server's filter-builder thread.
 */
@InterfaceAudience.Private
public final class FilterCompactor implements Runnable {
  private final OpenIndexRegions regions;
  private final ExecutorService builder;
  private final LongAdder compactions = new LongAdder();
  private final LongAdder rowsCounted = new LongAdder();

  public FilterCompactor(OpenIndexRegions regions, ExecutorService builder) {
    this.regions = regions;
    this.builder = builder;
  }

  @Override
  public void run() {
    for (IndexRegion r : regions.list()) {
      try {
        if (r.filter().needsCompaction()) builder.execute(() -> compact(r));
      } catch (IllegalStateException closed) {
        // the region closed after it was listed
      } catch (RejectedExecutionException stopped) {
        return; // the server's services are stopping
      }
    }
  }

  private void compact(IndexRegion r) {
    r.bookkeeping()
        .compactIfNeeded()
        .ifPresent(
            rows -> {
              compactions.increment();
              rowsCounted.add(rows);
            });
  }

  /** Filter compactions run to their end since these services started. */
  public long compactions() {
    return compactions.sum();
  }

  /** Index rows those compactions counted (each read once per compaction). */
  public long rowsCounted() {
    return rowsCounted.sum();
  }
}
