package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.NeedsKafkaClientsNewerThan37;
import io.fastleader.clients.metadata.FastLeaderConfigs;

class ProducerSettingsTest {

    private final Map<String, Object> configs = new HashMap<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092",
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));

    @Test
    @NeedsKafkaClientsNewerThan37
    void testDefaultsAreKafkasAndOurs() {
        ProducerSettings settings = ProducerSettings.parse(configs, null, null);

        assertThat(settings.acks()).isEqualTo((short) -1);
        assertThat(settings.idempotent()).isTrue();
        assertThat(settings.batchSize()).isEqualTo(16_384);
        assertThat(settings.lingerMs()).isEqualTo(5);
        assertThat(settings.bufferMemory()).isEqualTo(32L << 20);
        assertThat(settings.maxBlockMs()).isEqualTo(60_000);
        assertThat(settings.deliveryTimeoutMs()).isEqualTo(120_000);
        assertThat(settings.maxRequestSize()).isEqualTo(1_048_576);
        assertThat(settings.compression().type()).isEqualTo(CompressionType.NONE);
        assertThat(settings.connectionConfig("c").maxInFlight()).isEqualTo(5);
        assertThat(settings.metadataConfig().retryBackoff()).isEqualTo(Duration.ofMillis(100));
        assertThat(settings.metadataConfig().hintConfirmationDelay()).isEqualTo(Duration.ofMillis(300));
        assertThat(settings.metadataConfig().metadataMaxIdle()).isEqualTo(Duration.ofMinutes(5));
        assertThat(settings.leaderHintsEnabled()).isTrue();
        assertThat(settings.connectionsPrewarm()).isTrue();
        assertThat(settings.slowBatchLogMs()).isEqualTo(SlowBatchLog.OFF);
    }

    @Test
    void testBadValueFailsNamingKeyAndValue() {
        configs.put(ProducerConfig.ACKS_CONFIG, "2");

        assertThatThrownBy(() -> ProducerSettings.parse(configs, null, null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("acks")
                .hasMessageContaining("2");
    }

    @Test
    void testAcksZeroTurnsDefaultIdempotenceOff() {
        configs.put(ProducerConfig.ACKS_CONFIG, "0");

        ProducerSettings settings = ProducerSettings.parse(configs, null, null);

        assertThat(settings.acks()).isZero();
        assertThat(settings.idempotent()).isFalse();
    }

    @Test
    void testAcksZeroWithIdempotenceGivenIsRefusedWithKafkasMessage() {
        configs.put(ProducerConfig.ACKS_CONFIG, "0");
        configs.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);

        assertThatThrownBy(() -> ProducerSettings.parse(configs, null, null))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.");
    }

    @Test
    void testAcksZeroWithATransactionalIdIsRefusedWithKafkasMessage() {
        configs.put(ProducerConfig.ACKS_CONFIG, "0");
        configs.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx");

        assertThatThrownBy(() -> ProducerSettings.parse(configs, null, null))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Cannot set a transactional.id without also enabling idempotence.");
    }

    @Test
    @NeedsKafkaClientsNewerThan37
    void testTwoPhaseCommitBesideATransactionTimeoutIsRefusedWithKafkasMessage() {
        configs.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx");
        configs.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 30_000);
        configs.put("transaction.two.phase.commit.enable", true);

        assertThatThrownBy(() -> ProducerSettings.parse(configs, null, null))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Cannot set transaction.timeout.ms when transaction.two.phase.commit.enable is set to true. "
                        + "Transactions will not expire with two-phase commit enabled.");
    }

    @Test
    void testAProducerGivenNoClientIdIsNamedAsKafkaProducerIs() {
        assertThat(ProducerSettings.parse(configs, null, null).clientId()).matches("producer-\\d+");

        configs.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "orders-tx");

        assertThat(ProducerSettings.parse(configs, null, null).clientId()).isEqualTo("producer-orders-tx");
    }

    @Test
    void testBadFastleaderValueFailsNamingKeyAndValue() {
        configs.put(FastLeaderConfigs.LEADER_HINTS_ENABLED, "maybe");

        assertThatThrownBy(() -> ProducerSettings.parse(configs, null, null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(FastLeaderConfigs.LEADER_HINTS_ENABLED)
                .hasMessageContaining("maybe");
    }

    @Test
    void testMissingSerializerFails() {
        configs.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);

        assertThatThrownBy(() -> ProducerSettings.parse(configs, null, null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
    }

    @Test
    void testSerializerInstanceStandsInForItsKey() {
        configs.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
        configs.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);

        ProducerSettings settings = ProducerSettings.parse(configs, new StringSerializer(), new StringSerializer());

        assertThat(settings.kafkaConfig().getClass(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG)).isEqualTo(StringSerializer.class);
    }

    @Test
    void testTransactionalIdAndTimeoutAreRead() {
        configs.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-1");
        configs.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 15_000);

        ProducerSettings settings = ProducerSettings.parse(configs, null, null);

        assertThat(settings.transactionalId()).isEqualTo("tx-1");
        assertThat(settings.transactionTimeoutMs()).isEqualTo(15_000);
    }

    @Test
    void testTransactionalIdWithoutIdempotenceIsRefusedAsKafkaRefusesIt() {
        configs.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-1");
        configs.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);

        assertThatThrownBy(() -> ProducerSettings.parse(configs, null, null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("transactional.id");
    }

    @Test
    void testExplicitDeliveryTimeoutBelowLingerPlusRequestTimeoutIsRefusedWrappedAsKafkaProducerRefusesIt() {
        configs.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        configs.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);

        assertThatThrownBy(() -> ProducerSettings.parse(configs, null, null))
                .isExactlyInstanceOf(KafkaException.class)
                .hasMessage("Failed to construct kafka producer")
                .cause()
                .isInstanceOf(ConfigException.class)
                .hasMessage("delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms");
    }

    @Test
    @NeedsKafkaClientsNewerThan37
    void testDefaultDeliveryTimeoutIsRaisedToLingerPlusRequestTimeout() {
        configs.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 200_000);

        assertThat(ProducerSettings.parse(configs, null, null).deliveryTimeoutMs()).isEqualTo(200_005);
    }

    @Test
    void testIdempotenceWithMoreThanFiveInFlightIsRefused() {
        configs.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        configs.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 6);

        assertThatThrownBy(() -> ProducerSettings.parse(configs, null, null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION);
    }

    @Test
    void testTheSlowBatchLogTakesAThreshold() {
        configs.put(ProducerSettings.SLOW_BATCH_LOG_MS, "250");

        assertThat(ProducerSettings.parse(configs, null, null).slowBatchLogMs()).isEqualTo(250);
    }

    @Test
    void testASlowBatchLogThresholdBelowOffIsRefused() {
        configs.put(ProducerSettings.SLOW_BATCH_LOG_MS, "-2");

        assertThatThrownBy(() -> ProducerSettings.parse(configs, null, null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(ProducerSettings.SLOW_BATCH_LOG_MS)
                .hasMessageContaining("-2");
    }

    @Test
    void testLeaderHintsCanBeTurnedOff() {
        configs.put(FastLeaderConfigs.LEADER_HINTS_ENABLED, "false");

        assertThat(ProducerSettings.parse(configs, null, null).leaderHintsEnabled()).isFalse();
    }

    @Test
    @NeedsKafkaClientsNewerThan37
    void testCompressionCarriesItsLevel() {
        configs.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
        configs.put(ProducerConfig.COMPRESSION_ZSTD_LEVEL_CONFIG, 7);

        ProducerSettings settings = ProducerSettings.parse(configs, null, null);

        assertThat(settings.compression()).isEqualTo(Compression.zstd().level(7).build());
    }

    @Test
    void testCompressionIsAtTheCodecsDefaultLevelWhereProducerConfigHasNoLevelKeys() {
        // kafka-clients 3.7 defines no compression.*.level key: its KafkaProducer compresses at the codec's default.
        configs.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "gzip");
        configs.put(ProducerConfig.COMPRESSION_GZIP_LEVEL_CONFIG, 1);

        ProducerSettings settings = ProducerSettings.parse(configs, null, null);

        assertThat(settings.compression(false)).isEqualTo(Compression.gzip().build());
    }

    @Test
    void testBootstrapServersAreResolvedAndChecked() {
        configs.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9092, localhost:9093");

        assertThat(ProducerSettings.parse(configs, null, null).bootstrapServers())
                .extracting(InetSocketAddress::getPort).containsExactly(9092, 9093);
    }

    @Test
    void testABootstrapServerWithoutAPortFailsAsInKafka() {
        configs.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost");

        assertThatThrownBy(() -> ProducerSettings.parse(configs, null, null).bootstrapServers())
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid url in bootstrap.servers: localhost");
    }
}
