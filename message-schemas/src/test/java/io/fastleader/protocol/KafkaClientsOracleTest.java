package io.fastleader.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import io.fastleader.protocol.RandomMessageFiller.TaggedFields;
import io.fastleader.protocol.message.ConsumerProtocolAssignment;
import io.fastleader.protocol.message.ConsumerProtocolSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.message.MessageSpec;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * kafka-clients 4.3.1's generated messages are the oracle: for every schema of ours and every
 * version of its window, our classes and theirs must agree byte for byte, in both directions,
 * with tagged fields all present, all absent and a random mix. The consumer protocol payloads are
 * checked against kafka-clients' {@code ConsumerProtocol} too, version prefix and all, since that
 * is what a {@code KafkaConsumer} in the same group writes and reads.
 */
class KafkaClientsOracleTest {

    private static final int RANDOM_SEEDS_PER_VERSION = 4;

    /**
     * Versions newer than kafka-clients 4.3.1 speaks, by schema: the newest. Each is checked on its
     * own ({@code ApiVersionsV5Test}: the bytes field by field) and against real brokers of the
     * release that brought it (ApiVersions v5, KIP-1242: Kafka 4.4, {@code MisroutedConnectionOnRealBrokersTest}).
     */
    private static final Map<String, Short> NEWER_THAN_THE_ORACLE = Map.of("ApiVersionsRequest", (short) 5, "ApiVersionsResponse", (short) 5);

    /** The RPCs of the wire contract; each has a request and a response schema. */
    private static final List<String> RPCS = List.of(
        "ApiVersions", "Metadata", "Produce", "Fetch", "ListOffsets", "InitProducerId",
        "OffsetForLeaderEpoch", "FindCoordinator", "OffsetCommit", "OffsetFetch",
        "SaslHandshake", "SaslAuthenticate", "ConsumerGroupHeartbeat",
        "JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup",
        "AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn", "TxnOffsetCommit",
        "CreateTopics", "DeleteTopics", "DescribeConfigs", "AlterPartitionReassignments",
        "ListPartitionReassignments", "ElectLeaders", "GetTelemetrySubscriptions", "PushTelemetry");

    /** Kafka's consumer protocol payloads: not RPCs, but the bytes a consumer group's JoinGroup and SyncGroup carry. */
    private static final List<String> CONSUMER_PROTOCOL_PAYLOADS = List.of("ConsumerProtocolSubscription", "ConsumerProtocolAssignment");

    private static final Comparator<TopicPartition> BY_TOPIC_THEN_PARTITION =
        Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    /** Topic names for random payloads: few, so they repeat; one multi-byte, so lengths are counted in bytes. */
    private static final List<String> TOPICS = List.of("a", "b", "orders", "日志");

    record Case(MessageSpec spec, short version, TaggedFields tagged, long seed) {
        @Override
        public String toString() {
            return spec.name() + " v" + version + " tagged=" + tagged + (tagged == TaggedFields.RANDOM ? " seed=" + seed : "");
        }
    }

    /** Every version of every schema of ours. */
    static Stream<Arguments> cases() {
        return cases(false);
    }

    /** Every version of every schema of ours that kafka-clients 4.3.1 speaks too: all but {@link #NEWER_THAN_THE_ORACLE}'s. */
    static Stream<Arguments> oracleCases() {
        return cases(true);
    }

    private static Stream<Arguments> cases(boolean oracleSpeaksIt) {
        List<Arguments> cases = new ArrayList<>();
        for (MessageSpec spec : MessageSchemas.ours()) {
            short highest = oracleSpeaksIt ? MessageSchemas.kafkas(spec.name()).validVersions().highest() : spec.validVersions().highest();
            for (short v = spec.validVersions().lowest(); v <= Math.min(highest, spec.validVersions().highest()); v++) {
                cases.add(Arguments.of(new Case(spec, v, TaggedFields.ALL, v)));
                cases.add(Arguments.of(new Case(spec, v, TaggedFields.NONE, v)));
                for (int seed = 0; seed < RANDOM_SEEDS_PER_VERSION; seed++) {
                    cases.add(Arguments.of(new Case(spec, v, TaggedFields.RANDOM, 31L * v + seed)));
                }
            }
        }
        return cases.stream();
    }

    @Test
    void schemaFolderHoldsExactlyTheContractsMessages() {
        Set<String> expected = new TreeSet<>(Set.of("RequestHeader", "ResponseHeader"));
        RPCS.forEach(rpc -> {
            expected.add(rpc + "Request");
            expected.add(rpc + "Response");
        });
        expected.addAll(CONSUMER_PROTOCOL_PAYLOADS);
        Set<String> actual = new TreeSet<>();
        MessageSchemas.ours().forEach(spec -> actual.add(spec.name()));
        assertThat(actual).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ourSpecs")
    void everyWindowIsOneKafkaClientsAlsoSpeaks(MessageSpec ours) {
        MessageSpec kafkas = MessageSchemas.kafkas(ours.name());
        short newest = NEWER_THAN_THE_ORACLE.getOrDefault(ours.name(), kafkas.validVersions().highest());
        assertThat(ours.validVersions().lowest() >= kafkas.validVersions().lowest() && ours.validVersions().highest() <= newest)
            .as("%s window %s inside kafka-clients' %s, up to v%s", ours.name(), ours.validVersions(), kafkas.validVersions(), newest)
            .isTrue();
        assertThat(ours.flexibleVersions()).isEqualTo(kafkas.flexibleVersions());
        assertThat(ours.apiKey()).isEqualTo(kafkas.apiKey());
    }

    static Stream<Named<MessageSpec>> ourSpecs() {
        return MessageSchemas.ours().stream().map(spec -> Named.of(spec.name(), spec));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("oracleCases")
    void writesTheSameBytesAsKafkaClientsFromTheSameValues(Case c) {
        Message ours = newMessage(MessageSchemas.ourClass(c.spec));
        Message kafkas = newMessage(MessageSchemas.kafkaClass(c.spec));
        filler(c.spec, c).fill(List.of(ours, kafkas));

        assertThat(bytes(ours, c.version)).isEqualTo(bytes(kafkas, c.version));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("oracleCases")
    void kafkaClientsReadsOurBytesBackUnchanged(Case c) {
        assertReaderWritesBackTheWritersBytes(c, c.spec, MessageSchemas.ourClass(c.spec), MessageSchemas.kafkaClass(c.spec));
    }

    /** kafka-clients fills every field of its own schema, including any we chose not to model. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("oracleCases")
    void readsKafkaClientsBytesBackUnchanged(Case c) {
        MessageSpec kafkaSpec = MessageSchemas.kafkas(c.spec.name());
        assertReaderWritesBackTheWritersBytes(c, kafkaSpec, MessageSchemas.kafkaClass(c.spec), MessageSchemas.ourClass(c.spec));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void roundTripsToAnEqualMessage(Case c) {
        Message original = newMessage(MessageSchemas.ourClass(c.spec));
        filler(c.spec, c).fill(List.of(original));

        Message decoded = read(original.getClass(), bytes(original, c.version), c.version);

        assertThat(decoded).isEqualTo(original);
    }

    record PayloadCase(short version, long seed) {
        @Override
        public String toString() {
            return "v" + version + " seed=" + seed;
        }
    }

    /** Every consumer protocol version, each with a few random payloads. */
    static Stream<PayloadCase> payloadCases() {
        return IntStream.rangeClosed(ConsumerProtocolSubscription.LOWEST_SUPPORTED_VERSION, ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION)
            .boxed()
            .flatMap(v -> IntStream.range(0, RANDOM_SEEDS_PER_VERSION).mapToObj(seed -> new PayloadCase(v.shortValue(), 31L * v + seed)));
    }

    /** ConsumerProtocol writes topics and owned partitions sorted, and only the fields the version has. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("payloadCases")
    void readsTheSubscriptionsKafkaConsumerProtocolWrites(PayloadCase c) {
        Subscription subscription = randomSubscription(new Random(c.seed));
        ByteBuffer written = ConsumerProtocol.serializeSubscription(subscription, c.version);

        assertThat(written.getShort()).isEqualTo(c.version);
        ConsumerProtocolSubscription ours = (ConsumerProtocolSubscription) read(ConsumerProtocolSubscription.class, MessageUtil.byteBufferToArray(written), c.version);

        assertThat(ours.topics()).isEqualTo(subscription.topics().stream().sorted().toList());
        assertThat(ours.userData()).isEqualTo(subscription.userData());
        assertThat(subscriptionPartitions(ours)).isEqualTo(c.version >= 1
            ? subscription.ownedPartitions().stream().sorted(BY_TOPIC_THEN_PARTITION).toList()
            : List.of());
        assertThat(ours.generationId()).isEqualTo(c.version >= 2 ? subscription.generationId().orElse(-1) : -1);
        assertThat(ours.rackId()).isEqualTo(c.version >= 3 ? subscription.rackId().orElse(null) : null);
    }

    /** ConsumerProtocol reads no rack from an empty one, and Subscription keeps no negative generation. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("payloadCases")
    void kafkaConsumerProtocolReadsOurSubscriptions(PayloadCase c) {
        ConsumerProtocolSubscription ours = new ConsumerProtocolSubscription();
        payloadFiller(ConsumerProtocolSubscription.class, c).fill(List.of(ours));

        Subscription read = ConsumerProtocol.deserializeSubscription(MessageUtil.toVersionPrefixedByteBuffer(c.version, ours));

        assertThat(read.topics()).isEqualTo(ours.topics());
        assertThat(read.userData()).isEqualTo(ours.userData());
        assertThat(read.ownedPartitions()).isEqualTo(subscriptionPartitions(ours));
        assertThat(read.generationId()).isEqualTo(ours.generationId() < 0 ? Optional.empty() : Optional.of(ours.generationId()));
        assertThat(read.rackId()).isEqualTo(Optional.ofNullable(ours.rackId()).filter(rack -> !rack.isEmpty()));
    }

    /** ConsumerProtocol groups partitions by topic in the order each topic first appears. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("payloadCases")
    void readsTheAssignmentsKafkaConsumerProtocolWrites(PayloadCase c) {
        Assignment assignment = randomAssignment(new Random(c.seed));
        ByteBuffer written = ConsumerProtocol.serializeAssignment(assignment, c.version);

        assertThat(written.getShort()).isEqualTo(c.version);
        ConsumerProtocolAssignment ours = (ConsumerProtocolAssignment) read(ConsumerProtocolAssignment.class, MessageUtil.byteBufferToArray(written), c.version);

        assertThat(assignmentPartitions(ours)).isEqualTo(groupedByTopic(assignment.partitions()));
        assertThat(ours.userData()).isEqualTo(assignment.userData());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("payloadCases")
    void kafkaConsumerProtocolReadsOurAssignments(PayloadCase c) {
        ConsumerProtocolAssignment ours = new ConsumerProtocolAssignment();
        payloadFiller(ConsumerProtocolAssignment.class, c).fill(List.of(ours));

        Assignment read = ConsumerProtocol.deserializeAssignment(MessageUtil.toVersionPrefixedByteBuffer(c.version, ours));

        assertThat(read.partitions()).isEqualTo(assignmentPartitions(ours));
        assertThat(read.userData()).isEqualTo(ours.userData());
    }

    private static Subscription randomSubscription(Random random) {
        List<String> topics = IntStream.range(0, random.nextInt(4)).mapToObj(n -> TOPICS.get(random.nextInt(TOPICS.size()))).toList();
        int generation = random.nextBoolean() ? -1 : random.nextInt(1000);
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

    /** Up to six partitions, in any order, a partition sometimes twice. */
    private static List<TopicPartition> randomPartitions(Random random) {
        return IntStream.range(0, random.nextInt(7))
            .mapToObj(n -> new TopicPartition(TOPICS.get(random.nextInt(TOPICS.size())), random.nextInt(4)))
            .toList();
    }

    private static ByteBuffer randomUserData(Random random) {
        if (random.nextInt(3) == 0) {
            return null;
        }
        byte[] bytes = new byte[random.nextInt(16)];
        random.nextBytes(bytes);
        return ByteBuffer.wrap(bytes);
    }

    private static RandomMessageFiller payloadFiller(Class<?> payload, PayloadCase c) {
        MessageSpec spec = MessageSchemas.ours().stream()
            .filter(s -> s.name().equals(payload.getSimpleName()))
            .findFirst()
            .orElseThrow();
        return new RandomMessageFiller(spec, c.version, TaggedFields.NONE, c.seed);
    }

    /** The partitions of each topic, topics in the order they first appear. */
    private static List<TopicPartition> groupedByTopic(List<TopicPartition> partitions) {
        List<String> topics = partitions.stream().map(TopicPartition::topic).distinct().toList();
        return topics.stream().flatMap(topic -> partitions.stream().filter(p -> p.topic().equals(topic))).toList();
    }

    private static List<TopicPartition> subscriptionPartitions(ConsumerProtocolSubscription subscription) {
        return flatten(subscription.ownedPartitions(), ConsumerProtocolSubscription.TopicPartition::topic,
            ConsumerProtocolSubscription.TopicPartition::partitions);
    }

    private static List<TopicPartition> assignmentPartitions(ConsumerProtocolAssignment assignment) {
        return flatten(assignment.assignedPartitions(), ConsumerProtocolAssignment.TopicPartition::topic,
            ConsumerProtocolAssignment.TopicPartition::partitions);
    }

    private static <T> List<TopicPartition> flatten(Iterable<T> byTopic, Function<T, String> topic, Function<T, List<Integer>> partitions) {
        List<TopicPartition> flat = new ArrayList<>();
        byTopic.forEach(group -> partitions.apply(group).forEach(p -> flat.add(new TopicPartition(topic.apply(group), p))));
        return flat;
    }

    /** Fills a {@code writer} from {@code fillFrom}; {@code reader} must decode its bytes and write them back as they were. */
    private static void assertReaderWritesBackTheWritersBytes(Case c, MessageSpec fillFrom, Class<?> writer, Class<?> reader) {
        Message written = newMessage(writer);
        filler(fillFrom, c).fill(List.of(written));
        byte[] bytes = bytes(written, c.version);

        Message read = read(reader, bytes, c.version);

        assertThat(bytes(read, c.version)).isEqualTo(bytes);
    }

    private static RandomMessageFiller filler(MessageSpec spec, Case c) {
        return new RandomMessageFiller(spec, c.version, c.tagged, c.seed);
    }

    private static Message newMessage(Class<?> type) {
        try {
            return (Message) type.getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Decodes with the generated constructor and checks nothing was left unread. */
    private static Message read(Class<?> type, byte[] bytes, short version) {
        ByteBufferAccessor accessor = new ByteBufferAccessor(ByteBuffer.wrap(bytes));
        try {
            Message message = (Message) type.getConstructor(Readable.class, short.class).newInstance(accessor, version);
            assertThat(accessor.remaining()).as("bytes left unread by %s", type.getName()).isZero();
            return message;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot decode " + type.getName() + " v" + version, e);
        }
    }

    private static byte[] bytes(Message message, short version) {
        return MessageUtil.byteBufferToArray(MessageUtil.toByteBufferAccessor(message, version).buffer());
    }
}
