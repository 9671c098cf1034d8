package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.FetchRequestData;
import io.fastleader.protocol.message.FetchRequestData.FetchPartition;
import io.fastleader.protocol.message.FetchRequestData.FetchTopic;
import io.fastleader.protocol.message.FetchResponseData;
import io.fastleader.protocol.message.FetchResponseData.FetchableTopicResponse;
import io.fastleader.protocol.message.FetchResponseData.NodeEndpoint;
import io.fastleader.protocol.message.FetchResponseData.NodeEndpointCollection;
import io.fastleader.protocol.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Fetch, for consumers: each partition is refused in a broker's order (unknown topic, as
 * UNKNOWN_TOPIC_ID for a topic id at v13+; then the checks of {@link ClusterState#fetch}:
 * NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH or UNKNOWN_LEADER_EPOCH, OFFSET_OUT_OF_RANGE), or
 * answered with its stored batches from the one holding the fetch offset, whole, within
 * {@code PartitionMaxBytes} and what is left of {@code MaxBytes}, the first partition with data
 * getting at least one batch (KIP-74). The high watermark and last stable offset are the log end,
 * the log start is 0, there are no aborted transactions and no preferred read replica. When the
 * cluster gives hints and the request is v16+, NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH
 * refusals name the current leader and its epoch ({@code CurrentLeader}) and the response carries
 * that leader's endpoint ({@code NodeEndpoints}), as a KIP-951 broker does.
 *
 * <p>A Fetch is answered at once, as by a broker, when it has an error, a {@code MaxWaitMs} of 0 or
 * less, or {@code MinBytes} of data; otherwise it waits in {@link FetchWaiters}, checked again when
 * one of its partitions is appended to or gets a new leader, and answered with whatever there is
 * when {@code MaxWaitMs} runs out on the {@link Scheduler}. No fetch session is created: every
 * answer has SessionId 0, which tells a client the broker keeps none (KIP-227), so each Fetch is a
 * full one; a request naming a session is answered FETCH_SESSION_ID_NOT_FOUND, as from a broker
 * that has lost it. {@code LastFetchedEpoch} is not checked: no log is ever truncated, so no
 * reader's diverges.
 */
final class FetchHandler implements RequestHandler {

    /** FetchResponse v16 is the first to carry KIP-951's CurrentLeader and NodeEndpoints. */
    private static final short FIRST_HINTED_VERSION = 16;
    /** FetchRequest v13 names topics by id. */
    private static final short FIRST_TOPIC_ID_VERSION = 13;
    /** FetchRequest's IsolationLevel for read_committed. */
    private static final byte READ_COMMITTED = 1;

    private final ClusterState state;
    private final Scheduler scheduler;
    private final FetchWaiters waiters;

    FetchHandler(ClusterState state, Scheduler scheduler, FetchWaiters waiters) {
        this.state = state;
        this.scheduler = scheduler;
        this.waiters = waiters;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        FetchRequestData data = (FetchRequestData) request;
        if (data.sessionId() != 0) {
            return CompletableFuture.completedFuture(new FetchResponseData()
                .setErrorCode(ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code())
                .setSessionId(0));
        }
        WaitingFetch fetch = new WaitingFetch(context, data);
        // Waiting before the first read, so an append between the two is not missed.
        waiters.add(fetch.partitions, fetch);
        Read read = read(context, data);
        if (data.maxWaitMs() <= 0 || fetch.partitions.isEmpty() || read.canAnswer(data.minBytes())) {
            fetch.answer(read);
        } else {
            fetch.timeout = scheduler.schedule(fetch::expire, data.maxWaitMs());
        }
        return fetch.response;
    }

    /** A Fetch not answered yet: answered on a change that gives it enough, or when its wait runs out. */
    private final class WaitingFetch implements FetchWaiters.Waiter {
        final RequestContext context;
        final FetchRequestData request;
        final Set<TopicPartition> partitions = new LinkedHashSet<>();
        final CompletableFuture<ApiMessage> response = new CompletableFuture<>();
        /** Set by the one read that answers: the first read to find enough, or the wait running out. */
        final AtomicBoolean answered = new AtomicBoolean();
        volatile ScheduledFuture<?> timeout;

        WaitingFetch(RequestContext context, FetchRequestData request) {
            this.context = context;
            this.request = request;
            for (FetchTopic topic : request.topics()) {
                topicName(context, topic).ifPresent(name ->
                    topic.partitions().forEach(p -> partitions.add(new TopicPartition(name, p.partition()))));
            }
        }

        @Override
        public void recheck() {
            if (answered.get()) {
                return;
            }
            Read read = read(context, request);
            if (read.canAnswer(request.minBytes())) {
                answer(read);
            }
        }

        void expire() {
            if (!answered.get()) {
                answer(read(context, request));
            }
        }

        void answer(Read read) {
            if (answered.compareAndSet(false, true)) {
                // out of the registry before the answer leaves, so no one who has read it still sees it waiting
                waiters.remove(partitions, this);
                ScheduledFuture<?> pending = timeout;
                if (pending != null) {
                    pending.cancel(false);
                }
                response.complete(read.response());
            }
        }
    }

    /** One read of every partition of a Fetch: the response, its bytes of records, and whether any partition failed. */
    private record Read(FetchResponseData response, long bytes, boolean failed) {
        boolean canAnswer(int minBytes) {
            return failed || bytes >= minBytes;
        }
    }

    private Read read(RequestContext context, FetchRequestData request) {
        short version = context.version();
        boolean hints = version >= FIRST_HINTED_VERSION && state.hints();
        NodeEndpointCollection endpoints = new NodeEndpointCollection();
        List<FetchableTopicResponse> topics = new ArrayList<>();
        long bytesLeft = request.maxBytes();
        long bytes = 0;
        boolean failed = false;
        for (FetchTopic topic : request.topics()) {
            Optional<String> name = topicName(context, topic);
            FetchableTopicResponse topicResponse = new FetchableTopicResponse().setTopic(topic.topic()).setTopicId(topic.topicId());
            for (FetchPartition wanted : topic.partitions()) {
                ClusterState.FetchOutcome outcome = name.isEmpty()
                    ? ClusterState.FetchOutcome.refused(version >= FIRST_TOPIC_ID_VERSION
                        ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, Optional.empty())
                    : state.fetch(context.brokerId(), new TopicPartition(name.get(), wanted.partition()), wanted.currentLeaderEpoch(),
                        wanted.fetchOffset(), (int) Math.min(wanted.partitionMaxBytes(), bytesLeft), bytes == 0);
                int size = outcome.records().remaining();
                bytes += size;
                bytesLeft = Math.max(0, bytesLeft - size);
                failed |= outcome.error() != ErrorCode.NONE;
                boolean ok = outcome.error() == ErrorCode.NONE;
                PartitionData partition = new PartitionData()
                    .setPartitionIndex(wanted.partition())
                    .setErrorCode(outcome.error().code())
                    .setHighWatermark(outcome.highWatermark())
                    .setLastStableOffset(outcome.highWatermark())
                    .setLogStartOffset(ok ? 0 : -1)
                    .setAbortedTransactions(ok && request.isolationLevel() == READ_COMMITTED ? new ArrayList<>() : null)
                    .setPreferredReadReplica(-1)
                    .setRecords(size == 0 ? MemoryRecords.EMPTY : MemoryRecords.readableRecords(outcome.records()));
                if (hints && outcome.leader().isPresent()) {
                    ClusterState.PartitionView leader = outcome.leader().get();
                    partition.currentLeader().setLeaderId(leader.leader()).setLeaderEpoch(leader.leaderEpoch());
                    addEndpoint(endpoints, leader.leader());
                }
                topicResponse.partitions().add(partition);
            }
            topics.add(topicResponse);
        }
        FetchResponseData response = new FetchResponseData().setErrorCode(ErrorCode.NONE.code()).setSessionId(0).setResponses(topics);
        if (hints) {
            response.setNodeEndpoints(endpoints);
        }
        return new Read(response, bytes, failed);
    }

    /** The topic's name: as sent before v13, looked up by id from v13; empty for a topic that does not exist. */
    private Optional<String> topicName(RequestContext context, FetchTopic topic) {
        if (context.version() >= FIRST_TOPIC_ID_VERSION) {
            return state.topic(topic.topicId()).map(ClusterState.TopicView::name);
        }
        return state.topics(List.of(topic.topic())).get(0).partitions() == null ? Optional.empty() : Optional.of(topic.topic());
    }

    private void addEndpoint(NodeEndpointCollection endpoints, int brokerId) {
        if (endpoints.find(brokerId) != null) {
            return;
        }
        state.broker(brokerId).ifPresent(endpoint -> endpoints.add(new NodeEndpoint()
            .setNodeId(endpoint.brokerId())
            .setHost(endpoint.host())
            .setPort(endpoint.port())));
    }
}
