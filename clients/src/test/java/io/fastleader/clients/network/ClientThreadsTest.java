package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** The threads {@link ClientThreads} makes and waits for. */
class ClientThreadsTest {

    private final ClientThreads threads = new ClientThreads();

    @Test
    void testThreadsAreDaemonsNamedWithACounter() {
        Thread thread = threads.named("io-").newThread(() -> { });

        assertThat(thread.isDaemon()).isTrue();
        assertThat(thread.getName()).isEqualTo("io-1");
    }

    @Test
    void testAFactoryCountsItsThreads() {
        var factory = threads.named("io-");
        factory.newThread(() -> { });

        assertThat(factory.newThread(() -> { }).getName()).isEqualTo("io-2");
    }

    @Test
    void testAwaitEndReturnsOnceEveryStartedThreadEnded() throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread thread = threads.named("io-").newThread(() -> {
            running.countDown();
            awaitQuietly(release);
        });
        thread.start();
        running.await();

        release.countDown();
        threads.awaitEnd(timeout -> true, 10_000);

        assertThat(thread.isAlive()).isFalse();
    }

    @Test
    void testAwaitEndWaitsForAThreadTheExecutorStartedWhileEnding() {
        // As ThreadPoolExecutor's addWorker can leave it: made before shutdown, started after.
        CountDownLatch release = new CountDownLatch(1);
        Thread late = threads.named("io-").newThread(() -> awaitQuietly(release));

        threads.awaitEnd(timeout -> {
            late.start();
            release.countDown();
            return true;
        }, 10_000);

        assertThat(late.isAlive()).isFalse();
    }

    @Test
    void testAwaitEndOnOneOfTheExecutorsThreadsDoesNotWaitForTheExecutor() throws InterruptedException {
        AtomicInteger executorWaits = new AtomicInteger();
        Thread own = threads.named("io-").newThread(() -> threads.awaitEnd(timeout -> {
            executorWaits.incrementAndGet();
            return false;
        }, 10_000));

        own.start();
        own.join();

        assertThat(executorWaits).hasValue(0);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
