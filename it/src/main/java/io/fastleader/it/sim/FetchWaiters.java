package io.fastleader.it.sim;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;

import org.apache.kafka.common.TopicPartition;

/**
 * The Fetches waiting for records, by the partitions they read, as a broker's fetch purgatory
 * keys them: a partition appended to or given a new leader has each of its waiters checked again,
 * on the cluster's {@link Scheduler} thread, so the appending request never serves another's
 * answer and no waiter has a thread of its own. {@link #changed} is called under
 * {@link ClusterState}'s lock and only hands work to the scheduler.
 */
final class FetchWaiters {

    /** A waiting Fetch: checked again after a change to one of its partitions. */
    interface Waiter {
        /** Answers the Fetch if it can be answered now; runs on the scheduler's thread. */
        void recheck();
    }

    private final Scheduler scheduler;
    private final Map<TopicPartition, Set<Waiter>> byPartition = new ConcurrentHashMap<>();

    FetchWaiters(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    void add(Collection<TopicPartition> partitions, Waiter waiter) {
        partitions.forEach(tp -> byPartition.computeIfAbsent(tp, k -> ConcurrentHashMap.newKeySet()).add(waiter));
    }

    void remove(Collection<TopicPartition> partitions, Waiter waiter) {
        partitions.forEach(tp -> byPartition.computeIfPresent(tp, (k, waiters) -> {
            waiters.remove(waiter);
            return waiters.isEmpty() ? null : waiters;
        }));
    }

    /** Has every Fetch waiting on {@code partition} checked again, soon. */
    void changed(TopicPartition partition) {
        Set<Waiter> waiters = byPartition.get(partition);
        if (waiters == null) {
            return;
        }
        for (Waiter waiter : waiters) {
            try {
                scheduler.schedule(waiter::recheck, 0);
            } catch (RejectedExecutionException e) {
                return; // the cluster is closed: no connection waits for an answer any more
            }
        }
    }

    /** Fetches waiting now, for tests of the simulation itself. */
    int waiting() {
        return (int) byPartition.values().stream().flatMap(Set::stream).distinct().count();
    }
}
