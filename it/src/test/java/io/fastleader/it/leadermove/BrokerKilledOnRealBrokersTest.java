package io.fastleader.it.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;

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

    /**
     * Afterwards every partition gets records, which both clients must deliver from wherever the
     * kill left the leaders, idle partitions included.
     */
    @ParameterizedTest(name = "hints {0}, traffic on {1}")
    @MethodSource("io.fastleader.it.leadermove.Load#withHints")
    void aKilledLeaderIsReplacedWhileTrafficFlows(Hints hints, Load load) throws Exception {
        String topic = LeaderMovesOnRealBrokersTest.topic("kill-" + load.name().toLowerCase(Locale.ROOT), hints);
        try (LeaderMoveTraffic traffic = startTraffic(topic, hints)) {
            traffic.startPhase(load.busyPartitions(LeaderMovesOnRealBrokersTest.PARTITIONS));
            traffic.whileFlowing(() -> killAndRestartTheLeaderOfPartitionZero(topic, traffic));
            traffic.finishPhase();
            traffic.assertEveryPartitionDelivers();

            assertThat(traffic.producerMetric(MetadataMetrics.GROUP, "metadata-refreshes-total", Map.of("cause", "leader-error")))
                    .as("producer refreshes after leader errors").isGreaterThan(0);
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
