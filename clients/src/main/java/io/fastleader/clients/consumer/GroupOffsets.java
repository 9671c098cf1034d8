package io.fastleader.clients.consumer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.consumer.GroupRequests.Coordinator;
import io.fastleader.clients.consumer.GroupRequests.FetchedOffset;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.LeaderCache;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.ExponentialBackoff;
import io.fastleader.clients.network.Failures;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.FindCoordinatorResponseData;
import io.fastleader.protocol.message.OffsetCommitResponseData;
import io.fastleader.protocol.message.OffsetFetchResponseData;

/**
 * The committed offsets of a consumer that has a {@code group.id} but assigns its own partitions:
 * it commits and reads offsets at the group's coordinator without joining the group, as
 * {@code KafkaConsumer} does in assign mode (generation -1, no member id). The coordinator
 * accepts such commits only while the group has no members.
 *
 * <p>The coordinator is found with FindCoordinator and remembered. A broker that says it is not
 * (or no longer) the coordinator, or whose connection breaks, is forgotten and the coordinator
 * found again after an exponential backoff; an answer that the coordinator is still loading the
 * group is retried after the backoff too. A call fails at once with a non-retriable error, and
 * with {@link TimeoutException} once its deadline passes.
 *
 * <p>Thread-safe; nothing blocks. The returned futures complete on the transport's threads or the
 * JDK's delay thread: callers that do real work on completion should continue on their own executor.
 */
public final class GroupOffsets {

    private static final Logger LOG = LoggerFactory.getLogger(GroupOffsets.class);
    private static final int UNKNOWN = -1;

    private final ConnectionPool pool;
    private final ClusterMetadata metadata;
    private final LeaderCache cache;
    private final String groupId;
    private final ExponentialBackoff retryBackoff;
    private final LongSupplier clockMs;
    private final DoubleSupplier random;
    private final Object lock = new Object();
    /** Guarded by {@code lock}, as is everything below. */
    private int coordinator = UNKNOWN;
    private CompletableFuture<Integer> discovery;
    private int discoveryFailures;

    /**
     * @param groupId      {@code group.id}
     * @param retryBackoff {@code retry.backoff.ms} .. {@code retry.backoff.max.ms}, between attempts of a call
     * @param clockMs      monotonic milliseconds, the clock deadlines are given in
     */
    public GroupOffsets(ConnectionPool pool, ClusterMetadata metadata, String groupId, ExponentialBackoff retryBackoff,
                        LongSupplier clockMs) {
        this(pool, metadata, groupId, retryBackoff, clockMs, () -> ThreadLocalRandom.current().nextDouble());
    }

    GroupOffsets(ConnectionPool pool, ClusterMetadata metadata, String groupId, ExponentialBackoff retryBackoff,
                 LongSupplier clockMs, DoubleSupplier random) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.cache = metadata.cache();
        this.groupId = Objects.requireNonNull(groupId, "groupId");
        this.retryBackoff = Objects.requireNonNull(retryBackoff, "retryBackoff");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
        this.random = Objects.requireNonNull(random, "random");
    }

    /** The group this object commits for. */
    public String groupId() {
        return groupId;
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
        Call<Void> call = new Call<>("committing the offsets of " + committing.keySet(),
                node -> pool.send(node, ApiKey.OFFSET_COMMIT, GroupRequests.commit(groupId, committing)),
                response -> committedAnswer((OffsetCommitResponseData) response));
        call.start(deadlineMs);
        return call.result;
    }

    /**
     * The group's committed offsets, each with its metadata string and leader epoch.
     *
     * @param requireStable whether partitions with a pending transactional commit are waited for
     *                      (retried until the deadline) instead of answered with the offset before
     *                      it: {@code KafkaConsumer} asks so under {@code isolation.level=read_committed}
     * @param deadlineMs    when to give up, on this object's clock
     * @return the committed offsets; partitions with none are absent ({@code KafkaConsumer.committed}
     *         gives null for them). Fails with {@link TimeoutException} at the deadline, or with a
     *         non-retriable error ({@link GroupAuthorizationException},
     *         {@link org.apache.kafka.common.errors.TopicAuthorizationException}, ...).
     */
    public CompletableFuture<Map<TopicPartition, OffsetAndMetadata>> committed(Set<TopicPartition> partitions,
                                                                               boolean requireStable, long deadlineMs) {
        if (partitions.isEmpty()) {
            return CompletableFuture.completedFuture(Map.of());
        }
        List<TopicPartition> asked = List.copyOf(partitions);
        Call<Map<TopicPartition, OffsetAndMetadata>> call = new Call<>("fetching the committed offsets of " + asked,
                node -> pool.send(node, ApiKey.OFFSET_FETCH, GroupRequests.fetch(groupId, asked, requireStable)),
                response -> fetchedAnswer((OffsetFetchResponseData) response));
        call.start(deadlineMs);
        return call.result;
    }

    private Outcome<Void> committedAnswer(OffsetCommitResponseData response) {
        ErrorTally tally = new ErrorTally();
        GroupRequests.commitErrors(response).forEach((partition, error) -> tally.add(partition, error, GroupErrorKind.ofCommit(error)));
        return tally.outcome(null);
    }

    private Outcome<Map<TopicPartition, OffsetAndMetadata>> fetchedAnswer(OffsetFetchResponseData response) {
        GroupRequests.Fetched fetched = GroupRequests.fetched(response, groupId);
        ErrorTally tally = new ErrorTally();
        tally.add(null, fetched.groupError(), GroupErrorKind.ofFetch(fetched.groupError()));
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (FetchedOffset answer : fetched.partitions()) {
            tally.add(answer.partition(), answer.error(), GroupErrorKind.ofFetch(answer.error()));
            if (answer.error() == Errors.NONE && answer.offset() >= 0) {
                Optional<Integer> epoch = answer.leaderEpoch() >= 0 ? Optional.of(answer.leaderEpoch()) : Optional.empty();
                offsets.put(answer.partition(), new OffsetAndMetadata(answer.offset(), epoch, answer.metadata()));
            }
        }
        return tally.outcome(offsets);
    }

    /** The coordinator, found first if it is not known; one FindCoordinator at a time serves every call waiting. */
    private CompletableFuture<Integer> coordinator() {
        CompletableFuture<Integer> found;
        int asked;
        synchronized (lock) {
            if (coordinator != UNKNOWN) {
                return CompletableFuture.completedFuture(coordinator);
            }
            if (discovery != null) {
                return discovery;
            }
            found = new CompletableFuture<>();
            discovery = found;
            asked = anyBroker();
        }
        pool.send(asked, ApiKey.FIND_COORDINATOR, GroupRequests.findCoordinator(groupId))
                .whenComplete((response, error) -> discovered(asked, found, response, error));
        return found;
    }

    private void discovered(int asked, CompletableFuture<Integer> found, ApiMessage response, Throwable error) {
        Throwable failure = Failures.cause(error);
        int nodeId = UNKNOWN;
        if (failure == null) {
            Coordinator answer = GroupRequests.coordinator((FindCoordinatorResponseData) response, groupId);
            if (GroupErrorKind.ofFindCoordinator(answer.error()) != GroupErrorKind.NONE) {
                failure = GroupErrorKind.exception(answer.error(), answer.message(), groupId, null, Set.of());
            } else if (cache.node(answer.nodeId()) == null) {
                // Known only once a Metadata response lists it; a refresh of no topic still lists every broker.
                metadata.onLeaderError(List.of());
                failure = new CoordinatorNotAvailableException("the coordinator of group " + groupId + ", node "
                        + answer.nodeId() + ", is not in the client's metadata yet");
            } else {
                nodeId = answer.nodeId();
            }
        }
        synchronized (lock) {
            discovery = null;
            if (failure == null) {
                coordinator = nodeId;
                discoveryFailures = 0;
            } else {
                discoveryFailures++;
            }
        }
        if (failure == null) {
            LOG.debug("Group {} is coordinated by node {}", groupId, nodeId);
            found.complete(nodeId);
        } else {
            LOG.debug("FindCoordinator for group {} to node {} failed", groupId, asked, failure);
            found.completeExceptionally(failure);
        }
    }

    /** A broker to ask for the coordinator: the known ones in turn, the first bootstrap server while none is known. */
    private int anyBroker() {
        List<Integer> nodes = new ArrayList<>(new TreeSet<>(cache.nodes().keySet()));
        return nodes.isEmpty() ? -1 : nodes.get(discoveryFailures % nodes.size());
    }

    private void forgetCoordinator(int nodeId) {
        synchronized (lock) {
            if (coordinator == nodeId) {
                coordinator = UNKNOWN;
            }
        }
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
        private final Set<String> unauthorized = new TreeSet<>();
        private Errors fatal;
        private TopicPartition fatalPartition;
        private Errors retry;
        private GroupErrorKind retryKind = GroupErrorKind.NONE;

        /** @param partition null for a group-level error */
        void add(TopicPartition partition, Errors error, GroupErrorKind kind) {
            switch (kind) {
                case NONE -> { }
                case FATAL -> {
                    if (error == Errors.TOPIC_AUTHORIZATION_FAILED && partition != null) {
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
                        GroupErrorKind.exception(fatal, null, groupId, fatalPartition, unauthorized));
            }
            if (retry != null) {
                return new Outcome<>(retryKind, null, retry.exception());
            }
            return new Outcome<>(GroupErrorKind.NONE, value, null);
        }
    }

    /** One call of {@link #commit} or {@link #committed}: attempts at the coordinator until one ends it. */
    private final class Call<T> {

        private final String what;
        private final IntFunction<CompletableFuture<ApiMessage>> send;
        private final Function<ApiMessage, Outcome<T>> read;
        private final CompletableFuture<T> result = new CompletableFuture<>();
        /** Guarded by {@code this}. */
        private int failures;
        private Throwable lastError;

        Call(String what, IntFunction<CompletableFuture<ApiMessage>> send, Function<ApiMessage, Outcome<T>> read) {
            this.what = what;
            this.send = send;
            this.read = read;
        }

        void start(long deadlineMs) {
            Retries.failAtDeadline(result, deadlineMs, clockMs, this::timedOut);
            attempt();
        }

        private void attempt() {
            if (result.isDone()) {
                return;
            }
            coordinator().whenComplete((node, lookupError) -> {
                if (lookupError != null) {
                    failed(UNKNOWN, Failures.cause(lookupError));
                    return;
                }
                send.apply(node).whenComplete((response, error) -> {
                    if (error != null) {
                        failed(node, Failures.cause(error));
                    } else {
                        answered(node, response);
                    }
                });
            });
        }

        private void answered(int node, ApiMessage response) {
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
                    forgetCoordinator(node);
                    retryLater(outcome.error());
                }
                case RETRIABLE -> retryLater(outcome.error());
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
                forgetCoordinator(node);
            }
            retryLater(error);
        }

        private void retryLater(Throwable error) {
            long backoffMs;
            synchronized (this) {
                failures++;
                lastError = error;
                backoffMs = retryBackoff.millis(failures, random.getAsDouble());
            }
            LOG.debug("{} for group {} failed; retrying in {} ms", what, groupId, backoffMs, error);
            Retries.after(backoffMs, this::attempt);
        }

        private synchronized TimeoutException timedOut() {
            return new TimeoutException("Timed out " + what + " for group " + groupId
                    + (lastError == null ? "" : "; last error: " + lastError), lastError);
        }
    }
}
