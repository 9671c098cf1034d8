package io.fastleader.it.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.consumer.Consumption;

/**
 * A broker killed (SIGKILL, no controlled shutdown) while a FastLeaderProducer and a
 * FastLeaderConsumer work a topic whose partitions it leads, then started again: requests die
 * with their connections mid-flight, and the clients must find the new leaders from Metadata
 * alone, losing, duplicating and reordering nothing. The brokers run in child JVMs, or in
 * containers when the switch says so ({@link Cluster#killable()}).
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class BrokerKilledOnRealBrokersTest {

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;

    @BeforeAll
    static void startCluster(@Cluster(killable = true) KafkaTestCluster started) {
        cluster = started;
        disturbances = new Disturbances(cluster);
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    @ParameterizedTest(name = "hints {0}")
    @EnumSource(Hints.class)
    void aKilledBrokerIsReplacedAsLeaderWithTrafficOnEveryPartition(Hints hints) throws Exception {
        String topic = LeaderMovesOnRealBrokersTest.topic("kill", hints);
        try (LeaderMoveTraffic traffic = startTraffic(topic, hints)) {
            traffic.startPhase(LeaderMovesOnRealBrokersTest.PARTITIONS);
            LeaderMovesOnRealBrokersTest.duringTraffic(traffic, () -> killAndRestartTheLeaderOfPartitionZero(topic, traffic));
            traffic.finishPhase();

            assertThat(traffic.producerMetric(MetadataMetrics.GROUP, "metadata-refreshes-total", Map.of("cause", "leader-error")))
                    .as("producer refreshes after leader errors").isGreaterThan(0);
        }
    }

    /** Most partitions are idle while their leader dies; afterwards every partition gets records. */
    @ParameterizedTest(name = "hints {0}")
    @EnumSource(Hints.class)
    void aKilledBrokerIsReplacedAsLeaderWhileMostPartitionsAreIdle(Hints hints) throws Exception {
        String topic = LeaderMovesOnRealBrokersTest.topic("kill-idle", hints);
        try (LeaderMoveTraffic traffic = startTraffic(topic, hints)) {
            traffic.startPhase(LeaderMovesOnRealBrokersTest.FEW_PARTITIONS);
            LeaderMovesOnRealBrokersTest.duringTraffic(traffic, () -> killAndRestartTheLeaderOfPartitionZero(topic, traffic));
            traffic.finishPhase();

            traffic.startPhase(LeaderMovesOnRealBrokersTest.PARTITIONS);
            traffic.awaitProgress();
            Consumption afterKill = traffic.finishPhase();

            for (int partition = 0; partition < LeaderMovesOnRealBrokersTest.PARTITIONS; partition++) {
                assertThat(afterKill.of(new TopicPartition(topic, partition))).as("records of partition %d after the kill", partition)
                        .isNotEmpty();
            }
        }
    }

    private static LeaderMoveTraffic startTraffic(String topic, Hints hints) {
        disturbances.createTopic(new NewTopic(topic, LeaderMovesOnRealBrokersTest.PARTITIONS, (short) 3)
                .configs(LeaderMovesOnRealBrokersTest.MIN_ISR_2));
        return new LeaderMoveTraffic(cluster.clientConfig(), topic, LeaderMovesOnRealBrokersTest.PARTITIONS, hints.overrides());
    }

    /** Kills the broker that leads partition 0, waits until traffic flows without it, and starts it again. */
    private static void killAndRestartTheLeaderOfPartitionZero(String topic, LeaderMoveTraffic traffic) {
        int victim = disturbances.describe(topic).partitions().get(0).leader().id();
        cluster.killBroker(victim);
        traffic.awaitProgress();
        cluster.startBroker(victim);
        disturbances.awaitFullIsr(topic);
    }
}
