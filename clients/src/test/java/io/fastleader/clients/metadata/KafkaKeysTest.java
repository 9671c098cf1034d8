package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RoundRobinPartitioner;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.NeedsKafkaClientsNewerThan37;
import io.fastleader.clients.metadata.KafkaKeys.Clients;
import io.fastleader.clients.metadata.KafkaKeys.Treatment;

class KafkaKeysTest {

    @Test
    void testEveryProducerKeyOfThisReleaseIsInTheTable() {
        assertThat(KafkaKeys.missing(ProducerConfig.configNames(), Clients.PRODUCER)).isEmpty();
    }

    @Test
    void testEveryConsumerKeyOfThisReleaseIsInTheTable() {
        assertThat(KafkaKeys.missing(ConsumerConfig.configNames(), Clients.CONSUMER)).isEmpty();
    }

    /** A table in which the adaptive partitioner's keys are not built: the table of a release before they were. */
    private static final Map<String, KafkaKeys.Key> ADAPTIVE_NOT_BUILT = Map.of(
        ProducerConfig.PARTITIONER_AVAILABILITY_TIMEOUT_MS_CONFIG, new KafkaKeys.Key(ProducerConfig.PARTITIONER_AVAILABILITY_TIMEOUT_MS_CONFIG,
            Clients.PRODUCER, Treatment.NOT_BUILT, "a partition whose leader is slow to take batches is not skipped", null),
        ProducerConfig.PARTITIONER_ADPATIVE_PARTITIONING_ENABLE_CONFIG, new KafkaKeys.Key(ProducerConfig.PARTITIONER_ADPATIVE_PARTITIONING_ENABLE_CONFIG,
            Clients.PRODUCER, Treatment.NOT_BUILT, "records without a key are spread evenly", "false"));

    @Test
    void testAKeyNotBuiltSetToOtherThanItsDefaultIsNamedWithItsValueAndWhatIsNotDone() {
        ProducerConfig config = producerConfig(Map.of(ProducerConfig.PARTITIONER_AVAILABILITY_TIMEOUT_MS_CONFIG, 1_000));

        assertThat(KafkaKeys.notBuilt(ADAPTIVE_NOT_BUILT, config, ProducerConfig.configDef(), Clients.PRODUCER)).containsExactly(
            "Configuration 'partitioner.availability.timeout.ms' was supplied as '1000' but fastleader does not act on it: "
                + "a partition whose leader is slow to take batches is not skipped");
    }

    @Test
    void testAKeyNotBuiltSetToItsDefaultOrToTheValueFastLeaderActsAsIsNotWarnedOf() {
        ProducerConfig config = producerConfig(Map.of(ProducerConfig.PARTITIONER_AVAILABILITY_TIMEOUT_MS_CONFIG, 0,
            ProducerConfig.PARTITIONER_ADPATIVE_PARTITIONING_ENABLE_CONFIG, false));

        assertThat(KafkaKeys.notBuilt(ADAPTIVE_NOT_BUILT, config, ProducerConfig.configDef(), Clients.PRODUCER)).isEmpty();
    }

    @Test
    void testHonouredKeysAndKeysHonouredInPartAreNotWarnedOf() {
        ProducerConfig config = producerConfig(Map.of(ProducerConfig.LINGER_MS_CONFIG, 5,
            ProducerConfig.PARTITIONER_CLASS_CONFIG, RoundRobinPartitioner.class));

        assertThat(KafkaKeys.all().get(ProducerConfig.PARTITIONER_CLASS_CONFIG).treatment()).isEqualTo(Treatment.PARTLY);
        assertThat(KafkaKeys.notBuilt(config, ProducerConfig.configDef(), Clients.PRODUCER)).isEmpty();
    }

    @Test
    void testNoKeyOfEitherClientIsLeftNotBuilt() {
        assertThat(KafkaKeys.all().values()).filteredOn(key -> key.treatment() == Treatment.NOT_BUILT).isEmpty();
    }

    @Test
    void testAConsumerIsWarnedOfNoKeyItIsGiven() {
        Map<String, Object> configs = new HashMap<>();
        configs.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
        configs.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        configs.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        configs.put(ConsumerConfig.SECURITY_PROVIDERS_CONFIG, "com.example.FipsProviderCreator");
        configs.put("internal.throw.on.fetch.stable.offset.unsupported", true);

        assertThat(KafkaKeys.notBuilt(new ConsumerConfig(configs), ConsumerConfig.configDef(), Clients.CONSUMER)).isEmpty();
    }

    @Test
    @NeedsKafkaClientsNewerThan37
    void testAPasswordIsNotWritten() {
        KafkaKeys.Key key = new KafkaKeys.Key("some.secret", Clients.BOTH, KafkaKeys.Treatment.NOT_BUILT, "not sent", null);

        assertThat(KafkaKeys.warning(key, new Password("s3cret"))).contains("'[hidden]'").doesNotContain("s3cret");
    }

    @Test
    void testClientsReadmeShowsTheTable() throws IOException {
        assertThat(Files.readString(clientsReadme())).contains(KafkaKeys.markdown());
    }

    private static ProducerConfig producerConfig(Map<String, Object> overrides) {
        Map<String, Object> configs = new HashMap<>();
        configs.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
        configs.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        configs.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        configs.putAll(overrides);
        return new ProducerConfig(configs);
    }

    /** clients/README.md, found from the module's directory or a directory below it (the shaded build runs these tests too). */
    private static Path clientsReadme() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path readme = dir.resolve("clients").resolve("README.md");
            if (Files.isRegularFile(readme)) {
                return readme;
            }
        }
        throw new AssertionError("no clients/README.md above " + Path.of("").toAbsolutePath());
    }
}
