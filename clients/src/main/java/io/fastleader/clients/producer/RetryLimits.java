package io.fastleader.clients.producer;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Whether a batch whose attempt failed with an error that may be retried is retried at all: a pure
 * function of the batch, the {@code retries} and {@code delivery.timeout.ms} limits and the clock.
 * How long a retried batch waits is {@link io.fastleader.clients.metadata.EpochBackoff}'s to say.
 */
final class RetryLimits {

    private RetryLimits() {
    }

    /**
     * The error to fail the batch with when it may not be retried, else null.
     *
     * @param retries how many times a batch may be sent again after its first attempt ({@code retries})
     * @param error   why the attempt failed; the batch fails with it once {@code retries} run out
     * @return a delivery timeout once {@code delivery.timeout.ms} has passed, {@code error} once the
     *         retries ran out, null while the batch may go again
     */
    static RuntimeException exceeded(int retries, long deliveryTimeoutMs, ProducerBatch batch, RuntimeException error,
                                     long nowMs) {
        if (batch.hasReachedDeliveryTimeout(deliveryTimeoutMs, nowMs)) {
            return deliveryTimeout(batch, deliveryTimeoutMs, nowMs);
        }
        // attempts counts the first send, so retries=0 allows one attempt and no retry.
        return batch.attempts() > retries ? error : null;
    }

    /** The error of a batch that reached {@code delivery.timeout.ms}, queued or in flight. */
    static TimeoutException deliveryTimeout(ProducerBatch batch, long deliveryTimeoutMs, long nowMs) {
        return new TimeoutException("Expiring " + batch.recordCount() + " record(s) for " + batch.topicPartition() + ": "
                + (nowMs - batch.createdMs()) + " ms has passed since batch creation, reaching "
                + ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG + " (" + deliveryTimeoutMs + " ms)");
    }
}
