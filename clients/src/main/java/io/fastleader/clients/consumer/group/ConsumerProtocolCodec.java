package io.fastleader.clients.consumer.group;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.Readable;

import io.fastleader.protocol.message.ConsumerProtocolAssignment;
import io.fastleader.protocol.message.ConsumerProtocolSubscription;

/**
 * The classic group protocol's consumer payloads ("ConsumerProtocol"): the subscription a member
 * puts in JoinGroup's protocol metadata, and the assignment the leader hands it through SyncGroup.
 * Each is a big-endian int16 version followed by the struct at that version.
 *
 * <p>Bytes are written as {@code KafkaConsumer} writes them, at our newest version; any version is
 * read, a newer one as our newest (later versions may only append fields, so the bytes past ours
 * are skipped, as they are after any version's struct), as kafka-clients' {@code ConsumerProtocol}
 * does. Only kafka-clients' public API
 * types cross this class's edge. Bytes that cannot be read fail with a plain
 * {@link KafkaException}: kafka-clients throws its {@code SchemaException}, but that class is one
 * of the internals fastleader's jar carries relocated, so the application could not catch it by
 * its own name.
 */
final class ConsumerProtocolCodec {

    /** The protocol type of a consumer group's JoinGroup: "consumer". */
    static final String PROTOCOL_TYPE = "consumer";

    /** The generation a subscription carries when the member owns partitions of none. */
    private static final int NO_GENERATION = -1;

    private static final Comparator<TopicPartition> BY_TOPIC_THEN_PARTITION =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private ConsumerProtocolCodec() {
    }

    /**
     * The subscription at our newest version (3), the one {@code KafkaConsumer} sends. Topics and
     * owned partitions are written sorted, as {@code KafkaConsumer} writes them: the same
     * subscription always gives the same bytes, which the coordinator compares to decide whether
     * a rejoining member changed its metadata (a change costs the group a rebalance).
     */
    static ByteBuffer serializeSubscription(Subscription subscription) {
        List<String> topics = new ArrayList<>(subscription.topics());
        topics.sort(Comparator.naturalOrder());
        List<TopicPartition> owned = new ArrayList<>(subscription.ownedPartitions());
        owned.sort(BY_TOPIC_THEN_PARTITION);

        ConsumerProtocolSubscription data = new ConsumerProtocolSubscription()
                .setTopics(topics)
                .setUserData(view(subscription.userData()))
                .setGenerationId(subscription.generationId().orElse(NO_GENERATION))
                .setRackId(subscription.rackId().orElse(null));
        partitionsByTopic(owned).forEach((topic, partitions) -> data.ownedPartitions().add(
                new ConsumerProtocolSubscription.TopicPartition().setTopic(topic).setPartitions(partitions)));
        return MessageUtil.toVersionPrefixedByteBuffer(ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION, data);
    }

    /**
     * Reads a subscription of any version without moving {@code buffer}'s position. The user data
     * returned is a view of {@code buffer}'s bytes. An empty rack id reads as none, and a negative
     * generation as none (as {@code Subscription} itself takes it).
     *
     * @throws KafkaException if the bytes are not a subscription
     */
    static Subscription deserializeSubscription(ByteBuffer buffer) {
        ConsumerProtocolSubscription data = read(buffer, "subscription",
                ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION, ConsumerProtocolSubscription::new);
        List<TopicPartition> owned = new ArrayList<>();
        data.ownedPartitions().forEach(topic -> addAll(owned, topic.topic(), topic.partitions()));
        String rack = data.rackId();
        return new Subscription(
                data.topics(),
                view(data.userData()),
                owned,
                data.generationId(),
                rack == null || rack.isEmpty() ? Optional.empty() : Optional.of(rack));
    }

    /**
     * The assignment at our newest version (3), as {@code KafkaConsumer}'s leader sends it.
     * Partitions are grouped by topic in the order each topic first appears, and keep their order
     * within it.
     */
    static ByteBuffer serializeAssignment(Assignment assignment) {
        ConsumerProtocolAssignment data = new ConsumerProtocolAssignment().setUserData(view(assignment.userData()));
        partitionsByTopic(assignment.partitions()).forEach((topic, partitions) -> data.assignedPartitions().add(
                new ConsumerProtocolAssignment.TopicPartition().setTopic(topic).setPartitions(partitions)));
        return MessageUtil.toVersionPrefixedByteBuffer(ConsumerProtocolAssignment.HIGHEST_SUPPORTED_VERSION, data);
    }

    /**
     * Reads an assignment of any version without moving {@code buffer}'s position. The user data
     * returned is a view of {@code buffer}'s bytes.
     *
     * <p>No bytes at all is no assignment: what a classic coordinator gives a member the leader
     * left out of its SyncGroup. (kafka-clients' {@code ConsumerProtocol} cannot read it, and
     * {@code KafkaConsumer} refuses it with an {@code IllegalStateException} before trying; its
     * {@code Admin} describes such a member as holding no partitions, as this does.)
     *
     * @throws KafkaException if the bytes are neither empty nor an assignment
     */
    static Assignment deserializeAssignment(ByteBuffer buffer) {
        if (!buffer.hasRemaining()) {
            return new Assignment(List.of(), null);
        }
        ConsumerProtocolAssignment data = read(buffer, "assignment",
                ConsumerProtocolAssignment.HIGHEST_SUPPORTED_VERSION, ConsumerProtocolAssignment::new);
        List<TopicPartition> assigned = new ArrayList<>();
        data.assignedPartitions().forEach(topic -> addAll(assigned, topic.topic(), topic.partitions()));
        return new Assignment(assigned, view(data.userData()));
    }

    /**
     * Reads the version, then the struct at it (at {@code highestKnown} when newer), from a
     * duplicate of {@code buffer}. Anything the generated reader throws (the bytes ending early, a
     * null where none is allowed, an oversized length) means the bytes are malformed, and says so.
     */
    private static <T> T read(ByteBuffer buffer, String payload, short highestKnown, BiFunction<Readable, Short, T> reader) {
        ByteBuffer bytes = buffer.duplicate();
        if (bytes.remaining() < Short.BYTES) {
            throw new KafkaException("Cannot read the version of a consumer protocol " + payload + ": "
                    + bytes.remaining() + " byte(s), " + Short.BYTES + " needed");
        }
        short version = bytes.getShort();
        if (version < 0) {
            throw new KafkaException("Cannot read a consumer protocol " + payload + " of version " + version
                    + ": versions start at 0");
        }
        short readAs = (short) Math.min(version, highestKnown);
        try {
            return reader.apply(new ByteBufferAccessor(bytes), readAs);
        } catch (RuntimeException e) {
            // ByteBufferAccessor throws IllegalArgumentException when a byte field's length runs past the end.
            boolean endsEarly = e instanceof BufferUnderflowException || e instanceof IllegalArgumentException;
            String why = endsEarly ? "its bytes end early" : String.valueOf(e.getMessage());
            throw new KafkaException("Cannot read a consumer protocol " + payload + " of version " + version
                    + " (read as " + readAs + ", " + buffer.remaining() + " bytes): " + why, e);
        }
    }

    /** The partitions of each topic, topics in the order they first appear, partitions in theirs. */
    private static Map<String, List<Integer>> partitionsByTopic(List<TopicPartition> partitions) {
        Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
        for (TopicPartition partition : partitions) {
            byTopic.computeIfAbsent(partition.topic(), topic -> new ArrayList<>()).add(partition.partition());
        }
        return byTopic;
    }

    private static void addAll(List<TopicPartition> into, String topic, List<Integer> partitions) {
        partitions.forEach(partition -> into.add(new TopicPartition(topic, partition)));
    }

    /** A view of the caller's bytes with a position of its own, so reading or writing it moves neither's. */
    private static ByteBuffer view(ByteBuffer userData) {
        return userData == null ? null : userData.duplicate();
    }
}
