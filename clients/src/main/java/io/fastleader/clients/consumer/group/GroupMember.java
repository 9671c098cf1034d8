package io.fastleader.clients.consumer.group;

import java.util.concurrent.CompletableFuture;

import io.fastleader.clients.consumer.group.GroupMembership.Subscription;

/**
 * A consumer's membership of its group under one protocol, as {@link ConsumerGroup} drives it on
 * the consumer's state owner: {@link GroupReconciler} under the consumer group protocol (KIP-848),
 * {@link ClassicMember} under the classic one. What the application subscribed to lives in
 * {@link GroupSubscription}, which hands every change here.
 */
interface GroupMember extends AutoCloseable {

    /** What the member subscribes to changed: it joins, or tells the group. */
    void subscribe(Subscription wanted);

    /** Whether the member is in the group with the assignment the group gave it last made the consumer's own. */
    boolean hasJoined();

    /**
     * A turn of {@code poll}: raises a fatal error, releases lost partitions, does the rebalance's
     * work that is the consumer thread's (listener callbacks, a leader's assignor).
     */
    void onPoll(long nowMs);

    /**
     * Leaves the group, revoking (or losing) the partitions first.
     *
     * @param operation  whether the member leaves or keeps its place, as {@code CloseOptions} says
     * @param deadlineMs the caller's deadline, shared by the commit before revoking
     * @return completes once the coordinator answered the leave, or it failed; at once when nothing is sent
     */
    CompletableFuture<Void> leave(LeaveOperation operation, long deadlineMs);

    /** The member as {@code groupMetadata()} describes it. */
    MemberIdentity described();

    /**
     * Who the group's offset commits are made as now.
     *
     * @throws org.apache.kafka.common.KafkaException when the member may not commit now, as {@code KafkaConsumer} refuses
     */
    MemberIdentity committer();

    /** Who the group's offset fetches are made as now. */
    MemberIdentity fetcher();

    /**
     * Whether the member is in the middle of a rebalance in which its commits are refused (the
     * classic protocol's join): auto-commit waits for its end, as {@code KafkaConsumer}'s does.
     */
    boolean isRebalancing();

    /** Asks the group to rebalance, as {@code enforceRebalance} does; false when the protocol leaves that to the coordinator. */
    boolean enforceRebalance(String reason);

    /** Stops the member's requests; the caller has left the group first if it meant to. */
    @Override
    void close();
}
