package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.fastleader.clients.NeedsKafkaClientsNewerThan37;

class ConsumerSettingsTest {

    @ParameterizedTest
    @ValueSource(strings = {"classic", "CLASSIC", " Classic "})
    void testTheClassicGroupProtocolIsRefusedNamingTheKey(String protocol) {
        assertThatThrownBy(() -> parse(Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("group.protocol")
                .hasMessageContaining("consumer group protocol (KIP-848");
    }

    @ParameterizedTest
    @ValueSource(strings = {"consumer", "CONSUMER"})
    void testTheConsumerGroupProtocolIsAccepted(String protocol) {
        assertThat(parse(Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol)).groupId()).contains("g");
    }

    @Test
    void testGroupKeysAreReadWithKafkasDefaults() {
        ConsumerSettings defaults = parse(Map.of());
        ConsumerSettings given = parse(Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-1",
                ConsumerConfig.CLIENT_RACK_CONFIG, "rack-1", ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, "range",
                ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 1234));

        assertThat(defaults.groupInstanceId()).isEmpty();
        assertThat(defaults.clientRack()).as("client.rack defaults to empty, which means none").isEmpty();
        assertThat(defaults.remoteAssignor()).isEmpty();
        assertThat(defaults.maxPollIntervalMs()).isEqualTo(300_000);
        assertThat(given.groupInstanceId()).contains("instance-1");
        assertThat(given.clientRack()).contains("rack-1");
        assertThat(given.remoteAssignor()).contains("range");
        assertThat(given.maxPollIntervalMs()).isEqualTo(1234);
    }

    @Test
    void testJoinGroupAndSyncGroupTimeOutAfterMaxPollIntervalPlusFiveSecondsOrTheRequestTimeoutIfLonger() {
        assertThat(parse(Map.of()).connectionConfig("c").rebalanceRequestTimeout()).isEqualTo(Duration.ofMillis(305_000));
        assertThat(parse(Map.of(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 10_000, ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 12_000))
                .connectionConfig("c").rebalanceRequestTimeout()).isEqualTo(Duration.ofMillis(15_000));
        assertThat(parse(Map.of(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 1_000, ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 12_000))
                .connectionConfig("c").rebalanceRequestTimeout()).isEqualTo(Duration.ofMillis(12_000));
    }

    @Test
    void testTheRebalanceRequestTimeoutOfTheLargestMaxPollIntervalDoesNotOverflow() {
        assertThat(parse(Map.of(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, Integer.MAX_VALUE)).connectionConfig("c")
                .rebalanceRequestTimeout()).isEqualTo(Duration.ofMillis(Integer.MAX_VALUE + 5_000L));
    }

    @Test
    void testWithoutAProtocolTheRemoteAssignorIsAcceptedAsUnderTheConsumerProtocol() {
        assertThat(parse(Map.of(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, "uniform")).remoteAssignor()).contains("uniform");
    }

    @Test
    @NeedsKafkaClientsNewerThan37
    void testClassicProtocolKeysAreRefusedWithTheConsumerProtocolAskedForAsKafkaConsumerRefusesThem() {
        assertThatThrownBy(() -> parse(Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer",
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("session.timeout.ms cannot be set when group.protocol=CONSUMER");
    }

    @Test
    void testClassicProtocolKeysGivenAreListedToBeLoggedAsIgnored() {
        ConsumerSettings settings = parse(Map.of(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000,
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000));

        assertThat(settings.classicProtocolKeysGiven()).containsExactly("heartbeat.interval.ms", "session.timeout.ms");
        assertThat(parse(Map.of()).classicProtocolKeysGiven()).isEmpty();
    }

    private static ConsumerSettings parse(Map<String, Object> extra) {
        Map<String, Object> configs = new HashMap<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092",
                ConsumerConfig.GROUP_ID_CONFIG, "g"));
        configs.putAll(extra);
        return ConsumerSettings.parse(configs, new StringDeserializer(), new StringDeserializer());
    }
}
