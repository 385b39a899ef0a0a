package io.scbf.hbase.regionserver.write;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Group commit for calls to one destination (an index region server): a call that finds another in
 * flight to the same destination waits, and the next call carries every part that waited, within a
 * weight. A call alone goes at once; under load, many data writes' index rows share one RPC, one
 * handler and one WAL sync on the index server instead of one each (HBase's WAL groups its syncs
 * the same way).
 *
 * <p>The first waiter of a group sends it, in its own thread, and each caller returns once its
 * part's result is known. Nothing waits on anything but a call in flight, which ends by itself (the
 * index server's handlers wait on nothing remote), so the deadlock argument of the index writers'
 * pool still holds.
 *
 * <p>One queue per destination ever called; destinations are the cluster's region servers (a few
 * objects per restart of one), so they are not removed.
 */
@InterfaceAudience.Private
public final class CallGroups<K, T, R> {
  /** Sends one call carrying {@code parts}; returns one result per part, in order. */
  public interface Sender<K, T, R> {
    List<R> send(K destination, List<T> parts);
  }

  private final int maxWeight;
  private final ConcurrentHashMap<K, Queue<T, R>> queues = new ConcurrentHashMap<>();
  private final LongAdder calls = new LongAdder();
  private final LongAdder parts = new LongAdder();

  /**
   * @param maxWeight what one call may carry, summed over its parts' weights; a part heavier than
   *     that goes alone
   */
  public CallGroups(int maxWeight) {
    this.maxWeight = maxWeight;
  }

  private static final class Waiter<T, R> {
    final T part;
    final int weight;
    R result;
    Throwable failure;
    boolean done;
    boolean leads;

    Waiter(T part, int weight) {
      this.part = part;
      this.weight = weight;
    }
  }

  private static final class Queue<T, R> {
    final ArrayDeque<Waiter<T, R>> waiting = new ArrayDeque<>();
    boolean busy;
  }

  /**
   * {@code part}'s result, sent by {@code sender} in a call of its own or with others' parts (sent
   * by another caller's sender then: they must all send alike). Rethrows what the sender threw.
   */
  public R call(K destination, T part, int weight, Sender<K, T, R> sender) {
    Queue<T, R> q = queues.computeIfAbsent(destination, d -> new Queue<>());
    Waiter<T, R> me = new Waiter<>(part, weight);
    boolean interrupted = false;
    synchronized (q) {
      if (q.busy) {
        q.waiting.add(me);
        while (!me.done && !me.leads) {
          try {
            q.wait();
          } catch (InterruptedException e) {
            interrupted = true; // the part is in a queue another thread may send: wait for it
          }
        }
      } else {
        q.busy = true;
        me.leads = true;
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
    if (!me.done) lead(destination, q, me, sender);
    if (me.failure instanceof RuntimeException e) throw e;
    if (me.failure instanceof Error e) throw e;
    return me.result;
  }

  /** Calls sent. */
  public long calls() {
    return calls.sum();
  }

  /** Parts those calls carried: over {@link #calls}, how many callers a call served. */
  public long parts() {
    return parts.sum();
  }

  /** Callers waiting for a call to {@code destination} to end. */
  int waiting(K destination) {
    Queue<T, R> q = queues.get(destination);
    if (q == null) return 0;
    synchronized (q) {
      return q.waiting.size();
    }
  }

  /** Sends {@code me}'s group, then hands the queue to the next waiter, if any. */
  private void lead(K destination, Queue<T, R> q, Waiter<T, R> me, Sender<K, T, R> sender) {
    List<Waiter<T, R>> group = new ArrayList<>();
    group.add(me);
    int weight = me.weight;
    synchronized (q) {
      while (!q.waiting.isEmpty() && weight + q.waiting.peek().weight <= maxWeight) {
        Waiter<T, R> next = q.waiting.poll();
        weight += next.weight;
        group.add(next);
      }
    }
    List<R> results = null;
    Throwable failure = null;
    try {
      List<T> parts = new ArrayList<>(group.size());
      for (Waiter<T, R> w : group) parts.add(w.part);
      calls.increment();
      this.parts.add(parts.size());
      results = sender.send(destination, parts);
      if (results.size() != group.size()) {
        throw new IllegalStateException(results.size() + " results for " + group.size() + " parts");
      }
    } catch (RuntimeException | Error e) {
      failure = e;
    } finally {
      synchronized (q) {
        for (int i = 0; i < group.size(); i++) {
          Waiter<T, R> w = group.get(i);
          if (failure == null) {
            w.result = results.get(i);
          } else {
            w.failure = failure;
          }
          w.done = true;
        }
        Waiter<T, R> next = q.waiting.poll();
        if (next == null) {
          q.busy = false;
        } else {
          next.leads = true;
        }
        q.notifyAll();
      }
    }
  }
}
