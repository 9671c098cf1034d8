package io.fastleader.it.consumer;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.it.cluster.Await;

/**
 * A {@link FastLeaderConsumer} polling on a thread of its own from the beginning of its
 * partitions, so that it keeps consuming while the test disturbs the cluster, until the test names
 * the end offsets it must reach.
 */
final class BackgroundConsumer implements AutoCloseable {

    private final Thread thread;
    private final Consumption consumption = new Consumption();
    private final CountDownLatch reachedEnds = new CountDownLatch(1);
    private final CountDownLatch closeRequested = new CountDownLatch(1);
    private volatile Map<TopicPartition, Long> ends;
    private volatile FastLeaderConsumer<String, String> consumer;
    private volatile Throwable failure;

    /** Starts consuming {@code partitions} with a consumer configured by {@code config}. */
    BackgroundConsumer(Map<String, Object> config, Collection<TopicPartition> partitions) {
        List<TopicPartition> assigned = List.copyOf(partitions);
        thread = new Thread(() -> run(config, assigned), "background-consumer");
        thread.start();
    }

    private void run(Map<String, Object> config, List<TopicPartition> partitions) {
        try (FastLeaderConsumer<String, String> started = new FastLeaderConsumer<>(config, new StringDeserializer(),
                new StringDeserializer())) {
            consumer = started;
            started.assign(partitions);
            started.seekToBeginning(partitions);
            consumption.pollUntil(started, () -> ends, Consumption.TIMEOUT.multipliedBy(2));
            reachedEnds.countDown();
            // Open until closed, so that the test reads the metrics as they stood at the end.
            closeRequested.await();
        } catch (WakeupException closedEarly) {
            failure = new AssertionError("closed before it reached its end offsets");
        } catch (Throwable e) {
            failure = e;
        } finally {
            reachedEnds.countDown();
        }
    }

    /** Returns once {@code count} more records than now have been handed out. */
    void awaitMoreConsumed(long count) {
        long target = consumption.count() + count;
        Await.until(count + " more records consumed", Consumption.TIMEOUT, () -> {
            if (failure != null) {
                throw new AssertionError("the background consumer failed", failure);
            }
            return consumption.count() >= target;
        });
    }

    /**
     * Lets the consumer poll until its positions reach {@code endOffsets}; it then stops polling
     * and stays open, for its metrics, until {@link #close}.
     *
     * @return every record it handed out
     * @throws AssertionError if it failed or did not get there in time
     */
    Consumption finishAt(Map<TopicPartition, Long> endOffsets) throws InterruptedException {
        ends = Map.copyOf(endOffsets);
        if (!reachedEnds.await(Consumption.TIMEOUT.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the background consumer did not reach " + endOffsets);
        }
        if (failure != null) {
            throw new AssertionError("the background consumer failed", failure);
        }
        return consumption;
    }

    /** A metric of the consumer, summed over its tags; read after {@link #finishAt}, it is the count at the end. */
    double metric(String group, String name) {
        return Consumption.metric(consumer.metrics(), group, name);
    }

    /** Closes the consumer, stopping it first if it is still polling. */
    @Override
    public void close() throws InterruptedException {
        closeRequested.countDown();
        FastLeaderConsumer<String, String> running = consumer;
        if (running != null) {
            running.wakeup();
        }
        thread.join(Duration.ofSeconds(60).toMillis());
    }
}
