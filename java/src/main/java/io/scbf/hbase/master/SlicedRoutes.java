package io.scbf.hbase.master;

import io.scbf.MembershipFilter;
import io.scbf.MembershipRouteSet;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import io.scbf.hbase.shared.proto.IndexProtos.ValueCounts;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;

/**
 * One index's routing bitmaps, bit-sliced ({@link MembershipRouteSet}), for an index over many
 * regions: a route then costs one native query and work per candidate, instead of a bitmap probe
 * and the master's bookkeeping per region (docs/design.md, "Routing at many regions").
 *
 * <p>Each region's entry holds a slot; its bits follow the entry's bitmap (the table updates both
 * under the entry's lock). Which regions are sure is a {@link Snapshot}, rebuilt in the background
 * while routes run and on a route that finds it expired; a region counts as sure in it only if it
 * would still be sure at the snapshot's last use, so a snapshot never trusts a silent server longer
 * than the table would. A publication that changes an entry's state demotes its region to unsure in
 * the current snapshot at once (and in a snapshot being built), which is always safe: unsure means
 * asked. Only the next rebuild makes a region sure again.
 *
 * <p>A slot given back is reused only after the next snapshot, which no longer maps it.
 */
final class SlicedRoutes implements AutoCloseable {
  private final MembershipRouteSet set = new MembershipRouteSet();
  final TableName regionsOf;
  private final ArrayDeque<Integer> free = new ArrayDeque<>(); // guarded by this
  private final ArrayDeque<Integer> released = new ArrayDeque<>(); // guarded by this
  private int nextSlot; // guarded by this
  private boolean filled; // guarded by filling
  private final Object filling = new Object();
  private List<Integer> demotedWhileBuilding; // guarded by this; null when no build runs
  private final Object building = new Object(); // one build at a time
  private volatile Snapshot snapshot;
  private volatile RegionOrder order;
  private volatile long lastRouted;

  /**
   * @param now the table's clock: the copy counts as routed from its creation
   */
  SlicedRoutes(TableName regionsOf, long now) {
    this.regionsOf = regionsOf;
    this.lastRouted = now;
  }

  /**
   * Which regions a route may trust, in start-key order.
   *
   * @param validUntil the table's clock from which it is rebuilt before use
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
      long entries) {

    /** This snapshot with {@code slot}'s region unsure (itself if the slot maps no region). */
    Snapshot demote(int slot) {
      int region = slot < regionOfSlot.length ? regionOfSlot[slot] : -1;
      if (region < 0) return this;
      int[] slots = regionOfSlot.clone();
      slots[slot] = -1;
      int[] moreUnsure = Arrays.copyOf(unsure, unsure.length + 1);
      moreUnsure[unsure.length] = region;
      ValueCounts[] fewer = counts.clone();
      ValueCounts gone = fewer[region];
      fewer[region] = null;
      return new Snapshot(
          validUntil,
          refs,
          slots,
          moreUnsure,
          fewer,
          gone == null ? counted : counted - 1,
          gone == null ? entries : entries - gone.getEntries());
    }
  }

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

  /** The order for {@code listed}, computed by {@code compute} unless the last one still holds. */
  RegionOrder orderOf(List<RegionInfo> listed, Function<List<RegionInfo>, RegionOrder> compute) {
    RegionOrder o = order;
    if (o == null || !o.sameAs(listed)) order = o = compute.apply(listed);
    return o;
  }

  /** Runs {@code fill} once, the first caller's; later callers wait for it to finish. */
  void fillOnce(Runnable fill) {
    // Not under this object's monitor: the fill takes entries' locks, and a publication holds an
    // entry's lock while it calls allocate, demote or release, which take the monitor.
    synchronized (filling) {
      if (filled) return;
      fill.run();
      filled = true;
    }
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

  /** The slot's region is unsure until the next snapshot is built. */
  synchronized void demote(int slot) {
    Snapshot s = snapshot;
    if (s != null) snapshot = s.demote(slot);
    if (demotedWhileBuilding != null) demotedWhileBuilding.add(slot);
  }

  synchronized void release(int slot) {
    demote(slot);
    set.clear(slot);
    released.add(slot);
  }

  /** The snapshot if still valid at {@code now}, else null. */
  Snapshot current(long now) {
    Snapshot s = snapshot;
    return s != null && now < s.validUntil() ? s : null;
  }

  /**
   * Builds and installs a new snapshot with {@code build}, unless another caller installed one
   * valid at {@code now} while this one waited; returns the snapshot to use. Slots released before
   * the build started may be reused once it is installed.
   */
  Snapshot rebuild(long now, boolean force, Supplier<Snapshot> build) {
    synchronized (building) {
      Snapshot s = current(now);
      if (s != null && !force) return s;
      int releasedBefore;
      synchronized (this) {
        releasedBefore = released.size();
        demotedWhileBuilding = new ArrayList<>();
      }
      Snapshot fresh = null;
      try {
        fresh = build.get();
      } finally {
        synchronized (this) {
          if (fresh != null) {
            for (int slot : demotedWhileBuilding) fresh = fresh.demote(slot);
            snapshot = fresh;
            for (int i = 0; i < releasedBefore; i++) free.add(released.poll());
          }
          demotedWhileBuilding = null;
        }
      }
      return fresh;
    }
  }

  void routed(long now) {
    lastRouted = now;
  }

  long lastRouted() {
    return lastRouted;
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
