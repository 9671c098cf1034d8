package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class MemoryBudgetTest {

    @Test
    @Timeout(30)
    void testLaterSmallReservationDoesNotOvertakeAWaitingLargeOne() throws Exception {
        MemoryBudget budget = new MemoryBudget(1000, new ProducerMetrics(new Metrics()));
        budget.reserve(800, 0);
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

        budget.release(800);
        large.get();
        assertThat(budget.availableBytes()).isEqualTo(400);
    }

    @Test
    void testReleasedMemoryCanBeReservedAgain() throws Exception {
        MemoryBudget budget = new MemoryBudget(1000, new ProducerMetrics(new Metrics()));
        budget.reserve(1000, 0);

        budget.release(1000);

        budget.reserve(1000, 0);
        assertThat(budget.availableBytes()).isZero();
    }
}
