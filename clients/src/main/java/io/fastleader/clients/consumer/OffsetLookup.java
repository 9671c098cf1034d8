package io.fastleader.clients.consumer;

import java.util.ArrayList;
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
import java.util.function.LongSupplier;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.LeaderNotAvailableException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.consumer.ListOffsetsRequests.Plan;
import io.fastleader.clients.consumer.ListOffsetsRequests.Target;
import io.fastleader.clients.consumer.group.Retries;
import io.fastleader.clients.consumer.group.StateOwner;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.metadata.LeaderCache;
import io.fastleader.clients.metadata.PartitionLeadership;
import io.fastleader.clients.metadata.Refusal;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.Failures;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import io.fastleader.protocol.message.ListOffsetsResponseData;

/**
 * Looks up offsets with ListOffsets: the earliest, the latest, or the first at a timestamp, for
 * the consumer's position resets, {@code beginningOffsets}, {@code endOffsets} and
 * {@code offsetsForTimes}.
 *
 * <p>Each lookup asks every partition's leader, one request per leader, with the leader epoch the
 * cache knows ({@code CurrentLeaderEpoch}) so that a broker behind or ahead of it refuses instead
 * of answering from a stale log. A partition refused for a leadership reason, or whose request
 * failed in transit, has its topic refreshed and is retried alone as {@link EpochBackoff} says:
 * after an exponential backoff that ends early once the cache knows a newer leader epoch for the
 * partition, so a lookup across a leader move waits for the move to be known, not for a guessed
 * time. Topics the cache does not know yet are awaited first. Everything ends by the caller's
 * deadline.
 *
 * <p>Runs on the consumer's state owner: answers, retries and the looks a leader change asks for
 * are tasks there, and the returned futures complete there. Nothing blocks.
 */
public final class OffsetLookup {

    private static final Logger LOG = LoggerFactory.getLogger(OffsetLookup.class);

    private final ConnectionPool pool;
    private final ClusterMetadata metadata;
    private final LeaderCache cache;
    private final EpochBackoff retryBackoff;
    private final LongSupplier clockMs;
    private final StateOwner owner;

    /**
     * @param retryBackoff between attempts of a partition
     * @param clockMs      monotonic milliseconds, the clock deadlines are given in
     * @param owner        runs every answer and retry, one at a time
     */
    public OffsetLookup(ConnectionPool pool, ClusterMetadata metadata, EpochBackoff retryBackoff, LongSupplier clockMs,
                        StateOwner owner) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.pool = Objects.requireNonNull(pool, "pool");
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.cache = metadata.cache();
        this.retryBackoff = Objects.requireNonNull(retryBackoff, "retryBackoff");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
    }

    /**
     * For each partition, the offset for its target, asked of the partition's leader.
     *
     * @param timestamps each partition's target: {@code ListOffsetsRequest.EARLIEST_TIMESTAMP} (-2),
     *                   {@code ListOffsetsRequest.LATEST_TIMESTAMP} (-1), or a timestamp in ms for the
     *                   first record at or after it
     * @param isolation  {@link IsolationLevel#READ_COMMITTED} makes the latest offset the last stable
     *                   offset instead of the high watermark, and hides records of open transactions
     *                   from lookups by timestamp
     * @param deadlineMs when to give up, on this object's clock
     * @return every partition's offset; fails with {@link TimeoutException} naming the partitions
     *         still missing once the deadline passes, with the error of a non-retriable answer
     *         (for example {@link TopicAuthorizationException} naming the topics), or with the
     *         metadata's error for a topic that cannot be described. Cancelling it stops the lookup.
     */
    public CompletableFuture<Map<TopicPartition, ListedOffset>> offsets(Map<TopicPartition, Long> timestamps,
                                                                        IsolationLevel isolation, long deadlineMs) {
        Objects.requireNonNull(isolation, "isolation");
        if (timestamps.isEmpty()) {
            return CompletableFuture.completedFuture(Map.of());
        }
        Lookup lookup = new Lookup(new LinkedHashMap<>(timestamps), isolation, deadlineMs);
        owner.execute(lookup::start);
        return lookup.result;
    }

    /** The leader epoch a read of the cache gave, -1 if the partition is not tracked or the broker did not say. */
    private static int epochOf(PartitionLeadership leadership) {
        return leadership == null ? -1 : leadership.leaderEpoch();
    }

    /** One call of {@link #offsets}; each of its partitions is waiting to be sent, in flight (in neither) or found. */
    private final class Lookup {

        private final Map<TopicPartition, Long> timestamps;
        private final IsolationLevel isolation;
        private final long deadlineMs;
        private final CompletableFuture<Map<TopicPartition, ListedOffset>> result = new CompletableFuture<>();
        /** Read and changed on the state owner only, as is everything below. */
        private final Map<TopicPartition, ListedOffset> found = new HashMap<>();
        private final Set<TopicPartition> waiting = new HashSet<>();
        /** Each partition's backoff since its last failed attempt; absent before the first. */
        private final Map<TopicPartition, EpochBackoff.State> backoffs = new HashMap<>();
        /** Looks again on the owner when the cache learns a leader change: it may end a backoff. */
        private final Runnable lookAgain = () -> owner.execute(this::sendDue);
        private long wakeAtMs = Long.MAX_VALUE;
        private RuntimeException lastError;
        /** Topics the metadata did not know when the lookup started, until it does. */
        private Set<String> awaitedTopics = Set.of();

        Lookup(Map<TopicPartition, Long> timestamps, IsolationLevel isolation, long deadlineMs) {
            this.timestamps = timestamps;
            this.isolation = isolation;
            this.deadlineMs = deadlineMs;
            waiting.addAll(timestamps.keySet());
        }

        void start() {
            if (result.isDone()) {
                return; // cancelled, or timed out by its caller, before the owner came to it
            }
            Retries.failAtDeadline(result, deadlineMs, clockMs, owner, this::timedOut);
            cache.wakeOnChange(lookAgain);
            result.whenComplete((offsets, error) -> cache.stopWaking(lookAgain));
            Set<String> unknown = new TreeSet<>();
            timestamps.keySet().forEach(partition -> {
                if (cache.partitionCount(partition.topic()) == 0) {
                    unknown.add(partition.topic());
                }
            });
            if (unknown.isEmpty()) {
                sendDue();
                return;
            }
            awaitedTopics = unknown;
            metadata.awaitTopics(unknown).whenCompleteAsync((known, error) -> {
                awaitedTopics = Set.of();
                Throwable failure = Failures.cause(error);
                if (failure != null && !(failure instanceof RetriableException)) {
                    result.completeExceptionally(failure);
                } else {
                    sendDue();
                }
            }, owner);
        }

        /** Sends every partition whose backoff is over to its leader; backs off those without one. */
        private void sendDue() {
            if (result.isDone()) {
                return;
            }
            long nowMs = clockMs.getAsLong();
            Map<TopicPartition, Long> due = new LinkedHashMap<>();
            // One read of each partition's leadership: the epoch that may end its backoff is the one it is routed and sent at.
            Map<TopicPartition, PartitionLeadership> leaderships = new HashMap<>();
            for (TopicPartition partition : waiting) {
                PartitionLeadership leadership = cache.leadership(partition);
                if (backoffOf(partition).isOver(epochOf(leadership), nowMs)) {
                    due.put(partition, timestamps.get(partition));
                    leaderships.put(partition, leadership);
                }
            }
            Plan plan = ListOffsetsRequests.plan(due, partition -> cache.routable(leaderships.get(partition)));
            Set<String> refresh = new TreeSet<>();
            for (TopicPartition partition : plan.withoutLeader()) {
                backOff(partition, epochOf(leaderships.get(partition)),
                        new LeaderNotAvailableException("no leader is known for " + partition), nowMs);
                refresh.add(partition.topic());
            }
            plan.byLeader().values().forEach(targets -> targets.forEach(target -> waiting.remove(target.partition())));
            int timeoutMs = (int) Math.min(Integer.MAX_VALUE, Retries.untilMs(deadlineMs, nowMs));
            scheduleWake(nowMs);
            if (!refresh.isEmpty()) {
                metadata.onLeaderError(refresh);
            }
            plan.byLeader().forEach((node, targets) -> pool.send(node, ApiKey.LIST_OFFSETS,
                            ListOffsetsRequests.request(targets, isolation, timeoutMs))
                    .whenCompleteAsync((response, error) -> answered(node, targets, response, error), owner));
        }

        private void answered(int node, List<Target> targets, ApiMessage response, Throwable error) {
            if (result.isDone()) {
                return;
            }
            long nowMs = clockMs.getAsLong();
            Set<String> refresh = new TreeSet<>();
            Runnable completion = null;
            Throwable failure = Failures.cause(error);
            if (failure instanceof RetriableException retriable) {
                LOG.debug("ListOffsets to node {} failed; retrying its {} partition(s)", node, targets.size(), failure);
                for (Target target : targets) {
                    backOff(target.partition(), target.currentLeaderEpoch(), retriable, nowMs);
                    refresh.add(target.partition().topic());
                }
            } else if (failure != null) {
                completion = () -> result.completeExceptionally(failure);
            } else {
                completion = settled(node, targets, (ListOffsetsResponseData) response, refresh, nowMs);
            }
            if (completion == null) {
                scheduleWake(nowMs);
            }
            if (!refresh.isEmpty()) {
                metadata.onLeaderError(refresh);
            }
            if (completion != null) {
                completion.run();
            }
        }

        /** Takes each partition's answer; returns how the result completes, or null if partitions remain. */
        private Runnable settled(int node, List<Target> targets, ListOffsetsResponseData response, Set<String> refresh,
                                 long nowMs) {
            Map<TopicPartition, ListOffsetsPartitionResponse> answers = ListOffsetsRequests.answers(response);
            Set<String> unauthorized = new TreeSet<>();
            RuntimeException fatal = null;
            for (Target target : targets) {
                TopicPartition partition = target.partition();
                ListOffsetsPartitionResponse answer = answers.get(partition);
                if (answer == null) {
                    backOff(partition, target.currentLeaderEpoch(),
                            new KafkaException("node " + node + " left " + partition + " out of its ListOffsets response"), nowMs);
                    continue;
                }
                ErrorCode code = ErrorCode.forCode(answer.errorCode());
                switch (ListOffsetsErrorKind.of(code)) {
                    case FOUND -> found.put(partition, ListOffsetsRequests.listed(answer));
                    case NOT_FOUND -> found.put(partition, new ListedOffset(ListedOffset.NOT_FOUND, -1, Optional.empty()));
                    case LEADER_MOVED -> {
                        backOff(partition, target.currentLeaderEpoch(), code.exception(), nowMs);
                        refresh.add(partition.topic());
                    }
                    case RETRIABLE -> backOff(partition, target.currentLeaderEpoch(), code.exception(), nowMs);
                    case FATAL -> {
                        if (code == ErrorCode.TOPIC_AUTHORIZATION_FAILED) {
                            unauthorized.add(partition.topic());
                        } else if (fatal == null) {
                            fatal = code.exception();
                        }
                    }
                }
            }
            RuntimeException failure = unauthorized.isEmpty() ? fatal : new TopicAuthorizationException(unauthorized);
            if (failure != null) {
                return () -> result.completeExceptionally(failure);
            }
            if (found.size() == timestamps.size()) {
                Map<TopicPartition, ListedOffset> offsets = Map.copyOf(found);
                return () -> result.complete(offsets);
            }
            return null;
        }

        private void backOff(TopicPartition partition, int refusedAtEpoch, RuntimeException error, long nowMs) {
            EpochBackoff.State backoff = retryBackoff.refused(backoffOf(partition), refusedAtEpoch, Refusal.NONE, nowMs);
            backoffs.put(partition, backoff);
            waiting.add(partition);
            lastError = error;
            LOG.debug("No offset yet for {} after {} attempt(s): {}", partition, backoff.failures(), error.toString());
        }

        private EpochBackoff.State backoffOf(TopicPartition partition) {
            return backoffs.getOrDefault(partition, EpochBackoff.State.NONE);
        }

        /** Sets a wakeup for the earliest end of a backoff, unless one as early is set. */
        private void scheduleWake(long nowMs) {
            long nextMs = Long.MAX_VALUE;
            for (TopicPartition partition : waiting) {
                nextMs = Math.min(nextMs, Math.max(nowMs, backoffOf(partition).untilMs()));
            }
            if (nextMs < wakeAtMs) {
                wakeAtMs = nextMs;
                owner.after(Retries.untilMs(nextMs, nowMs), this::wake);
            }
        }

        private void wake() {
            wakeAtMs = Long.MAX_VALUE;
            sendDue();
        }

        private TimeoutException timedOut() {
            List<TopicPartition> missing = new ArrayList<>(timestamps.keySet());
            missing.removeAll(found.keySet());
            String why = !awaitedTopics.isEmpty() ? "; the metadata of " + awaitedTopics + " is not known"
                    : lastError != null ? "; last error: " + lastError : "";
            return new TimeoutException("Timed out looking up the offsets of " + missing + why, lastError);
        }
    }
}
