package io.scbf.hbase.master;

import io.scbf.MembershipFilter;
import io.scbf.MembershipRouteSet;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRef;
import io.scbf.hbase.shared.proto.IndexProtos.ValueCounts;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.hadoop.hbase.ServerName;
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
 * <p>A snapshot is derived from an {@link Evaluation} of every region, and each build after the
 * first re-reads only the regions that may have changed since the last: those whose entry a
 * publication touched, whose host changed, or whose publishing server's trust changed, and the
 * regions new in the list (a split, a merge). A change of the index's building state makes it read
 * every region.
 *
 * <p>A slot given back is reused only after the next snapshot, which no longer maps it.
 */
final class SlicedRoutes implements AutoCloseable {
  private final MembershipRouteSet set = new MembershipRouteSet();
  final TableName regionsOf;
  private final ArrayDeque<Integer> free = new ArrayDeque<>(); // guarded by this
  private final ArrayDeque<Integer> released = new ArrayDeque<>(); // guarded by this
  private int nextSlot; // guarded by this
  private volatile boolean filled; // written under filling
  private final Object filling = new Object();
  private List<Integer> demotedWhileBuilding; // guarded by this; null when no build runs
  private Set<String> touched = new HashSet<>(); // guarded by this
  private final Object building = new Object(); // one build at a time
  private Evaluation evaluation; // guarded by building
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
   * What a build found for each region of {@code order} (start-key order), kept so that the next
   * build re-reads only what may have changed.
   *
   * @param order the regions evaluated
   * @param building whether the index was building (every region unsure)
   * @param sure whether the region's bits could be trusted until the snapshot's last use
   * @param slotOf the region's slot, or -1
   * @param publisherOf the server whose publication the region's entry held, or null
   * @param hostOf the server the region was open on, or null
   * @param counts the region's value counts (null if none)
   * @param trusted for each publisher seen, whether it was heard from recently enough and online
   */
  record Evaluation(
      RegionOrder order,
      boolean building,
      boolean[] sure,
      int[] slotOf,
      ServerName[] publisherOf,
      ServerName[] hostOf,
      ValueCounts[] counts,
      Map<ServerName, Boolean> trusted) {

    /** The snapshot a route reads, usable until {@code validUntil}. */
    Snapshot snapshot(long validUntil) {
      int n = sure.length;
      int slots = 0;
      for (int i = 0; i < n; i++) if (sure[i]) slots = Math.max(slots, slotOf[i] + 1);
      int[] regionOfSlot = new int[slots];
      Arrays.fill(regionOfSlot, -1);
      int[] unsure = new int[n];
      int unsureCount = 0;
      ValueCounts[] sureCounts = new ValueCounts[n];
      int counted = 0;
      long entries = 0;
      for (int i = 0; i < n; i++) {
        if (!sure[i]) {
          unsure[unsureCount++] = i;
          continue;
        }
        regionOfSlot[slotOf[i]] = i;
        if (counts[i] != null) {
          sureCounts[i] = counts[i];
          counted++;
          entries += counts[i].getEntries();
        }
      }
      return new Snapshot(
          validUntil,
          order.refs(),
          regionOfSlot,
          Arrays.copyOf(unsure, unsureCount),
          sureCounts,
          counted,
          entries);
    }
  }

  /**
   * The index's regions in start-key order and their refs, as last computed from {@code listed}
   * (the cluster view's list): reused while the view lists the same region objects in the same
   * order, since sorting and copying a hundred thousand keys is most of a snapshot's cost.
   */
  record RegionOrder(
      List<RegionInfo> listed,
      List<RegionInfo> sorted,
      List<RegionRef> refs,
      Map<String, Integer> indexOf) {

    static RegionOrder of(List<RegionInfo> listed, List<RegionInfo> sorted, List<RegionRef> refs) {
      Map<String, Integer> indexOf = new HashMap<>(sorted.size() * 2);
      for (int i = 0; i < sorted.size(); i++) indexOf.put(sorted.get(i).getEncodedName(), i);
      // Not copied again: built here and never written after.
      return new RegionOrder(
          List.copyOf(listed),
          List.copyOf(sorted),
          List.copyOf(refs),
          Collections.unmodifiableMap(indexOf));
    }

    /** The position of {@code region} in this order, or -1 if it is not in it. */
    int positionOf(RegionInfo region) {
      Integer at = indexOf.get(region.getEncodedName());
      return at != null && sorted.get(at) == region ? at : -1;
    }

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

  /** Whether every entry was sliced: a build before that reads regions only half there. */
  boolean isFilled() {
    return filled;
  }

  synchronized int allocate() {
    Integer reused = free.poll();
    return reused != null ? reused : nextSlot++;
  }

  void put(int slot, MembershipFilter previous, MembershipFilter next) {
    set.set(slot, previous, next);
  }

  /** The next build re-reads the region's entry (a publication changed or removed it). */
  synchronized void touch(String encodedRegion) {
    touched.add(encodedRegion);
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
   * Builds and installs a new snapshot unless another caller installed one valid at {@code now}
   * while this one waited; returns the snapshot to use. {@code evaluate} gets the last build's
   * evaluation (null for the first, or after a build failed) and the regions whose entries were
   * touched since it started, and evaluates every region. Slots released before the build started
   * may be reused once it is installed.
   */
  Snapshot rebuild(
      long now,
      boolean force,
      long validUntil,
      BiFunction<Evaluation, Set<String>, Evaluation> evaluate) {
    synchronized (building) {
      Snapshot s = current(now);
      if (s != null && !force) return s;
      int releasedBefore;
      Set<String> changed;
      synchronized (this) {
        releasedBefore = released.size();
        changed = touched;
        touched = new HashSet<>();
        demotedWhileBuilding = new ArrayList<>();
      }
      Evaluation last = evaluation;
      evaluation = null; // a build that fails leaves the next one to read every region
      Snapshot fresh = null;
      try {
        Evaluation next = evaluate.apply(last, changed);
        fresh = next.snapshot(validUntil);
        evaluation = next;
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
