package io.scbf.hbase.regionserver.index;

import io.scbf.HotscoreCache;
import java.util.concurrent.ExecutorService;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * What an index region (a global index's bucket, or a local index inside a data region) needs from
 * the region server hosting it: the server's hot cache, the registry of its open index regions, and
 * the publisher that sends their filters to the master.
 */
@InterfaceAudience.Private
public record IndexRegionHost(
    HotscoreCache cache,
    OpenIndexRegions regions,
    FilterPublisher publisher,
    ExecutorService builder) {}
