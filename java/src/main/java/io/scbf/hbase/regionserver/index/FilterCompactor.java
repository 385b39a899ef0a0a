package io.scbf.hbase.regionserver.index;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
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

  public FilterCompactor(OpenIndexRegions regions, ExecutorService builder) {
    this.regions = regions;
    this.builder = builder;
  }

  @Override
  public void run() {
    for (IndexRegion r : regions.list()) {
      try {
        if (r.filter().needsCompaction()) builder.execute(r.bookkeeping()::compactIfNeeded);
      } catch (IllegalStateException closed) {
        // the region closed after it was listed
      } catch (RejectedExecutionException stopped) {
        return; // the server's services are stopping
      }
    }
  }
}
