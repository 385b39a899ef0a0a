package io.scbf.hbase.regionserver.index;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The index regions open on one server (index-table buckets, and the local indexes of data
 * regions): what the publisher, the compactor and the metrics walk. Keyed by {@link
 * IndexRegion#publicationKey()}: a data region carries one per local index.
 */
@InterfaceAudience.Private
public final class OpenIndexRegions {
  private final Map<String, IndexRegion> byKey = new ConcurrentHashMap<>();

  void add(IndexRegion region) {
    byKey.put(region.publicationKey(), region);
  }

  /** False if the region was not (or no longer) registered. */
  boolean remove(IndexRegion region) {
    return byKey.remove(region.publicationKey(), region);
  }

  /** The open indexes of one HBase region (several for a data region with local indexes). */
  List<IndexRegion> ofRegion(String encodedName) {
    return byKey.values().stream().filter(r -> r.encodedName().equals(encodedName)).toList();
  }

  public List<IndexRegion> list() {
    return List.copyOf(byKey.values());
  }

  boolean isEmpty() {
    return byKey.isEmpty();
  }
}
