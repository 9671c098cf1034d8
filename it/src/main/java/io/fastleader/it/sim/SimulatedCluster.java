package io.fastleader.it.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
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
 * loopback port; one network thread serves every listener and connection of the cluster
 * ({@link NetworkServer}), and one timer thread what happens later ({@link Scheduler}), however
 * many brokers and connections. Every request's effect and every command of this class happen
 * under one lock ({@link ClusterState}), so each request sees a command either wholly or not at
 * all, and a command returns only once no request can see the state before it.
 *
 * <p>Faults on command: brokers stopped ({@link #stopBroker}), killed ({@link #killBroker},
 * {@link #failOver}) and restarted ({@link #startBroker}); stale Metadata
 * ({@link #staleMetadata(int, Duration)}); answers delayed ({@link #delay}) or dropped
 * ({@link #dropAnswers}); errors injected ({@link #injectError}). Counted faults hit the next
 * requests in the order they are dispatched, and {@link #requestLog()} shows which, so a test can
 * assert request sequences. {@link #close()} stops every thread it started.
 */
public final class SimulatedCluster implements AutoCloseable {

    private static final AtomicInteger CLUSTERS = new AtomicInteger();

    private final String name;
    private final ClusterState state;
    private final RequestDispatcher dispatcher;
    private final NetworkServer network;
    private final Scheduler scheduler;
    private final Faults faults;
    private final RequestLog requestLog;

    private SimulatedCluster(String name, ClusterState state, RequestDispatcher dispatcher, NetworkServer network,
                             Scheduler scheduler, Faults faults, RequestLog requestLog) {
        this.name = name;
        this.scheduler = scheduler;
        this.state = state;
        this.dispatcher = dispatcher;
        this.network = network;
        this.faults = faults;
        this.requestLog = requestLog;
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
        private int requestLogCapacity = 10_000;

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

        /**
         * How many of the last requests {@link SimulatedCluster#requestLog()} keeps; 10,000 unless
         * set, 0 to keep none (a large run that does not read the log saves the time).
         */
        public Builder requestLogCapacity(int capacity) {
            if (capacity < 0) {
                throw new IllegalArgumentException("a request log of capacity " + capacity);
            }
            this.requestLogCapacity = capacity;
            return this;
        }

        /** Starts every broker's listener; returns once each accepts connections. */
        public SimulatedCluster start() {
            requireUnrelocatedProtocol();
            String name = "sim-" + CLUSTERS.incrementAndGet();
            ClusterState state = new ClusterState(clusterId, hints);
            Scheduler scheduler = new Scheduler(name);
            Faults faults = new Faults(state, scheduler);
            RequestLog requestLog = new RequestLog(requestLogCapacity);
            RequestDispatcher dispatcher = new RequestDispatcher(state, scheduler, faults, requestLog);
            NetworkServer network = new NetworkServer(name, dispatcher::dispatch);
            try {
                for (int id = 0; id < brokers; id++) {
                    state.addBroker(new ClusterState.Endpoint(id, network.host(), network.listen(id, 0)));
                }
            } catch (IOException e) {
                network.close();
                scheduler.close();
                throw new UncheckedIOException("could not open a simulated broker's listener", e);
            }
            return new SimulatedCluster(name, state, dispatcher, network, scheduler, faults, requestLog);
        }
    }

    /**
     * Fails at once, not at the first request, on a classpath whose {@code io.fastleader.protocol}
     * is the shaded {@code fastleader-clients}' copy: that copy is bound to relocated kafka-clients
     * classes, the simulation to kafka-clients' own, and the two cannot link.
     */
    private static void requireUnrelocatedProtocol() {
        try {
            ApiKey.API_VERSIONS.newRequest();
        } catch (LinkageError e) {
            throw new IllegalStateException("the simulated cluster needs fastleader-clients-unshaded and fastleader-protocol "
                + "on the classpath instead of the shaded fastleader-clients, whose copy of io.fastleader.protocol is bound "
                + "to relocated kafka-clients classes (examples/pom.xml's simulated-cluster execution shows how)", e);
        }
    }

    /**
     * This cluster's name in this JVM ({@code sim-1}, {@code sim-2}, ...): its two threads are
     * {@code <name>-network} and {@code <name>-timer}.
     */
    public String name() {
        return name;
    }

    /** {@code host:port} of every broker, running or not, comma-separated, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return state.allBrokers().stream().map(e -> e.host() + ":" + e.port()).collect(Collectors.joining(","));
    }

    /** {@code host:port} where broker {@code brokerId} listens. */
    public String brokerAddress(int brokerId) {
        ClusterState.Endpoint endpoint = state.broker(brokerId)
            .orElseThrow(() -> new IllegalArgumentException("no broker " + brokerId));
        return endpoint.host() + ":" + endpoint.port();
    }

    /** The brokers' ids, running or not, ascending. */
    public List<Integer> brokerIds() {
        return state.allBrokers().stream().map(ClusterState.Endpoint::brokerId).toList();
    }

    /**
     * Creates a topic: partition leaders assigned round robin over the running brokers (continuing
     * from the last topic created), each partition's replicas the leader and the running brokers after it,
     * leader epoch 0, a random topic id. Visible to the next request served.
     *
     * @return the topic id
     */
    public Uuid createTopic(String name, int partitions, int replicationFactor) {
        return state.createTopic(name, partitions, replicationFactor);
    }

    /**
     * Moves a partition's leadership to {@code newLeaderId}, one of its running replicas, and bumps its
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
        try {
            state.addBroker(new ClusterState.Endpoint(id, network.host(), network.listen(id, 0)));
        } catch (IOException e) {
            throw new UncheckedIOException("could not open a simulated broker's listener", e);
        }
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
     *
     * @throws IllegalArgumentException if there is no broker {@code brokerId}, or it is not running
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

    /**
     * A controlled shutdown of running broker {@code brokerId}: first each partition it leads moves
     * to its next running replica in replica order, epoch + 1 (leader -1 if no replica runs), as
     * the controller moves leadership before a broker stops; then its listener and every connection
     * to it close, answers pending or not. From then on Metadata does not list it. See
     * {@link #startBroker}.
     *
     * @return each moved partition's new leader epoch
     * @throws IllegalStateException if the broker is not running
     */
    public Map<TopicPartition, Integer> stopBroker(int brokerId) {
        Map<TopicPartition, Integer> epochs = state.stopBroker(brokerId);
        network.closeBroker(brokerId, false);
        return epochs;
    }

    /**
     * What a controlled shutdown does before the broker stops: each partition running broker
     * {@code brokerId} leads moves to its next running replica in replica order, epoch + 1 (leader
     * -1 if no replica runs). The broker runs on, refusing what it no longer leads (with KIP-951
     * hints when they are on), as a real broker does between its leadership moving and its
     * listener closing; {@link #stopBroker} then closes it.
     *
     * @return each moved partition's new leader epoch
     * @throws IllegalStateException if the broker is not running
     */
    public Map<TopicPartition, Integer> moveLeadershipOff(int brokerId) {
        return state.moveLeadershipOff(brokerId);
    }

    /**
     * Kills running broker {@code brokerId}: its listener closes and every connection to it is reset
     * at once, requests in progress unanswered. The controller has not noticed: Metadata still
     * lists the broker and names it leader of what it led, and nothing moves until
     * {@link #failOver} (or {@link #startBroker}).
     *
     * @throws IllegalStateException if the broker is not running
     */
    public void killBroker(int brokerId) {
        if (!isRunning(brokerId)) {
            throw new IllegalStateException("broker " + brokerId + " is not running");
        }
        network.closeBroker(brokerId, true);
        state.killBroker(brokerId);
    }

    /**
     * The controller notices killed broker {@code brokerId}: each partition it leads moves to its
     * next running replica in replica order, epoch + 1 (leader -1 if no replica runs), and Metadata
     * stops listing it.
     *
     * @return each moved partition's new leader epoch
     * @throws IllegalStateException if the broker was not killed, or was failed over already
     */
    public Map<TopicPartition, Integer> failOver(int brokerId) {
        return state.failOver(brokerId);
    }

    /**
     * Starts a stopped, killed or failed-over broker again on the port it had. It is listed again
     * and is a replica of what it was; it leads only what it still led (a killed broker not failed
     * over), until a move gives it more.
     *
     * @throws IllegalStateException if the broker is running
     * @throws UncheckedIOException if its port cannot be bound again
     */
    public void startBroker(int brokerId) {
        if (state.status(brokerId) == ClusterState.BrokerStatus.RUNNING) {
            throw new IllegalStateException("broker " + brokerId + " is running");
        }
        int port = state.broker(brokerId).orElseThrow().port();
        try {
            network.listen(brokerId, port);
        } catch (IOException e) {
            throw new UncheckedIOException("could not listen on port " + port + " again for broker " + brokerId, e);
        }
        state.startBroker(brokerId);
    }

    /** Whether broker {@code brokerId} runs: not stopped, killed or failed over. */
    public boolean isRunning(int brokerId) {
        return state.status(brokerId) == ClusterState.BrokerStatus.RUNNING;
    }

    /**
     * Broker {@code brokerId} answers Metadata from a snapshot of the cluster taken now, for
     * {@code howLong}, as a broker whose metadata lags; other brokers answer from the current
     * state. Replaces any stale snapshot the broker had.
     */
    public void staleMetadata(int brokerId, Duration howLong) {
        state.status(brokerId);
        faults.staleMetadata(brokerId, Objects.requireNonNull(howLong, "howLong"));
    }

    /** Broker {@code brokerId} answers Metadata from a snapshot of the cluster taken now, until {@link #freshMetadata}. */
    public void staleMetadata(int brokerId) {
        state.status(brokerId);
        faults.staleMetadata(brokerId, null);
    }

    /** Broker {@code brokerId} answers Metadata from the current state again. */
    public void freshMetadata(int brokerId) {
        faults.freshMetadata(brokerId);
    }

    /**
     * Holds back each answer of broker {@code brokerId} to {@code api} by {@code delay} after the
     * request is served, until cleared ({@link Duration#ZERO} or {@link #clearFaults}). The
     * connection serves nothing else meanwhile, so its answers stay in order; other connections go on.
     */
    public void delay(int brokerId, ApiKey api, Duration delay) {
        state.status(brokerId);
        faults.delay(brokerId, api, delay);
    }

    /**
     * The next {@code count} requests of {@code api} to broker {@code brokerId} are served (a
     * Produce appends) but never answered. Each one's connection stays open and serves nothing
     * more, as a stuck broker's, until the client gives up on it ({@code request.timeout.ms}) and
     * closes it.
     */
    public void dropAnswers(int brokerId, ApiKey api, int count) {
        state.status(brokerId);
        faults.dropAnswers(brokerId, api, count);
    }

    /**
     * The next {@code count} requests of {@code api} to broker {@code brokerId} are answered with
     * {@code error} without being served (every partition or topic of the request gets it).
     *
     * @throws IllegalArgumentException if no error answer is built for {@code api} (see
     *                                  {@code ErrorAnswers}), or {@code error} is NONE
     */
    public void injectError(int brokerId, ApiKey api, ErrorCode error, int count) {
        state.status(brokerId);
        faults.injectError(brokerId, api, error, count);
    }

    /** Ends every delay, drop, injected error and stale snapshot not yet used; answers already held back or dropped stay so. */
    public void clearFaults() {
        faults.clear();
    }

    /**
     * The last requests the brokers received (up to the builder's {@code requestLogCapacity}), in
     * the order they were dispatched, with the faults applied to each.
     */
    public List<LoggedRequest> requestLog() {
        return requestLog.entries();
    }

    /** Empties the request log. */
    public void clearRequestLog() {
        requestLog.clear();
    }

    /** Closes every listener and connection, answers pending or not, and waits for every thread this cluster started to end. */
    @Override
    public void close() {
        network.close();
        scheduler.close();
    }
}
