package io.fastleader.protocol;

import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.fastleader.protocol.message.AddOffsetsToTxnRequestData;
import io.fastleader.protocol.message.AddOffsetsToTxnResponseData;
import io.fastleader.protocol.message.AddPartitionsToTxnRequestData;
import io.fastleader.protocol.message.AddPartitionsToTxnResponseData;
import io.fastleader.protocol.message.AlterPartitionReassignmentsRequestData;
import io.fastleader.protocol.message.AlterPartitionReassignmentsResponseData;
import io.fastleader.protocol.message.ApiVersionsRequestData;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatRequestData;
import io.fastleader.protocol.message.ConsumerGroupHeartbeatResponseData;
import io.fastleader.protocol.message.CreateTopicsRequestData;
import io.fastleader.protocol.message.CreateTopicsResponseData;
import io.fastleader.protocol.message.DeleteTopicsRequestData;
import io.fastleader.protocol.message.DeleteTopicsResponseData;
import io.fastleader.protocol.message.DescribeConfigsRequestData;
import io.fastleader.protocol.message.DescribeConfigsResponseData;
import io.fastleader.protocol.message.ElectLeadersRequestData;
import io.fastleader.protocol.message.ElectLeadersResponseData;
import io.fastleader.protocol.message.EndTxnRequestData;
import io.fastleader.protocol.message.EndTxnResponseData;
import io.fastleader.protocol.message.FetchRequestData;
import io.fastleader.protocol.message.FetchResponseData;
import io.fastleader.protocol.message.FindCoordinatorRequestData;
import io.fastleader.protocol.message.FindCoordinatorResponseData;
import io.fastleader.protocol.message.GetTelemetrySubscriptionsRequestData;
import io.fastleader.protocol.message.GetTelemetrySubscriptionsResponseData;
import io.fastleader.protocol.message.HeartbeatRequestData;
import io.fastleader.protocol.message.HeartbeatResponseData;
import io.fastleader.protocol.message.InitProducerIdRequestData;
import io.fastleader.protocol.message.InitProducerIdResponseData;
import io.fastleader.protocol.message.JoinGroupRequestData;
import io.fastleader.protocol.message.JoinGroupResponseData;
import io.fastleader.protocol.message.LeaveGroupRequestData;
import io.fastleader.protocol.message.LeaveGroupResponseData;
import io.fastleader.protocol.message.ListOffsetsRequestData;
import io.fastleader.protocol.message.ListOffsetsResponseData;
import io.fastleader.protocol.message.ListPartitionReassignmentsRequestData;
import io.fastleader.protocol.message.ListPartitionReassignmentsResponseData;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.OffsetCommitRequestData;
import io.fastleader.protocol.message.OffsetCommitResponseData;
import io.fastleader.protocol.message.OffsetFetchRequestData;
import io.fastleader.protocol.message.OffsetFetchResponseData;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData;
import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceResponseData;
import io.fastleader.protocol.message.PushTelemetryRequestData;
import io.fastleader.protocol.message.PushTelemetryResponseData;
import io.fastleader.protocol.message.SaslAuthenticateRequestData;
import io.fastleader.protocol.message.SaslAuthenticateResponseData;
import io.fastleader.protocol.message.SaslHandshakeRequestData;
import io.fastleader.protocol.message.SaslHandshakeResponseData;
import io.fastleader.protocol.message.SyncGroupRequestData;
import io.fastleader.protocol.message.SyncGroupResponseData;
import io.fastleader.protocol.message.TxnOffsetCommitRequestData;
import io.fastleader.protocol.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * The APIs fastleader speaks, each with the version window of our schemas.
 *
 * <p>Key and window come from the generated messages, so they cannot drift from the schemas. The
 * first flexible version is stated here because generated code does not expose it; a test checks
 * it against the schema files. Header versions follow from flexibility, as on every Kafka broker.
 */
public enum ApiKey {
    PRODUCE(9, ProduceRequestData::new, ProduceResponseData::new),
    FETCH(12, FetchRequestData::new, FetchResponseData::new),
    LIST_OFFSETS(6, ListOffsetsRequestData::new, ListOffsetsResponseData::new),
    METADATA(9, MetadataRequestData::new, MetadataResponseData::new),
    OFFSET_COMMIT(8, OffsetCommitRequestData::new, OffsetCommitResponseData::new),
    OFFSET_FETCH(6, OffsetFetchRequestData::new, OffsetFetchResponseData::new),
    FIND_COORDINATOR(3, FindCoordinatorRequestData::new, FindCoordinatorResponseData::new),
    JOIN_GROUP(6, JoinGroupRequestData::new, JoinGroupResponseData::new),
    HEARTBEAT(4, HeartbeatRequestData::new, HeartbeatResponseData::new),
    LEAVE_GROUP(4, LeaveGroupRequestData::new, LeaveGroupResponseData::new),
    SYNC_GROUP(4, SyncGroupRequestData::new, SyncGroupResponseData::new),
    SASL_HANDSHAKE(ApiKey.NEVER_FLEXIBLE, SaslHandshakeRequestData::new, SaslHandshakeResponseData::new),
    API_VERSIONS(3, ApiVersionsRequestData::new, ApiVersionsResponseData::new),
    INIT_PRODUCER_ID(2, InitProducerIdRequestData::new, InitProducerIdResponseData::new),
    OFFSET_FOR_LEADER_EPOCH(4, OffsetForLeaderEpochRequestData::new, OffsetForLeaderEpochResponseData::new),
    ADD_PARTITIONS_TO_TXN(3, AddPartitionsToTxnRequestData::new, AddPartitionsToTxnResponseData::new),
    ADD_OFFSETS_TO_TXN(3, AddOffsetsToTxnRequestData::new, AddOffsetsToTxnResponseData::new),
    END_TXN(3, EndTxnRequestData::new, EndTxnResponseData::new),
    TXN_OFFSET_COMMIT(3, TxnOffsetCommitRequestData::new, TxnOffsetCommitResponseData::new),
    SASL_AUTHENTICATE(2, SaslAuthenticateRequestData::new, SaslAuthenticateResponseData::new),
    CONSUMER_GROUP_HEARTBEAT(0, ConsumerGroupHeartbeatRequestData::new, ConsumerGroupHeartbeatResponseData::new),
    GET_TELEMETRY_SUBSCRIPTIONS(0, GetTelemetrySubscriptionsRequestData::new, GetTelemetrySubscriptionsResponseData::new),
    PUSH_TELEMETRY(0, PushTelemetryRequestData::new, PushTelemetryResponseData::new),
    // Admin APIs: fastleader's clients never send them; the it module's simulated cluster serves
    // them to kafka-clients' Admin.
    CREATE_TOPICS(5, CreateTopicsRequestData::new, CreateTopicsResponseData::new),
    DELETE_TOPICS(4, DeleteTopicsRequestData::new, DeleteTopicsResponseData::new),
    DESCRIBE_CONFIGS(4, DescribeConfigsRequestData::new, DescribeConfigsResponseData::new),
    ELECT_LEADERS(2, ElectLeadersRequestData::new, ElectLeadersResponseData::new),
    ALTER_PARTITION_REASSIGNMENTS(0, AlterPartitionReassignmentsRequestData::new, AlterPartitionReassignmentsResponseData::new),
    LIST_PARTITION_REASSIGNMENTS(0, ListPartitionReassignmentsRequestData::new, ListPartitionReassignmentsResponseData::new);

    /** {@link #firstFlexibleVersion()} of an API that has no flexible version. */
    public static final short NEVER_FLEXIBLE = Short.MAX_VALUE;

    private static final Map<Short, ApiKey> BY_ID = Arrays.stream(values())
        .collect(Collectors.toUnmodifiableMap(ApiKey::id, Function.identity()));

    private final short id;
    private final String displayName;
    private final Class<? extends ApiMessage> requestType;
    private final short lowestVersion;
    private final short highestVersion;
    private final short firstFlexibleVersion;
    private final Supplier<ApiMessage> newRequest;
    private final Supplier<ApiMessage> newResponse;

    ApiKey(int firstFlexibleVersion, Supplier<ApiMessage> newRequest, Supplier<ApiMessage> newResponse) {
        ApiMessage request = newRequest.get();
        this.id = request.apiKey();
        this.displayName = request.getClass().getSimpleName().replace("RequestData", "");
        this.requestType = request.getClass();
        this.lowestVersion = request.lowestSupportedVersion();
        this.highestVersion = request.highestSupportedVersion();
        this.firstFlexibleVersion = (short) firstFlexibleVersion;
        this.newRequest = newRequest;
        this.newResponse = newResponse;
    }

    /** The API with this wire id, if we speak it. */
    public static Optional<ApiKey> forId(short id) {
        return Optional.ofNullable(BY_ID.get(id));
    }

    /** The id on the wire. */
    public short id() {
        return id;
    }

    /** The oldest version we speak. */
    public short lowestVersion() {
        return lowestVersion;
    }

    /** The newest version we speak. */
    public short highestVersion() {
        return highestVersion;
    }

    /** The first version with compact encodings and tagged fields, or {@link #NEVER_FLEXIBLE}. */
    public short firstFlexibleVersion() {
        return firstFlexibleVersion;
    }

    /** Whether {@code version} lies in our window. */
    public boolean isSupported(short version) {
        return version >= lowestVersion && version <= highestVersion;
    }

    /** Whether {@code version} uses compact encodings and tagged fields. */
    public boolean isFlexible(short version) {
        return version >= firstFlexibleVersion;
    }

    /** Version of the request header in front of a request body at {@code version}. */
    public short requestHeaderVersion(short version) {
        return (short) (isFlexible(version) ? 2 : 1);
    }

    /**
     * Version of the response header in front of a response body at {@code version}. ApiVersions
     * always answers with header v0 so that a client of any age can read it.
     */
    public short responseHeaderVersion(short version) {
        return (short) (isFlexible(version) && this != API_VERSIONS ? 1 : 0);
    }

    /** Whether {@code body} is a request of this API. */
    public boolean isRequest(ApiMessage body) {
        return requestType.isInstance(body);
    }

    /** A new, empty request body. */
    public ApiMessage newRequest() {
        return newRequest.get();
    }

    /** A new, empty response body. */
    public ApiMessage newResponse() {
        return newResponse.get();
    }

    /** The name Kafka's documentation uses, e.g. {@code OffsetForLeaderEpoch}. */
    public String displayName() {
        return displayName;
    }
}
