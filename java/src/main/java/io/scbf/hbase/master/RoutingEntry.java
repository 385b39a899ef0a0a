package io.scbf.hbase.master;

import com.google.protobuf.ByteString;
import io.scbf.CorruptSnapshotException;
import io.scbf.MembershipFilter;
import io.scbf.hbase.shared.proto.IndexProtos.RegionFilter;
import io.scbf.hbase.shared.proto.IndexProtos.RegionRouting;
import io.scbf.hbase.shared.proto.IndexProtos.ValueCounts;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.ServerName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One index region's latest publication as {@link RoutingTable} holds it, and how a publication
 * changes it: a full bitmap replaces it, a delta from the version held applies to it (to a copy if
 * the region's bits are also in a {@link SlicedRoutes}), anything else leaves it behind the
 * server's until the full bitmap comes. Every field is guarded by {@link #lock}.
 */
final class RoutingEntry {
  private static final Logger LOG = LoggerFactory.getLogger(RoutingEntry.class);

  /** Deltas kept per region for clients; older clients get the full bitmap. */
  static final int RECENT_DELTAS = 32;

  private record Delta(long base, long version, byte[] bytes) {}

  final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  final String indexTable;
  final String encoded;
  ServerName server;
  boolean ready;
  long version = -1;
  long residue;
  ValueCounts counts;

  /** The copy that gave the entry its {@link #slot}, or null. */
  SlicedRoutes slicedIn;

  int slot = -1;

  /** False while a refused publication left the bitmap behind the server's. */
  boolean current;

  MembershipFilter bitmap;
  long bitmapBytes;
  private final ArrayDeque<Delta> recent = new ArrayDeque<>();

  RoutingEntry(String indexTable, String encoded) {
    this.indexTable = indexTable;
    this.encoded = encoded;
  }

  /** The entry's slot in {@code sr}, or -1 if its bits are not in that copy. */
  int slotIn(SlicedRoutes sr) {
    return sr != null && slicedIn == sr ? slot : -1;
  }

  void replace(MembershipFilter b) {
    if (bitmap != null) bitmap.close();
    bitmap = b;
    bitmapBytes = b == null ? 0 : b.sizeBytes();
    recent.clear();
  }

  /** Under the read lock: the bitmap answers for its region, open on {@code host}. */
  boolean isUsable(ServerName host, Predicate<ServerName> trusted) {
    return ready
        && current
        && bitmap != null
        && server != null
        && server.equals(host)
        && trusted.test(server);
  }

  /** Applies one publication; false if the master needs the region's full bitmap. */
  boolean update(RegionFilter rf, ServerName from, SlicedRoutes sr) {
    ServerName wasServer = server;
    boolean wasReady = ready;
    boolean wasCurrent = current;
    MembershipFilter wasBitmap = bitmap;
    boolean ok = apply(rf, from, sr);
    if (sr != null) {
      sr.touch(encoded);
      // A delta to a sliced entry changed only its bits (applySliced); a full bitmap rewrites them.
      boolean fullBitmap = rf.hasMembership() && bitmap != wasBitmap;
      if (!sliceIfNew(sr) && fullBitmap && slotIn(sr) >= 0) sr.put(slot, null, bitmap);
      boolean changed = !from.equals(wasServer) || wasReady != ready || wasCurrent != current;
      if (changed && slotIn(sr) >= 0) sr.demote(slot);
    }
    return ok;
  }

  private boolean apply(RegionFilter rf, ServerName from, SlicedRoutes sr) {
    boolean sameSource = from.equals(server) && bitmap != null && current;
    server = from;
    ready = rf.getReady();
    if (rf.hasResidue()) residue = rf.getResidue();
    if (rf.hasCounts()) counts = rf.getCounts();
    if (rf.hasMembership()) {
      try {
        replace(MembershipFilter.fromByteArray(rf.getMembership().toByteArray()));
        version = rf.getVersion();
        current = true;
        return true;
      } catch (CorruptSnapshotException bad) {
        LOG.warn("scbf: unreadable bitmap from {} for {}: {}", from, encoded, bad.toString());
        current = false;
        return false;
      }
    }
    if (rf.hasDelta()) {
      boolean applied = false;
      if (sameSource && version == rf.getBaseVersion()) {
        byte[] delta = rf.getDelta().toByteArray();
        try {
          applied = slotIn(sr) >= 0 ? applySliced(delta, sr) : bitmap.applyDelta(delta);
        } catch (CorruptSnapshotException bad) {
          LOG.warn("scbf: unreadable delta from {} for {}: {}", from, encoded, bad.toString());
        }
        if (applied) remember(new Delta(version, rf.getVersion(), delta));
      }
      current = applied;
      if (applied) version = rf.getVersion();
      return applied;
    }
    // No bitmap: a region still building, or the same version as held.
    current = sameSource && rf.getVersion() == version;
    return current || !rf.getReady();
  }

  /**
   * A delta to a sliced entry: applied to a copy, so the slot changes only the bits the delta
   * flipped (the set compares the bitmap it holds with the new one).
   */
  private boolean applySliced(byte[] delta, SlicedRoutes sr) {
    MembershipFilter next = MembershipFilter.fromByteArray(bitmap.toByteArray());
    try {
      if (!next.applyDelta(delta)) {
        next.close();
        return false;
      }
    } catch (RuntimeException bad) {
      next.close();
      throw bad;
    }
    sr.put(slot, bitmap, next);
    bitmap.close();
    bitmap = next;
    return true;
  }

  private void remember(Delta d) {
    recent.addLast(d);
    long bytes = 0;
    for (Delta x : recent) bytes += x.bytes().length;
    long limit = bitmapBytes;
    while (recent.size() > RECENT_DELTAS || (bytes > limit && !recent.isEmpty())) {
      bytes -= recent.removeFirst().bytes().length;
    }
  }

  /** Gives an entry with a bitmap and no slot its slot and bits; the write lock is held. */
  boolean sliceIfNew(SlicedRoutes sr) {
    if (bitmap == null || slotIn(sr) >= 0) return false;
    slot = sr.allocate();
    slicedIn = sr;
    sr.put(slot, null, bitmap);
    sr.touch(encoded);
    return true;
  }

  /**
   * Nothing if the client holds this version; else the deltas from its version, or the bitmap, and
   * the value counts (they change only with the version). Under the read lock.
   */
  void addTo(RegionRouting.Builder r, Long heldVersion) {
    if (heldVersion != null && heldVersion == version) return;
    if (counts != null) r.setCounts(counts);
    if (heldVersion != null) {
      List<ByteString> chain = new ArrayList<>();
      long at = heldVersion;
      for (Delta d : recent) {
        if (d.base() == at) {
          chain.add(ByteString.copyFrom(d.bytes()));
          at = d.version();
        }
      }
      if (at == version) {
        r.addAllDeltas(chain);
        return;
      }
    }
    r.setMembership(ByteString.copyFrom(bitmap.toByteArray()));
  }
}
