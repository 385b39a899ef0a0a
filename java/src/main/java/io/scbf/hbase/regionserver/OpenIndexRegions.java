package io.scbf.hbase.regionserver;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The index regions open on one server: what the publisher, the compactor and the metrics walk. */
final class OpenIndexRegions {
  private final Map<String, IndexRegion> byEncodedName = new ConcurrentHashMap<>();

  void add(IndexRegion region) {
    byEncodedName.put(region.encodedName(), region);
  }

  /** False if the region was not (or no longer) registered. */
  boolean remove(IndexRegion region) {
    return byEncodedName.remove(region.encodedName(), region);
  }

  IndexRegion get(String encodedName) {
    return byEncodedName.get(encodedName);
  }

  List<IndexRegion> list() {
    return List.copyOf(byEncodedName.values());
  }

  boolean isEmpty() {
    return byEncodedName.isEmpty();
  }
}
