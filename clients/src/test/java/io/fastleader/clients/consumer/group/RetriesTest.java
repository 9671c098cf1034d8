package io.fastleader.clients.consumer.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

class RetriesTest {

    @Test
    void testTimeLeftSaturatesAtTheFarEnds() {
        assertThat(Retries.untilMs(150, 100)).isEqualTo(50);
        assertThat(Retries.untilMs(100, 150)).isZero();
        assertThat(Retries.untilMs(Long.MAX_VALUE, -5)).isEqualTo(Long.MAX_VALUE);
        assertThat(Retries.untilMs(Long.MIN_VALUE, 5)).isZero();
    }

    @Test
    void testAPendingResultFailsAtTheDeadline() throws Exception {
        CompletableFuture<String> result = new CompletableFuture<>();

        Retries.failAtDeadline(result, 1_020, () -> 1_000, () -> new TimeoutException("late"));

        assertThat(result).failsWithin(5, TimeUnit.SECONDS).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(TimeoutException.class).withMessageContaining("late");
    }

    @Test
    void testAResultInTimeIsLeftAlone() throws Exception {
        CompletableFuture<String> result = new CompletableFuture<>();
        Retries.failAtDeadline(result, 1_050, () -> 1_000, () -> new TimeoutException("late"));

        result.complete("done");
        Thread.sleep(100);

        assertThat(result).isCompletedWithValue("done");
    }

    @Test
    void testARetryRunsOnTheDelayThreadNeverTheCallers() throws Exception {
        CompletableFuture<Thread> ranOn = new CompletableFuture<>();

        Retries.after(0, () -> ranOn.complete(Thread.currentThread()));

        assertThat(ranOn.get(5, TimeUnit.SECONDS)).isNotSameAs(Thread.currentThread());
    }
}
