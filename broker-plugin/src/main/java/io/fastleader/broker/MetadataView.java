package io.fastleader.broker;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.kafka.common.Uuid;

/**
 * The proxy's short-lived picture of one cluster's leaders, shared by every connection to it.
 *
 * <p>It is fed by the Metadata responses that pass through the proxy on their way to clients
 * ({@link #recordServed}) and by the proxy's own Metadata requests ({@link #recordRefreshed}).
 * The filter sits downstream of Kroxylicious's address rewriting, so every address recorded here
 * is already the one the proxy advertises.
 *
 * <p>Two pictures are kept apart. The <em>current</em> leaders are the newest the proxy has
 * heard of from either source; a leader entry older than the maximum age counts as stale. The
 * <em>served</em> leaders are the newest that Metadata responses have carried to clients: no
 * client behind this proxy can know a newer epoch from Metadata, so a hint must beat it. Both
 * only ever move forward in epoch, until a topic is recreated under a new id.
 *
 * <p>A stale or outrun view is refreshed with one Metadata request at a time, whichever
 * connection needs it first; every refused response that needs a refresh while one is in flight
 * waits for that one ({@link #refresh}), so a roll of many partitions costs one request, not one
 * per error.
 *
 * <p>Thread-safe: connections run on different threads.
 */
public final class MetadataView implements LeaderView {

    private record Entry(PartitionLeader leader, long recordedNanos) {
    }

    private final long maxAgeNanos;
    private final LongSupplier nanoClock;
    private final Map<Partition, Entry> current = new ConcurrentHashMap<>();
    private final Map<Partition, PartitionLeader> served = new ConcurrentHashMap<>();
    private final Map<Integer, Endpoint> endpoints = new ConcurrentHashMap<>();
    private final Map<String, Uuid> topicIds = new ConcurrentHashMap<>();
    private final Map<Uuid, String> topicNames = new ConcurrentHashMap<>();
    private final AtomicReference<CompletableFuture<Void>> refreshing = new AtomicReference<>();

    /**
     * @param maxAge    how long a leader entry counts as fresh after it was recorded
     * @param nanoClock the time in nanoseconds, e.g. {@code System::nanoTime}
     */
    public MetadataView(Duration maxAge, LongSupplier nanoClock) {
        if (maxAge.isNegative() || maxAge.isZero()) {
            throw new IllegalArgumentException("the maximum age must be positive, not " + maxAge);
        }
        this.maxAgeNanos = maxAge.toNanos();
        this.nanoClock = nanoClock;
    }

    /** The view's clock, in nanoseconds: what {@link #isCurrentFor} compares against. */
    public long nanoTime() {
        return nanoClock.getAsLong();
    }

    /** Records a Metadata response that is on its way to a client. */
    public void recordServed(MetadataSnapshot snapshot) {
        record(snapshot);
        snapshot.leaders().forEach((partition, leader) -> served.merge(partition, leader, MetadataView::newer));
    }

    /** Records the response to the proxy's own Metadata request; no client has seen it. */
    public void recordRefreshed(MetadataSnapshot snapshot) {
        record(snapshot);
    }

    private void record(MetadataSnapshot snapshot) {
        long now = nanoClock.getAsLong();
        snapshot.topicIds().forEach(this::recordTopicId);
        snapshot.endpoints().forEach(endpoint -> endpoints.put(endpoint.nodeId(), endpoint));
        snapshot.leaders().forEach((partition, leader) -> current.merge(partition, new Entry(leader, now),
            (old, fresh) -> fresh.leader.leaderEpoch() >= old.leader.leaderEpoch() ? fresh : old));
    }

    /** A topic recreated under the same name starts again at epoch 0: forget the old one's epochs. */
    private void recordTopicId(String topic, Uuid id) {
        Uuid previous = topicIds.put(topic, id);
        if (previous != null && !previous.equals(id)) {
            topicNames.remove(previous);
            current.keySet().removeIf(partition -> partition.topic().equals(topic));
            served.keySet().removeIf(partition -> partition.topic().equals(topic));
        }
        topicNames.put(id, topic);
    }

    private static PartitionLeader newer(PartitionLeader old, PartitionLeader fresh) {
        return fresh.leaderEpoch() >= old.leaderEpoch() ? fresh : old;
    }

    @Override
    public Optional<PartitionLeader> leader(Partition partition) {
        return Optional.ofNullable(current.get(partition)).map(Entry::leader);
    }

    @Override
    public Optional<Endpoint> advertisedEndpoint(int nodeId) {
        return Optional.ofNullable(endpoints.get(nodeId));
    }

    /**
     * The newest leader Metadata responses through this proxy have told clients about for
     * {@code partition}, if any.
     */
    public Optional<PartitionLeader> served(Partition partition) {
        return Optional.ofNullable(served.get(partition));
    }

    /** The name of the topic with id {@code topicId}, if a Metadata response has named it. */
    public Optional<String> topicName(Uuid topicId) {
        return Optional.ofNullable(topicNames.get(topicId));
    }

    /**
     * Whether the view's entry for {@code partition} can be trusted for a request sent at
     * {@code sinceNanos}: it exists, is no older than the maximum age, and was recorded no
     * earlier than the request was sent. A refusal of an older request tells nothing the entry
     * did not already reflect; a refusal of a newer one may be news the entry has not heard.
     */
    public boolean isCurrentFor(Partition partition, long sinceNanos) {
        Entry entry = current.get(partition);
        if (entry == null) {
            return false;
        }
        long now = nanoClock.getAsLong();
        return now - entry.recordedNanos <= maxAgeNanos && entry.recordedNanos - sinceNanos >= 0;
    }

    /**
     * Whether the view's entry for {@code partition} exists and is no older than the maximum
     * age.
     */
    public boolean isFresh(Partition partition) {
        Entry entry = current.get(partition);
        return entry != null && nanoClock.getAsLong() - entry.recordedNanos <= maxAgeNanos;
    }

    /**
     * Refreshes the view with one Metadata request, or joins the one already in flight.
     *
     * <p>The request asks for {@code wanted} and every topic the view already knows, so that a
     * refresh started for one connection serves the others that join it.
     *
     * @param wanted topics the caller needs
     * @param fetch  sends the Metadata request for the given topics
     * @return completes once the response is recorded, or exceptionally if the request failed
     */
    public CompletionStage<Void> refresh(Set<String> wanted, Function<Set<String>, CompletionStage<MetadataSnapshot>> fetch) {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> inFlight = refreshing.compareAndExchange(null, mine);
        if (inFlight != null) {
            return inFlight;
        }
        Set<String> topics = new TreeSet<>(wanted);
        topics.addAll(topicIds.keySet());
        CompletionStage<MetadataSnapshot> response;
        try {
            response = fetch.apply(topics);
        } catch (RuntimeException e) {
            refreshing.set(null);
            mine.completeExceptionally(e);
            return mine;
        }
        response.whenComplete((snapshot, failure) -> {
            if (failure == null) {
                recordRefreshed(snapshot);
            }
            // Cleared before completing, so a waiter that finds the view still outrun can start the next one.
            refreshing.set(null);
            if (failure == null) {
                mine.complete(null);
            } else {
                mine.completeExceptionally(failure);
            }
        });
        return mine;
    }
}
