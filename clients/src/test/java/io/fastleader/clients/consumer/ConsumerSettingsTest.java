package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.fastleader.clients.NeedsKafkaClientsNewerThan37;
import io.fastleader.clients.consumer.group.ConsumerGroup;
import io.fastleader.clients.consumer.group.LeaveOperation;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.metadata.FastLeaderConfigs;
import io.fastleader.clients.network.ExponentialBackoff;

class ConsumerSettingsTest {

    private static final EpochBackoff BACKOFF =
            new EpochBackoff(new ExponentialBackoff(Duration.ofMillis(100), Duration.ofMillis(100), 0), () -> 0.5, false);

    @Test
    void testTheClassicGroupProtocolIsTheDefaultWithKafkaConsumersTimeoutsAndAssignors() {
        ConsumerGroup.Classic classic = classic(parse(Map.of()));

        assertThat(classic.sessionTimeoutMs()).isEqualTo(45_000);
        assertThat(classic.heartbeatIntervalMs()).isEqualTo(3_000);
        assertThat(classic.assignors()).extracting(ConsumerPartitionAssignor::name).containsExactly("range", "cooperative-sticky");
    }

    @Test
    void testClassicKeysConfigureTheClassicMember() {
        ConsumerGroup.Classic classic = classic(parse(Map.of(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000,
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000,
                ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, List.of(RoundRobinAssignor.class))));

        assertThat(classic.sessionTimeoutMs()).isEqualTo(10_000);
        assertThat(classic.heartbeatIntervalMs()).isEqualTo(1_000);
        assertThat(classic.assignors()).singleElement().isInstanceOf(RoundRobinAssignor.class);
    }

    @Test
    void testAnAssignorIsConfiguredWithEveryKeyGivenAsKafkaStreamsNeeds() {
        ConsumerGroup.Classic classic = classic(parse(Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                ConfiguredAssignor.class.getName(), ConsumerConfig.CLIENT_ID_CONFIG, "app-1", "an.application.key", "its value")));

        ConfiguredAssignor assignor = (ConfiguredAssignor) classic.assignors().get(0);
        assertThat(assignor.configs).containsEntry("an.application.key", "its value").containsEntry(ConsumerConfig.CLIENT_ID_CONFIG, "app-1");
    }

    @Test
    void testAHeartbeatIntervalNotBelowTheSessionTimeoutIsRefusedAsByKafkaConsumer() {
        ConsumerSettings settings = parse(Map.of(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000,
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 10_000));

        assertThatThrownBy(() -> settings.groupSettings(BACKOFF))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Heartbeat must be set lower than the session timeout");
    }

    @ParameterizedTest
    @ValueSource(strings = {"consumer", "CONSUMER"})
    void testTheConsumerGroupProtocolIsAccepted(String protocol) {
        ConsumerSettings settings = parse(Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol));

        assertThat(settings.groupProtocol()).isEqualTo(GroupProtocol.CONSUMER);
        assertThat(settings.groupSettings(BACKOFF).orElseThrow().classic()).isEmpty();
    }

    @Test
    void testGroupKeysAreReadWithKafkasDefaults() {
        ConsumerSettings defaults = parse(Map.of());
        ConsumerSettings given = parse(Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-1",
                ConsumerConfig.CLIENT_RACK_CONFIG, "rack-1", ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer",
                ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, "range",
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
    @NeedsKafkaClientsNewerThan37
    void testWithoutAProtocolTheRemoteAssignorIsRefusedAsByKafkaConsumer() {
        assertThatThrownBy(() -> parse(Map.of(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, "uniform")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("group.remote.assignor");
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
    void testADefaultCloseOfAClassicMemberStaysInTheGroupWithInternalLeaveGroupOnCloseFalseWhereTheReleaseDefinesTheKey() {
        ConsumerSettings settings = parse(Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic", ConsumerSettings.LEAVE_GROUP_ON_CLOSE, false));
        // kafka-clients 3.7 to 4.1 define the key (the relocated unit tests run beside 3.7.0); 4.2 and later do not.
        boolean defined = ConsumerConfig.configNames().contains(ConsumerSettings.LEAVE_GROUP_ON_CLOSE);

        assertThat(settings.onClose(LeaveOperation.DEFAULT)).isEqualTo(defined ? LeaveOperation.REMAIN_IN_GROUP : LeaveOperation.DEFAULT);
        assertThat(settings.onClose(LeaveOperation.LEAVE_GROUP)).isEqualTo(LeaveOperation.LEAVE_GROUP);
    }

    @Test
    void testADefaultCloseLeavesUnderTheConsumerProtocolWhateverInternalLeaveGroupOnCloseSays() {
        ConsumerSettings settings = parse(Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer", ConsumerSettings.LEAVE_GROUP_ON_CLOSE, false));

        assertThat(settings.onClose(LeaveOperation.DEFAULT)).isEqualTo(LeaveOperation.DEFAULT);
    }

    private static ConsumerGroup.Classic classic(ConsumerSettings settings) {
        return settings.groupSettings(BACKOFF).orElseThrow().classic().orElseThrow();
    }

    /** An application's assignor, which keeps the configuration it was given. */
    public static final class ConfiguredAssignor extends RangeAssignor implements Configurable {
        Map<String, Object> configs;

        @Override
        public void configure(Map<String, ?> configs) {
            this.configs = Map.copyOf(configs);
        }
    }

    private static ConsumerSettings parse(Map<String, Object> extra) {
        Map<String, Object> configs = new HashMap<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092",
                ConsumerConfig.GROUP_ID_CONFIG, "g"));
        configs.putAll(extra);
        return ConsumerSettings.parse(configs, new StringDeserializer(), new StringDeserializer());
    }
}
