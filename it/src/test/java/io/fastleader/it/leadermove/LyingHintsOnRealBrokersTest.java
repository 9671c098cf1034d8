package io.fastleader.it.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.protocol.ApiKey;

/**
 * Brokers that lie in their leader hints, through {@link HintRewritingProxy}, while every
 * partition's leader moves under a FastLeaderProducer and a FastLeaderConsumer. Whatever the lie,
 * nothing is lost, duplicated or reordered; no partition's requests go back to the old leader once
 * they reached the new one, and no Fetch claims an older epoch than one before it; refusals come
 * at backoff pace, not round-trip pace; and the clients' metrics show how they judged the lie and
 * that Metadata put them right. With hints off, the clients do not look at hints at all and pass
 * just the same.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class LyingHintsOnRealBrokersTest {

    private static final int PARTITIONS = 12;
    /**
     * Refusals per second any one partition may see. A client that backs off (retry.backoff.ms 100,
     * doubling, jittered) sees at most about ten in its first second; one that loops at loopback
     * round-trip speed sees hundreds.
     */
    private static final double MAX_REFUSALS_PER_SECOND = 20;

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;

    @BeforeAll
    static void startCluster(@Cluster KafkaTestCluster started) {
        cluster = started;
        disturbances = new Disturbances(cluster);
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    static Stream<Arguments> liesWithHints() {
        return Arrays.stream(HintLie.values()).flatMap(lie -> Arrays.stream(Hints.values()).map(hints -> Arguments.of(lie, hints)));
    }

    @ParameterizedTest(name = "{0}, hints {1}")
    @MethodSource("liesWithHints")
    void theClientsNeitherRegressNorLoopAndMetadataPutsThemRight(HintLie lie, Hints hints) throws Exception {
        String topic = LeaderMovesOnRealBrokersTest.topic("lie-" + lie.name().toLowerCase(Locale.ROOT).replace('_', '-'), hints);
        disturbances.createTopic(new NewTopic(topic, PARTITIONS, (short) 3).configs(LeaderMovesOnRealBrokersTest.MIN_ISR_2));
        // Epochs above 0 first, so that the clients are told epochs a lie can go below.
        Map<Integer, Integer> before = LeaderMovesOnRealBrokersTest.leaders(disturbances.rotateReplicas(topic));

        try (HintRewritingProxy proxy = new HintRewritingProxy(cluster.firstBootstrapAddress(), lie);
             LeaderMoveTraffic traffic = new LeaderMoveTraffic(proxy.clientConfig(), cluster.clientConfig(), topic, PARTITIONS, hints.overrides())) {
            traffic.startPhase(PARTITIONS);
            Map<Integer, Integer> after = LeaderMovesOnRealBrokersTest.leaders(traffic.whileFlowing(() -> disturbances.rotateReplicas(topic)));
            traffic.finishPhase();

            for (int index = 0; index < PARTITIONS; index++) {
                TopicPartition partition = new TopicPartition(topic, index);
                for (ApiKey api : List.of(ApiKey.PRODUCE, ApiKey.FETCH)) {
                    assertThat(leadersVisited(proxy.destinations(api, partition))).as("%s brokers for %s in turn", api, partition)
                            .isIn(List.of(before.get(index), after.get(index)), List.of(after.get(index)));
                    assertThat(refusalsPerSecond(proxy.refusals(api, partition))).as("%s refusals per second for %s", api, partition)
                            .isLessThanOrEqualTo(MAX_REFUSALS_PER_SECOND);
                }
                assertThat(proxy.fetchedEpochs(partition)).as("leader epochs the Fetches for %s claimed", partition).isSorted();
            }
            if (hints == Hints.ON) {
                assertVerdicts(lie, traffic);
            } else {
                assertThat(both(traffic, "leader-hints-accepted-total", Map.of()) + both(traffic, "leader-hints-rejected-total", Map.of()))
                        .as("hints judged with hints off").isZero();
            }
        }
    }

    /** How the clients judged the lie, and the refreshes that put them right. */
    private static void assertVerdicts(HintLie lie, LeaderMoveTraffic traffic) {
        double accepted = both(traffic, "leader-hints-accepted-total", Map.of());
        double notAdvancing = both(traffic, "leader-hints-rejected-total", Map.of("reason", "not-advancing"));
        double noEndpoint = both(traffic, "leader-hints-rejected-total", Map.of("reason", "unknown-leader-endpoint"));
        double refreshesForRejectedHints = both(traffic, "metadata-refreshes-total", Map.of("cause", "rejected-hint"));
        switch (lie) {
            case NONE -> assertThat(accepted).as("hints accepted").isGreaterThan(0);
            case EQUAL_EPOCH, OLDER_EPOCH -> {
                assertThat(accepted).as("hints accepted").isZero();
                assertThat(notAdvancing).as("hints rejected as not advancing").isGreaterThan(0);
                assertThat(refreshesForRejectedHints).as("refreshes for rejected hints").isGreaterThan(0);
            }
            case LEADER_WITHOUT_ENDPOINT -> {
                assertThat(accepted).as("hints accepted").isZero();
                assertThat(noEndpoint).as("hints rejected for a leader without endpoint").isGreaterThan(0);
                assertThat(refreshesForRejectedHints).as("refreshes for rejected hints").isGreaterThan(0);
            }
            case REFUSING_ENDPOINT -> {
                assertThat(accepted).as("hints accepted, then found unreachable").isGreaterThan(0);
                assertThat(refreshesForRejectedHints + both(traffic, "metadata-refreshes-total", Map.of("cause", "leader-error")))
                        .as("refreshes after the hinted leader failed").isGreaterThan(0);
            }
            case POINTS_BACK -> {
                assertThat(accepted).as("hints accepted").isGreaterThan(0);
                assertThat(notAdvancing).as("the same hint again, rejected as not advancing").isGreaterThan(0);
                assertThat(refreshesForRejectedHints).as("refreshes for rejected hints").isGreaterThan(0);
            }
        }
    }

    /** A metric of the metadata group, summed over both clients. */
    private static double both(LeaderMoveTraffic traffic, String name, Map<String, String> tags) {
        return traffic.producerMetric(MetadataMetrics.GROUP, name, tags) + traffic.consumerMetric(MetadataMetrics.GROUP, name, tags);
    }

    /** The brokers in the order requests went to them, each run of requests to one broker counted once. */
    private static List<Integer> leadersVisited(List<Integer> destinations) {
        List<Integer> visited = new ArrayList<>();
        for (int broker : destinations) {
            if (visited.isEmpty() || visited.get(visited.size() - 1) != broker) {
                visited.add(broker);
            }
        }
        return visited;
    }

    /** Refusals over the time from the first to the last, at least a second. */
    private static double refusalsPerSecond(List<Long> refusalNanos) {
        if (refusalNanos.isEmpty()) {
            return 0;
        }
        long spanNanos = Math.max(refusalNanos.get(refusalNanos.size() - 1) - refusalNanos.get(0), TimeUnit.SECONDS.toNanos(1));
        return refusalNanos.size() * 1e9 / spanNanos;
    }
}
