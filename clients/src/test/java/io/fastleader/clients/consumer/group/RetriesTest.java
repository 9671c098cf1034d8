package io.fastleader.clients.consumer.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

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
    void testAPendingResultFailsAtTheDeadlineOnTheOwner() {
        ManualOwner owner = new ManualOwner(1_000);
        CompletableFuture<String> result = new CompletableFuture<>();
        Retries.failAtDeadline(result, 1_020, owner::nowMs, owner, () -> new TimeoutException("late"));

        owner.runUntil(1_019);
        assertThat(result).isNotDone();
        owner.runUntil(1_020);

        assertThat(result).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(TimeoutException.class).withMessageContaining("late");
    }

    @Test
    void testAResultInTimeIsLeftAlone() {
        ManualOwner owner = new ManualOwner(1_000);
        CompletableFuture<String> result = new CompletableFuture<>();
        Retries.failAtDeadline(result, 1_050, owner::nowMs, owner, () -> new TimeoutException("late"));

        result.complete("done");
        owner.runUntil(2_000);

        assertThat(result).isCompletedWithValue("done");
    }
}
