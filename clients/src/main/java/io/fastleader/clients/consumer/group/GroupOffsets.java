package io.fastleader.clients.consumer.group;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.metadata.Coordinator;
import io.fastleader.clients.consumer.group.GroupRequests.FetchedOffset;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.Failures;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.OffsetCommitResponseData;
import io.fastleader.protocol.message.OffsetFetchResponseData;

/**
 * The committed offsets of a consumer's {@code group.id}, committed and read at the group's
 * coordinator: as the member, at its current epoch, while the consumer is in the group
 * ({@link MemberIdentity}); otherwise as {@code KafkaConsumer} does for partitions it assigned
 * itself (generation -1, no member id), which the coordinator accepts only while the group has no
 * members.
 *
 * <p>The coordinator is the one {@link Coordinator} finds, shared with the heartbeats. A broker
 * that says it is not (or no longer) the coordinator, or whose connection breaks, is forgotten; the
 * first time a call loses a known coordinator it finds it again and asks at once, and every other
 * retry (a failed lookup, a retriable answer such as the coordinator still loading the group) waits
 * an exponential backoff. A call fails at once with a non-retriable error, and with
 * {@link TimeoutException} once its deadline passes.
 *
 * <p>The backoff is the consumer's one retry policy, the {@link EpochBackoff} its fetches and offset
 * lookups follow, applied as it is to something no partition leader refused. The coordinator leads
 * the group's partition of {@code __consumer_offsets}, but the client has no epoch of that
 * leadership to follow: FindCoordinator names a node and no epoch, and which partition the group
 * maps to depends on the brokers' {@code offsets.topic.num.partitions}; the client does not track
 * that topic in its leader cache, so no epoch advance could end a wait early. What stands in for
 * "a newer leader" here is losing the coordinator: the first time, it is found again and asked at
 * once ({@code Call.retryLater}). Every other wait is {@link EpochBackoff#untilMs}'s, as for the
 * producer's producer-id requests: by the call's failures in a row, exponential and jittered, from
 * {@code retry.backoff.ms} to {@code retry.backoff.max.ms}.
 *
 * <p>Runs on the consumer's state owner: answers and retries are tasks there, and the returned
 * futures complete there. Nothing blocks.
 */
public final class GroupOffsets {

    private static final Logger LOG = LoggerFactory.getLogger(GroupOffsets.class);
    private static final int UNKNOWN = Coordinator.UNKNOWN;

    private final ConnectionPool pool;
    private final Coordinator coordinator;
    private final String groupId;
    private final Supplier<MemberIdentity> committer;
    private final Supplier<MemberIdentity> fetcher;
    private final EpochBackoff retryBackoff;
    private final LongSupplier clockMs;
    private final StateOwner owner;

    /**
     * Offsets committed and read from outside the group.
     *
     * @param groupId      {@code group.id}
     * @param retryBackoff between attempts of a call: the consumer's retry policy, shared with its {@code OffsetLookup}
     * @param clockMs      monotonic milliseconds, the clock deadlines are given in
     * @param owner        runs every answer and retry, one at a time
     */
    public GroupOffsets(ConnectionPool pool, ClusterMetadata metadata, String groupId, EpochBackoff retryBackoff, LongSupplier clockMs,
                        StateOwner owner) {
        this(pool, new Coordinator(pool, metadata, Coordinator.KeyType.GROUP, groupId, owner), () -> MemberIdentity.OUTSIDE_THE_GROUP,
                () -> MemberIdentity.OUTSIDE_THE_GROUP, retryBackoff, clockMs, owner);
    }

    /**
     * Offsets committed as {@code committer} and read as {@code fetcher} say at the time of each
     * attempt: a group member's commits carry its current epoch or generation. A committer that
     * throws refuses the commit, which fails with what it threw.
     */
    GroupOffsets(ConnectionPool pool, Coordinator coordinator, Supplier<MemberIdentity> committer, Supplier<MemberIdentity> fetcher,
                 EpochBackoff retryBackoff, LongSupplier clockMs, StateOwner owner) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
        this.groupId = coordinator.key();
        this.committer = Objects.requireNonNull(committer, "committer");
        this.fetcher = Objects.requireNonNull(fetcher, "fetcher");
        this.retryBackoff = Objects.requireNonNull(retryBackoff, "retryBackoff");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
    }

    /**
     * Commits the offsets, each with its metadata string and the leader epoch of the record
     * before it (-1 when the offset has none). Retriable failures are retried as a whole until
     * the deadline, as {@code KafkaConsumer.commitSync} does.
     *
     * @param deadlineMs when to give up, on this object's clock
     * @return completes once the coordinator stored every offset; fails with {@link TimeoutException}
     *         at the deadline (the offsets may or may not have been stored), or with the first
     *         non-retriable error of any partition: {@link GroupAuthorizationException} naming the
     *         group, {@link org.apache.kafka.common.errors.TopicAuthorizationException} naming the
     *         topics, {@link org.apache.kafka.common.errors.OffsetMetadataTooLarge},
     *         {@link org.apache.kafka.clients.consumer.CommitFailedException} if the group has
     *         active members, ...
     */
    public CompletableFuture<Void> commit(Map<TopicPartition, OffsetAndMetadata> offsets, long deadlineMs) {
        if (offsets.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        Map<TopicPartition, OffsetAndMetadata> committing = Map.copyOf(offsets);
        Call<Void> call = new Call<>("committing the offsets of " + committing.keySet(), node -> {
            MemberIdentity member = committer.get();
            return new Sent<>(pool.send(node, ApiKey.OFFSET_COMMIT, GroupRequests.commit(groupId, member, committing)),
                    response -> committedAnswer((OffsetCommitResponseData) response, member.isMember()));
        });
        call.start(deadlineMs);
        return call.result;
    }

    /**
     * The group's committed offsets, each with its metadata string and leader epoch.
     *
     * @param stable     whether partitions with a pending transactional commit are waited for
     *                   (retried until the deadline) instead of answered with the offset before
     *                   it: {@code KafkaConsumer} asks so under {@code isolation.level=read_committed}
     * @param deadlineMs    when to give up, on this object's clock
     * @return the committed offsets; partitions with none are absent ({@code KafkaConsumer.committed}
     *         gives null for them). Fails with {@link TimeoutException} at the deadline, or with a
     *         non-retriable error ({@link GroupAuthorizationException},
     *         {@link org.apache.kafka.common.errors.TopicAuthorizationException}, ...).
     */
    public CompletableFuture<Map<TopicPartition, OffsetAndMetadata>> committed(Set<TopicPartition> partitions,
                                                                               StableOffsets stable, long deadlineMs) {
        if (partitions.isEmpty()) {
            return CompletableFuture.completedFuture(Map.of());
        }
        List<TopicPartition> asked = List.copyOf(partitions);
        Call<Map<TopicPartition, OffsetAndMetadata>> call = new Call<>("fetching the committed offsets of " + asked,
                node -> {
                    MemberIdentity asker = fetcher.get();
                    return new Sent<>(pool.send(node, ApiKey.OFFSET_FETCH, GroupRequests.fetch(groupId, asker, asked, stable)),
                            response -> fetchedAnswer((OffsetFetchResponseData) response, asker.isMember()));
                });
        call.start(deadlineMs);
        return call.result;
    }

    private Outcome<Void> committedAnswer(OffsetCommitResponseData response, boolean byMember) {
        ErrorTally tally = new ErrorTally(true);
        GroupRequests.commitErrors(response)
                .forEach((partition, error) -> tally.add(partition, error, GroupErrorKind.ofCommit(error, byMember)));
        return tally.outcome(null);
    }

    private Outcome<Map<TopicPartition, OffsetAndMetadata>> fetchedAnswer(OffsetFetchResponseData response, boolean byMember) {
        GroupRequests.Fetched fetched = GroupRequests.fetched(response, groupId);
        ErrorTally tally = new ErrorTally(false);
        tally.add(null, fetched.groupError(), GroupErrorKind.ofFetch(fetched.groupError(), byMember));
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (FetchedOffset answer : fetched.partitions()) {
            tally.add(answer.partition(), answer.error(), GroupErrorKind.ofFetch(answer.error(), byMember));
            if (answer.error() == ErrorCode.NONE && answer.offset() >= 0) {
                Optional<Integer> epoch = answer.leaderEpoch() >= 0 ? Optional.of(answer.leaderEpoch()) : Optional.empty();
                offsets.put(answer.partition(), new OffsetAndMetadata(answer.offset(), epoch, answer.metadata()));
            }
        }
        return tally.outcome(offsets);
    }

    /**
     * How an answer ends an attempt.
     *
     * @param value the call's result when {@code kind} is {@link GroupErrorKind#NONE}
     * @param error the error otherwise
     */
    private record Outcome<T>(GroupErrorKind kind, T value, RuntimeException error) {
    }

    /**
     * The errors of one response, group-level and per partition, reduced to one outcome: the first
     * non-retriable error fails the call; else a coordinator error finds the coordinator again;
     * else a retriable one retries.
     */
    private final class ErrorTally {
        /** Whether the response answers an OffsetCommit, whose membership errors fail as {@code CommitFailedException}. */
        private final boolean commit;
        private final Set<String> unauthorized = new TreeSet<>();
        private ErrorCode fatal;
        private TopicPartition fatalPartition;
        private ErrorCode retry;
        private GroupErrorKind retryKind = GroupErrorKind.NONE;

        ErrorTally(boolean commit) {
            this.commit = commit;
        }

        /** @param partition null for a group-level error */
        void add(TopicPartition partition, ErrorCode error, GroupErrorKind kind) {
            switch (kind) {
                case NONE -> { }
                case FATAL -> {
                    if (error == ErrorCode.TOPIC_AUTHORIZATION_FAILED && partition != null) {
                        unauthorized.add(partition.topic());
                    }
                    if (fatal == null) {
                        fatal = error;
                        fatalPartition = partition;
                    }
                }
                case COORDINATOR_MOVED -> {
                    retry = error;
                    retryKind = kind;
                }
                case RETRIABLE -> {
                    if (retryKind != GroupErrorKind.COORDINATOR_MOVED) {
                        retry = error;
                        retryKind = kind;
                    }
                }
            }
        }

        <T> Outcome<T> outcome(T value) {
            if (fatal != null) {
                return new Outcome<>(GroupErrorKind.FATAL, null,
                        commit ? GroupErrorKind.commitException(fatal, null, groupId, fatalPartition, unauthorized)
                                : GroupErrorKind.exception(fatal, null, groupId, fatalPartition, unauthorized));
            }
            if (retry != null) {
                return new Outcome<>(retryKind, null, retry.exception());
            }
            return new Outcome<>(GroupErrorKind.NONE, value, null);
        }
    }

    /** One attempt's request, and how its answer is read: as the request was built (a member's commit or not). */
    private record Sent<T>(CompletableFuture<ApiMessage> response, Function<ApiMessage, Outcome<T>> read) {
    }

    /** One call of {@link #commit} or {@link #committed}: attempts at the coordinator until one ends it. */
    private final class Call<T> {

        private final String what;
        private final IntFunction<Sent<T>> send;
        private final CompletableFuture<T> result = new CompletableFuture<>();
        /** Read and changed on the state owner only, as is everything below. */
        private int failures;
        private boolean coordinatorLost;
        private Throwable lastError;

        Call(String what, IntFunction<Sent<T>> send) {
            this.what = what;
            this.send = send;
        }

        /** Starts the call on the state owner, whichever thread asks for it. */
        void start(long deadlineMs) {
            owner.execute(() -> {
                Retries.failAtDeadline(result, deadlineMs, clockMs, owner, this::timedOut);
                attempt();
            });
        }

        private void attempt() {
            if (result.isDone()) {
                return;
            }
            coordinator.find().whenCompleteAsync((node, lookupError) -> {
                if (lookupError != null) {
                    failed(UNKNOWN, Failures.cause(lookupError));
                    return;
                }
                Sent<T> sent;
                try {
                    sent = send.apply(node);
                } catch (KafkaException refused) {
                    // The member may not commit now (a classic member mid-rebalance, say), as KafkaConsumer refuses it.
                    result.completeExceptionally(refused);
                    return;
                }
                sent.response().whenCompleteAsync((response, error) -> {
                    if (error != null) {
                        failed(node, Failures.cause(error));
                    } else {
                        answered(node, response, sent.read());
                    }
                }, owner);
            }, owner);
        }

        private void answered(int node, ApiMessage response, Function<ApiMessage, Outcome<T>> read) {
            Outcome<T> outcome;
            try {
                outcome = read.apply(response);
            } catch (RuntimeException unreadable) {
                outcome = new Outcome<>(GroupErrorKind.FATAL, null, new KafkaException("could not read the answer of node "
                        + node + " " + what + " for group " + groupId, unreadable));
            }
            switch (outcome.kind()) {
                case NONE -> result.complete(outcome.value());
                case COORDINATOR_MOVED -> {
                    coordinator.forget(node);
                    retryLater(outcome.error(), true);
                }
                case RETRIABLE -> retryLater(outcome.error(), false);
                case FATAL -> result.completeExceptionally(outcome.error());
            }
        }

        /** No answer: a broken connection to the coordinator forgets it, as does every retriable lookup failure. */
        private void failed(int node, Throwable error) {
            if (!(error instanceof RetriableException)) {
                result.completeExceptionally(error);
                return;
            }
            if (node != UNKNOWN) {
                coordinator.forget(node);
            }
            retryLater(error, node != UNKNOWN);
        }

        /**
         * Retries after backoff, except the first time a known coordinator is lost: the coordinator
         * is found again at once and asked at once, as a heartbeat does.
         */
        private void retryLater(Throwable error, boolean lostCoordinator) {
            failures++;
            lastError = error;
            boolean firstLoss = lostCoordinator && !coordinatorLost;
            coordinatorLost |= lostCoordinator;
            long nowMs = clockMs.getAsLong();
            long backoffMs = firstLoss ? 0 : Retries.untilMs(retryBackoff.untilMs(failures, nowMs), nowMs);
            LOG.debug("{} for group {} failed; retrying in {} ms", what, groupId, backoffMs, error);
            owner.after(backoffMs, this::attempt);
        }

        private TimeoutException timedOut() {
            return new TimeoutException("Timed out " + what + " for group " + groupId
                    + (lastError == null ? "" : "; last error: " + lastError), lastError);
        }
    }
}
