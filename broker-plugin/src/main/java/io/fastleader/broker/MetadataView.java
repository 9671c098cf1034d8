package io.fastleader.broker;

import java.time.Duration;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
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
 * <em>served</em> leaders are the newest that Metadata responses have carried to each client
 * (by {@code client.id}): a Produce request does not say which epoch its client knows, so this
 * stands in for it, and a hint must beat it. Both only ever move forward in epoch, until a topic
 * is recreated under a new id.
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

    /** How many client ids get their own record of what they were served; clients beyond it share the cluster-wide one. */
    static final int MAX_TRACKED_CLIENTS = 10_000;
    /** How many recent epochs per partition {@link #leaderAt} remembers. */
    static final int HISTORY_EPOCHS = 8;

    private final long maxAgeNanos;
    private final LongSupplier nanoClock;
    private final Map<Partition, Entry> current = new ConcurrentHashMap<>();
    /** Recent leaders by epoch, so the broker a client sends a partition to can be told from the epoch it knows. */
    private final Map<Partition, NavigableMap<Integer, Integer>> history = new ConcurrentHashMap<>();
    private final Map<Partition, PartitionLeader> servedToAny = new ConcurrentHashMap<>();
    private final Map<String, Map<Partition, PartitionLeader>> servedByClient = new ConcurrentHashMap<>();
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

    /**
     * Records a Metadata response that is on its way to a client.
     *
     * @param clientId the {@code client.id} of the client it is for
     */
    public void recordServed(String clientId, MetadataSnapshot snapshot) {
        record(snapshot);
        snapshot.leaders().forEach((partition, leader) -> servedToAny.merge(partition, leader, MetadataView::newer));
        Map<Partition, PartitionLeader> client = servedByClient.get(clientId);
        if (client == null && servedByClient.size() < MAX_TRACKED_CLIENTS) {
            client = servedByClient.computeIfAbsent(clientId, id -> new ConcurrentHashMap<>());
        }
        if (client != null) {
            Map<Partition, PartitionLeader> served = client;
            snapshot.leaders().forEach((partition, leader) -> served.merge(partition, leader, MetadataView::newer));
        }
    }

    /** Records the response to the proxy's own Metadata request; no client has seen it. */
    public void recordRefreshed(MetadataSnapshot snapshot) {
        record(snapshot);
    }

    private void record(MetadataSnapshot snapshot) {
        long now = nanoClock.getAsLong();
        snapshot.topicIds().forEach(this::recordTopicId);
        snapshot.endpoints().forEach(endpoint -> endpoints.put(endpoint.nodeId(), endpoint));
        snapshot.leaders().forEach((partition, leader) -> {
            current.merge(partition, new Entry(leader, now),
                (old, fresh) -> fresh.leader.leaderEpoch() >= old.leader.leaderEpoch() ? fresh : old);
            history.compute(partition, (key, old) -> {
                NavigableMap<Integer, Integer> epochs = old == null ? new TreeMap<>() : new TreeMap<>(old);
                epochs.put(leader.leaderEpoch(), leader.leaderId());
                while (epochs.size() > HISTORY_EPOCHS) {
                    epochs.pollFirstEntry();
                }
                return epochs;
            });
        });
    }

    /** A topic recreated under the same name starts again at epoch 0: forget the old one's epochs. */
    private void recordTopicId(String topic, Uuid id) {
        Uuid previous = topicIds.put(topic, id);
        if (previous != null && !previous.equals(id)) {
            topicNames.remove(previous);
            current.keySet().removeIf(partition -> partition.topic().equals(topic));
            history.keySet().removeIf(partition -> partition.topic().equals(topic));
            servedToAny.keySet().removeIf(partition -> partition.topic().equals(topic));
            servedByClient.values().forEach(client -> client.keySet().removeIf(partition -> partition.topic().equals(topic)));
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
     * The newest leader that Metadata responses through this proxy have told {@code clientId}
     * about for {@code partition}. Where the view has no record of that client and partition,
     * the newest told to any client: a client cannot know a newer epoch from this proxy, so a
     * hint that beats it advances every client. (Client ids need not be unique; clients that
     * share one share a record, which only errs towards fewer hints.)
     */
    public Optional<PartitionLeader> served(String clientId, Partition partition) {
        Map<Partition, PartitionLeader> client = servedByClient.get(clientId);
        PartitionLeader leader = client == null ? null : client.get(partition);
        return Optional.ofNullable(leader != null ? leader : servedToAny.get(partition));
    }

    /**
     * The leader the view has seen for {@code partition} at {@code epoch}, if that epoch is
     * among the recent ones it remembers: the broker a client that knows that epoch sends the
     * partition to.
     */
    public OptionalInt leaderAt(Partition partition, int epoch) {
        NavigableMap<Integer, Integer> epochs = history.get(partition);
        Integer leaderId = epochs == null ? null : epochs.get(epoch);
        return leaderId == null ? OptionalInt.empty() : OptionalInt.of(leaderId);
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
