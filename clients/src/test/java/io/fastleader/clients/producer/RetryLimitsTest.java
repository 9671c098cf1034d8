package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

class RetryLimitsTest {

    private static final TopicPartition PARTITION = new TopicPartition("orders", 3);
    private static final long DELIVERY_TIMEOUT_MS = 120_000;
    private final RuntimeException notLeader = new NotLeaderOrFollowerException("moved");

    @Test
    void testABatchWithinItsLimitsMayBeRetried() {
        assertThat(RetryLimits.exceeded(Integer.MAX_VALUE, DELIVERY_TIMEOUT_MS, sentTimes(3), notLeader, 1_000)).isNull();
    }

    @Test
    void testRetriesRunningOutFailsWithTheError() {
        assertThat(RetryLimits.exceeded(2, DELIVERY_TIMEOUT_MS, sentTimes(3), notLeader, 1_000)).isSameAs(notLeader);
    }

    @Test
    void testRetriesZeroAllowsNoRetry() {
        assertThat(RetryLimits.exceeded(0, DELIVERY_TIMEOUT_MS, sentTimes(1), notLeader, 1_000)).isSameAs(notLeader);
    }

    @Test
    void testDeliveryTimeoutFailsWithATimeoutNamingTheKeyAndThePartition() {
        RuntimeException failure = RetryLimits.exceeded(Integer.MAX_VALUE, DELIVERY_TIMEOUT_MS, sentTimes(1), notLeader,
                DELIVERY_TIMEOUT_MS);

        assertThat(failure).isInstanceOf(TimeoutException.class).hasMessageContaining("delivery.timeout.ms")
                .hasMessageContaining(PARTITION.toString());
    }

    /** A batch created at 0 and sent {@code attempts} times. */
    private static ProducerBatch sentTimes(int attempts) {
        ProducerBatch batch = new ProducerBatch(PARTITION, Compression.NONE, 1024, 0);
        batch.tryAppend(0, null, "v".getBytes(), new Header[0], null);
        for (int i = 0; i < attempts; i++) {
            batch.markSent(5);
        }
        return batch;
    }
}
