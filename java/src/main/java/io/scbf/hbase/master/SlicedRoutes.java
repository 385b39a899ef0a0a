package io.scbf.hbase.master;

import io.scbf.MembershipFilter;
import io.scbf.MembershipRouteSet;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import io.scbf.hbase.shared.proto.IndexProtos.ValueCounts;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.hadoop.hbase.client.RegionInfo;

/**
 * One index's routing bitmaps, bit-sliced ({@link MembershipRouteSet}), for an index over many
 * regions: a route then costs one native query and work per candidate, instead of a bitmap probe
 * and the master's bookkeeping per region (docs/design.md, "Routing at many regions").
 *
 * <p>Each region's entry holds a slot; its bits follow the entry's bitmap (the table updates both
 * under the entry's lock). Which regions are sure is a {@link Snapshot}, rebuilt when an entry's
 * state changes (created, retired, new server, readiness, a refused publication) and at least every
 * {@code snapshotMs}; a region counts as sure in it only if it would still be sure {@code
 * snapshotMs} later, so a snapshot never trusts a silent server longer than the table would.
 *
 * <p>A slot given back is reused only after the next snapshot, which no longer maps it.
 */
final class SlicedRoutes implements AutoCloseable {
  private final MembershipRouteSet set = new MembershipRouteSet();
  private final ArrayDeque<Integer> free = new ArrayDeque<>(); // guarded by this
  private final ArrayDeque<Integer> released = new ArrayDeque<>(); // guarded by this
  private int nextSlot; // guarded by this
  private boolean filled; // guarded by this
  private volatile Snapshot snapshot;

  /** Counts invalidations: a snapshot built across one is used once, not kept. */
  private final AtomicLong generation = new AtomicLong();

  /**
   * Which regions a route may trust, in start-key order.
   *
   * @param validUntil the table's clock after which it is rebuilt
   * @param refs every region, in start-key order
   * @param regionOfSlot the sure region a slot's bits stand for, or -1
   * @param unsure regions the route asks whatever the bits say
   * @param counts each sure region's value counts (null if none)
   * @param counted sure regions with counts
   * @param entries their entries
   */
  record Snapshot(
      long validUntil,
      List<RegionRef> refs,
      int[] regionOfSlot,
      int[] unsure,
      ValueCounts[] counts,
      int counted,
      long entries) {}

  /**
   * The index's regions in start-key order and their refs, as last computed from {@code listed}
   * (the cluster view's list): reused while the view lists the same region objects in the same
   * order, since sorting and copying a hundred thousand keys is most of a snapshot's cost.
   */
  record RegionOrder(List<RegionInfo> listed, List<RegionInfo> sorted, List<RegionRef> refs) {
    boolean sameAs(List<RegionInfo> now) {
      if (now.size() != listed.size()) return false;
      for (int i = 0; i < now.size(); i++) if (now.get(i) != listed.get(i)) return false;
      return true;
    }
  }

  private volatile RegionOrder order;

  /** The order for {@code listed}, computed by {@code compute} unless the last one still holds. */
  RegionOrder orderOf(List<RegionInfo> listed, Function<List<RegionInfo>, RegionOrder> compute) {
    RegionOrder o = order;
    if (o == null || !o.sameAs(listed)) order = o = compute.apply(listed);
    return o;
  }

  /** Runs {@code fill} once, the first caller's; later callers wait for it to finish. */
  synchronized void fillOnce(Runnable fill) {
    if (filled) return;
    fill.run();
    filled = true;
  }

  synchronized int allocate() {
    Integer reused = free.poll();
    return reused != null ? reused : nextSlot++;
  }

  /** Slots handed out so far: the bits a snapshot maps. */
  synchronized int slots() {
    return nextSlot;
  }

  void put(int slot, MembershipFilter previous, MembershipFilter next) {
    set.set(slot, previous, next);
  }

  synchronized void release(int slot) {
    set.clear(slot);
    released.add(slot);
    invalidate();
  }

  void invalidate() {
    generation.incrementAndGet();
    snapshot = null;
  }

  long generation() {
    return generation.get();
  }

  /** The snapshot if still valid at {@code now}, else null. */
  Snapshot current(long now) {
    Snapshot s = snapshot;
    return s != null && now < s.validUntil() ? s : null;
  }

  /**
   * Keeps a new snapshot unless an invalidation came after {@code generationBefore} (the state it
   * read may be older); slots released before it was built may be reused from now on.
   */
  synchronized void install(Snapshot s, int releasedBefore, long generationBefore) {
    for (int i = 0; i < releasedBefore && !released.isEmpty(); i++) free.add(released.poll());
    if (generation.get() == generationBefore) snapshot = s;
  }

  synchronized int releasedCount() {
    return released.size();
  }

  /** The slots whose bits may hold {@code key}. */
  long[] query(byte[] key, int minSlots) {
    return set.query(key, minSlots);
  }

  long bytes() {
    return set.stats().bytes();
  }

  @Override
  public void close() {
    set.close();
  }
}
