package io.fastleader.clients.producer;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A flush begun by {@link RecordAccumulator#beginFlush}: done when every batch that held records
 * at that moment has ended, whatever happens to batches created later. While it is in progress
 * every partition counts as ready, so nothing lingers.
 *
 * <p>{@link #await} must be called (it ends the flush, even when interrupted).
 */
public final class Flush {

    private final List<ProducerBatch> batches;
    private final Runnable onEnd;
    private final AtomicBoolean ended = new AtomicBoolean();

    Flush(List<ProducerBatch> batches, Runnable onEnd) {
        this.batches = batches;
        this.onEnd = onEnd;
    }

    /** Whether every batch the flush waits for has ended. */
    public boolean isDone() {
        return batches.stream().allMatch(ProducerBatch::isDone);
    }

    /** Waits until {@link #isDone()}, then ends the flush. */
    public void await() throws InterruptedException {
        try {
            for (ProducerBatch batch : batches) {
                batch.awaitDone();
            }
        } finally {
            if (ended.compareAndSet(false, true)) {
                onEnd.run();
            }
        }
    }
}
