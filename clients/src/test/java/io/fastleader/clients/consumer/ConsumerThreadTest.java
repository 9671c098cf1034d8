package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.errors.InterruptException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConsumerThreadTest {

    private final AtomicLong clock = new AtomicLong(1_000);
    private final ConsumerThread owner = new ConsumerThread("test-client", clock::get);

    @AfterEach
    void close() {
        owner.close();
    }

    @Test
    void testACallRunsOnTheStateOwnerAndReturnsItsResult() {
        String ranOn = owner.call(() -> Thread.currentThread().getName(), () -> { });

        assertThat(ranOn).isEqualTo("fastleader-consumer-test-client");
    }

    @Test
    void testACallsExceptionIsThrownOnTheCaller() {
        assertThatThrownBy(() -> owner.call(() -> {
            throw new IllegalStateException("refused");
        }, () -> { })).isInstanceOf(IllegalStateException.class).hasMessage("refused");
    }

    @Test
    void testACallStoppedByAnInterruptLeavesTheOwnerRunningTheNextCalls() throws Exception {
        // Kafka's InterruptException interrupts the thread that builds it: here the owner's, as a call
        // stopped for an interrupted application thread builds it there.
        assertThatThrownBy(() -> owner.call(() -> {
            throw new InterruptException(new InterruptedException());
        }, () -> { })).isInstanceOf(InterruptException.class);
        Thread.interrupted();

        CompletableFuture<String> next = CompletableFuture.supplyAsync(() -> owner.call(() -> "answered", () -> { }));

        assertThat(next.get(30, TimeUnit.SECONDS)).isEqualTo("answered");
    }

    @Test
    void testACallbackRunsOnTheCallersThreadAndMayCallTheOwnerAgain() {
        Thread caller = Thread.currentThread();
        List<String> seen = new CopyOnWriteArrayList<>();

        owner.call(() -> {
            owner.onApplicationThread(() -> {
                seen.add("callback on the caller " + (Thread.currentThread() == caller));
                seen.add("nested call on " + owner.call(() -> Thread.currentThread().getName(), () -> { }));
            });
            seen.add("after the callback on " + Thread.currentThread().getName());
            return null;
        }, () -> { });

        assertThat(seen).containsExactly("callback on the caller true", "nested call on fastleader-consumer-test-client",
                "after the callback on fastleader-consumer-test-client");
    }

    @Test
    void testACallbacksExceptionIsThrownOnTheOwner() {
        String outcome = owner.call(() -> {
            try {
                owner.onApplicationThread(() -> {
                    throw new IllegalArgumentException("listener failed");
                });
                return "no exception";
            } catch (IllegalArgumentException e) {
                return e.getMessage() + " on " + Thread.currentThread().getName();
            }
        }, () -> { });

        assertThat(outcome).isEqualTo("listener failed on fastleader-consumer-test-client");
    }

    @Test
    void testTimersRunOnTheOwnerInTheOrderOfTheirTimesOnceDue() {
        List<String> ran = new CopyOnWriteArrayList<>();
        owner.after(20, () -> ran.add("second on " + Thread.currentThread().getName()));
        owner.after(10, () -> ran.add("first"));
        Runnable cancel = owner.after(15, () -> ran.add("cancelled"));
        cancel.run();
        assertThat(owner.call(() -> List.copyOf(ran), () -> { })).as("nothing due yet").isEmpty();

        clock.addAndGet(20);

        assertThat(owner.call(() -> {
            owner.runPending(0);
            return List.copyOf(ran);
        }, () -> { })).containsExactly("first", "second on fastleader-consumer-test-client");
    }

    @Test
    void testApplicationTasksQueuedForLaterRunInTheCallersNextCall() {
        Thread caller = Thread.currentThread();
        List<String> seen = new CopyOnWriteArrayList<>();
        owner.call(() -> {
            owner.onApplicationThreadLater(() -> seen.add("ran on the caller " + (Thread.currentThread() == caller)));
            return null;
        }, () -> { });

        assertThat(seen).containsExactly("ran on the caller true");
    }
}
