package io.fastleader.it.sim;

import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.Framing;
import io.fastleader.protocol.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;

/**
 * Decodes a request frame (header and body, by the API key and version at its head), hands it to
 * the handler of its API and encodes the answer. One dispatcher serves every broker of a cluster.
 * An API the simulation does not serve, or a version outside message-schemas' window, is a
 * {@link ProtocolViolation} and the connection is closed (a broker would answer
 * UNSUPPORTED_VERSION; the clients never send what ApiVersions did not advertise), but for an
 * ApiVersions request above the window, answered at v0 with UNSUPPORTED_VERSION and the
 * versions served, as a broker does, so the client can retry at a version it shares. Each request
 * decoded is added to the {@link RequestLog} and served through the {@link Faults} commanded.
 */
final class RequestDispatcher {

    private final Map<ApiKey, RequestHandler> handlers = new EnumMap<>(ApiKey.class);
    private final ApiVersionsHandler apiVersions;
    private final FetchWaiters fetchWaiters;
    private final GroupCoordinator groups;
    private final Map<ApiKey, LongAdder> served = new ConcurrentHashMap<>();
    private final Faults faults;
    private final RequestLog requestLog;

    RequestDispatcher(ClusterState state, Scheduler scheduler, Faults faults, RequestLog requestLog) {
        this.faults = faults;
        this.requestLog = requestLog;
        handlers.put(ApiKey.METADATA, new MetadataHandler(state));
        handlers.put(ApiKey.PRODUCE, new ProduceHandler(state));
        handlers.put(ApiKey.INIT_PRODUCER_ID, new InitProducerIdHandler(state));
        fetchWaiters = new FetchWaiters(scheduler);
        state.onPartitionChange(fetchWaiters::changed);
        handlers.put(ApiKey.FETCH, new FetchHandler(state, scheduler, fetchWaiters));
        handlers.put(ApiKey.LIST_OFFSETS, new ListOffsetsHandler(state));
        handlers.put(ApiKey.OFFSET_FOR_LEADER_EPOCH, new OffsetForLeaderEpochHandler(state));
        handlers.put(ApiKey.CREATE_TOPICS, new CreateTopicsHandler(state));
        handlers.put(ApiKey.DELETE_TOPICS, new DeleteTopicsHandler(state));
        handlers.put(ApiKey.DESCRIBE_CONFIGS, new DescribeConfigsHandler(state));
        handlers.put(ApiKey.ALTER_PARTITION_REASSIGNMENTS, new AlterPartitionReassignmentsHandler(state));
        handlers.put(ApiKey.LIST_PARTITION_REASSIGNMENTS, new ListPartitionReassignmentsHandler());
        handlers.put(ApiKey.ELECT_LEADERS, new ElectLeadersHandler(state));
        groups = new GroupCoordinator(state, scheduler);
        handlers.put(ApiKey.FIND_COORDINATOR, new FindCoordinatorHandler(state, groups));
        handlers.put(ApiKey.OFFSET_COMMIT, new OffsetCommitHandler(groups));
        handlers.put(ApiKey.OFFSET_FETCH, new OffsetFetchHandler(groups));
        handlers.put(ApiKey.JOIN_GROUP, new JoinGroupHandler(groups));
        handlers.put(ApiKey.SYNC_GROUP, new SyncGroupHandler(groups));
        handlers.put(ApiKey.HEARTBEAT, new HeartbeatHandler(groups));
        handlers.put(ApiKey.LEAVE_GROUP, new LeaveGroupHandler(groups));
        handlers.put(ApiKey.CONSUMER_GROUP_HEARTBEAT, new ConsumerGroupHeartbeatHandler(groups));
        apiVersions = new ApiVersionsHandler(java.util.EnumSet.of(ApiKey.API_VERSIONS, handlers.keySet().toArray(ApiKey[]::new)));
        handlers.put(ApiKey.API_VERSIONS, apiVersions);
    }

    /**
     * Serves one request frame (the bytes after its size prefix) that reached broker
     * {@code brokerId}.
     *
     * @return the response frame, size prefix included, or {@code null} when none is due; the
     *         stage completes later for a request that waits (see {@link RequestHandler}), and
     *         fails with a {@link ProtocolViolation} if the request cannot be served
     * @throws ProtocolViolation if the request cannot be decoded; the connection must close
     */
    CompletionStage<ByteBuffer> dispatch(int brokerId, ByteBuffer frame) {
        if (frame.remaining() < 8) {
            throw new ProtocolViolation("a request frame of " + frame.remaining() + " bytes");
        }
        short apiId = frame.getShort(frame.position());
        short version = frame.getShort(frame.position() + 2);
        ApiKey api = ApiKey.forId(apiId).filter(handlers::containsKey)
            .orElseThrow(() -> new ProtocolViolation("API key " + apiId + " is not simulated"));
        ByteBufferAccessor in = new ByteBufferAccessor(frame.duplicate());
        if (!api.isSupported(version)) {
            if (api == ApiKey.API_VERSIONS && version > api.highestVersion()) {
                RequestHeaderData header = new RequestHeaderData(in, (short) 2);
                count(api);
                requestLog.add(new LoggedRequest(brokerId, api, version, header.clientId(), header.correlationId(), Set.of()));
                return CompletableFuture.completedFuture(Framing.encodeResponse(api, (short) 0, header.correlationId(),
                    apiVersions.response(ErrorCode.UNSUPPORTED_VERSION)));
            }
            throw new ProtocolViolation(api.displayName() + " v" + version + " is outside the window v"
                + api.lowestVersion() + "-v" + api.highestVersion());
        }
        RequestHeaderData header;
        ApiMessage request = api.newRequest();
        try {
            header = new RequestHeaderData(in, api.requestHeaderVersion(version));
            request.read(in, version);
        } catch (RuntimeException e) {
            throw new ProtocolViolation("malformed " + api.displayName() + " v" + version + " request: " + e.getMessage(), e);
        }
        count(api);
        RequestContext context = new RequestContext(brokerId, api, version, header.correlationId(), header.clientId());
        // faults apply here, between the decoding and the handler, and nowhere else
        Faults.Plan plan = faults.plan(context);
        requestLog.add(new LoggedRequest(brokerId, api, version, header.clientId(), header.correlationId(), plan.applied()));
        return plan.serve(request, handlers.get(api)).thenApply(response ->
            response == null ? null : Framing.encodeResponse(api, version, header.correlationId(), response));
    }

    /** The cluster's group coordination, for {@link SimulatedCluster}'s group commands. */
    GroupCoordinator groups() {
        return groups;
    }

    /** Requests of {@code api} served so far, by every broker. */
    long served(ApiKey api) {
        LongAdder count = served.get(api);
        return count == null ? 0 : count.sum();
    }

    /** Fetches waiting for records now, by every broker. */
    int fetchesWaiting() {
        return fetchWaiters.waiting();
    }

    private void count(ApiKey api) {
        served.computeIfAbsent(api, k -> new LongAdder()).increment();
    }

    /** A request the simulation cannot serve: the connection it came on is closed. */
    static final class ProtocolViolation extends RuntimeException {
        ProtocolViolation(String message) {
            super(message);
        }

        ProtocolViolation(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Not a fault of the request: the broker closes its connection on purpose, as Kafka's does after
     * refusing a Produce sent with {@code acks=0}, the one way such a client learns of the refusal.
     */
    static final class ConnectionClosedByBroker extends RuntimeException {
        ConnectionClosedByBroker(String reason) {
            super(reason);
        }
    }
}
