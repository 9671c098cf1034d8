package io.fastleader.clients.consumer.group;

import java.util.Objects;
import java.util.function.LongSupplier;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.errors.UnsupportedVersionException;

import io.fastleader.clients.metadata.Coordinator;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.Failures;
import io.fastleader.clients.network.VersionedRequest;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatRequestData;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatResponseData;

/**
 * Sends a member's heartbeats to its group's coordinator from the consumer's state owner, so the
 * member stays in the group while the application works between polls, as {@code KafkaConsumer}'s
 * background thread does. {@link GroupMembership} decides what to send and when; this class only
 * finds the coordinator, sends, hands the answer to the owner, and wakes the consumer, which may
 * have partitions to reconcile.
 */
final class GroupHeartbeats implements AutoCloseable {

    /** ConsumerGroupHeartbeat v1 brought {@code SubscribedTopicRegex}. */
    private static final short FIRST_REGEX_VERSION = 1;

    private final ConnectionPool pool;
    private final Coordinator coordinator;
    private final GroupMembership membership;
    private final LongSupplier clockMs;
    private final Runnable wakeConsumer;
    private final GroupMetrics metrics;
    private final StateOwner owner;
    private Runnable cancelNext = () -> { };
    private boolean closed;

    /** @param wakeConsumer makes a consumer thread waiting in {@code poll} look at the membership again */
    GroupHeartbeats(ConnectionPool pool, Coordinator coordinator, GroupMembership membership, LongSupplier clockMs,
                    Runnable wakeConsumer, GroupMetrics metrics, StateOwner owner) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
        this.membership = Objects.requireNonNull(membership, "membership");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
        this.wakeConsumer = Objects.requireNonNull(wakeConsumer, "wakeConsumer");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.owner = Objects.requireNonNull(owner, "owner");
    }

    /** Looks at the membership now: sends what is due, and plans the next look. */
    void poke() {
        owner.execute(this::run);
    }

    private void run() {
        if (closed) {
            return;
        }
        long nowMs = clockMs.getAsLong();
        membership.nextHeartbeat(nowMs).ifPresent(this::send);
        cancelNext.run();
        long dueMs = membership.nextDueMs();
        if (dueMs != Long.MAX_VALUE) {
            cancelNext = owner.after(Retries.untilMs(dueMs, clockMs.getAsLong()), this::run);
        }
    }

    private void send(ConsumerGroupHeartbeatRequestData request) {
        coordinator.find().whenCompleteAsync((node, lookupError) -> {
            if (lookupError != null) {
                answered(Coordinator.UNKNOWN, null, lookupError);
                return;
            }
            metrics.heartbeatSent();
            long sentMs = clockMs.getAsLong();
            pool.send(node, ApiKey.CONSUMER_GROUP_HEARTBEAT, atVersion(request)).whenCompleteAsync((response, error) -> {
                if (error == null) {
                    metrics.heartbeatAnswered(clockMs.getAsLong() - sentMs);
                }
                answered(node, response, error);
            }, owner);
        }, owner);
    }

    /** The request as sent at {@code version}: a regex subscription needs v1. */
    private static VersionedRequest atVersion(ConsumerGroupHeartbeatRequestData request) {
        return version -> {
            if (request.subscribedTopicRegex() != null && version < FIRST_REGEX_VERSION) {
                throw new UnsupportedVersionException("The group coordinator speaks ConsumerGroupHeartbeat up to v" + version
                        + ", too old for a SubscriptionPattern (v" + FIRST_REGEX_VERSION + ", Kafka 4.0)");
            }
            return request;
        };
    }

    private void answered(int node, ApiMessage response, Throwable error) {
        long nowMs = clockMs.getAsLong();
        HeartbeatErrorKind kind = error == null
                ? membership.onAnswer((ConsumerGroupHeartbeatResponseData) response, nowMs)
                : membership.onNoAnswer(Failures.cause(error), nowMs);
        if (kind == HeartbeatErrorKind.COORDINATOR_MOVED && node != Coordinator.UNKNOWN) {
            coordinator.forget(node);
        }
        wakeConsumer.run();
        poke();
    }

    /** Stops sending; the caller has left the group first if it meant to. */
    @Override
    public void close() {
        owner.execute(() -> {
            closed = true;
            cancelNext.run();
        });
    }
}
