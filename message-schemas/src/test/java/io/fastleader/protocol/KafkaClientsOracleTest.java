package io.fastleader.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import io.fastleader.protocol.RandomMessageFiller.TaggedFields;
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
 * with tagged fields all present, all absent and a random mix.
 */
class KafkaClientsOracleTest {

    private static final int RANDOM_SEEDS_PER_VERSION = 4;

    /** The RPCs of the wire contract; each has a request and a response schema. */
    private static final List<String> RPCS = List.of(
        "ApiVersions", "Metadata", "Produce", "Fetch", "ListOffsets", "InitProducerId",
        "OffsetForLeaderEpoch", "FindCoordinator", "OffsetCommit", "OffsetFetch",
        "SaslHandshake", "SaslAuthenticate", "ConsumerGroupHeartbeat",
        "JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup");

    record Case(MessageSpec spec, short version, TaggedFields tagged, long seed) {
        @Override
        public String toString() {
            return spec.name() + " v" + version + " tagged=" + tagged + (tagged == TaggedFields.RANDOM ? " seed=" + seed : "");
        }
    }

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (MessageSpec spec : MessageSchemas.ours()) {
            for (short v = spec.validVersions().lowest(); v <= spec.validVersions().highest(); v++) {
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
        Set<String> actual = new TreeSet<>();
        MessageSchemas.ours().forEach(spec -> actual.add(spec.name()));
        assertThat(actual).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ourSpecs")
    void everyWindowIsOneKafkaClientsAlsoSpeaks(MessageSpec ours) {
        MessageSpec kafkas = MessageSchemas.kafkas(ours.name());
        assertThat(kafkas.validVersions().contains(ours.validVersions()))
            .as("%s window %s inside kafka-clients' %s", ours.name(), ours.validVersions(), kafkas.validVersions())
            .isTrue();
        assertThat(ours.flexibleVersions()).isEqualTo(kafkas.flexibleVersions());
        assertThat(ours.apiKey()).isEqualTo(kafkas.apiKey());
    }

    static Stream<Named<MessageSpec>> ourSpecs() {
        return MessageSchemas.ours().stream().map(spec -> Named.of(spec.name(), spec));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void writesTheSameBytesAsKafkaClientsFromTheSameValues(Case c) {
        Message ours = newMessage(MessageSchemas.ourClass(c.spec));
        Message kafkas = newMessage(MessageSchemas.kafkaClass(c.spec));
        filler(c.spec, c).fill(List.of(ours, kafkas));

        assertThat(bytes(ours, c.version)).isEqualTo(bytes(kafkas, c.version));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void kafkaClientsReadsOurBytesBackUnchanged(Case c) {
        assertReaderWritesBackTheWritersBytes(c, c.spec, MessageSchemas.ourClass(c.spec), MessageSchemas.kafkaClass(c.spec));
    }

    /** kafka-clients fills every field of its own schema, including any we chose not to model. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
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
