package io.fastleader.it.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * at backoff pace, not round-trip pace; and each client's metrics show how it judged the lie and
 * that Metadata put it right. With hints off, the clients do not look at hints at all and pass
 * just the same.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class LyingHintsOnRealBrokersTest {

    private static final Logger LOG = LoggerFactory.getLogger(LyingHintsOnRealBrokersTest.class);

    private static final int PARTITIONS = 12;
    /** Set rather than left to the default, since the refusal bound below is derived from it. */
    private static final int RETRY_BACKOFF_MS = 100;
    /** Kafka's spread of each backoff: a wait may be up to this fraction shorter than its nominal length. */
    private static final double BACKOFF_JITTER = 0.2;
    /**
     * Refusals any one partition may draw from one client in any one second. A client that backs
     * off after each refusal waits at least {@code retry.backoff.ms} less its jitter (80 ms), so it
     * draws at most 12 in a second; it may also retry once without backoff after each epoch advance
     * (a rotation makes one or two, an accepted lie one more), which 3 more cover. One that loops
     * at loopback round-trip speed draws hundreds.
     */
    private static final int MAX_REFUSALS_IN_A_SECOND =
            (int) (TimeUnit.SECONDS.toMillis(1) / (RETRY_BACKOFF_MS * (1 - BACKOFF_JITTER))) + 3;

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
        Map<String, Object> overrides = new HashMap<>(hints.overrides());
        overrides.put(CommonClientConfigs.RETRY_BACKOFF_MS_CONFIG, RETRY_BACKOFF_MS);

        try (HintRewritingProxy proxy = new HintRewritingProxy(cluster.firstBootstrapAddress(), lie);
             LeaderMoveTraffic traffic = new LeaderMoveTraffic(proxy.clientConfig(), cluster.clientConfig(), topic, PARTITIONS, overrides)) {
            traffic.startPhase(PARTITIONS);
            Map<Integer, Integer> after = LeaderMovesOnRealBrokersTest.leaders(traffic.whileFlowing(() -> disturbances.rotateReplicas(topic)));
            traffic.finishPhase();

            Map<ApiKey, Integer> mostRefusals = new HashMap<>();
            Map<ApiKey, Integer> refusals = new HashMap<>();
            for (int index = 0; index < PARTITIONS; index++) {
                TopicPartition partition = new TopicPartition(topic, index);
                for (ApiKey api : List.of(ApiKey.PRODUCE, ApiKey.FETCH)) {
                    assertThat(leadersVisited(proxy.destinations(api, partition)))
                            .as("%s brokers for %s in turn (Fetches as broker@epoch: %s)", api, partition, proxy.fetchesInTurn(partition))
                            .isIn(List.of(before.get(index), after.get(index)), List.of(after.get(index)));
                    List<Long> refused = proxy.refusals(api, partition);
                    int inASecond = mostInOneSecond(refused);
                    assertThat(inASecond).as("%s refusals for %s in its busiest second", api, partition)
                            .isLessThanOrEqualTo(MAX_REFUSALS_IN_A_SECOND);
                    mostRefusals.merge(api, inASecond, Math::max);
                    refusals.merge(api, refused.size(), Integer::sum);
                }
                assertThat(proxy.fetchedEpochs(partition)).as("leader epochs the Fetches for %s claimed", partition).isSorted();
            }
            for (ApiKey api : List.of(ApiKey.PRODUCE, ApiKey.FETCH)) {
                LOG.info("{}, hints {}: {} refusals {}, most for one partition in one second {} (bound {}), hints rewritten {}",
                        lie, hints, api, refusals.get(api), mostRefusals.get(api), MAX_REFUSALS_IN_A_SECOND, proxy.hintsRewritten(api));
                // Else the client of this API never met the lie, and what follows would prove nothing about it.
                assertThat(proxy.hintsRewritten(api)).as("hints the proxy rewrote in %s refusals", api).isGreaterThan(0);
            }
            LOG.info("{}, hints {}: producer {}", lie, hints, verdicts(traffic::producerMetric));
            LOG.info("{}, hints {}: consumer {}", lie, hints, verdicts(traffic::consumerMetric));
            if (hints == Hints.ON) {
                SoftAssertions verdicts = new SoftAssertions();
                assertVerdicts(verdicts, lie, false, traffic::producerMetric);
                assertVerdicts(verdicts, lie, true, traffic::consumerMetric);
                verdicts.assertAll();
            } else {
                assertThat(judged(traffic::producerMetric) + judged(traffic::consumerMetric)).as("hints judged with hints off").isZero();
            }
        }
    }

    /** A client's metric by group, name and tags, summed over the tag sets that include the tags given. */
    @FunctionalInterface
    private interface ClientMetric {
        double of(String group, String name, Map<String, String> tags);
    }

    /** How one client judged the lie, and the refreshes that put it right. */
    private static void assertVerdicts(SoftAssertions softly, HintLie lie, boolean consumer, ClientMetric metric) {
        String client = consumer ? "consumer" : "producer";
        double accepted = metadata(metric, "leader-hints-accepted-total", Map.of());
        double notAdvancing = metadata(metric, "leader-hints-rejected-total", Map.of("reason", "not-advancing"));
        double noEndpoint = metadata(metric, "leader-hints-rejected-total", Map.of("reason", "unknown-leader-endpoint"));
        double refreshesForRejectedHints = metadata(metric, "metadata-refreshes-total", Map.of("cause", "rejected-hint"));
        double refreshesForLeaderErrors = metadata(metric, "metadata-refreshes-total", Map.of("cause", "leader-error"));
        double confirmations = metadata(metric, "metadata-refreshes-total", Map.of("cause", "hint-confirmation"));
        switch (lie) {
            case NONE -> softly.assertThat(accepted).as("%s: hints accepted", client).isGreaterThan(0);
            case EQUAL_EPOCH, OLDER_EPOCH -> {
                softly.assertThat(accepted).as("%s: hints accepted", client).isZero();
                softly.assertThat(notAdvancing).as("%s: hints rejected as not advancing", client).isGreaterThan(0);
                softly.assertThat(refreshesForRejectedHints).as("%s: refreshes for rejected hints", client).isGreaterThan(0);
            }
            case LEADER_WITHOUT_ENDPOINT -> {
                softly.assertThat(accepted).as("%s: hints accepted", client).isZero();
                softly.assertThat(noEndpoint).as("%s: hints rejected for a leader without endpoint", client).isGreaterThan(0);
                softly.assertThat(refreshesForRejectedHints).as("%s: refreshes for rejected hints", client).isGreaterThan(0);
            }
            case REFUSING_ENDPOINT -> {
                softly.assertThat(accepted).as("%s: hints accepted", client).isGreaterThan(0);
                if (consumer) {
                    // The consumer's next Fetch goes to the hinted leader at once, finds it unreachable and refreshes.
                    softly.assertThat(refreshesForLeaderErrors).as("%s: refreshes after the hinted leader could not be reached",
                            client).isGreaterThan(0);
                }
                // A producer's next batch may still wait for the old leader's answers when the refresh
                // confirming the hint puts the producer right, so it need never try the unreachable leader.
            }
            case POINTS_BACK -> {
                softly.assertThat(accepted).as("%s: hints accepted", client).isGreaterThan(0);
                if (consumer) {
                    // A follower serves a consumer's Fetch (v11+ carries client metadata), so the refusing
                    // broker, now a follower, answers with records: the confirming refresh moves the consumer on.
                    softly.assertThat(confirmations).as("%s: refreshes confirming hints", client).isGreaterThan(0);
                } else {
                    softly.assertThat(notAdvancing).as("%s: the same hint again, rejected as not advancing", client).isGreaterThan(0);
                    softly.assertThat(refreshesForRejectedHints).as("%s: refreshes for rejected hints", client).isGreaterThan(0);
                }
            }
        }
    }

    /** The hint verdicts and refresh causes of one client, for the log. */
    private static String verdicts(ClientMetric metric) {
        return String.format(Locale.ROOT,
                "hints accepted %.0f, rejected not-advancing %.0f, unknown-leader-endpoint %.0f, incomplete %.0f;"
                        + " refreshes rejected-hint %.0f, leader-error %.0f, hint-confirmation %.0f",
                metadata(metric, "leader-hints-accepted-total", Map.of()),
                metadata(metric, "leader-hints-rejected-total", Map.of("reason", "not-advancing")),
                metadata(metric, "leader-hints-rejected-total", Map.of("reason", "unknown-leader-endpoint")),
                metadata(metric, "leader-hints-rejected-total", Map.of("reason", "incomplete")),
                metadata(metric, "metadata-refreshes-total", Map.of("cause", "rejected-hint")),
                metadata(metric, "metadata-refreshes-total", Map.of("cause", "leader-error")),
                metadata(metric, "metadata-refreshes-total", Map.of("cause", "hint-confirmation")));
    }

    /** Hints a client accepted or rejected. */
    private static double judged(ClientMetric metric) {
        return metadata(metric, "leader-hints-accepted-total", Map.of()) + metadata(metric, "leader-hints-rejected-total", Map.of());
    }

    private static double metadata(ClientMetric metric, String name, Map<String, String> tags) {
        return metric.of(MetadataMetrics.GROUP, name, tags);
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

    /** The most refusals, of those at {@code nanos} (in order), that fall within one second of each other. */
    private static int mostInOneSecond(List<Long> nanos) {
        long second = TimeUnit.SECONDS.toNanos(1);
        int most = 0;
        int first = 0;
        for (int last = 0; last < nanos.size(); last++) {
            while (nanos.get(last) - nanos.get(first) >= second) {
                first++;
            }
            most = Math.max(most, last - first + 1);
        }
        return most;
    }
}
