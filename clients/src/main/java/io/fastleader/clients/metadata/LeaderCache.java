package io.fastleader.clients.metadata;

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

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

import io.fastleader.clients.metadata.PartitionLeadership.Source;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseBroker;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponsePartition;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseTopic;

/**
 * Who leads each partition, and where each broker is: the client's single source of leader state.
 *
 * <p>Reads ({@link #leadership}, {@link #node}) take no lock: partitions live in a concurrent map
 * of immutable values, and the node table is an immutable map behind a volatile reference, so a
 * send path can look up a leader per record. Writes keep one rule: a partition's leader epoch never
 * goes backwards.
 * <ul>
 *   <li>A Metadata response replaces a partition's state only if its epoch is newer, or equal and
 *       from a request sent no earlier than the one that set the current replicas and ISR.</li>
 *   <li>A {@link LeaderHint} is applied only if complete and strictly newer, for a tracked
 *       partition of the same topic incarnation, led by a broker whose endpoint is known. It costs
 *       a map update per hinted partition, independent of the cluster's size.</li>
 *   <li>Endpoints from responses never replace a broker known from Metadata; an unknown broker's
 *       endpoint is kept provisionally until a Metadata response lists that broker.</li>
 *   <li>A topic seen under a new topic id was deleted and recreated: its old epochs are dropped.</li>
 * </ul>
 * Metadata responses must be applied by one thread at a time; hints may come from any thread.
 */
public final class LeaderCache {

    private final ConcurrentMap<TopicPartition, PartitionLeadership> partitions;
    private final ConcurrentMap<String, TopicState> topics = new ConcurrentHashMap<>();
    private final ConcurrentMap<Uuid, String> topicNames = new ConcurrentHashMap<>();
    private final Object nodesWriteLock = new Object();
    private volatile Map<Integer, BrokerEndpoint> nodes = Map.of();
    private final List<LeaderChangeListener> listeners = new CopyOnWriteArrayList<>();
    private final MetadataMetrics metrics;

    /** An empty cache that counts hint verdicts in {@code metrics}. */
    public LeaderCache(MetadataMetrics metrics) {
        this(new ConcurrentHashMap<>(), metrics);
    }

    /** A cache over a given partition map, so tests can watch which partitions a write touches. */
    LeaderCache(ConcurrentMap<TopicPartition, PartitionLeadership> partitions, MetadataMetrics metrics) {
        this.partitions = Objects.requireNonNull(partitions, "partitions");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /** The partition's leadership as last learned, or null if the partition is not tracked. */
    public PartitionLeadership leadership(TopicPartition partition) {
        return partitions.get(partition);
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
        TopicState state = topics.get(topic);
        return state == null ? 0 : state.partitionCount;
    }

    /** The topic's id, if a Metadata response (v10+) has given it. */
    public Optional<Uuid> topicId(String topic) {
        TopicState state = topics.get(topic);
        return state == null || state.id.equals(Uuid.ZERO_UUID) ? Optional.empty() : Optional.of(state.id);
    }

    /** The name of the topic with id {@code topicId}, or null if unknown. */
    public String topicName(Uuid topicId) {
        return topicNames.get(topicId);
    }

    /** The error the last Metadata response gave for the topic, {@link Errors#NONE} if none. */
    public Errors topicError(String topic) {
        TopicState state = topics.get(topic);
        return state == null ? Errors.NONE : state.error;
    }

    /** Registers a listener for every later leader or epoch change. */
    public void addListener(LeaderChangeListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** Unregisters a listener added with {@link #addListener}. */
    public void removeListener(LeaderChangeListener listener) {
        listeners.remove(listener);
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
        confirmNodes(confirmed);
        for (MetadataResponseTopic topic : response.topics()) {
            if (topic.name() != null) {
                applyTopic(topic, view);
            }
        }
    }

    /**
     * Applies the hints of one response.
     *
     * @param endpoints the response's {@code NodeEndpoints}
     * @return the verdict on each hint, in the order given
     */
    public Map<TopicPartition, HintVerdict> applyHints(Collection<LeaderHint> hints, Collection<BrokerEndpoint> endpoints) {
        Map<Integer, BrokerEndpoint> endpointsById = new HashMap<>();
        for (BrokerEndpoint endpoint : endpoints) {
            endpointsById.put(endpoint.nodeId(), endpoint);
        }
        Map<TopicPartition, HintVerdict> verdicts = new LinkedHashMap<>();
        for (LeaderHint hint : hints) {
            verdicts.put(hint.partition(), applyHint(hint, endpointsById));
        }
        return verdicts;
    }

    /**
     * Applies one hint.
     *
     * @param endpoints the response's {@code NodeEndpoints} by node id
     */
    public HintVerdict applyHint(LeaderHint hint, Map<Integer, BrokerEndpoint> endpoints) {
        HintVerdict verdict = judge(hint, endpoints);
        metrics.record(verdict);
        return verdict;
    }

    private HintVerdict judge(LeaderHint hint, Map<Integer, BrokerEndpoint> endpoints) {
        if (!hint.isComplete()) {
            return HintVerdict.INCOMPLETE;
        }
        PartitionLeadership known = partitions.get(hint.partition());
        if (known == null || !sameIncarnation(known, hint.topicId())) {
            return HintVerdict.UNTRACKED_PARTITION;
        }
        if (hint.leaderEpoch() <= known.leaderEpoch()) {
            return HintVerdict.NOT_ADVANCING;
        }
        if (!nodes.containsKey(hint.leaderId())) {
            BrokerEndpoint endpoint = endpoints.get(hint.leaderId());
            if (endpoint == null) {
                return HintVerdict.UNKNOWN_LEADER_ENDPOINT;
            }
            addProvisionalNode(endpoint);
        }
        PartitionLeadership[] before = new PartitionLeadership[1];
        PartitionLeadership after = partitions.computeIfPresent(hint.partition(), (partition, current) -> {
            before[0] = current;
            boolean advances = sameIncarnation(current, hint.topicId()) && hint.leaderEpoch() > current.leaderEpoch();
            return advances ? current.hinted(hint.leaderId(), hint.leaderEpoch()) : current;
        });
        if (after == null || after == before[0]) {
            // A concurrent write got there first; the hint no longer advances anything.
            return HintVerdict.NOT_ADVANCING;
        }
        notifyListeners(hint.partition(), before[0], after);
        return HintVerdict.ACCEPTED;
    }

    private void applyTopic(MetadataResponseTopic topic, long view) {
        String name = topic.name();
        TopicState known = topics.get(name);
        if (topic.errorCode() != Errors.NONE.code()) {
            TopicState previous = known == null ? TopicState.UNKNOWN : known;
            topics.put(name, previous.withError(Errors.forCode(topic.errorCode())));
            return;
        }
        Uuid id = topic.topicId();
        boolean recreated = known != null && !known.id.equals(Uuid.ZERO_UUID) && !id.equals(Uuid.ZERO_UUID)
                && !known.id.equals(id);
        for (MetadataResponsePartition partition : topic.partitions()) {
            PartitionLeadership candidate = new PartitionLeadership(id, partition.leaderId(), partition.leaderEpoch(),
                    partition.replicaNodes(), partition.isrNodes(), partition.offlineReplicas(), Source.METADATA, view);
            merge(new TopicPartition(name, partition.partitionIndex()), candidate, recreated);
        }
        int partitionCount = topic.partitions().size();
        if (recreated) {
            for (int index = partitionCount; index < known.partitionCount; index++) {
                partitions.remove(new TopicPartition(name, index));
            }
            topicNames.remove(known.id);
        } else if (known != null) {
            partitionCount = Math.max(partitionCount, known.partitionCount);
        }
        Uuid keptId = id.equals(Uuid.ZERO_UUID) && known != null ? known.id : id;
        topics.put(name, new TopicState(keptId, partitionCount, Errors.NONE));
        if (!keptId.equals(Uuid.ZERO_UUID)) {
            topicNames.put(keptId, name);
        }
    }

    private void merge(TopicPartition partition, PartitionLeadership candidate, boolean replaceOlderIncarnation) {
        PartitionLeadership[] before = new PartitionLeadership[1];
        PartitionLeadership after = partitions.compute(partition, (key, current) -> {
            before[0] = current;
            return replaceOlderIncarnation || supersedes(candidate, current) ? candidate : current;
        });
        PartitionLeadership previous = before[0];
        if (previous == null || previous.leaderId() != after.leaderId() || previous.leaderEpoch() != after.leaderEpoch()) {
            notifyListeners(partition, previous, after);
        }
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

    private void confirmNodes(Map<Integer, BrokerEndpoint> confirmed) {
        synchronized (nodesWriteLock) {
            Map<Integer, BrokerEndpoint> table = new HashMap<>(confirmed);
            nodes.forEach((id, endpoint) -> {
                if (endpoint.provisional()) {
                    table.putIfAbsent(id, endpoint);
                }
            });
            nodes = Map.copyOf(table);
        }
    }

    private void addProvisionalNode(BrokerEndpoint endpoint) {
        synchronized (nodesWriteLock) {
            if (!nodes.containsKey(endpoint.nodeId())) {
                Map<Integer, BrokerEndpoint> table = new HashMap<>(nodes);
                table.put(endpoint.nodeId(), new BrokerEndpoint(endpoint.nodeId(), endpoint.host(), endpoint.port(),
                        endpoint.rack(), true));
                nodes = Map.copyOf(table);
            }
        }
    }

    private void notifyListeners(TopicPartition partition, PartitionLeadership previous, PartitionLeadership current) {
        for (LeaderChangeListener listener : listeners) {
            listener.onLeaderChange(partition, previous, current);
        }
    }

    /** What Metadata said of a topic as a whole. */
    private record TopicState(Uuid id, int partitionCount, Errors error) {
        static final TopicState UNKNOWN = new TopicState(Uuid.ZERO_UUID, 0, Errors.NONE);

        TopicState withError(Errors newError) {
            return new TopicState(id, partitionCount, newError);
        }
    }
}
