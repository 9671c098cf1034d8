package io.fastleader.clients.producer;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;

/**
 * How one batch ended, shared by the futures of all its records: the broker's base offset and
 * log-append time, the error, or that it was split and its records moved to other batches. Set
 * once; readers block until then.
 */
final class BatchOutcome {

    private final TopicPartition topicPartition;
    private final CountDownLatch known = new CountDownLatch(1);
    // Written once before the latch opens; the latch publishes them to readers.
    private long baseOffset = -1;
    private long logAppendTimeMs = -1;
    private RuntimeException error;
    private boolean split;

    BatchOutcome(TopicPartition topicPartition) {
        this.topicPartition = topicPartition;
    }

    /** Records success; the caller guarantees that this, {@link #failed} or {@link #split} runs once. */
    void written(long baseOffset, long logAppendTimeMs) {
        this.baseOffset = baseOffset;
        this.logAppendTimeMs = logAppendTimeMs;
        known.countDown();
    }

    /** Records failure; the caller guarantees that this, {@link #written} or {@link #split} runs once. */
    void failed(RuntimeException error) {
        this.error = error;
        known.countDown();
    }

    /** Records that the batch was split; the caller has moved every record's future to its new batch first. */
    void split() {
        this.split = true;
        known.countDown();
    }

    boolean isKnown() {
        return known.getCount() == 0;
    }

    void await() throws InterruptedException {
        known.await();
    }

    boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        return known.await(timeout, unit);
    }

    TopicPartition topicPartition() {
        return topicPartition;
    }

    long baseOffset() {
        return baseOffset;
    }

    long logAppendTimeMs() {
        return logAppendTimeMs;
    }

    /** The failure, or null once the batch was written. */
    RuntimeException error() {
        return error;
    }

    /** Whether the batch was split: its records' outcomes are those of the batches they moved to. */
    boolean wasSplit() {
        return split;
    }
}
