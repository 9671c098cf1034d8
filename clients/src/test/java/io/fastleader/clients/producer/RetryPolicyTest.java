package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.network.ExponentialBackoff;

class RetryPolicyTest {

    private static final ExponentialBackoff BACKOFF =
            new ExponentialBackoff(Duration.ofMillis(100), Duration.ofMillis(1000), ExponentialBackoff.KAFKA_JITTER);

    /** The midpoint of the jitter range, so each wait is exactly its base term. */
    private final RetryPolicy policy = new RetryPolicy(BACKOFF, () -> 0.5, true);

    @Test
    void testRetryAtSameEpochBacksOff() {
        long until = policy.backoffUntilMs(sentAt(5, 1), Refusal.NONE, 1_000);

        assertThat(until).isEqualTo(1_100);
        assertThat(policy.skipsBackoff(5, 5)).isFalse();
    }

    @Test
    void testBackoffDoublesPerAttemptUpToTheMaximum() {
        List<Long> waits = new ArrayList<>();
        ProducerBatch batch = sentAt(5, 0);
        for (int attempts = 1; attempts <= 6; attempts++) {
            batch.markSent(5);
            waits.add(policy.backoffUntilMs(batch, Refusal.NONE, 0));
        }

        assertThat(waits).containsExactly(100L, 200L, 400L, 800L, 1000L, 1000L);
    }

    @Test
    void testANewLeaderEpochStartsTheBackoffSeriesAgain() {
        ProducerBatch batch = sentAt(5, 3);
        batch.markSent(6);

        assertThat(policy.backoffUntilMs(batch, Refusal.NONE, 0)).isEqualTo(100);
        batch.markSent(6);
        assertThat(policy.backoffUntilMs(batch, Refusal.NONE, 0)).isEqualTo(200);
    }

    @Test
    void testALeaderThatHasNotLearnedOfItsElectionIsAskedAgainARoundTripLaterDoublingUpToTheRetryBackoff() {
        List<Long> waits = new ArrayList<>();
        ProducerBatch batch = sentAt(6, 0);
        for (int attempts = 1; attempts <= 6; attempts++) {
            batch.markSent(6);
            // Its answer names epoch 5, older than the 6 the batch was sent at; the attempt took 10 ms.
            waits.add(policy.backoffUntilMs(batch, new Refusal(5, 10), 0));
        }

        assertThat(waits).containsExactly(10L, 20L, 40L, 80L, 100L, 100L);
    }

    @Test
    void testARefusalNamingTheBatchsOwnEpochIsAFailureNotACatchUp() {
        assertThat(policy.backoffUntilMs(sentAt(6, 4), new Refusal(6, 10), 0)).isEqualTo(800);
    }

    @Test
    void testACatchUpWaitIsAtLeastAMillisecondAndAtMostTheRetryBackoff() {
        assertThat(policy.backoffUntilMs(sentAt(6, 1), new Refusal(5, 0), 0)).isEqualTo(1);
        assertThat(policy.backoffUntilMs(sentAt(6, 1), new Refusal(5, 250), 0)).isEqualTo(100);
    }

    @Test
    void testWithHintsDisabledTheBackoffGrowsByEveryAttemptWhateverTheEpochs() {
        RetryPolicy noHints = new RetryPolicy(BACKOFF, () -> 0.5, false);
        ProducerBatch batch = sentAt(5, 2);
        batch.markSent(6);

        assertThat(noHints.backoffUntilMs(batch, new Refusal(5, 10), 0)).isEqualTo(400);
    }

    @Test
    void testJitterSpreadsTheWaitByAFifth() {
        RetryPolicy low = new RetryPolicy(BACKOFF, () -> 0.0, true);
        RetryPolicy high = new RetryPolicy(BACKOFF, () -> 0.999_999, true);

        assertThat(low.backoffUntilMs(sentAt(5, 1), Refusal.NONE, 0)).isEqualTo(80);
        assertThat(high.backoffUntilMs(sentAt(5, 1), Refusal.NONE, 0)).isEqualTo(119);
    }

    @Test
    void testSkipsBackoffOnFirstRetryToNewLeader() {
        assertThat(policy.skipsBackoff(5, 6)).isTrue();
    }

    @Test
    void testBacksOffAgainWhenRetryAtTheNewEpochFails() {
        // The skipped retry was sent at epoch 6 and failed there too.
        long until = policy.backoffUntilMs(2, 1_010);

        assertThat(policy.skipsBackoff(6, 6)).isFalse();
        assertThat(until).isEqualTo(1_210);
    }

    @Test
    void testOlderEpochNeverSkipsBackoff() {
        assertThat(policy.skipsBackoff(5, 4)).isFalse();
    }

    @Test
    void testUnknownEpochNeverSkipsBackoff() {
        assertThat(policy.skipsBackoff(-1, 3)).isFalse();
        assertThat(policy.skipsBackoff(3, -1)).isFalse();
    }

    @Test
    void testHintsDisabledBacksOffEvenAfterEpochAdvance() {
        RetryPolicy baseline = new RetryPolicy(BACKOFF, () -> 0.5, false);

        assertThat(baseline.skipsBackoff(5, 6)).isFalse();
        assertThat(baseline.backoffUntilMs(1, 1_000)).isEqualTo(1_100);
    }

    /** A batch sent {@code attempts} times at {@code epoch}. */
    private static ProducerBatch sentAt(int epoch, int attempts) {
        ProducerBatch batch = new ProducerBatch(new TopicPartition("orders", 3), Compression.NONE, 1024, 0);
        batch.tryAppend(0, null, "v".getBytes(), new Header[0], null);
        for (int i = 0; i < attempts; i++) {
            batch.markSent(epoch);
        }
        return batch;
    }
}
