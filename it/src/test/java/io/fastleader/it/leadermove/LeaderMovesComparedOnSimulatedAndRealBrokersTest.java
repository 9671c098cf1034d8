package io.fastleader.it.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.consumer.ConsumerMetrics;
import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.clients.producer.ProducerMetrics;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Disturbances.StopStyle;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * The simulated cluster held against real brokers: the same scenario, with the same traffic, on a
 * real 3-broker 4.3.1 cluster and on a simulated one, side by side. On both, every record sent is
 * acknowledged and in the log once, in send order, and the consumer hands out exactly that log
 * ({@link LeaderMoveTraffic#finishPhase()}). And the clients do the same kinds of work for the
 * moves on both: what they counted while the leaders moved (leader moves learned, and from where;
 * hints accepted; recoveries timed, with hints; Metadata refreshes by cause; retries sent without backoff) is
 * zero on one exactly where it is zero on the other, and otherwise, per moved partition, within
 * {@link #TOLERANCE} times or {@link #SLACK} of each other. Counts differ within that because timing
 * does: a simulated move is one step where a real one is several (reassign, elect, replicate), so a
 * client batches more of its refusals into one refresh; and a count of a few refreshes over 20 to
 * 50 moves is coarse, one more or less moving it by 0.02 to 0.05.
 *
 * <p>Kills are not compared: a real broker can be killed only in a child JVM, which this
 * comparison does not start; {@link BrokerKilledOnRealBrokersTest} runs on both separately.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class LeaderMovesComparedOnSimulatedAndRealBrokersTest {

    private static final Logger LOG = LoggerFactory.getLogger(LeaderMovesComparedOnSimulatedAndRealBrokersTest.class);

    private static final int PARTITIONS = 30;
    /** How many times apart the two clusters' counts per moved partition may be, either way. */
    private static final double TOLERANCE = 4;
    /** How far apart they may be however many times that is: a quarter of a request per moved partition. */
    private static final double SLACK = 0.25;
    private static final String RECOVERIES = "producer recoveries";

    private static KafkaTestCluster real;
    private static KafkaTestCluster simulated;

    @BeforeAll
    static void startBothClusters() {
        real = ClusterSpec.builder().execution(Execution.IN_JVM).start();
        simulated = ClusterSpec.builder().execution(Execution.SIMULATED).start();
    }

    @AfterAll
    static void closeBothClusters() {
        if (simulated != null) {
            simulated.close();
        }
        if (real != null) {
            real.close();
        }
    }

    @ParameterizedTest(name = "hints {0}")
    @EnumSource(Hints.class)
    void everyPartitionsReplicaListRotates(Hints hints) throws Exception {
        compare("rotate", hints, Disturbances::rotateReplicas);
    }

    @ParameterizedTest(name = "hints {0}")
    @EnumSource(Hints.class)
    void everyBrokerRestartsGracefullyInTurn(Hints hints) throws Exception {
        compare("roll", hints, (disturbances, topic) -> disturbances.rollingRestart(StopStyle.GRACEFUL, Set.of(topic)));
    }

    private interface Disturbance {
        void run(Disturbances disturbances, String topic);
    }

    private static void compare(String scenario, Hints hints, Disturbance disturbance) throws Exception {
        String topic = scenario + "-compared-hints-" + hints.name().toLowerCase(Locale.ROOT);
        Map<String, Double> onReal = run(real, topic, hints, disturbance);
        Map<String, Double> onSimulated = run(simulated, topic, hints, disturbance);
        LOG.info("{} with hints {}, counted per moved partition: real {}, simulated {}", scenario, hints, onReal, onSimulated);
        if (hints == Hints.OFF) {
            // Only a refused partition's recovery is timed, and without hints one refusal's refresh can move every partition of
            // a one-step simulated move before the others are refused: CI saw 1 in 15 simulated against 1 per move on real brokers.
            onReal.remove(RECOVERIES);
        }

        onReal.forEach((count, perMove) -> {
            double simulatedPerMove = onSimulated.get(count);
            assertThat(simulatedPerMove == 0).as("%s: none on the simulated cluster exactly where none on real brokers "
                + "(per moved partition: real %s, simulated %s)", count, perMove, simulatedPerMove).isEqualTo(perMove == 0);
            if (perMove != 0) {
                assertThat(simulatedPerMove).as("%s per moved partition, simulated (real brokers: %s)", count, perMove)
                    .isBetween(Math.min(perMove / TOLERANCE, perMove - SLACK), Math.max(perMove * TOLERANCE, perMove + SLACK));
            }
        });
    }

    /** Runs the scenario on {@code cluster}; returns what the clients counted while it ran, per moved partition. */
    private static Map<String, Double> run(KafkaTestCluster cluster, String topic, Hints hints, Disturbance disturbance)
            throws Exception {
        try (Disturbances disturbances = new Disturbances(cluster);
             LeaderMoveTraffic traffic = new LeaderMoveTraffic(cluster.clientConfig(), topic, PARTITIONS, hints.overrides())) {
            disturbances.createTopic(new NewTopic(topic, PARTITIONS, (short) 3).configs(LeaderMovesOnRealBrokersTest.MIN_ISR_2));
            traffic.startPhase(PARTITIONS);
            traffic.awaitProgress();
            Map<String, Double> before = counts(traffic);
            traffic.whileFlowing(() -> disturbance.run(disturbances, topic));
            Map<String, Double> after = counts(traffic);
            traffic.finishPhase();

            double moved = after.get("producer moves") - before.get("producer moves");
            assertThat(moved).as("leader moves the producer saw on %s", cluster.execution()).isPositive();
            Map<String, Double> perMove = new LinkedHashMap<>();
            after.forEach((count, value) -> perMove.put(count, (value - before.get(count)) / moved));
            return perMove;
        }
    }

    /** What the two clients have counted so far of the work leader moves bring. */
    private static Map<String, Double> counts(LeaderMoveTraffic traffic) {
        Map<String, Double> counts = new LinkedHashMap<>();
        count(counts, "producer moves", traffic::producerMetric, MetadataMetrics.GROUP, "leader-moves-total", Map.of());
        count(counts, "producer moves from hints", traffic::producerMetric, MetadataMetrics.GROUP, "leader-moves-total", Map.of("source", "hint"));
        count(counts, "consumer moves from hints", traffic::consumerMetric, MetadataMetrics.GROUP, "leader-moves-total", Map.of("source", "hint"));
        count(counts, "producer hints accepted", traffic::producerMetric, MetadataMetrics.GROUP, "leader-hints-accepted-total", Map.of());
        count(counts, "consumer hints accepted", traffic::consumerMetric, MetadataMetrics.GROUP, "leader-hints-accepted-total", Map.of());
        count(counts, RECOVERIES, traffic::producerMetric, ProducerMetrics.FASTLEADER_GROUP, "leader-move-recoveries-total", Map.of());
        count(counts, "producer retries without backoff", traffic::producerMetric, ProducerMetrics.FASTLEADER_GROUP,
            "retry-backoffs-skipped-total", Map.of());
        count(counts, "consumer fetches without backoff", traffic::consumerMetric, ConsumerMetrics.FASTLEADER_GROUP,
            "fetch-backoffs-skipped-total", Map.of());
        count(counts, "producer refreshes after leader errors", traffic::producerMetric, MetadataMetrics.GROUP,
            "metadata-refreshes-total", Map.of("cause", "leader-error"));
        count(counts, "producer refreshes confirming hints", traffic::producerMetric, MetadataMetrics.GROUP,
            "metadata-refreshes-total", Map.of("cause", "hint-confirmation"));
        return counts;
    }

    private interface MetricReader {
        double read(String group, String name, Map<String, String> tags);
    }

    private static void count(Map<String, Double> counts, String count, MetricReader reader, String group, String name,
                              Map<String, String> tags) {
        counts.put(count, reader.read(group, name, tags));
    }
}
