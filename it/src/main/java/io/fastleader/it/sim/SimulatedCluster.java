package io.fastleader.it.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.fastleader.protocol.ApiKey;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * A simulated Kafka cluster in this JVM: brokers that real, unmodified clients reach over
 * loopback sockets, partitions whose logs live in memory, and leaders that move when the test
 * says so. No broker process, no replication, no disk: a leader move is one call, in
 * microseconds.
 *
 * <pre>{@code
 * try (SimulatedCluster cluster = SimulatedCluster.builder().brokers(3).start()) {
 *     cluster.createTopic("orders", 6, 3);
 *     // ... clients with bootstrap.servers = cluster.bootstrapServers() ...
 *     cluster.moveLeaders(cluster.nextReplicas("orders"));   // every partition gets a new leader
 *     cluster.records(new TopicPartition("orders", 0));      // what partition 0's log holds
 * }
 * }</pre>
 *
 * <p>Served: ApiVersions, Metadata, Produce, InitProducerId, Fetch, ListOffsets,
 * OffsetForLeaderEpoch; for kafka-clients' {@code Admin} CreateTopics, DeleteTopics,
 * DescribeConfigs, AlterPartitionReassignments, ListPartitionReassignments and ElectLeaders; and
 * FindCoordinator, OffsetCommit, OffsetFetch, the classic group protocol (JoinGroup, SyncGroup,
 * Heartbeat, LeaveGroup) and KIP-848's ConsumerGroupHeartbeat, coordinated by
 * {@code GroupCoordinator} under a lock of its own (see each handler's Javadoc and
 * {@code it/README.md} for what is simulated and what is not). Each broker has a listener on a
 * loopback port and a thread per connection ({@link BrokerServer}); every request's effect and
 * every command of this class happen under one lock ({@link ClusterState}), so each request sees
 * a command either wholly or not at all, and a command returns only once no request can see the
 * state before it. {@link #close()} stops every thread it started.
 */
public final class SimulatedCluster implements AutoCloseable {

    private static final AtomicInteger CLUSTERS = new AtomicInteger();

    private final String name;
    private final ClusterState state;
    private final RequestDispatcher dispatcher;
    /** Every broker's server; {@link #addBroker()} adds to it while clients run. */
    private final List<BrokerServer> servers;
    private final Scheduler scheduler;

    private SimulatedCluster(String name, ClusterState state, RequestDispatcher dispatcher, List<BrokerServer> servers,
                             Scheduler scheduler) {
        this.name = name;
        this.scheduler = scheduler;
        this.state = state;
        this.dispatcher = dispatcher;
        this.servers = servers;
    }

    /** A cluster of {@code brokers} brokers (ids 0 to brokers - 1), hints on. */
    public static SimulatedCluster start(int brokers) {
        return builder().brokers(brokers).start();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Options of a simulated cluster. */
    public static final class Builder {
        private int brokers = 1;
        private boolean hints = true;
        private String clusterId = "simulated-cluster";

        private Builder() {
        }

        /** Number of brokers, with ids 0 to {@code count - 1}; 1 unless set. */
        public Builder brokers(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("a cluster needs a broker, not " + count);
            }
            this.brokers = count;
            return this;
        }

        /** Whether refusals carry KIP-951 leader hints at start; on unless set. See {@link SimulatedCluster#hints(boolean)}. */
        public Builder hints(boolean on) {
            this.hints = on;
            return this;
        }

        /** The cluster id Metadata answers with. */
        public Builder clusterId(String id) {
            this.clusterId = id;
            return this;
        }

        /** Starts every broker's listener; returns once each accepts connections. */
        public SimulatedCluster start() {
            String name = "sim-" + CLUSTERS.incrementAndGet();
            ClusterState state = new ClusterState(clusterId, hints);
            Scheduler scheduler = new Scheduler(name);
            RequestDispatcher dispatcher = new RequestDispatcher(state, scheduler);
            List<BrokerServer> servers = new ArrayList<>();
            try {
                for (int id = 0; id < brokers; id++) {
                    BrokerServer server = new BrokerServer(name, id, dispatcher);
                    servers.add(server);
                    state.addBroker(new ClusterState.Endpoint(id, server.host(), server.port()));
                }
            } catch (IOException e) {
                servers.forEach(BrokerServer::close);
                scheduler.close();
                throw new UncheckedIOException("could not open a simulated broker's listener", e);
            }
            servers.forEach(BrokerServer::start);
            return new SimulatedCluster(name, state, dispatcher, new CopyOnWriteArrayList<>(servers), scheduler);
        }
    }

    /**
     * This cluster's name in this JVM ({@code sim-1}, {@code sim-2}, ...): every thread it starts
     * is named {@code <name>-broker-<id>-...}.
     */
    public String name() {
        return name;
    }

    /** {@code host:port} of every broker, comma-separated, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return state.brokers().stream().map(e -> e.host() + ":" + e.port()).collect(Collectors.joining(","));
    }

    /** {@code host:port} where broker {@code brokerId} listens. */
    public String brokerAddress(int brokerId) {
        ClusterState.Endpoint endpoint = state.broker(brokerId)
            .orElseThrow(() -> new IllegalArgumentException("no broker " + brokerId));
        return endpoint.host() + ":" + endpoint.port();
    }

    /** The brokers' ids, ascending. */
    public List<Integer> brokerIds() {
        return state.brokers().stream().map(ClusterState.Endpoint::brokerId).toList();
    }

    /**
     * Creates a topic: partition leaders assigned round robin over the brokers (continuing from
     * the last topic created), each partition's replicas the leader and the brokers after it,
     * leader epoch 0, a random topic id. Visible to the next request served.
     *
     * @return the topic id
     */
    public Uuid createTopic(String name, int partitions, int replicationFactor) {
        return state.createTopic(name, partitions, replicationFactor);
    }

    /**
     * Moves a partition's leadership to {@code newLeaderId}, one of its replicas, and bumps its
     * leader epoch. From the next request served, the old leader refuses Produce for it.
     *
     * @return the new leader epoch
     */
    public int moveLeader(TopicPartition partition, int newLeaderId) {
        return state.moveLeaders(Map.of(partition, newLeaderId)).get(partition);
    }

    /**
     * Moves many partitions' leaders at once: no request is served between two of these moves.
     * Every target is checked first; an invalid one moves nothing.
     *
     * @return each partition's new leader epoch
     */
    public Map<TopicPartition, Integer> moveLeaders(Map<TopicPartition, Integer> newLeaders) {
        return state.moveLeaders(newLeaders);
    }

    /** Each partition of {@code topic} mapped to the replica after its current leader: a rotation, for {@link #moveLeaders}. */
    public Map<TopicPartition, Integer> nextReplicas(String topic) {
        return state.nextReplicas(topic);
    }

    /**
     * Whether NOT_LEADER_OR_FOLLOWER refusals of Produce v10+, and NOT_LEADER_OR_FOLLOWER and
     * FENCED_LEADER_EPOCH refusals of Fetch v16+, carry KIP-951's {@code CurrentLeader} and
     * {@code NodeEndpoints}; off, a client must refresh Metadata to find the new leader, as with a
     * pre-KIP-951 broker (the versions advertised stay the same).
     */
    public void hints(boolean on) {
        state.hints(on);
    }

    public boolean hints() {
        return state.hints();
    }

    /** The current leader of {@code partition}. */
    public int leader(TopicPartition partition) {
        return state.partitionView(partition).leader();
    }

    /** The current leader epoch of {@code partition}. */
    public int leaderEpoch(TopicPartition partition) {
        return state.partitionView(partition).leaderEpoch();
    }

    /** Every record in {@code partition}'s log, in offset order. */
    public List<LoggedRecord> records(TopicPartition partition) {
        return state.records(partition);
    }

    /** The high watermark of {@code partition}: its log end offset, as every replica is in sync. */
    public long highWatermark(TopicPartition partition) {
        return state.highWatermark(partition);
    }

    /**
     * Adds a broker, with the id after the highest so far and a listener of its own, and returns
     * its id once it accepts connections. It leads and replicates nothing until a reassignment, a
     * move or a topic created later puts a partition there; every Metadata answer lists it from
     * now on.
     */
    public synchronized int addBroker() {
        int id = state.nextBrokerId();
        BrokerServer server;
        try {
            server = new BrokerServer(name, id, dispatcher);
        } catch (IOException e) {
            throw new UncheckedIOException("could not open a simulated broker's listener", e);
        }
        servers.add(server);
        state.addBroker(new ClusterState.Endpoint(id, server.host(), server.port()));
        server.start();
        return id;
    }

    /**
     * The broker coordinating {@code groupId}: the one its id hashes to (see
     * {@code GroupCoordinator}), or where {@link #moveCoordinator} put it.
     */
    public int coordinator(String groupId) {
        return dispatcher.groups().coordinatorOf(groupId);
    }

    /**
     * Moves {@code groupId}'s coordinator to {@code brokerId}, as a move of its
     * {@code __consumer_offsets} partition's leader would: from the next request served, the old
     * coordinator answers the group's requests NOT_COORDINATOR, and requests waiting there (a
     * JoinGroup, a SyncGroup) are answered so at once. Members and committed offsets stay.
     */
    public void moveCoordinator(String groupId, int brokerId) {
        dispatcher.groups().moveCoordinator(groupId, brokerId);
    }

    /** The offset {@code groupId} committed for {@code partition}, with its leader epoch and metadata, if any. */
    public Optional<OffsetAndMetadata> committed(String groupId, TopicPartition partition) {
        return dispatcher.groups().committed(groupId, partition);
    }

    /**
     * The members of group {@code groupId}: a classic group's in the order they joined, a
     * KIP-848 group's in member-id order; empty if there is no such group.
     */
    public List<String> groupMembers(String groupId) {
        return dispatcher.groups().members(groupId);
    }

    /**
     * Waits until group {@code groupId} has {@code count} members: a classic member counts once
     * its JoinGroup with its member id is served, while that JoinGroup may still be waiting; a
     * KIP-848 member from its first heartbeat until it leaves or is removed.
     *
     * @return the members, as {@link #groupMembers} lists them
     * @throws IllegalStateException if it has another number of members after {@code timeout}
     */
    public List<String> awaitGroupMembers(String groupId, int count, Duration timeout) throws InterruptedException {
        return dispatcher.groups().awaitMembers(groupId, count, timeout);
    }

    /** Requests of {@code api} served so far, by all brokers together. */
    public long requestsServed(ApiKey api) {
        return dispatcher.served(api);
    }

    /** Fetches waiting for records or for their {@code MaxWaitMs} now, for tests of the simulation. */
    int fetchesWaiting() {
        return dispatcher.fetchesWaiting();
    }

    /** Closes every listener and connection and waits for every thread this cluster started to end. */
    @Override
    public void close() {
        servers.forEach(BrokerServer::close);
        scheduler.close();
    }
}
