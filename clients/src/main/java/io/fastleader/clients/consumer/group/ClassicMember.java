package io.fastleader.clients.consumer.group;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.metadata.Coordinator;
import io.fastleader.clients.consumer.group.ClassicMembership.Exchange;
import io.fastleader.clients.consumer.group.ClassicMembership.Task;
import io.fastleader.clients.consumer.group.GroupMembership.Subscription;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.ClusterView;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.Failures;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.HeartbeatRequestData;
import io.fastleader.protocol.message.HeartbeatResponseData;
import io.fastleader.protocol.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import io.fastleader.protocol.message.JoinGroupResponseData;
import io.fastleader.protocol.message.JoinGroupResponseData.JoinGroupResponseMember;
import io.fastleader.protocol.message.LeaveGroupResponseData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.SyncGroupResponseData;

/**
 * A consumer's membership of its group under the classic protocol, as {@code KafkaConsumer}'s
 * {@code ConsumerCoordinator} runs it: the assignors ({@code partition.assignment.strategy}) run in
 * the client; the member's subscription goes to the coordinator in JoinGroup, the leader assigns
 * every member's partitions and sends them with SyncGroup. Under the eager protocol a member
 * revokes every partition before it joins; under the cooperative one only what moves, after the
 * assignment, and then joins again so the partitions can go to their new owner.
 *
 * <p>{@link ClassicMembership} decides; this class sends its requests to the coordinator
 * {@link Coordinator} finds (JoinGroup and SyncGroup over a connection of their own, as the
 * coordinator holds them), hands the answers back on the state owner, and does the consumer
 * thread's part of a rebalance in {@code poll}: the listener's callbacks, the leader's assignor,
 * the assignor's {@code onAssignment}, all on the application's thread, as {@code KafkaConsumer}'s.
 */
final class ClassicMember implements GroupMember {

    private static final Logger LOG = LoggerFactory.getLogger(ClassicMember.class);
    private static final Comparator<TopicPartition> PARTITION_ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private final String groupId;
    private final Optional<String> instanceId;
    private final Optional<String> rack;
    private final ClassicMembership membership;
    private final List<ConsumerPartitionAssignor> assignors;
    private final RebalanceProtocol rebalanceProtocol;
    private final Coordinator coordinator;
    private final ConnectionPool pool;
    private final ClusterMetadata metadata;
    private final RebalanceCallbacks callbacks;
    private final StateOwner owner;
    private final Runnable wakeConsumer;
    private final LongSupplier clockMs;
    private final GroupMetrics metrics;
    private final GroupMetrics.ClassicExchanges exchangeMetrics;
    private List<String> topics = List.of();
    /**
     * How many partitions each topic the group subscribes to had when this member, as leader,
     * assigned them; empty unless it led the last rebalance. More partitions later (a topic grown)
     * mean a new assignment, so the leader rejoins, as {@code KafkaConsumer}'s does.
     */
    private Map<String, Integer> assignedPartitionCounts = Map.of();
    /** The cluster as the leader last listed it for its assignor; null until asked for. */
    private CompletableFuture<MetadataResponseData> clusterListing;
    private Runnable cancelNext = () -> { };
    private boolean closed;

    ClassicMember(String groupId, Optional<String> instanceId, Optional<String> rack, ClassicMembership membership,
                  List<ConsumerPartitionAssignor> assignors, Coordinator coordinator, ConnectionPool pool, ClusterMetadata metadata,
                  RebalanceCallbacks callbacks, StateOwner owner, Runnable wakeConsumer, LongSupplier clockMs, GroupMetrics metrics) {
        this.groupId = Objects.requireNonNull(groupId, "groupId");
        this.instanceId = instanceId;
        this.rack = rack;
        this.membership = Objects.requireNonNull(membership, "membership");
        this.assignors = List.copyOf(assignors);
        this.rebalanceProtocol = commonProtocol(assignors);
        this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
        this.pool = Objects.requireNonNull(pool, "pool");
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.callbacks = Objects.requireNonNull(callbacks, "callbacks");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.wakeConsumer = Objects.requireNonNull(wakeConsumer, "wakeConsumer");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.exchangeMetrics = metrics.classicExchanges();
    }

    /**
     * The rebalance protocol every assignor supports, the cooperative one if they all do, as
     * {@code KafkaConsumer} chooses it.
     *
     * @throws IllegalArgumentException without assignors, or when they support no protocol in common
     */
    static RebalanceProtocol commonProtocol(List<ConsumerPartitionAssignor> assignors) {
        if (assignors.isEmpty()) {
            throw new IllegalArgumentException("The classic group protocol needs at least one partition.assignment.strategy");
        }
        Set<RebalanceProtocol> common = EnumSet.allOf(RebalanceProtocol.class);
        for (ConsumerPartitionAssignor assignor : assignors) {
            common.retainAll(assignor.supportedProtocols());
        }
        if (common.isEmpty()) {
            throw new IllegalArgumentException("Specified assignors " + assignors.stream().map(ConsumerPartitionAssignor::name).toList()
                    + " do not have commonly supported rebalance protocol");
        }
        return common.contains(RebalanceProtocol.COOPERATIVE) ? RebalanceProtocol.COOPERATIVE : RebalanceProtocol.EAGER;
    }

    // ---------------------------------------------------------------- the consumer's calls

    @Override
    public void subscribe(Subscription wanted) {
        topics = List.copyOf(wanted.topics());
        membership.subscribe();
        poke();
    }

    @Override
    public boolean hasJoined() {
        return membership.isReconciled();
    }

    @Override
    public void onPoll(long nowMs) {
        if (membership.isReconciled() && topicsGrew()) {
            membership.rejoin("the group's topics " + assignedPartitionCounts.keySet() + " have more partitions than were assigned");
            assignedPartitionCounts = Map.of();
        }
        if (membership.polled(nowMs)) {
            poke();
        }
        Optional<Task> task = membership.task();
        if (task.isEmpty()) {
            return;
        }
        if (task.get() instanceof Task.Fail fail) {
            throw fail.error();
        } else if (task.get() instanceof Task.ReleaseLost) {
            releaseLost();
        } else if (task.get() instanceof Task.PrepareJoin prepare) {
            prepareJoin(prepare.generation());
        } else if (task.get() instanceof Task.Assign assign) {
            assign(assign);
        } else if (task.get() instanceof Task.Reconcile reconcile) {
            reconcile(reconcile);
        }
    }

    @Override
    public CompletableFuture<Void> leave(LeaveOperation operation, long deadlineMs) {
        RuntimeException error = membership.state() == ClassicMembership.State.LOST
                ? callbacks.loseAll()
                : callbacks.revoke(callbacks.owned(), deadlineMs);
        // As KafkaConsumer's classic coordinator: LeaveGroup for LEAVE_GROUP, never for REMAIN_IN_GROUP, else from a dynamic member.
        boolean sendLeaveGroup = operation == LeaveOperation.LEAVE_GROUP || (operation == LeaveOperation.DEFAULT && instanceId.isEmpty());
        CompletableFuture<Void> left = membership.leave(sendLeaveGroup);
        poke();
        RebalanceCallbacks.raise(error);
        return left;
    }

    @Override
    public MemberIdentity described() {
        return membership.described();
    }

    @Override
    public MemberIdentity committer() {
        return membership.committer();
    }

    /** {@code KafkaConsumer}'s classic coordinator fetches offsets without naming the member. */
    @Override
    public MemberIdentity fetcher() {
        return MemberIdentity.OUTSIDE_THE_GROUP;
    }

    @Override
    public boolean isRebalancing() {
        return membership.isRebalancing();
    }

    @Override
    public boolean enforceRebalance(String reason) {
        membership.enforceRebalance(reason == null ? "the application asked for a rebalance" : reason);
        return true;
    }

    @Override
    public void close() {
        owner.execute(() -> {
            closed = true;
            cancelNext.run();
        });
    }

    // ---------------------------------------------------------------- the consumer thread's part of a rebalance

    private void releaseLost() {
        RuntimeException error = callbacks.loseAll();
        membership.released(clockMs.getAsLong());
        poke();
        RebalanceCallbacks.raise(error);
    }

    /**
     * Before joining: under the eager protocol every partition is revoked (committed first, with
     * auto-commit); under the cooperative one only those of topics no longer subscribed. Then each
     * assignor's subscription is built, with what the member still owns.
     */
    private void prepareJoin(int generation) {
        assignedPartitionCounts = Map.of();
        Set<TopicPartition> owned = callbacks.owned();
        Set<TopicPartition> revoked = new TreeSet<>(PARTITION_ORDER);
        for (TopicPartition partition : owned) {
            if (rebalanceProtocol == RebalanceProtocol.EAGER || !topics.contains(partition.topic())) {
                revoked.add(partition);
            }
        }
        RuntimeException error = callbacks.revoke(revoked, Long.MAX_VALUE);
        List<TopicPartition> stillOwned = new ArrayList<>(callbacks.owned());
        stillOwned.sort(PARTITION_ORDER);
        List<JoinGroupRequestProtocol> protocols = new ArrayList<>();
        for (ConsumerPartitionAssignor assignor : assignors) {
            ByteBuffer userData = onApplicationThread(() -> assignor.subscriptionUserData(new HashSet<>(topics)));
            ConsumerPartitionAssignor.Subscription subscription =
                    new ConsumerPartitionAssignor.Subscription(topics, userData, stillOwned, generation, rack);
            protocols.add(new JoinGroupRequestProtocol().setName(assignor.name())
                    .setMetadata(bytes(ConsumerProtocolCodec.serializeSubscription(subscription))));
        }
        membership.prepared(protocols);
        poke();
        RebalanceCallbacks.raise(error);
    }

    /**
     * The leader's part: the assignor the coordinator chose assigns every member's partitions, given
     * the cluster's partitions of every topic the group subscribes to (those this member does not
     * subscribe to as well).
     */
    private void assign(Task.Assign task) {
        Map<String, ConsumerPartitionAssignor.Subscription> subscriptions = new LinkedHashMap<>();
        Set<String> groupTopics = new HashSet<>();
        for (JoinGroupResponseMember member : task.members()) {
            ConsumerPartitionAssignor.Subscription subscription = ConsumerProtocolCodec.deserializeSubscription(ByteBuffer.wrap(member.metadata()));
            subscription.setGroupInstanceId(Optional.ofNullable(member.groupInstanceId()));
            subscriptions.put(member.memberId(), subscription);
            groupTopics.addAll(subscription.topics());
        }
        Optional<Cluster> cluster = clusterOf(groupTopics);
        if (cluster.isEmpty()) {
            return;
        }
        ConsumerPartitionAssignor assignor = assignor(task.protocol());
        LOG.info("Member {} assigns the partitions of group {}'s generation {} with {} to {}", membership.memberId(),
                groupId, task.generation(), assignor.name(), subscriptions.keySet());
        GroupAssignment assigned = onApplicationThread(() ->
                assignor.assign(cluster.get(), new ConsumerPartitionAssignor.GroupSubscription(subscriptions)));
        Map<String, byte[]> byMember = new LinkedHashMap<>();
        for (String memberId : subscriptions.keySet()) {
            ConsumerPartitionAssignor.Assignment assignment = assigned.groupAssignment().getOrDefault(memberId,
                    new ConsumerPartitionAssignor.Assignment(List.of()));
            byMember.put(memberId, bytes(ConsumerProtocolCodec.serializeAssignment(assignment)));
        }
        membership.assigned(task.generation(), byMember);
        Map<String, Integer> partitionCounts = new HashMap<>();
        // Measured as topicsGrew() measures, so that only a later growth counts.
        groupTopics.forEach(topic -> partitionCounts.put(topic,
                Math.max(cluster.get().partitionsForTopic(topic).size(), metadata.cache().partitionCount(topic))));
        assignedPartitionCounts = Map.copyOf(partitionCounts);
        poke();
    }

    /**
     * The cluster the assignor is given: from the client's metadata when it describes every topic
     * of the group (as {@code KafkaConsumer}'s leader uses its own), else as a listing of the
     * cluster's topics answers it; empty while that listing is under way (it wakes the consumer).
     */
    private Optional<Cluster> clusterOf(Set<String> groupTopics) {
        if (groupTopics.stream().allMatch(topic -> metadata.cache().partitionCount(topic) > 0)) {
            return Optional.of(ClusterView.forTopics(metadata.cache(), groupTopics));
        }
        if (clusterListing == null) {
            clusterListing = metadata.describeAllTopics();
            clusterListing.whenCompleteAsync((listed, error) -> wakeConsumer.run(), owner);
            return Optional.empty();
        }
        if (!clusterListing.isDone()) {
            return Optional.empty();
        }
        CompletableFuture<MetadataResponseData> listed = clusterListing;
        clusterListing = null;
        if (listed.isCompletedExceptionally()) {
            LOG.warn("Listing the cluster for group {}'s assignment failed; trying again", groupId);
            wakeConsumer.run();
            return Optional.empty();
        }
        return Optional.of(ClusterView.cluster(listed.join()));
    }

    /** Whether a topic the leader assigned has more partitions now, as the client's metadata knows it. */
    private boolean topicsGrew() {
        for (Map.Entry<String, Integer> assigned : assignedPartitionCounts.entrySet()) {
            if (metadata.cache().partitionCount(assigned.getKey()) > assigned.getValue()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Takes the assignment, in {@code KafkaConsumer}'s order: what the member owns and is no longer
     * given is revoked; the assignor hears of the assignment ({@code onAssignment}); the rest is
     * assigned and handed to {@code onPartitionsAssigned}. A cooperative member that revoked anything joins again, so the
     * partitions it gave up can be assigned to their new owner.
     */
    @SuppressWarnings("removal")
    private void reconcile(Task.Reconcile task) {
        ConsumerPartitionAssignor.Assignment assignment = task.assignment() == null || task.assignment().length == 0
                ? new ConsumerPartitionAssignor.Assignment(List.of())
                : ConsumerProtocolCodec.deserializeAssignment(ByteBuffer.wrap(task.assignment()));
        Set<TopicPartition> wanted = new HashSet<>(assignment.partitions());
        if (!wanted.stream().allMatch(partition -> topics.contains(partition.topic()))) {
            // Made for a subscription the member has changed since it joined: not taken; it rejoins, as KafkaConsumer's.
            LOG.warn("The assignment of generation {} ({}) does not match the subscription {}; rejoining", task.generation(),
                    wanted, topics);
            membership.reconciled(task.generation());
            membership.rejoin("the assignment did not match the subscription");
            poke();
            return;
        }
        Set<TopicPartition> owned = callbacks.owned();
        Set<TopicPartition> revoked = new TreeSet<>(PARTITION_ORDER);
        revoked.addAll(owned);
        revoked.removeAll(wanted);
        Set<TopicPartition> added = new TreeSet<>(PARTITION_ORDER);
        added.addAll(wanted);
        added.removeAll(owned);
        ConsumerGroupMetadata groupMetadata = new ConsumerGroupMetadata(groupId, task.generation(), membership.memberId(), instanceId);
        ConsumerPartitionAssignor assignor = assignor(task.protocol());
        LOG.info("Taking the assignment of generation {}: revoking {}, adding {}", task.generation(), revoked, added);
        // KafkaConsumer's order: what goes is revoked first, then the assignor hears of the assignment, then the rest.
        RuntimeException revokeError = callbacks.revoke(revoked, Long.MAX_VALUE);
        RuntimeException assignorError = callbacks.callback("onAssignment", ignored -> { },
                () -> assignor.onAssignment(assignment, groupMetadata));
        RuntimeException assignError = callbacks.assign(wanted, added);
        membership.reconciled(task.generation());
        metrics.rebalanced(clockMs.getAsLong() - membership.rebalanceStartMs());
        if (rebalanceProtocol == RebalanceProtocol.COOPERATIVE && !revoked.isEmpty()) {
            membership.rejoin("partitions " + revoked + " were revoked, to be assigned to their new owner");
        }
        poke();
        RebalanceCallbacks.raise(revokeError, assignorError, assignError);
    }

    private ConsumerPartitionAssignor assignor(String name) {
        for (ConsumerPartitionAssignor assignor : assignors) {
            if (assignor.name().equals(name)) {
                return assignor;
            }
        }
        throw new IllegalStateException("Coordinator selected invalid assignment protocol: " + name);
    }

    /** Runs {@code call} on the application's thread, as {@code KafkaConsumer} runs assignors, and returns its result. */
    private <T> T onApplicationThread(Supplier<T> call) {
        AtomicReference<T> result = new AtomicReference<>();
        owner.onApplicationThread(() -> result.set(call.get()));
        return result.get();
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    // ---------------------------------------------------------------- requests

    /** Looks at the membership now: sends what is due, and plans the next look. */
    private void poke() {
        owner.execute(this::run);
    }

    private void run() {
        if (closed) {
            return;
        }
        long nowMs = clockMs.getAsLong();
        membership.nextExchange(nowMs).ifPresent(this::send);
        membership.nextHeartbeat(nowMs).ifPresent(this::sendHeartbeat);
        cancelNext.run();
        long dueMs = membership.nextDueMs();
        if (dueMs != Long.MAX_VALUE) {
            cancelNext = owner.after(Retries.untilMs(dueMs, clockMs.getAsLong()), this::run);
        }
    }

    private void send(Exchange exchange) {
        long sentMs = clockMs.getAsLong();
        if (exchange instanceof Exchange.Join join) {
            toCoordinator(ApiKey.JOIN_GROUP, join.request(), (node, response, nowMs) -> {
                JoinGroupResponseData answer = (JoinGroupResponseData) response;
                exchangeMetrics.joinAnswered(answer.errorCode(), nowMs - sentMs);
                return membership.onJoinAnswer(answer, nowMs);
            }, this::rebalanceExchangeFailed);
        } else if (exchange instanceof Exchange.Sync sync) {
            toCoordinator(ApiKey.SYNC_GROUP, sync.request(), (node, response, nowMs) -> {
                SyncGroupResponseData answer = (SyncGroupResponseData) response;
                exchangeMetrics.syncAnswered(answer.errorCode(), nowMs - sentMs);
                return membership.onSyncAnswer(answer, nowMs);
            }, this::rebalanceExchangeFailed);
        } else if (exchange instanceof Exchange.Leave leave) {
            toCoordinator(ApiKey.LEAVE_GROUP, leave.request(), (node, response, nowMs) -> {
                membership.onLeaveAnswer((LeaveGroupResponseData) response);
                return ClassicErrorKind.NONE;
            }, membership::onExchangeFailed);
        }
    }

    /** A JoinGroup or SyncGroup went unanswered: a failed rebalance, as KafkaConsumer counts one. */
    private ClassicErrorKind rebalanceExchangeFailed(Throwable failure, long nowMs) {
        exchangeMetrics.unanswered();
        return membership.onExchangeFailed(failure, nowMs);
    }

    private void sendHeartbeat(HeartbeatRequestData request) {
        metrics.heartbeatSent();
        long sentMs = clockMs.getAsLong();
        toCoordinator(ApiKey.HEARTBEAT, request, (node, response, nowMs) -> {
            metrics.heartbeatAnswered(nowMs - sentMs);
            return membership.onHeartbeatAnswer((HeartbeatResponseData) response, nowMs);
        }, membership::onHeartbeatFailed);
    }

    /** Applies an answer to the membership; says whether the coordinator moved. */
    private interface Answered {
        ClassicErrorKind apply(int node, ApiMessage response, long nowMs);
    }

    /** Applies the failure to get an answer (or to find the coordinator) to the membership. */
    private interface Unanswered {
        ClassicErrorKind apply(Throwable failure, long nowMs);
    }

    /** Sends to the coordinator (found first if need be) and applies the outcome on the state owner; a lost coordinator is forgotten. */
    private void toCoordinator(ApiKey api, ApiMessage request, Answered answered, Unanswered unanswered) {
        coordinator.find().whenCompleteAsync((node, lookupError) -> {
            if (lookupError != null) {
                applied(Coordinator.UNKNOWN, unanswered.apply(Failures.cause(lookupError), clockMs.getAsLong()));
                return;
            }
            pool.send(node, api, request).whenCompleteAsync((response, error) -> applied(node, error == null
                    ? answered.apply(node, response, clockMs.getAsLong())
                    : unanswered.apply(Failures.cause(error), clockMs.getAsLong())), owner);
        }, owner);
    }

    private void applied(int node, ClassicErrorKind kind) {
        if (kind == ClassicErrorKind.COORDINATOR_MOVED && node != Coordinator.UNKNOWN) {
            coordinator.forget(node);
        }
        wakeConsumer.run();
        poke();
    }
}
