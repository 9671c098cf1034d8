package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

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
    void testACallRunsOnTheCallersThreadWhileTheOwnerIsIdle() {
        Thread ranOn = owner.call(Thread::currentThread, () -> { });

        assertThat(ranOn).isSameAs(Thread.currentThread());
    }

    @Test
    void testTasksArrivingWhileACallWaitsRunOnTheCaller() {
        String ranOn = owner.call(() -> {
            AtomicReference<String> answeredOn = new AtomicReference<>();
            CompletableFuture.runAsync(() -> owner.execute(() -> answeredOn.set(Thread.currentThread().getName())));
            while (answeredOn.get() == null) {
                owner.runPending(Long.MAX_VALUE);
            }
            return answeredOn.get();
        }, () -> { });

        assertThat(ranOn).isEqualTo(Thread.currentThread().getName());
    }

    @Test
    void testTasksArrivingBetweenCallsRunOnTheOwnersThread() throws Exception {
        CompletableFuture<String> ranOn = new CompletableFuture<>();

        owner.execute(() -> ranOn.complete(Thread.currentThread().getName()));

        assertThat(ranOn.get(30, TimeUnit.SECONDS)).isEqualTo("fastleader-consumer-test-client");
    }

    @Test
    void testATimerAddedInACallFiresOnTheOwnersThreadAfterTheCall() throws Exception {
        CompletableFuture<String> firedOn = new CompletableFuture<>();
        owner.call(() -> owner.after(10, () -> firedOn.complete(Thread.currentThread().getName())), () -> { });

        clock.addAndGet(10);

        assertThat(firedOn.get(30, TimeUnit.SECONDS)).isEqualTo("fastleader-consumer-test-client");
    }

    @Test
    void testTheOwnersThreadRunsTasksWhileACallbackOfACallRuns() throws Exception {
        String answeredOn = owner.call(() -> {
            CompletableFuture<String> answered = new CompletableFuture<>();
            owner.onApplicationThread(() -> {
                owner.execute(() -> answered.complete(Thread.currentThread().getName()));
                answered.orTimeout(30, TimeUnit.SECONDS).join();
            });
            return answered.join();
        }, () -> { });

        assertThat(answeredOn).isEqualTo("fastleader-consumer-test-client");
    }

    @Test
    void testACallIsHandedToTheOwnersThreadWhileItAwaitsACallback() throws Exception {
        Thread caller = Thread.currentThread();
        CompletableFuture<Void> callbackQueued = new CompletableFuture<>();
        List<String> seen = new CopyOnWriteArrayList<>();
        owner.execute(() -> {
            callbackQueued.complete(null);
            owner.onApplicationThread(() -> seen.add("callback on the caller " + (Thread.currentThread() == caller)));
            seen.add("the owner's task went on");
        });
        callbackQueued.get(30, TimeUnit.SECONDS);

        String ranOn = owner.call(() -> Thread.currentThread().getName(), () -> { });

        assertThat(ranOn).isEqualTo("fastleader-consumer-test-client");
        assertThat(seen).startsWith("callback on the caller true");
    }

    @Test
    void testACallsExceptionIsThrownOnTheCaller() {
        assertThatThrownBy(() -> owner.call(() -> {
            throw new IllegalStateException("refused");
        }, () -> { })).isInstanceOf(IllegalStateException.class).hasMessage("refused");
    }

    @Test
    void testACallStoppedByAnInterruptLeavesTheOwnerRunningTheNextCalls() throws Exception {
        // Kafka's InterruptException interrupts the thread that builds it.
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
                seen.add("nested call on the caller " + owner.call(() -> Thread.currentThread() == caller, () -> { }));
            });
            seen.add("the call holds the role again " + owner.isCurrent());
            return null;
        }, () -> { });

        assertThat(seen).containsExactly("callback on the caller true", "nested call on the caller true",
                "the call holds the role again true");
    }

    @Test
    void testACallbacksExceptionIsThrownInTheCall() {
        String outcome = owner.call(() -> {
            try {
                owner.onApplicationThread(() -> {
                    throw new IllegalArgumentException("listener failed");
                });
                return "no exception";
            } catch (IllegalArgumentException e) {
                return e.getMessage() + ", the role held again " + owner.isCurrent();
            }
        }, () -> { });

        assertThat(outcome).isEqualTo("listener failed, the role held again true");
    }

    @Test
    void testTimersRunInTheOrderOfTheirTimesOnceDue() {
        List<String> ran = new CopyOnWriteArrayList<>();
        owner.after(20, () -> ran.add("second"));
        owner.after(10, () -> ran.add("first"));
        Runnable cancel = owner.after(15, () -> ran.add("cancelled"));
        cancel.run();
        assertThat(owner.call(() -> List.copyOf(ran), () -> { })).as("nothing due yet").isEmpty();

        clock.addAndGet(20);

        assertThat(owner.call(() -> {
            owner.runPending(0);
            return List.copyOf(ran);
        }, () -> { })).containsExactly("first", "second");
    }

    @Test
    void testATaskQueuedForLaterDoesNotRunAsTheCallThatQueuedItEnds() {
        List<String> seen = new CopyOnWriteArrayList<>();
        owner.call(() -> {
            owner.onApplicationThreadLater(() -> seen.add("later"));
            return null;
        }, () -> { });

        assertThat(seen).isEmpty();
    }

    @Test
    void testATaskQueuedForLaterRunsOnTheCallerAtTheStartOfItsNextCall() {
        Thread caller = Thread.currentThread();
        List<String> seen = new CopyOnWriteArrayList<>();
        owner.call(() -> {
            owner.onApplicationThreadLater(() -> seen.add("ran on the caller " + (Thread.currentThread() == caller)));
            return null;
        }, () -> { });

        assertThat(owner.call(() -> List.copyOf(seen), () -> { })).containsExactly("ran on the caller true");
    }

    @Test
    void testATaskQueuedForLaterRunsWhileACallWaits() {
        List<String> seen = new CopyOnWriteArrayList<>();

        List<String> seenInTheCall = owner.call(() -> {
            owner.onApplicationThreadLater(() -> seen.add("later"));
            owner.runPending(0);
            return List.copyOf(seen);
        }, () -> { });

        assertThat(seenInTheCall).containsExactly("later");
    }
}
