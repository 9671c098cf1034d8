package io.fastleader.clients.consumer.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ConsumerProtocolCodecTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final TopicPartition A2 = new TopicPartition("a", 2);
    private static final TopicPartition B0 = new TopicPartition("b", 0);
    private static final TopicPartition B1 = new TopicPartition("b", 1);

    /** Random payloads per oracle check: enough to meet every optional field set and unset, duplicates, empties. */
    private static final int RANDOM_PAYLOADS = 200;
    /** The consumer protocol versions kafka-clients 3.7 to 4.4 know. */
    private static final short HIGHEST_VERSION = 3;

    /** What a Subscription says, comparable (ByteBuffer equality is that of the bytes remaining). */
    record SubscriptionFields(List<String> topics, ByteBuffer userData, List<TopicPartition> owned,
                              Optional<Integer> generation, Optional<String> rack) {
        static SubscriptionFields of(Subscription subscription) {
            return new SubscriptionFields(subscription.topics(), subscription.userData(), subscription.ownedPartitions(),
                    subscription.generationId(), subscription.rackId());
        }
    }

    /** What an Assignment says, comparable. */
    record AssignmentFields(List<TopicPartition> partitions, ByteBuffer userData) {
        static AssignmentFields of(Assignment assignment) {
            return new AssignmentFields(assignment.partitions(), assignment.userData());
        }
    }

    @Test
    void protocolTypeIsKafkaConsumers() {
        assertThat(ConsumerProtocolCodec.PROTOCOL_TYPE).isEqualTo(ConsumerProtocol.PROTOCOL_TYPE);
    }

    @Test
    void roundTripsASubscriptionWithEveryField() {
        Subscription subscription = new Subscription(List.of("a", "b"), bytes("user"), List.of(A0, A1, B0), 7, Optional.of("rack-1"));

        Subscription read = ConsumerProtocolCodec.deserializeSubscription(ConsumerProtocolCodec.serializeSubscription(subscription));

        assertThat(SubscriptionFields.of(read)).isEqualTo(SubscriptionFields.of(subscription));
    }

    @Test
    void aSubscriptionWithoutUserDataOwnedPartitionsGenerationOrRackReadsBackWithout() {
        Subscription read = ConsumerProtocolCodec.deserializeSubscription(
                ConsumerProtocolCodec.serializeSubscription(new Subscription(List.of("a"))));

        assertThat(SubscriptionFields.of(read))
                .isEqualTo(new SubscriptionFields(List.of("a"), null, List.of(), Optional.empty(), Optional.empty()));
    }

    @Test
    void roundTripsAnAssignmentWithUserData() {
        Assignment assignment = new Assignment(List.of(A0, A1, B0), bytes("user"));

        Assignment read = ConsumerProtocolCodec.deserializeAssignment(ConsumerProtocolCodec.serializeAssignment(assignment));

        assertThat(AssignmentFields.of(read)).isEqualTo(AssignmentFields.of(assignment));
    }

    @Test
    void anAssignmentWithoutUserDataReadsBackWithout() {
        Assignment read = ConsumerProtocolCodec.deserializeAssignment(
                ConsumerProtocolCodec.serializeAssignment(new Assignment(List.of(A0))));

        assertThat(AssignmentFields.of(read)).isEqualTo(new AssignmentFields(List.of(A0), null));
    }

    @Test
    void writesTheSubscriptionAtVersion3AsKafkaConsumerSendsIt() {
        ByteBuffer written = ConsumerProtocolCodec.serializeSubscription(new Subscription(List.of("a")));

        assertThat(written.getShort(written.position())).isEqualTo(HIGHEST_VERSION);
    }

    @Test
    void writesTheAssignmentAtVersion3() {
        ByteBuffer written = ConsumerProtocolCodec.serializeAssignment(new Assignment(List.of(A0)));

        assertThat(written.getShort(written.position())).isEqualTo(HIGHEST_VERSION);
    }

    @Test
    void writesASubscriptionsTopicsAndOwnedPartitionsSorted() {
        Subscription subscription = new Subscription(List.of("b", "a"), null, List.of(B1, A1, B0, A0), 1, Optional.empty());

        Subscription read = ConsumerProtocolCodec.deserializeSubscription(ConsumerProtocolCodec.serializeSubscription(subscription));

        assertThat(read.topics()).containsExactly("a", "b");
        assertThat(read.ownedPartitions()).containsExactly(A0, A1, B0, B1);
    }

    @Test
    void groupsAssignedPartitionsByTopicInTheOrderTopicsFirstAppear() {
        Assignment assignment = new Assignment(List.of(B1, A2, B0, A0));

        Assignment read = ConsumerProtocolCodec.deserializeAssignment(ConsumerProtocolCodec.serializeAssignment(assignment));

        assertThat(read.partitions()).containsExactly(B1, B0, A2, A0);
    }

    @Test
    void keepsAPartitionListedTwice() {
        Assignment read = ConsumerProtocolCodec.deserializeAssignment(
                ConsumerProtocolCodec.serializeAssignment(new Assignment(List.of(A0, A0))));

        assertThat(read.partitions()).containsExactly(A0, A0);
    }

    @Test
    void writesUserDataFromItsPositionWithoutMovingIt() {
        ByteBuffer userData = bytes("--user");
        userData.position(2);

        Assignment read = ConsumerProtocolCodec.deserializeAssignment(
                ConsumerProtocolCodec.serializeAssignment(new Assignment(List.of(A0), userData)));

        assertThat(read.userData()).isEqualTo(bytes("user"));
        assertThat(userData.position()).isEqualTo(2);
    }

    @Test
    void readsASubscriptionOfANewerVersionAsItsOwn() {
        Subscription subscription = new Subscription(List.of("a"), bytes("user"), List.of(A0), 7, Optional.of("rack-1"));
        ByteBuffer newer = asNewerVersion(ConsumerProtocolCodec.serializeSubscription(subscription));

        Subscription read = ConsumerProtocolCodec.deserializeSubscription(newer);

        assertThat(SubscriptionFields.of(read)).isEqualTo(SubscriptionFields.of(subscription));
    }

    @Test
    void readsAnAssignmentOfANewerVersionAsItsOwn() {
        Assignment assignment = new Assignment(List.of(A0, B0), bytes("user"));
        ByteBuffer newer = asNewerVersion(ConsumerProtocolCodec.serializeAssignment(assignment));

        Assignment read = ConsumerProtocolCodec.deserializeAssignment(newer);

        assertThat(AssignmentFields.of(read)).isEqualTo(AssignmentFields.of(assignment));
    }

    @Test
    void readsASubscriptionFromTheBuffersPositionWithoutMovingIt() {
        ByteBuffer buffer = atPosition(3, ConsumerProtocolCodec.serializeSubscription(new Subscription(List.of("a"))));

        Subscription read = ConsumerProtocolCodec.deserializeSubscription(buffer);

        assertThat(read.topics()).containsExactly("a");
        assertThat(buffer.position()).isEqualTo(3);
    }

    @Test
    void readsAnAssignmentFromTheBuffersPositionWithoutMovingIt() {
        ByteBuffer buffer = atPosition(3, ConsumerProtocolCodec.serializeAssignment(new Assignment(List.of(A0))));

        Assignment read = ConsumerProtocolCodec.deserializeAssignment(buffer);

        assertThat(read.partitions()).containsExactly(A0);
        assertThat(buffer.position()).isEqualTo(3);
    }

    @Test
    void anEmptyRackIdReadsAsNone() {
        Subscription subscription = new Subscription(List.of("a"), null, List.of(), 1, Optional.of(""));

        Subscription read = ConsumerProtocolCodec.deserializeSubscription(ConsumerProtocolCodec.serializeSubscription(subscription));

        assertThat(read.rackId()).isEmpty();
    }

    @Test
    void anEmptyAssignmentBufferIsNoAssignment() {
        Assignment read = ConsumerProtocolCodec.deserializeAssignment(ByteBuffer.allocate(0));

        assertThat(AssignmentFields.of(read)).isEqualTo(new AssignmentFields(List.of(), null));
    }

    /**
     * Exactly KafkaException, not kafka-clients' SchemaException: fastleader's jar carries that one
     * relocated, so the application could not catch it by its own name.
     */
    @Test
    void anEmptySubscriptionBufferFailsWithKafkaExceptionNamingTheVersion() {
        assertThatThrownBy(() -> ConsumerProtocolCodec.deserializeSubscription(ByteBuffer.allocate(0)))
                .isExactlyInstanceOf(KafkaException.class)
                .hasMessage("Cannot read the version of a consumer protocol subscription: 0 byte(s), 2 needed");
    }

    @Test
    void aOneByteAssignmentFailsWithKafkaExceptionNamingTheVersion() {
        assertThatThrownBy(() -> ConsumerProtocolCodec.deserializeAssignment(ByteBuffer.allocate(1)))
                .isExactlyInstanceOf(KafkaException.class)
                .hasMessage("Cannot read the version of a consumer protocol assignment: 1 byte(s), 2 needed");
    }

    @Test
    void aNegativeVersionFailsWithKafkaException() {
        ByteBuffer negative = ByteBuffer.allocate(2).putShort(0, (short) -1);

        assertThatThrownBy(() -> ConsumerProtocolCodec.deserializeAssignment(negative))
                .isExactlyInstanceOf(KafkaException.class)
                .hasMessage("Cannot read a consumer protocol assignment of version -1: versions start at 0");
    }

    @Test
    void aTruncatedSubscriptionFailsWithKafkaExceptionSayingItEndsEarly() {
        ByteBuffer whole = ConsumerProtocolCodec.serializeSubscription(new Subscription(List.of("a", "b"), bytes("user"), List.of(A0), 1, Optional.empty()));
        ByteBuffer truncated = whole.slice(0, whole.remaining() - 3);

        assertThatThrownBy(() -> ConsumerProtocolCodec.deserializeSubscription(truncated))
                .isExactlyInstanceOf(KafkaException.class)
                .hasMessageStartingWith("Cannot read a consumer protocol subscription of version 3 (read as 3, ")
                .hasMessageEndingWith("its bytes end early");
    }

    @Test
    void aTruncatedAssignmentFailsWithKafkaExceptionSayingItEndsEarly() {
        ByteBuffer whole = ConsumerProtocolCodec.serializeAssignment(new Assignment(List.of(A0, A1)));
        ByteBuffer truncated = whole.slice(0, whole.remaining() - 5);

        assertThatThrownBy(() -> ConsumerProtocolCodec.deserializeAssignment(truncated))
                .isExactlyInstanceOf(KafkaException.class)
                .hasMessageEndingWith("its bytes end early");
    }

    @Test
    void userDataLongerThanTheBytesLeftFailsWithKafkaExceptionSayingItEndsEarly() {
        // Version 3, no partitions, user data claiming 20 bytes of which 4 follow.
        ByteBuffer bytes = ByteBuffer.allocate(14).putShort((short) 3).putInt(0).putInt(20).putInt(0).flip();

        assertThatThrownBy(() -> ConsumerProtocolCodec.deserializeAssignment(bytes))
                .isExactlyInstanceOf(KafkaException.class)
                .hasMessage("Cannot read a consumer protocol assignment of version 3 (read as 3, 14 bytes): its bytes end early");
    }

    @Test
    void aNullTopicListFailsWithKafkaExceptionNamingTheField() {
        ByteBuffer bytes = ByteBuffer.allocate(6).putShort((short) 3).putInt(-1).flip();

        assertThatThrownBy(() -> ConsumerProtocolCodec.deserializeSubscription(bytes))
                .isExactlyInstanceOf(KafkaException.class)
                .hasMessage("Cannot read a consumer protocol subscription of version 3 (read as 3, 6 bytes): "
                        + "non-nullable field topics was serialized as null");
    }

    @Test
    void writesTheSubscriptionBytesKafkaConsumerWrites() {
        Random random = new Random(1);
        for (int n = 0; n < RANDOM_PAYLOADS; n++) {
            Subscription subscription = randomSubscription(random);

            assertThat(ConsumerProtocolCodec.serializeSubscription(subscription))
                    .as("%s", subscription)
                    .isEqualTo(ConsumerProtocol.serializeSubscription(subscription));
        }
    }

    @Test
    void writesTheAssignmentBytesKafkaConsumerWrites() {
        Random random = new Random(2);
        for (int n = 0; n < RANDOM_PAYLOADS; n++) {
            Assignment assignment = randomAssignment(random);

            assertThat(ConsumerProtocolCodec.serializeAssignment(assignment))
                    .as("%s", assignment)
                    .isEqualTo(ConsumerProtocol.serializeAssignment(assignment));
        }
    }

    @Test
    void readsTheSubscriptionsKafkaWritesAtEveryVersionAsKafkaReadsThem() {
        Random random = new Random(3);
        for (short version = 0; version <= HIGHEST_VERSION; version++) {
            for (int n = 0; n < RANDOM_PAYLOADS; n++) {
                ByteBuffer written = ConsumerProtocol.serializeSubscription(randomSubscription(random), version);

                assertThat(SubscriptionFields.of(ConsumerProtocolCodec.deserializeSubscription(written)))
                        .as("v%d", version)
                        .isEqualTo(SubscriptionFields.of(ConsumerProtocol.deserializeSubscription(written.duplicate())));
            }
        }
    }

    @Test
    void readsTheAssignmentsKafkaWritesAtEveryVersionAsKafkaReadsThem() {
        Random random = new Random(4);
        for (short version = 0; version <= HIGHEST_VERSION; version++) {
            for (int n = 0; n < RANDOM_PAYLOADS; n++) {
                ByteBuffer written = ConsumerProtocol.serializeAssignment(randomAssignment(random), version);

                assertThat(AssignmentFields.of(ConsumerProtocolCodec.deserializeAssignment(written)))
                        .as("v%d", version)
                        .isEqualTo(AssignmentFields.of(ConsumerProtocol.deserializeAssignment(written.duplicate())));
            }
        }
    }

    private static Subscription randomSubscription(Random random) {
        List<String> topics = new ArrayList<>();
        for (int n = random.nextInt(4); n > 0; n--) {
            topics.add(randomTopic(random));
        }
        int generation = switch (random.nextInt(3)) {
            case 0 -> -1;
            case 1 -> random.nextInt(1000);
            default -> random.nextInt();
        };
        Optional<String> rack = switch (random.nextInt(3)) {
            case 0 -> Optional.empty();
            case 1 -> Optional.of("");
            default -> Optional.of("rack-" + random.nextInt(3));
        };
        return new Subscription(topics, randomUserData(random), randomPartitions(random), generation, rack);
    }

    private static Assignment randomAssignment(Random random) {
        return new Assignment(randomPartitions(random), randomUserData(random));
    }

    /** Up to six partitions of a few topics, in any order, a partition sometimes twice. */
    private static List<TopicPartition> randomPartitions(Random random) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (int n = random.nextInt(7); n > 0; n--) {
            partitions.add(new TopicPartition(randomTopic(random), random.nextInt(4)));
        }
        return partitions;
    }

    /** Few names, so topics repeat; one with multi-byte characters, so lengths are counted in bytes. */
    private static String randomTopic(Random random) {
        String[] names = {"a", "b", "orders", "Orders", "日志"};
        return names[random.nextInt(names.length)];
    }

    /** None, empty or random bytes, sometimes read from a position past the buffer's start. */
    private static ByteBuffer randomUserData(Random random) {
        return switch (random.nextInt(3)) {
            case 0 -> null;
            case 1 -> ByteBuffer.allocate(0);
            default -> {
                byte[] bytes = new byte[1 + random.nextInt(16)];
                random.nextBytes(bytes);
                yield ByteBuffer.wrap(bytes).position(random.nextInt(bytes.length));
            }
        };
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code payload} as a version-4 writer would send it: the version bumped, an appended field after. */
    private static ByteBuffer asNewerVersion(ByteBuffer payload) {
        ByteBuffer newer = ByteBuffer.allocate(payload.remaining() + Integer.BYTES).put(payload.duplicate()).putInt(42).flip();
        newer.putShort(0, (short) (HIGHEST_VERSION + 1));
        return newer;
    }

    /** {@code payload} after {@code offset} bytes of something else, the buffer positioned at the payload. */
    private static ByteBuffer atPosition(int offset, ByteBuffer payload) {
        ByteBuffer buffer = ByteBuffer.allocate(offset + payload.remaining());
        buffer.position(offset);
        buffer.put(payload.duplicate());
        return buffer.position(offset);
    }
}
