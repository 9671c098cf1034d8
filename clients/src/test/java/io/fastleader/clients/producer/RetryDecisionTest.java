package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.network.ExponentialBackoff;

class RetryDecisionTest {

    private static final TopicPartition PARTITION = new TopicPartition("orders", 3);
    private static final long DELIVERY_TIMEOUT_MS = 120_000;
    private static final ExponentialBackoff BACKOFF =
            new ExponentialBackoff(Duration.ofMillis(100), Duration.ofMillis(1000), ExponentialBackoff.KAFKA_JITTER);
    /** Midpoint of the jitter: every wait is its base term. */
    private final RetryPolicy hints = new RetryPolicy(BACKOFF, () -> 0.5, true);
    private final RetryPolicy noHints = new RetryPolicy(BACKOFF, () -> 0.5, false);
    private final RuntimeException notLeader = new NotLeaderOrFollowerException("moved");
    private final RuntimeException outOfOrder = new OutOfOrderSequenceException("an earlier batch is missing");

    @Test
    void testRetryAtTheSameEpochBacksOff() {
        ProducerBatch batch = sentAt(5, 1);

        RetryDecision decision = RetryDecision.afterFailure(hints, Integer.MAX_VALUE, DELIVERY_TIMEOUT_MS, batch, 5, Refusal.NONE, notLeader, 1_000);

        assertThat(decision.retry()).isTrue();
        assertThat(decision.backoffSkipped()).isFalse();
        assertThat(decision.retryAtMs()).isEqualTo(1_100);
    }

    @Test
    void testRetryAfterTheEpochAdvancedGoesAtOnce() {
        ProducerBatch batch = sentAt(5, 1);

        RetryDecision decision = RetryDecision.afterFailure(hints, Integer.MAX_VALUE, DELIVERY_TIMEOUT_MS, batch, 6, Refusal.NONE, notLeader, 1_000);

        assertThat(decision.retry()).isTrue();
        assertThat(decision.backoffSkipped()).isTrue();
        assertThat(decision.retryAtMs()).isEqualTo(1_000);
    }

    @Test
    void testWithHintsDisabledAnEpochAdvanceStillBacksOff() {
        ProducerBatch batch = sentAt(5, 1);

        RetryDecision decision = RetryDecision.afterFailure(noHints, Integer.MAX_VALUE, DELIVERY_TIMEOUT_MS, batch, 6, Refusal.NONE, notLeader, 1_000);

        assertThat(decision.backoffSkipped()).isFalse();
        assertThat(decision.retryAtMs()).isEqualTo(1_100);
    }

    @Test
    void testBackoffGrowsWithAttempts() {
        ProducerBatch batch = sentAt(5, 3);

        RetryDecision decision = RetryDecision.afterFailure(hints, Integer.MAX_VALUE, DELIVERY_TIMEOUT_MS, batch, 5, Refusal.NONE, notLeader, 1_000);

        assertThat(decision.retryAtMs()).isEqualTo(1_400);
    }

    @Test
    void testRetriesRunningOutFailsWithTheError() {
        ProducerBatch batch = sentAt(5, 3);

        RetryDecision decision = RetryDecision.afterFailure(hints, 2, DELIVERY_TIMEOUT_MS, batch, 6, Refusal.NONE, notLeader, 1_000);

        assertThat(decision.retry()).isFalse();
        assertThat(decision.failure()).isSameAs(notLeader);
    }

    @Test
    void testRetriesZeroAllowsNoRetry() {
        RetryDecision decision = RetryDecision.afterFailure(hints, 0, DELIVERY_TIMEOUT_MS, sentAt(5, 1), 5, Refusal.NONE, notLeader, 1_000);

        assertThat(decision.retry()).isFalse();
    }

    @Test
    void testDeliveryTimeoutFailsWithATimeoutNamingTheKey() {
        ProducerBatch batch = sentAt(5, 1);

        RetryDecision decision = RetryDecision.afterFailure(hints, Integer.MAX_VALUE, DELIVERY_TIMEOUT_MS, batch, 6, Refusal.NONE, notLeader,
                DELIVERY_TIMEOUT_MS);

        assertThat(decision.retry()).isFalse();
        assertThat(decision.failure()).isInstanceOf(TimeoutException.class).hasMessageContaining("delivery.timeout.ms")
                .hasMessageContaining(PARTITION.toString());
    }

    @Test
    void testEpochAdvanceEndsTheBackoffOfAWaitingBatch() {
        ProducerBatch batch = sentAt(5, 1);
        batch.retryAt(1_100);

        assertThat(RetryDecision.backoffEndsOnEpochAdvance(hints, batch, 6, 1_010)).isTrue();
        assertThat(RetryDecision.backoffEndsOnEpochAdvance(hints, batch, 5, 1_010)).isFalse();
        assertThat(RetryDecision.backoffEndsOnEpochAdvance(noHints, batch, 6, 1_010)).isFalse();
        // Once the backoff is over there is nothing to skip, so nothing is counted.
        assertThat(RetryDecision.backoffEndsOnEpochAdvance(hints, batch, 6, 1_100)).isFalse();
    }

    @Test
    void testABatchBehindAnEarlierOneRetriesWithoutABackoffOfItsOwnAndWithoutCountingASkip() {
        RetryDecision decision = RetryDecision.behindEarlierBatch(Integer.MAX_VALUE, DELIVERY_TIMEOUT_MS, sentAt(5, 3),
                outOfOrder, 1_000);

        assertThat(decision.retry()).isTrue();
        assertThat(decision.retryAtMs()).isEqualTo(1_000);
        assertThat(decision.backoffSkipped()).isFalse();
    }

    @Test
    void testABatchBehindAnEarlierOneStillHonoursRetriesAndTheDeliveryTimeout() {
        assertThat(RetryDecision.behindEarlierBatch(2, DELIVERY_TIMEOUT_MS, sentAt(5, 3), outOfOrder, 1_000).failure())
                .isSameAs(outOfOrder);
        assertThat(RetryDecision.behindEarlierBatch(Integer.MAX_VALUE, DELIVERY_TIMEOUT_MS, sentAt(5, 1), outOfOrder,
                DELIVERY_TIMEOUT_MS).failure()).isInstanceOf(TimeoutException.class);
    }

    /** A batch created at 0 and sent {@code attempts} times, the last at {@code epoch}. */
    private static ProducerBatch sentAt(int epoch, int attempts) {
        ProducerBatch batch = new ProducerBatch(PARTITION, Compression.NONE, 1024, 0);
        batch.tryAppend(0, null, "v".getBytes(), new Header[0], null);
        for (int i = 0; i < attempts; i++) {
            batch.markSent(epoch);
        }
        return batch;
    }
}
