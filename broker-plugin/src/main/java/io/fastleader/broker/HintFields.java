package io.fastleader.broker;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.utils.ByteUtils;

/**
 * Writes KIP-951 hints into responses that a pre-3.7 broker sent at the version before hints
 * (Produce v9, Fetch v15), so that the bytes the client receives are the response at the hinting
 * version (Produce v10, Fetch v16).
 *
 * <p>The proxy re-encodes a response at the version the broker answered, so fields that exist
 * only from the hinting version on cannot be set as fields; they go in as raw tagged fields with
 * the tag and bytes the newer version defines. Produce v9 and v10 responses differ only in those
 * tagged fields, as do Fetch v15 and v16, so the result is byte for byte the newer version.
 */
final class HintFields {

    /** {@code CurrentLeader} in a ProduceResponse partition, and {@code NodeEndpoints} in both responses. */
    private static final int TAG = 0;
    /** The first Produce version whose responses carry hints; its requests are v9's bytes. */
    static final short PRODUCE_HINT_VERSION = 10;
    /** The first Fetch version whose responses carry {@code NodeEndpoints}; its requests are v15's bytes. */
    static final short FETCH_HINT_VERSION = 16;

    private HintFields() {
    }

    /**
     * Adds {@code CurrentLeader} to each hinted partition and one {@code NodeEndpoints} entry per
     * hinted leader to a Produce v9 response.
     */
    static void addToProduce(ProduceResponseData response, Map<ProduceResponseData.PartitionProduceResponse, LeaderHint> hints) {
        hints.forEach((partition, hint) -> partition.unknownTaggedFields().add(new RawTaggedField(TAG, serialize(
            new ProduceResponseData.LeaderIdAndEpoch()
                .setLeaderId(hint.leader().leaderId())
                .setLeaderEpoch(hint.leader().leaderEpoch()),
            PRODUCE_HINT_VERSION))));
        List<ProduceResponseData.NodeEndpoint> endpoints = distinctEndpoints(hints.values()).stream()
            .map(endpoint -> new ProduceResponseData.NodeEndpoint()
                .setNodeId(endpoint.nodeId())
                .setHost(endpoint.host())
                .setPort(endpoint.port())
                .setRack(endpoint.rack()))
            .toList();
        response.unknownTaggedFields().add(new RawTaggedField(TAG, serializeArray(endpoints, PRODUCE_HINT_VERSION)));
    }

    /**
     * Sets {@code CurrentLeader} (a Fetch field since v12) on each hinted partition and adds one
     * {@code NodeEndpoints} entry per hinted leader to a Fetch v15 response.
     */
    static void addToFetch(FetchResponseData response, Map<FetchResponseData.PartitionData, LeaderHint> hints) {
        hints.forEach((partition, hint) -> partition.setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch()
            .setLeaderId(hint.leader().leaderId())
            .setLeaderEpoch(hint.leader().leaderEpoch())));
        List<FetchResponseData.NodeEndpoint> endpoints = distinctEndpoints(hints.values()).stream()
            .map(endpoint -> new FetchResponseData.NodeEndpoint()
                .setNodeId(endpoint.nodeId())
                .setHost(endpoint.host())
                .setPort(endpoint.port())
                .setRack(endpoint.rack()))
            .toList();
        response.unknownTaggedFields().add(new RawTaggedField(TAG, serializeArray(endpoints, FETCH_HINT_VERSION)));
    }

    private static Collection<Endpoint> distinctEndpoints(Collection<LeaderHint> hints) {
        Map<Integer, Endpoint> byNode = new TreeMap<>();
        hints.forEach(hint -> byNode.put(hint.endpoint().nodeId(), hint.endpoint()));
        return byNode.values();
    }

    private static byte[] serialize(Message message, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buffer = ByteBuffer.allocate(message.size(cache, version));
        message.write(new ByteBufferAccessor(buffer), cache, version);
        return buffer.array();
    }

    /** A compact array, as a flexible version encodes an array field: length + 1 as an unsigned varint, then the elements. */
    private static byte[] serializeArray(List<? extends Message> elements, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = ByteUtils.sizeOfUnsignedVarint(elements.size() + 1);
        for (Message element : elements) {
            size += element.size(cache, version);
        }
        ByteBuffer buffer = ByteBuffer.allocate(size);
        ByteUtils.writeUnsignedVarint(elements.size() + 1, buffer);
        ByteBufferAccessor out = new ByteBufferAccessor(buffer);
        for (Message element : elements) {
            element.write(out, cache, version);
        }
        return buffer.array();
    }
}
