package io.fastleader.clients.consumer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.metadata.LeaderCache;
import io.fastleader.clients.metadata.LeaderMoves;
import io.fastleader.clients.metadata.PartitionLeadership;
import io.fastleader.clients.metadata.Refusal;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.FetchRequestData;
import io.fastleader.protocol.message.FetchResponseData;

/**
 * The fetch path: one Fetch in flight per leader, none while records of a partition it leads are
 * buffered, answers applied on the consumer's thread, and records buffered until {@code poll}
 * takes them.
 *
 * <p>A partition refused because its leader moved goes into the next Fetch to the new leader at
 * once when the refusal's {@code CurrentLeader} advances the partition's epoch (KIP-951), and
 * after backoff otherwise: the answer's {@link LeaderMoves} go to
 * {@link ClusterMetadata#onLeaderMoves}, and each refused partition waits out its
 * {@link EpochBackoff.State}, asked against the cache when the next Fetches are built.
 *
 * <p>Fetches carry {@code LastFetchedEpoch}, so a log truncated under the consumer comes back as
 * {@code DivergingEpoch} in the same answer; against brokers older than Fetch v12, or with
 * {@code fastleader.last.fetched.epoch.enabled=false}, a position read under an older leader is
 * validated with OffsetsForLeaderEpoch first.
 */
final class Fetcher<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(Fetcher.class);
    /** The first Fetch version with {@code LastFetchedEpoch}. */
    private static final short LAST_FETCHED_EPOCH_VERSION = 12;

    private final ConnectionPool pool;
    private final ClusterMetadata metadata;
    private final LeaderCache cache;
    private final ConsumerSettings settings;
    private final RecordDecoding<K, V> decoding;
    private final EpochBackoff retryBackoff;
    private final ConsumerMetrics metrics;
    private final Executor inbox;
    private final LongSupplier clockMs;
    private final SubscriptionState subscriptions;
    private final PendingErrors errors;

    private final Map<Integer, InFlightFetch> inFlight = new HashMap<>();
    private final ArrayDeque<Buffered<K, V>> buffered = new ArrayDeque<>();

    /**
     * @param subscriptions the consumer's assigned partitions, asked on the consumer's thread only
     * @param thread        where Fetch answers are applied: its inbox runs them on the consumer's thread
     */
    Fetcher(ConnectionPool pool, ClusterMetadata metadata, SubscriptionState subscriptions, RecordDecoding<K, V> decoding,
            EpochBackoff retryBackoff, PollThread thread) {
        this.pool = pool;
        this.metadata = metadata;
        this.cache = metadata.cache();
        this.subscriptions = subscriptions;
        this.decoding = decoding;
        this.retryBackoff = retryBackoff;
        this.settings = thread.settings();
        this.metrics = thread.metrics();
        this.inbox = thread.inbox();
        this.clockMs = thread.clockMs();
        this.errors = thread.errors();
    }

    /**
     * A partition's records waiting for {@code poll}, and the tally of the response they came in.
     *
     * @param state the partition's state when they were fetched
     * @param moves its {@link PartitionState#moves} then
     */
    private record Buffered<K, V>(PartitionRecords<K, V> records, FetchTally tally, PartitionState state, int moves) {

        /** Done with, taken or dropped. */
        void drop() {
            tally.taken(records);
        }

        /**
         * Whether they still continue their partition's position: it is assigned, fetching, not
         * moved by a seek or reset since (even to the same offset), and where they start.
         */
        boolean continuesPosition(SubscriptionState subscriptions) {
            return subscriptions.isCurrent(state) && state.phase() == PartitionState.Phase.FETCHING
                    && state.moves() == moves && state.position().offset() == records.nextOffset();
        }
    }

    /** One partition as a Fetch asked for it. */
    private record Asked(PartitionState state, long fetchOffset, int leaderEpoch, boolean epochAdvanced) {
    }

    /** A Fetch on its way; {@code version} is set once the connection chose it. */
    private static final class InFlightFetch {
        final int node;
        final long sentMs;
        final Map<TopicPartition, Asked> partitions;
        final Map<Uuid, String> topicNames = new HashMap<>();
        volatile short version = -1;

        InFlightFetch(int node, long sentMs, Map<TopicPartition, Asked> partitions) {
            this.node = node;
            this.sentMs = sentMs;
            this.partitions = partitions;
        }
    }

    /**
     * Sends a Fetch to every leader that has fetchable partitions, no Fetch in flight and no
     * partition with records still buffered, as {@code KafkaConsumer} does: a Fetch of the leader's
     * other partitions may be held for {@code fetch.max.wait.ms}, and the buffered partition's next
     * Fetch would wait behind it. Records of a paused partition hold no leader back.
     */
    void sendFetches() {
        long nowMs = clockMs.getAsLong();
        dropStale();
        Set<TopicPartition> withRecords = new HashSet<>();
        Set<Integer> leadersWithRecords = new HashSet<>();
        for (Buffered<K, V> entry : buffered) {
            withRecords.add(entry.records().partition());
            PartitionLeadership leadership = cache.routable(entry.records().partition());
            if (leadership != null && !entry.state().isPaused()) {
                leadersWithRecords.add(leadership.leaderId());
            }
        }
        Map<Integer, Map<TopicPartition, Asked>> byLeader = new LinkedHashMap<>();
        Set<String> leaderless = new HashSet<>();
        for (PartitionState state : subscriptions.states()) {
            TopicPartition partition = state.partition();
            PartitionLeadership leadership = cache.routable(partition);
            if (leadership == null) {
                // A topic not described yet is awaited already; any other is between leaders.
                if (cache.partitionCount(partition.topic()) > 0) {
                    leaderless.add(partition.topic());
                }
                continue;
            }
            if (withRecords.contains(partition) || inFlight.containsKey(leadership.leaderId())
                    || leadersWithRecords.contains(leadership.leaderId()) || !state.isFetchable(leadership.leaderEpoch(), nowMs)) {
                continue;
            }
            if (state.backoff().isCutShort(leadership.leaderEpoch(), nowMs)) {
                metrics.backoffSkipped();
            }
            boolean advanced = state.leaderEpochAdvanced(leadership.leaderEpoch());
            if (advanced && !settings.lastFetchedEpochEnabled()) {
                state.awaitValidation();
                continue;
            }
            byLeader.computeIfAbsent(leadership.leaderId(), node -> new LinkedHashMap<>())
                    .put(partition, new Asked(state, state.position().offset(), leadership.leaderEpoch(), advanced));
        }
        byLeader.forEach((node, partitions) -> send(new InFlightFetch(node, nowMs, partitions)));
        if (!leaderless.isEmpty()) {
            // An election is under way: ask again (the refresh schedule's backoff keeps this from looping).
            metadata.onLeaderError(leaderless);
        }
    }

    private void send(InFlightFetch fetch) {
        inFlight.put(fetch.node, fetch);
        for (TopicPartition partition : fetch.partitions.keySet()) {
            fetch.topicNames.put(topicId(partition.topic()), partition.topic());
        }
        metrics.fetchSent();
        pool.send(fetch.node, ApiKey.FETCH, version -> {
            fetch.version = version;
            return request(fetch, version);
        }).whenComplete((response, failure) -> inbox.execute(() -> answered(fetch, response, failure)));
    }

    private FetchRequestData request(InFlightFetch fetch, short version) {
        boolean sendLastFetchedEpoch = settings.lastFetchedEpochEnabled() && version >= LAST_FETCHED_EPOCH_VERSION;
        Map<String, FetchRequestData.FetchTopic> topics = new LinkedHashMap<>();
        fetch.partitions.forEach((partition, asked) -> topics.computeIfAbsent(partition.topic(),
                        topic -> new FetchRequestData.FetchTopic().setTopic(topic).setTopicId(topicId(topic)))
                .partitions().add(new FetchRequestData.FetchPartition()
                        .setPartition(partition.partition())
                        .setCurrentLeaderEpoch(asked.leaderEpoch())
                        .setFetchOffset(asked.fetchOffset())
                        .setLastFetchedEpoch(sendLastFetchedEpoch ? asked.state().position().lastFetchedEpoch() : -1)
                        .setPartitionMaxBytes(settings.maxPartitionFetchBytes())));
        return new FetchRequestData()
                .setMaxWaitMs(settings.fetchMaxWaitMs())
                .setMinBytes(settings.fetchMinBytes())
                .setMaxBytes(settings.fetchMaxBytes())
                .setIsolationLevel(settings.isolationLevel().id())
                .setTopics(new ArrayList<>(topics.values()));
    }

    private void answered(InFlightFetch fetch, ApiMessage response, Throwable failure) {
        inFlight.remove(fetch.node);
        long nowMs = clockMs.getAsLong();
        metrics.fetchAnswered(fetch.node, nowMs - fetch.sentMs);
        FetchResponseData fetched = (FetchResponseData) response;
        if (failure != null || fetched.errorCode() != ErrorCode.NONE.code()) {
            LOG.debug("Fetch to node {} failed: {}", fetch.node,
                    failure != null ? failure.toString() : ErrorCode.forCode(fetched.errorCode()));
            Set<String> topics = new HashSet<>();
            fetch.partitions.forEach((partition, asked) -> {
                metrics.fetchMoves().refused(partition, fetch.node, asked.leaderEpoch(), false, nowMs);
                refuse(asked, Refusal.NONE, nowMs);
                topics.add(partition.topic());
            });
            metadata.onLeaderError(topics);
            return;
        }
        metrics.fetchThrottled(fetched.throttleTimeMs());
        Set<String> topicsAnswered = new HashSet<>();
        fetched.responses().forEach(topic -> topicsAnswered.add(
                topic.topic().isEmpty() ? fetch.topicNames.get(topic.topicId()) : topic.topic()));
        FetchTally tally = new FetchTally(metrics, topicsAnswered);
        LeaderMoves moves = LeaderMoves.of(fetched, fetch.topicNames);
        // Routed before the refused partitions back off, so a hint's new epoch is known when the next Fetches are built.
        Set<TopicPartition> followed = metadata.onLeaderMoves(moves);
        for (FetchResponseData.FetchableTopicResponse topic : fetched.responses()) {
            String name = topic.topic().isEmpty() ? fetch.topicNames.get(topic.topicId()) : topic.topic();
            for (FetchResponseData.PartitionData data : topic.partitions()) {
                TopicPartition partition = new TopicPartition(name, data.partitionIndex());
                Asked asked = fetch.partitions.get(partition);
                if (asked == null || !stillCurrent(asked)) {
                    continue;
                }
                ErrorCode error = ErrorCode.forCode(data.errorCode());
                switch (FetchErrorKind.of(error)) {
                    case NONE -> {
                        metrics.fetchMoves().answered(partition, fetch.node, asked.leaderEpoch(), nowMs);
                        accept(fetch, asked, data, tally, nowMs);
                    }
                    case LEADER_MOVED -> {
                        metrics.fetchMoves().refused(partition, fetch.node, asked.leaderEpoch(), followed.contains(partition), nowMs);
                        refuse(asked, moves.refusal(partition, nowMs - fetch.sentMs), nowMs);
                    }
                    case RETRY_LATER -> refuse(asked, Refusal.NONE, nowMs);
                    case OFFSET_OUT_OF_RANGE -> errors.capture(() -> asked.state().outOfRange(asked.fetchOffset(), settings.resetStrategy()));
                    case FATAL -> errors.add(FetchErrorKind.exception(error, partition));
                }
            }
        }
        tally.seal();
    }

    /** The topic's id; zero, which no broker matches, when the client has not learned it. */
    private Uuid topicId(String topic) {
        return cache.topicId(topic).orElse(Uuid.ZERO_UUID);
    }

    /** Whether the partition is still assigned and at the position the Fetch asked for. */
    private boolean stillCurrent(Asked asked) {
        PartitionState state = asked.state();
        return subscriptions.isCurrent(state) && state.phase() == PartitionState.Phase.FETCHING
                && state.position().offset() == asked.fetchOffset();
    }

    private void accept(InFlightFetch fetch, Asked asked, FetchResponseData.PartitionData data, FetchTally tally, long nowMs) {
        PartitionState state = asked.state();
        if (asked.epochAdvanced() && fetch.version < LAST_FETCHED_EPOCH_VERSION) {
            // The broker could not check LastFetchedEpoch: validate before trusting these records.
            state.awaitValidation();
            return;
        }
        if (data.divergingEpoch().epoch() >= 0 || data.divergingEpoch().endOffset() >= 0) {
            EpochEndOffset end = new EpochEndOffset(data.divergingEpoch().epoch(), data.divergingEpoch().endOffset());
            if (end.truncates(state.position())) {
                metrics.truncationDetected();
            }
            errors.capture(() -> state.epochEnds(end, settings.resetStrategy()));
            return;
        }
        state.fetched(data.highWatermark(), data.lastStableOffset(), data.logStartOffset());
        PartitionRecords<K, V> records = new PartitionRecords<>(state.partition(), asked.fetchOffset(), data, decoding);
        // Batches the application never sees (markers, aborted transactions) are behind the position at once,
        // so a buffered PartitionRecords always starts where its partition's position is.
        boolean advanced = records.nextOffset() > asked.fetchOffset();
        if (advanced) {
            state.advance(new FetchPosition(records.nextOffset(), records.lastEpoch()));
        }
        if (!records.isDrained() || advanced) {
            // Buffered even with nothing to hand out: the next poll reports the new position in its
            // nextOffsets, and returns with it, as KafkaConsumer's does.
            buffered.add(new Buffered<>(records, tally, state, state.moves()));
            tally.awaits();
        } else if (data.highWatermark() >= 0 && data.highWatermark() < asked.fetchOffset()) {
            // A broker answers at once while any partition of a Fetch is ahead of its high watermark, so
            // asking again at once would loop at round-trip speed for every partition on that leader.
            state.backOff(retryBackoff.leaderBehind(state.backoff(), asked.leaderEpoch(), nowMs));
            metrics.aheadOfLeader();
        }
    }

    private void refuse(Asked asked, Refusal refusal, long nowMs) {
        PartitionState state = asked.state();
        state.backOff(retryBackoff.refused(state.backoff(), asked.leaderEpoch(), refusal, nowMs));
    }

    /**
     * Up to {@code maxRecords} buffered records of partitions still fetching at the position the
     * records start at, advancing each partition's position past what it hands out. Records of a
     * paused partition stay buffered; those of a partition moved by a seek are dropped.
     *
     * @return the records, with the next offset of every partition that handed out records or
     *         stepped over batches the application never sees; empty when no partition did either
     */
    Optional<ConsumerRecords<K, V>> collect(int maxRecords) {
        Map<TopicPartition, List<ConsumerRecord<K, V>>> records = new LinkedHashMap<>();
        Map<TopicPartition, OffsetAndMetadata> nextOffsets = new LinkedHashMap<>();
        int budget = maxRecords;
        for (Iterator<Buffered<K, V>> it = buffered.iterator(); it.hasNext() && budget > 0; ) {
            Buffered<K, V> entry = it.next();
            PartitionRecords<K, V> partitionRecords = entry.records();
            PartitionState state = entry.state();
            if (!entry.continuesPosition(subscriptions)) {
                it.remove();
                entry.drop();
                continue;
            }
            if (state.isPaused()) {
                continue;
            }
            List<ConsumerRecord<K, V>> taken;
            try {
                taken = partitionRecords.take(budget);
            } catch (RuntimeException e) {
                if (records.isEmpty()) {
                    throw e;
                }
                break;
            }
            FetchPosition next = new FetchPosition(partitionRecords.nextOffset(), partitionRecords.lastEpoch());
            state.advance(next);
            // As KafkaConsumer does: measured where the position now is, records handed out or not.
            state.lag(settings.isolationLevel() == IsolationLevel.READ_COMMITTED)
                    .ifPresent(lag -> metrics.lag(state.partition(), lag));
            state.lead().ifPresent(lead -> metrics.lead(state.partition(), lead));
            if (partitionRecords.isDrained()) {
                it.remove();
                entry.drop();
            }
            if (!taken.isEmpty()) {
                records.computeIfAbsent(state.partition(), p -> new ArrayList<>()).addAll(taken);
                budget -= taken.size();
            }
            nextOffsets.put(state.partition(), new OffsetAndMetadata(next.offset(), next.offsetEpoch(), ""));
        }
        // Kept here, not read back from ConsumerRecords, whose nextOffsets() kafka-clients 3.x lacks.
        return nextOffsets.isEmpty() ? Optional.empty() : Optional.of(ConsumerRecordsFactory.ON_CLASSPATH.records(records, nextOffsets));
    }

    /** Drops the buffered records whose partition was unassigned or moved since: no Fetch waits behind them. */
    private void dropStale() {
        buffered.removeIf(entry -> {
            if (entry.continuesPosition(subscriptions)) {
                return false;
            }
            entry.drop();
            return true;
        });
    }
}
