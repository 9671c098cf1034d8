package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class MemoryBudgetTest {

    private static final int BATCH_SIZE = 100;

    @Test
    @Timeout(30)
    void testLaterSmallReservationDoesNotOvertakeAWaitingLargeOne() throws Exception {
        MemoryBudget budget = budget(1000);
        ByteBuffer first = budget.reserve(800, 0);
        CompletableFuture<Void> large = CompletableFuture.runAsync(() -> {
            try {
                budget.reserve(600, Long.MAX_VALUE);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        while (budget.waitingThreads() == 0) {
            Thread.onSpinWait();
        }

        assertThatThrownBy(() -> budget.reserve(100, 0)).isInstanceOf(BufferExhaustedException.class);

        budget.release(800, first);
        large.get();
        assertThat(budget.availableBytes()).isEqualTo(400);
    }

    @Test
    void testReleasedMemoryCanBeReservedAgain() throws Exception {
        MemoryBudget budget = budget(1000);
        ByteBuffer all = budget.reserve(1000, 0);

        budget.release(1000, all);

        assertThat(budget.reserve(1000, 0).capacity()).isEqualTo(1000);
        assertThat(budget.availableBytes()).isZero();
    }

    @Test
    void testABufferOfTheBatchSizeGivenBackIsTheNextBatchsBuffer() throws Exception {
        MemoryBudget budget = budget(1000);
        ByteBuffer first = budget.reserve(BATCH_SIZE, 0);
        first.put((byte) 7);

        budget.release(BATCH_SIZE, first);
        ByteBuffer next = budget.reserve(BATCH_SIZE, 0);

        assertThat(next).isSameAs(first);
        assertThat(next.position()).as("cleared for the next batch").isZero();
        assertThat(next.remaining()).isEqualTo(BATCH_SIZE);
    }

    @Test
    void testABufferGivenBackWithoutBeingFreeToReuseIsNotReused() throws Exception {
        MemoryBudget budget = budget(1000);
        ByteBuffer stillRead = budget.reserve(BATCH_SIZE, 0);

        budget.release(BATCH_SIZE, null);

        assertThat(budget.reserve(BATCH_SIZE, 0)).isNotSameAs(stillRead);
    }

    @Test
    void testBuffersOfAnotherSizeAreNotKept() throws Exception {
        MemoryBudget budget = budget(1000);
        ByteBuffer large = budget.reserve(300, 0);

        budget.release(300, large);

        assertThat(budget.reserve(300, 0)).isNotSameAs(large);
    }

    @Test
    void testKeptBuffersGoOnceTheirMemoryIsReservedForOthers() throws Exception {
        MemoryBudget budget = budget(300);
        ByteBuffer a = budget.reserve(BATCH_SIZE, 0);
        ByteBuffer b = budget.reserve(BATCH_SIZE, 0);
        budget.release(BATCH_SIZE, a);
        budget.release(BATCH_SIZE, b);

        // 300 unreserved, two batch buffers kept: a reservation of 250 leaves room for none of them.
        ByteBuffer large = budget.reserve(250, 0);
        budget.release(250, large);

        assertThat(budget.reserve(BATCH_SIZE, 0)).isNotSameAs(a).isNotSameAs(b);
    }

    private static MemoryBudget budget(long totalBytes) {
        return new MemoryBudget(totalBytes, BATCH_SIZE, new ProducerMetrics(new Metrics()));
    }
}
