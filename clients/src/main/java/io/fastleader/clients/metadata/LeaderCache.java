package io.fastleader.clients.metadata;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseBroker;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponsePartition;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseTopic;
import io.fastleader.protocol.message.MetadataResponseData;

/**
 * Who leads each partition, and where each broker is: the client's single source of leader state.
 *
 * <p>Reads ({@link #leadership}, {@link #node}) take no lock: each topic's partitions are an array
 * of immutable values, found by topic name, and the node table is an immutable map behind a
 * volatile reference, so a send path can look up a leader per record for the cost of one map probe
 * and one array load. Writes (Metadata responses, hints) take one lock per call, held for work
 * proportional to what the call carries, and keep one rule: a partition's leader epoch never goes
 * backwards.
 * <ul>
 *   <li>A Metadata response replaces a partition's state only if its epoch is newer, or equal and
 *       from a request sent no earlier than the one that set the current replicas and ISR.</li>
 *   <li>A {@link LeaderHint} is applied only if complete and strictly newer, for a tracked
 *       partition of the same topic incarnation, led by a broker whose endpoint is known. It costs
 *       an array store per hinted partition, independent of the cluster's size.</li>
 *   <li>Endpoints from responses never replace a broker known from Metadata; an unknown broker's
 *       endpoint is kept provisionally until a Metadata response lists that broker.</li>
 *   <li>A topic seen under a new topic id was deleted and recreated: its old epochs are dropped.</li>
 * </ul>
 * Listeners are told of changes after the lock is released, each on the executor it was registered
 * with; wakeups ({@link #wakeOnChange}) run on the writing thread.
 */
public final class LeaderCache {

    private final ConcurrentMap<String, AtomicReferenceArray<PartitionLeadership>> partitionsByTopic;
    private final ConcurrentMap<String, TopicState> topics = new ConcurrentHashMap<>();
    /** Serialises writers; readers never take it. */
    private final Object writeLock = new Object();
    private volatile Map<Integer, BrokerEndpoint> nodes = Map.of();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final List<Runnable> wakeups = new CopyOnWriteArrayList<>();
    private final MetadataMetrics metrics;
    private final Consumer<Map<Integer, BrokerEndpoint>> nodesChanged;

    /** An empty cache that counts hint verdicts in {@code metrics}, its node table followed by nobody. */
    public LeaderCache(MetadataMetrics metrics) {
        this(metrics, nodes -> { });
    }

    /**
     * An empty cache that counts hint verdicts in {@code metrics}.
     *
     * @param nodesChanged given every new node table while the write that changed it holds the
     *                     lock, before any leadership it names is visible: a connection pool
     *                     learns a new leader's address before anyone can route to it. It must
     *                     be quick and must not call back into the cache.
     */
    public LeaderCache(MetadataMetrics metrics, Consumer<Map<Integer, BrokerEndpoint>> nodesChanged) {
        this(new ConcurrentHashMap<>(), metrics, nodesChanged);
    }

    /** A cache over a given topic map, so tests can watch how a write reaches partitions. */
    LeaderCache(ConcurrentMap<String, AtomicReferenceArray<PartitionLeadership>> partitionsByTopic, MetadataMetrics metrics,
                Consumer<Map<Integer, BrokerEndpoint>> nodesChanged) {
        this.partitionsByTopic = Objects.requireNonNull(partitionsByTopic, "partitionsByTopic");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.nodesChanged = Objects.requireNonNull(nodesChanged, "nodesChanged");
    }

    /** The partition's leadership as last learned, or null if the partition is not tracked. */
    public PartitionLeadership leadership(TopicPartition partition) {
        return leadership(partition.topic(), partition.partition());
    }

    /** The leadership of partition {@code index} of {@code topic}, or null if it is not tracked. */
    public PartitionLeadership leadership(String topic, int index) {
        return slot(partitionsByTopic.get(topic), index);
    }

    private static PartitionLeadership slot(AtomicReferenceArray<PartitionLeadership> slots, int index) {
        return slots == null || index < 0 || index >= slots.length() ? null : slots.get(index);
    }

    /**
     * The partition's leadership if its requests can go to the leader now: a leader is known, and
     * where it is reached. Null otherwise (untracked, no leader during an election, or a leader
     * whose endpoint the client lacks): a Metadata refresh of its topic is the way on.
     */
    public PartitionLeadership routable(TopicPartition partition) {
        return routable(leadership(partition));
    }

    /**
     * {@code leadership} if its partition's requests can go to the leader now, as
     * {@link #routable(TopicPartition)} says, else null: for a caller that read the leadership once
     * and needs its epoch whether or not it routes (a retry's backoff is judged against it).
     */
    public PartitionLeadership routable(PartitionLeadership leadership) {
        return leadership != null && leadership.hasLeader() && nodes.containsKey(leadership.leaderId()) ? leadership : null;
    }

    /** The partition's leader epoch as last learned, -1 if the partition is not tracked or the broker did not say. */
    public int leaderEpoch(TopicPartition partition) {
        PartitionLeadership leadership = leadership(partition);
        return leadership == null ? -1 : leadership.leaderEpoch();
    }

    /** Where broker {@code nodeId} is reached, or null if it is unknown. */
    public BrokerEndpoint node(int nodeId) {
        return nodes.get(nodeId);
    }

    /** Every known broker by id, confirmed and provisional; an immutable snapshot. */
    public Map<Integer, BrokerEndpoint> nodes() {
        return nodes;
    }

    /** How many partitions the topic has, or 0 if no Metadata response has described it. */
    public int partitionCount(String topic) {
        AtomicReferenceArray<PartitionLeadership> slots = partitionsByTopic.get(topic);
        return slots == null ? 0 : slots.length();
    }

    /** The topic's id, if a Metadata response (v10+) has given it. */
    public Optional<Uuid> topicId(String topic) {
        TopicState state = topics.get(topic);
        return state == null || state.id.equals(Uuid.ZERO_UUID) ? Optional.empty() : Optional.of(state.id);
    }

    /** The error the last Metadata response gave for the topic, {@link ErrorCode#NONE} if none. */
    public ErrorCode topicError(String topic) {
        TopicState state = topics.get(topic);
        return state == null ? ErrorCode.NONE : state.error;
    }

    /**
     * Registers a listener for every later leader or epoch change, told on {@code executor}: the
     * changes of one write in one task, after they are visible to readers. An executor that refuses
     * the task (shut down) loses it.
     */
    public void addListener(LeaderChangeListener listener, Executor executor) {
        listeners.add(new Listener(Objects.requireNonNull(listener, "listener"), Objects.requireNonNull(executor, "executor")));
    }

    /**
     * Runs {@code wakeup} on the writing thread after every write that changed a leader or epoch,
     * for a loop that then reads the cache itself (as a sender checks readiness): it must only wake
     * that loop, never do the loop's work.
     */
    public void wakeOnChange(Runnable wakeup) {
        wakeups.add(Objects.requireNonNull(wakeup, "wakeup"));
    }

    /** Stops running a {@code wakeup} given to {@link #wakeOnChange}. */
    public void stopWaking(Runnable wakeup) {
        wakeups.remove(wakeup);
    }

    /**
     * Applies a Metadata response: brokers, then each described topic. Topics the response reports
     * with an error keep their partitions (so their epochs still guard against older answers) and
     * have the error recorded.
     *
     * @param view the sequence number of the request this answers; requests are numbered in the
     *             order they were sent
     */
    public void applyMetadata(MetadataResponseData response, long view) {
        Map<Integer, BrokerEndpoint> confirmed = new HashMap<>();
        for (MetadataResponseBroker broker : response.brokers()) {
            confirmed.put(broker.nodeId(),
                    new BrokerEndpoint(broker.nodeId(), broker.host(), broker.port(), broker.rack(), false));
        }
        List<Change> changes = new ArrayList<>();
        synchronized (writeLock) {
            confirmNodes(confirmed);
            for (MetadataResponseTopic topic : response.topics()) {
                if (topic.name() != null) {
                    applyTopic(topic, view, changes);
                }
            }
        }
        notifyListeners(changes);
    }

    /**
     * Applies the hints of one response.
     *
     * @param endpoints the response's {@code NodeEndpoints}
     * @return the verdict on each hint, in the order given
     */
    public Map<TopicPartition, HintVerdict> applyHints(Collection<LeaderHint> hints, Collection<BrokerEndpoint> endpoints) {
        Map<TopicPartition, HintVerdict> verdicts = new LinkedHashMap<>(Math.max(4, hints.size() * 2));
        List<Change> changes = new ArrayList<>(hints.size());
        synchronized (writeLock) {
            for (LeaderHint hint : hints) {
                verdicts.put(hint.partition(), judge(hint, endpoints, changes));
            }
        }
        notifyListeners(changes);
        metrics.record(verdicts.values());
        return verdicts;
    }

    /** The verdict on one hint, applying it if accepted. Called holding {@code writeLock}. */
    private HintVerdict judge(LeaderHint hint, Collection<BrokerEndpoint> endpoints, List<Change> changes) {
        if (!hint.isComplete()) {
            return HintVerdict.INCOMPLETE;
        }
        TopicPartition partition = hint.partition();
        AtomicReferenceArray<PartitionLeadership> slots = partitionsByTopic.get(partition.topic());
        int index = partition.partition();
        PartitionLeadership known = slot(slots, index);
        if (known == null || !sameIncarnation(known, hint.topicId())) {
            return HintVerdict.UNTRACKED_PARTITION;
        }
        if (hint.leaderEpoch() <= known.leaderEpoch()) {
            return HintVerdict.NOT_ADVANCING;
        }
        if (!nodes.containsKey(hint.leaderId())) {
            BrokerEndpoint endpoint = endpointOf(hint.leaderId(), endpoints);
            if (endpoint == null) {
                return HintVerdict.UNKNOWN_LEADER_ENDPOINT;
            }
            addProvisionalNode(endpoint);
        }
        PartitionLeadership hinted = known.hinted(hint.leaderId(), hint.leaderEpoch());
        slots.set(index, hinted);
        changes.add(new Change(partition, known, hinted));
        if (known.leaderId() != hinted.leaderId()) {
            metrics.recordMove(true);
        }
        return HintVerdict.ACCEPTED;
    }

    private static BrokerEndpoint endpointOf(int nodeId, Collection<BrokerEndpoint> endpoints) {
        for (BrokerEndpoint endpoint : endpoints) {
            if (endpoint.nodeId() == nodeId) {
                return endpoint;
            }
        }
        return null;
    }

    /** Called holding {@code writeLock}. */
    private void applyTopic(MetadataResponseTopic topic, long view, List<Change> changes) {
        String name = topic.name();
        TopicState known = topics.get(name);
        if (topic.errorCode() != ErrorCode.NONE.code()) {
            TopicState previous = known == null ? TopicState.UNKNOWN : known;
            topics.put(name, previous.withError(ErrorCode.forCode(topic.errorCode())));
            return;
        }
        Uuid id = topic.topicId();
        boolean recreated = known != null && !known.id.equals(Uuid.ZERO_UUID) && !id.equals(Uuid.ZERO_UUID)
                && !known.id.equals(id);
        AtomicReferenceArray<PartitionLeadership> slots = slotsFor(name, topic.partitions().size(), recreated);
        for (MetadataResponsePartition partition : topic.partitions()) {
            if (partition.partitionIndex() < 0 || partition.partitionIndex() >= slots.length()) {
                continue;
            }
            PartitionLeadership candidate = new PartitionLeadership(id, partition.leaderId(), partition.leaderEpoch(),
                    partition.replicaNodes(), partition.isrNodes(), partition.offlineReplicas(), view);
            PartitionLeadership current = slots.get(partition.partitionIndex());
            if (supersedes(candidate, current)) {
                slots.set(partition.partitionIndex(), candidate);
                if (current == null || current.leaderId() != candidate.leaderId()
                        || current.leaderEpoch() != candidate.leaderEpoch()) {
                    changes.add(new Change(new TopicPartition(name, partition.partitionIndex()), current, candidate));
                }
                if (current != null && candidate.hasLeader() && current.leaderId() != candidate.leaderId()) {
                    metrics.recordMove(false);
                }
            }
        }
        Uuid keptId = id.equals(Uuid.ZERO_UUID) && known != null ? known.id : id;
        topics.put(name, new TopicState(keptId, ErrorCode.NONE));
    }

    /**
     * The topic's partition array, sized for {@code partitionCount}: the current one if big enough,
     * else a longer copy; a recreated topic starts from an empty one. Readers holding the old array
     * still see a consistent, if older, state.
     */
    private AtomicReferenceArray<PartitionLeadership> slotsFor(String topic, int partitionCount, boolean recreated) {
        AtomicReferenceArray<PartitionLeadership> current = partitionsByTopic.get(topic);
        if (!recreated && current != null && current.length() >= partitionCount) {
            return current;
        }
        AtomicReferenceArray<PartitionLeadership> grown = new AtomicReferenceArray<>(partitionCount);
        if (!recreated && current != null) {
            for (int index = 0; index < current.length(); index++) {
                grown.set(index, current.get(index));
            }
        }
        partitionsByTopic.put(topic, grown);
        return grown;
    }

    /** A newer epoch wins; at the same epoch, the answer to the later-sent request wins. */
    private static boolean supersedes(PartitionLeadership candidate, PartitionLeadership current) {
        if (current == null || candidate.leaderEpoch() > current.leaderEpoch()) {
            return true;
        }
        return candidate.leaderEpoch() == current.leaderEpoch() && candidate.view() >= current.view();
    }

    private static boolean sameIncarnation(PartitionLeadership known, Uuid topicId) {
        return topicId.equals(Uuid.ZERO_UUID) || known.topicId().equals(Uuid.ZERO_UUID) || known.topicId().equals(topicId);
    }

    /** Called holding {@code writeLock}. */
    private void confirmNodes(Map<Integer, BrokerEndpoint> confirmed) {
        Map<Integer, BrokerEndpoint> table = new HashMap<>(confirmed);
        nodes.forEach((id, endpoint) -> {
            if (endpoint.provisional()) {
                table.putIfAbsent(id, endpoint);
            }
        });
        replaceNodes(table);
    }

    /** Called holding {@code writeLock}. */
    private void addProvisionalNode(BrokerEndpoint endpoint) {
        Map<Integer, BrokerEndpoint> table = new HashMap<>(nodes);
        table.put(endpoint.nodeId(), new BrokerEndpoint(endpoint.nodeId(), endpoint.host(), endpoint.port(),
                endpoint.rack(), true));
        replaceNodes(table);
    }

    /** Called holding {@code writeLock}, before the write sets any partition. */
    private void replaceNodes(Map<Integer, BrokerEndpoint> table) {
        if (!table.equals(nodes)) {
            nodes = Map.copyOf(table);
            nodesChanged.accept(nodes);
        }
    }

    private void notifyListeners(List<Change> changes) {
        if (changes.isEmpty()) {
            return;
        }
        for (Listener registered : listeners) {
            try {
                registered.executor().execute(() -> changes.forEach(change ->
                        registered.listener().onLeaderChange(change.partition, change.previous, change.current)));
            } catch (RejectedExecutionException closed) {
                // The subscriber's thread is gone: it no longer cares.
            }
        }
        wakeups.forEach(Runnable::run);
    }

    /** A listener and the executor it is told on. */
    private record Listener(LeaderChangeListener listener, Executor executor) {
    }

    /** A change to tell listeners of once the lock is released. */
    private record Change(TopicPartition partition, PartitionLeadership previous, PartitionLeadership current) {
    }

    /** What Metadata said of a topic as a whole. */
    private record TopicState(Uuid id, ErrorCode error) {
        static final TopicState UNKNOWN = new TopicState(Uuid.ZERO_UUID, ErrorCode.NONE);

        TopicState withError(ErrorCode newError) {
            return new TopicState(id, newError);
        }
    }
}
