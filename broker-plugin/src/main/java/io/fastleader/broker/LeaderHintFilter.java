package io.fastleader.broker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.kroxylicious.proxy.filter.ApiVersionsResponseFilter;
import io.kroxylicious.proxy.filter.FetchRequestFilter;
import io.kroxylicious.proxy.filter.FetchResponseFilter;
import io.kroxylicious.proxy.filter.FilterContext;
import io.kroxylicious.proxy.filter.FilterDispatchExecutor;
import io.kroxylicious.proxy.filter.MetadataRequestFilter;
import io.kroxylicious.proxy.filter.MetadataResponseFilter;
import io.kroxylicious.proxy.filter.ProduceRequestFilter;
import io.kroxylicious.proxy.filter.ProduceResponseFilter;
import io.kroxylicious.proxy.filter.RequestFilterResult;
import io.kroxylicious.proxy.filter.ResponseFilterResult;

/**
 * One client connection's leader-hint filter.
 *
 * <p>Where the broker stops at Produce v9 / Fetch v15, it advertises v10 / v16 to the client,
 * forwards such requests relabelled v9 / v15 (their bodies are the same bytes) without waiting,
 * and remembers which ones it relabelled. When one of those comes back refusing partitions
 * because the broker is not (or no longer) their leader, it adds the KIP-951 hints that
 * {@link HintResolver} finds in the shared {@link MetadataView}, so the client gets the v10 /
 * v16 response a newer broker would have sent. Brokers that speak v10 / v16 themselves are left
 * alone.
 *
 * <p>Kroxylicious runs a connection's filter on one thread, so the per-connection state here
 * needs no locking; the shared view is thread-safe.
 */
final class LeaderHintFilter implements ApiVersionsResponseFilter, MetadataRequestFilter, MetadataResponseFilter,
    ProduceRequestFilter, ProduceResponseFilter, FetchRequestFilter, FetchResponseFilter {

    private static final Logger LOG = LoggerFactory.getLogger(LeaderHintFilter.class);

    private static final short PRODUCE_HINT_VERSION = HintFields.PRODUCE_HINT_VERSION;
    private static final short FETCH_HINT_VERSION = HintFields.FETCH_HINT_VERSION;
    private static final short UNKNOWN_VERSION = -1;
    /** The newest Metadata version the filter reads; asked for only up to the broker's maximum. */
    private static final short METADATA_VERSION = 12;
    private static final short API_VERSIONS_VERSION = 3;
    private static final String SOFTWARE_NAME = "fastleader-broker-plugin";

    /** A relabelled request in flight: when it left, and for Fetch the leader epochs the client sent. */
    private record Relabelled(long sentNanos, Map<TopicIdPartition, Integer> fetchEpochs) {
    }

    private record TopicIdPartition(Uuid topicId, int partition) {
    }

    /** One refused partition: the response part to hint, and what the client knew about it. */
    private record Refusal<P>(P part, Partition partition, int knownEpoch, int refusingNodeId) {
    }

    private final ClusterViews views;
    private final FilterDispatchExecutor dispatch;
    private final Duration refreshTimeout;
    private MetadataView view;
    private short brokerProduceMax = UNKNOWN_VERSION;
    private short brokerFetchMax = UNKNOWN_VERSION;
    private short brokerMetadataMax = UNKNOWN_VERSION;
    private boolean versionsKnown;
    /** The connection's {@code client.id}, from its latest request: Metadata responses carry none. */
    private String clientId = "";
    /** The out-of-band ApiVersions request for a client that skipped its own, once per connection. */
    private CompletionStage<Void> learningVersions;
    private final Map<Integer, Relabelled> relabelled = new HashMap<>();

    LeaderHintFilter(ClusterViews views, FilterDispatchExecutor dispatch) {
        this.views = views;
        this.dispatch = dispatch;
        this.refreshTimeout = views.config().refreshTimeout();
    }

    private MetadataView view(FilterContext context) {
        if (view == null) {
            view = views.view(context.getVirtualClusterName());
        }
        return view;
    }

    @Override
    public CompletionStage<ResponseFilterResult> onApiVersionsResponse(short apiVersion, ResponseHeaderData header,
                                                                       ApiVersionsResponseData response, FilterContext context) {
        learnVersions(response);
        raise(response, ApiKeys.PRODUCE, PRODUCE_HINT_VERSION);
        raise(response, ApiKeys.FETCH, FETCH_HINT_VERSION);
        return context.forwardResponse(header, response);
    }

    private void learnVersions(ApiVersionsResponseData response) {
        brokerProduceMax = maxVersion(response, ApiKeys.PRODUCE);
        brokerFetchMax = maxVersion(response, ApiKeys.FETCH);
        brokerMetadataMax = maxVersion(response, ApiKeys.METADATA);
        versionsKnown = true;
    }

    private static short maxVersion(ApiVersionsResponseData response, ApiKeys api) {
        ApiVersionsResponseData.ApiVersion version = response.apiKeys().find(api.id);
        return version == null ? UNKNOWN_VERSION : version.maxVersion();
    }

    /** Only a broker exactly one version short: older versions differ in more than the hint fields. */
    private static void raise(ApiVersionsResponseData response, ApiKeys api, short hintVersion) {
        ApiVersionsResponseData.ApiVersion version = response.apiKeys().find(api.id);
        if (version != null && version.maxVersion() == hintVersion - 1) {
            version.setMaxVersion(hintVersion);
        }
    }

    @Override
    public CompletionStage<RequestFilterResult> onMetadataRequest(short apiVersion, RequestHeaderData header,
                                                                  MetadataRequestData request, FilterContext context) {
        clientId = header.clientId();
        return context.forwardRequest(header, request);
    }

    @Override
    public CompletionStage<ResponseFilterResult> onMetadataResponse(short apiVersion, ResponseHeaderData header,
                                                                    MetadataResponseData response, FilterContext context) {
        view(context).recordServed(clientId, MetadataSnapshot.of(response));
        return context.forwardResponse(header, response);
    }

    @Override
    public boolean shouldHandleProduceRequest(short apiVersion) {
        return apiVersion >= PRODUCE_HINT_VERSION;
    }

    @Override
    public CompletionStage<RequestFilterResult> onProduceRequest(short apiVersion, RequestHeaderData header,
                                                                 ProduceRequestData request, FilterContext context) {
        // acks=0: the broker sends no response, so there is nothing to hint.
        return relabelAndForward(header, request, context, PRODUCE_HINT_VERSION,
            () -> brokerProduceMax == PRODUCE_HINT_VERSION - 1 && request.acks() != 0, Map::of);
    }

    @Override
    public boolean shouldHandleFetchRequest(short apiVersion) {
        return apiVersion >= FETCH_HINT_VERSION;
    }

    @Override
    public CompletionStage<RequestFilterResult> onFetchRequest(short apiVersion, RequestHeaderData header,
                                                               FetchRequestData request, FilterContext context) {
        return relabelAndForward(header, request, context, FETCH_HINT_VERSION, () -> brokerFetchMax == FETCH_HINT_VERSION - 1, () -> {
            Map<TopicIdPartition, Integer> epochs = new HashMap<>();
            request.topics().forEach(topic -> topic.partitions().forEach(partition ->
                epochs.put(new TopicIdPartition(topic.topicId(), partition.partition()), partition.currentLeaderEpoch())));
            return epochs;
        });
    }

    /**
     * Forwards a request, relabelled one version down and remembered if it is at the hinting
     * version and {@code relabel} says so once the broker's versions are known. Later versions
     * are not the same bytes as the broker's newest, so they pass as they are.
     *
     * @param fetchEpochs the leader epochs the request carries, by partition
     */
    private CompletionStage<RequestFilterResult> relabelAndForward(RequestHeaderData header, ApiMessage request, FilterContext context,
                                                                   short hintVersion, BooleanSupplier relabel,
                                                                   Supplier<Map<TopicIdPartition, Integer>> fetchEpochs) {
        clientId = header.clientId();
        return whenVersionsKnown(context, () -> {
            if (header.requestApiVersion() == hintVersion && relabel.getAsBoolean()) {
                header.setRequestApiVersion((short) (hintVersion - 1));
                relabelled.put(header.correlationId(), new Relabelled(view(context).nanoTime(), fetchEpochs.get()));
            }
            return context.forwardRequest(header, request);
        });
    }

    /**
     * Runs {@code forward} at once if the broker's versions are known, as they are whenever the
     * client sent ApiVersions first; otherwise after asking the broker out of band, once per
     * connection.
     */
    private CompletionStage<RequestFilterResult> whenVersionsKnown(FilterContext context,
                                                                   Supplier<CompletionStage<RequestFilterResult>> forward) {
        if (versionsKnown) {
            return forward.get();
        }
        if (learningVersions == null) {
            ApiVersionsRequestData request = new ApiVersionsRequestData()
                .setClientSoftwareName(SOFTWARE_NAME)
                .setClientSoftwareVersion(softwareVersion());
            learningVersions = context.<ApiVersionsResponseData>sendRequest(
                    new RequestHeaderData().setRequestApiVersion(API_VERSIONS_VERSION), request)
                .thenAccept(this::learnVersions)
                .exceptionally(failure -> {
                    // Then nothing is relabelled on this connection: the broker answers as it would without the proxy.
                    LOG.warn("{}: cannot learn the broker's API versions; requests pass unchanged", context.channelDescriptor(), failure);
                    return null;
                });
        }
        return learningVersions.thenCompose(learnt -> forward.get());
    }

    private static String softwareVersion() {
        String version = LeaderHintFilter.class.getPackage().getImplementationVersion();
        return version == null ? "dev" : version;
    }

    @Override
    public CompletionStage<ResponseFilterResult> onProduceResponse(short apiVersion, ResponseHeaderData header,
                                                                   ProduceResponseData response, FilterContext context) {
        Relabelled request = relabelled.remove(header.correlationId());
        if (request == null) {
            return context.forwardResponse(header, response);
        }
        MetadataView metadata = view(context);
        List<Refusal<ProduceResponseData.PartitionProduceResponse>> refusals = new ArrayList<>();
        for (ProduceResponseData.TopicProduceResponse topic : response.responses()) {
            for (ProduceResponseData.PartitionProduceResponse partition : topic.partitionResponses()) {
                if (partition.errorCode() == Errors.NOT_LEADER_OR_FOLLOWER.code()) {
                    refusals.add(refusal(partition, new Partition(topic.name(), partition.index()), HintResolver.UNKNOWN, metadata));
                }
            }
        }
        return forwardHinted(header, response, refusals, request.sentNanos(), context, hints -> HintFields.addToProduce(response, hints));
    }

    @Override
    public CompletionStage<ResponseFilterResult> onFetchResponse(short apiVersion, ResponseHeaderData header,
                                                                 FetchResponseData response, FilterContext context) {
        Relabelled request = relabelled.remove(header.correlationId());
        if (request == null) {
            return context.forwardResponse(header, response);
        }
        MetadataView metadata = view(context);
        List<Refusal<FetchResponseData.PartitionData>> refusals = new ArrayList<>();
        for (FetchResponseData.FetchableTopicResponse topic : response.responses()) {
            Optional<String> name = metadata.topicName(topic.topicId());
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                boolean refused = partition.errorCode() == Errors.NOT_LEADER_OR_FOLLOWER.code()
                    || partition.errorCode() == Errors.FENCED_LEADER_EPOCH.code();
                boolean alreadyHinted = partition.currentLeader().leaderId() >= 0 && partition.currentLeader().leaderEpoch() >= 0;
                if (refused && !alreadyHinted && name.isPresent()) {
                    int sentEpoch = request.fetchEpochs().getOrDefault(new TopicIdPartition(topic.topicId(), partition.partitionIndex()), HintResolver.UNKNOWN);
                    refusals.add(refusal(partition, new Partition(name.get(), partition.partitionIndex()), sentEpoch, metadata));
                }
            }
        }
        return forwardHinted(header, response, refusals, request.sentNanos(), context, hints -> HintFields.addToFetch(response, hints));
    }

    /** Forwards {@code response} once the hints for its refusals, if any, are written into it. */
    private <P> CompletionStage<ResponseFilterResult> forwardHinted(ResponseHeaderData header, ApiMessage response, List<Refusal<P>> refusals,
                                                                  long sentNanos, FilterContext context, Consumer<Map<P, LeaderHint>> writer) {
        if (refusals.isEmpty()) {
            return context.forwardResponse(header, response);
        }
        return resolve(refusals, sentNanos, context).thenCompose(hints -> {
            if (!hints.isEmpty()) {
                LOG.debug("{}: hinting {} of {} refused partitions", context.channelDescriptor(), hints.size(), refusals.size());
                writer.accept(hints);
            }
            return context.forwardResponse(header, response);
        });
    }

    /**
     * What the client knew: the epoch it sent (Fetch), or else the newest epoch Metadata through
     * this proxy told it; and so the broker that refused: the leader at that epoch, which is
     * where the client sent the partition.
     */
    private <P> Refusal<P> refusal(P part, Partition partition, int sentEpoch, MetadataView metadata) {
        int knownEpoch = sentEpoch >= 0
            ? sentEpoch
            : metadata.served(clientId, partition).map(PartitionLeader::leaderEpoch).orElse(HintResolver.UNKNOWN);
        int refusingNodeId = metadata.leaderAt(partition, knownEpoch).orElse(HintResolver.UNKNOWN);
        return new Refusal<>(part, partition, knownEpoch, refusingNodeId);
    }

    /**
     * The hints for {@code refusals}: straight from the view where it is fresh and has one;
     * after one shared refresh where the view has not caught up with the refusal; none where
     * even a view that has caught up has no hint that passes {@link HintResolver}.
     */
    private <P> CompletionStage<Map<P, LeaderHint>> resolve(List<Refusal<P>> refusals, long sentNanos, FilterContext context) {
        MetadataView metadata = view(context);
        Map<P, LeaderHint> hints = new HashMap<>();
        List<Refusal<P>> awaitingRefresh = new ArrayList<>();
        for (Refusal<P> refusal : refusals) {
            Optional<LeaderHint> hint = metadata.isFresh(refusal.partition()) ? hint(refusal, metadata) : Optional.empty();
            if (hint.isPresent()) {
                hints.put(refusal.part(), hint.get());
            } else if (!metadata.isCurrentFor(refusal.partition(), sentNanos)) {
                awaitingRefresh.add(refusal);
            }
        }
        if (awaitingRefresh.isEmpty()) {
            return CompletableFuture.completedFuture(hints);
        }
        Set<String> topics = awaitingRefresh.stream().map(refusal -> refusal.partition().topic()).collect(Collectors.toSet());
        // A copy: the timeout gives up this response's wait, not the refresh other connections share.
        CompletableFuture<Void> refreshed = metadata.refresh(topics, wanted -> requestMetadata(wanted, context))
            .toCompletableFuture().copy().orTimeout(refreshTimeout.toMillis(), TimeUnit.MILLISECONDS);
        return dispatch.completeOnFilterDispatchThread(refreshed).handle((done, failure) -> {
            if (failure != null) {
                LOG.debug("{}: no leader hints for {}: the Metadata refresh failed", context.channelDescriptor(), topics, failure);
            } else {
                awaitingRefresh.forEach(refusal -> hint(refusal, metadata).ifPresent(hint -> hints.put(refusal.part(), hint)));
            }
            return hints;
        });
    }

    private static Optional<LeaderHint> hint(Refusal<?> refusal, MetadataView metadata) {
        return HintResolver.resolve(refusal.partition(), refusal.knownEpoch(), refusal.refusingNodeId(), metadata);
    }

    private CompletionStage<MetadataSnapshot> requestMetadata(Set<String> topics, FilterContext context) {
        MetadataRequestData request = new MetadataRequestData().setAllowAutoTopicCreation(false);
        topics.forEach(topic -> request.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(topic)));
        short version = (short) Math.min(METADATA_VERSION, brokerMetadataMax);
        return context.<MetadataResponseData>sendRequest(new RequestHeaderData().setRequestApiVersion(version), request)
            .thenApply(MetadataSnapshot::of);
    }
}
