package io.fastleader.it.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import io.fastleader.clients.consumer.ConsumerMetrics;
import io.fastleader.clients.metadata.FastLeaderConfigs;
import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.clients.producer.ProducerMetrics;

/**
 * The two ways every leader-move scenario runs: following KIP-951 leader hints, and with them
 * turned off ({@value FastLeaderConfigs#LEADER_HINTS_ENABLED}{@code =false}), which must be just as
 * correct, only slower, and means the same retry policy in both clients (as clients behaved before
 * KIP-951). Each knows, from the clients' metrics, what path they took.
 */
enum Hints {
    ON(true),
    OFF(false);

    private final boolean enabled;

    Hints(boolean enabled) {
        this.enabled = enabled;
    }

    /** The clients' settings for this mode. */
    Map<String, Object> overrides() {
        return Map.of(FastLeaderConfigs.LEADER_HINTS_ENABLED, enabled);
    }

    /**
     * After leaders moved under traffic: with hints on, both clients accepted hints, sent the
     * producer's retries and the consumer's fetches to the new leader without backing off, and
     * confirmed the hints by Metadata later; with hints off, no hint was taken, neither client's
     * retries skipped a backoff, and leader errors drove the refreshes instead. Either way the
     * producer timed its recovery from the moves it was refused for, and counted each move under
     * the source it learned it from.
     */
    void assertPathTaken(LeaderMoveTraffic traffic) {
        double producerHints = traffic.producerMetric(MetadataMetrics.GROUP, "leader-hints-accepted-total", Map.of());
        double consumerHints = traffic.consumerMetric(MetadataMetrics.GROUP, "leader-hints-accepted-total", Map.of());
        double retriesAtOnce = traffic.producerMetric(ProducerMetrics.FASTLEADER_GROUP, "retry-backoffs-skipped-total", Map.of());
        double confirmations = traffic.producerMetric(MetadataMetrics.GROUP, "metadata-refreshes-total",
                Map.of("cause", "hint-confirmation"))
                + traffic.consumerMetric(MetadataMetrics.GROUP, "metadata-refreshes-total", Map.of("cause", "hint-confirmation"));
        assertThat(traffic.producerMetric(ProducerMetrics.FASTLEADER_GROUP, "leader-move-recoveries-total", Map.of()))
                .as("leader moves the producer recovered from").isGreaterThan(0);
        double movesFromHints = traffic.producerMetric(MetadataMetrics.GROUP, "leader-moves-total", Map.of("source", "hint"))
                + traffic.consumerMetric(MetadataMetrics.GROUP, "leader-moves-total", Map.of("source", "hint"));
        if (enabled) {
            assertThat(movesFromHints).as("leader moves learned from hints").isGreaterThan(0);
            assertThat(traffic.consumerMetric(ConsumerMetrics.FASTLEADER_GROUP, "leader-move-recoveries-total", Map.of()))
                    .as("leader moves the consumer's fetches recovered from").isGreaterThan(0);
            assertThat(producerHints).as("hints the producer accepted").isGreaterThan(0);
            assertThat(consumerHints).as("hints the consumer accepted").isGreaterThan(0);
            assertThat(retriesAtOnce).as("producer retries sent at once to a new leader").isGreaterThan(0);
            assertThat(traffic.consumerMetric(ConsumerMetrics.FASTLEADER_GROUP, "fetch-backoffs-skipped-total", Map.of()))
                    .as("fetches sent at once to a new leader").isGreaterThan(0);
            assertThat(confirmations).as("refreshes confirming hints").isGreaterThan(0);
        } else {
            assertThat(producerHints + consumerHints).as("hints accepted").isZero();
            assertThat(movesFromHints).as("leader moves learned from hints").isZero();
            assertThat(traffic.producerMetric(MetadataMetrics.GROUP, "leader-moves-total", Map.of("source", "metadata")))
                    .as("leader moves the producer learned from Metadata").isGreaterThan(0);
            // The same policy in both clients: no epoch advance, however learned, ends a backoff.
            assertThat(retriesAtOnce).as("producer retries sent without backoff").isZero();
            assertThat(traffic.consumerMetric(ConsumerMetrics.FASTLEADER_GROUP, "fetch-backoffs-skipped-total", Map.of()))
                    .as("fetches sent without backoff").isZero();
            assertThat(confirmations).as("refreshes confirming hints").isZero();
            assertThat(traffic.producerMetric(MetadataMetrics.GROUP, "metadata-refreshes-total", Map.of("cause", "leader-error"))
                    + traffic.consumerMetric(MetadataMetrics.GROUP, "metadata-refreshes-total", Map.of("cause", "leader-error")))
                    .as("refreshes after leader errors").isGreaterThan(0);
        }
    }
}
