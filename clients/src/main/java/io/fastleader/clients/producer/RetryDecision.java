package io.fastleader.clients.producer;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * What becomes of a batch whose attempt failed with an error that may be retried: a pure function
 * of the batch, the partition's leader epoch now, the {@code retries} and
 * {@code delivery.timeout.ms} limits and the clock.
 *
 * @param retry          true: put the batch back, to be sent no earlier than {@code retryAtMs}
 * @param retryAtMs      when the retry may go; the failure time itself when the backoff is skipped
 * @param backoffSkipped the partition's leader epoch advanced past the one the batch was sent at (KIP-951)
 * @param failure        when not retried: the error to fail the batch with
 */
public record RetryDecision(boolean retry, long retryAtMs, boolean backoffSkipped, RuntimeException failure) {

    /**
     * Decides after a failed attempt.
     *
     * @param retries            {@code retries}: how many times a batch may be sent again after its first attempt
     * @param currentLeaderEpoch the partition's leader epoch as known now, -1 if unknown
     * @param refusal            what the refusing broker said of itself; {@link Refusal#NONE} for other failures
     * @param error              why the attempt failed; the batch fails with it when it may not be retried
     */
    public static RetryDecision afterFailure(RetryPolicy policy, int retries, long deliveryTimeoutMs, ProducerBatch batch,
                                             int currentLeaderEpoch, Refusal refusal, RuntimeException error, long nowMs) {
        RetryDecision outOfLimits = outOfLimits(retries, deliveryTimeoutMs, batch, error, nowMs);
        if (outOfLimits != null) {
            return outOfLimits;
        }
        if (policy.skipsBackoff(batch.lastSentLeaderEpoch(), currentLeaderEpoch)) {
            return new RetryDecision(true, nowMs, true, null);
        }
        return new RetryDecision(true, policy.backoffUntilMs(batch, refusal, nowMs), false, null);
    }

    /**
     * Decides for a batch the broker refused only because an earlier batch of its partition was not
     * written first (an idempotent producer's OUT_OF_ORDER_SEQUENCE_NUMBER behind a refused batch).
     * It has no backoff of its own: it is queued behind that batch and goes right after it.
     */
    public static RetryDecision behindEarlierBatch(int retries, long deliveryTimeoutMs, ProducerBatch batch,
                                                   RuntimeException error, long nowMs) {
        RetryDecision outOfLimits = outOfLimits(retries, deliveryTimeoutMs, batch, error, nowMs);
        return outOfLimits != null ? outOfLimits : new RetryDecision(true, nowMs, false, null);
    }

    /** The failure when {@code delivery.timeout.ms} or {@code retries} leaves no retry, else null. */
    private static RetryDecision outOfLimits(int retries, long deliveryTimeoutMs, ProducerBatch batch,
                                             RuntimeException error, long nowMs) {
        if (batch.hasReachedDeliveryTimeout(deliveryTimeoutMs, nowMs)) {
            return new RetryDecision(false, 0, false, deliveryTimeout(batch, deliveryTimeoutMs, nowMs));
        }
        // attempts counts the first send, so retries=0 allows one attempt and no retry.
        if (batch.attempts() > retries) {
            return new RetryDecision(false, 0, false, error);
        }
        return null;
    }

    /**
     * Whether a batch waiting out its backoff may go at once because the partition's leader epoch,
     * learned from Metadata or from a hint, advanced past the one it was last sent at.
     */
    public static boolean backoffEndsOnEpochAdvance(RetryPolicy policy, ProducerBatch batch, int currentLeaderEpoch,
                                                    long nowMs) {
        return batch.isBackingOff(nowMs) && policy.skipsBackoff(batch.lastSentLeaderEpoch(), currentLeaderEpoch);
    }

    /** The error of a batch that reached {@code delivery.timeout.ms}, queued or in flight. */
    public static TimeoutException deliveryTimeout(ProducerBatch batch, long deliveryTimeoutMs, long nowMs) {
        return new TimeoutException("Expiring " + batch.recordCount() + " record(s) for " + batch.topicPartition() + ": "
                + (nowMs - batch.createdMs()) + " ms has passed since batch creation, reaching "
                + ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG + " (" + deliveryTimeoutMs + " ms)");
    }
}
