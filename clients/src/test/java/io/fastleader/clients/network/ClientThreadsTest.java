package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

/**
 * The threads {@link ClientThreads} makes, on the running JVM: the platform path on every JVM,
 * virtual threads on Java 25 and newer (skipped, not passed, before it).
 */
class ClientThreadsTest {

    private static final boolean JAVA_25_OR_NEWER = Runtime.version().feature() >= 25;

    private final ClientThreads threads = new ClientThreads();

    @Test
    void testPlatformThreadsAreDaemonsNamedWithACounter() {
        Thread thread = threads.named("io-", IoThreads.PLATFORM).newThread(() -> { });

        assertThat(isVirtual(thread)).isFalse();
        assertThat(thread.isDaemon()).isTrue();
        assertThat(thread.getName()).isEqualTo("io-1");
    }

    @Test
    void testAFactoryCountsItsThreads() {
        var factory = threads.named("io-", IoThreads.PLATFORM);
        factory.newThread(() -> { });

        assertThat(factory.newThread(() -> { }).getName()).isEqualTo("io-2");
    }

    @Test
    void testAutoThreadsAreVirtualExactlyFromJava25() {
        Thread thread = threads.named("io-", IoThreads.AUTO).newThread(() -> { });

        assertThat(isVirtual(thread)).isEqualTo(JAVA_25_OR_NEWER);
        assertThat(thread.getName()).isEqualTo("io-1");
        assertThat(thread.isDaemon()).isTrue();
    }

    @Test
    void testAwaitEndWaitsForVirtualThreads() throws InterruptedException {
        assumeTrue(JAVA_25_OR_NEWER, "virtual threads are used from Java 25");
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread thread = threads.named("io-", IoThreads.VIRTUAL).newThread(() -> {
            running.countDown();
            awaitQuietly(release);
        });
        thread.start();
        running.await();

        release.countDown();
        threads.awaitEnd(10_000);

        assertThat(isVirtual(thread)).isTrue();
        assertThat(thread.isAlive()).isFalse();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code Thread.isVirtual()}, false on a JVM without it (compiled for Java 17). */
    static boolean isVirtual(Thread thread) {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
        } catch (NoSuchMethodException e) {
            return false;
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
