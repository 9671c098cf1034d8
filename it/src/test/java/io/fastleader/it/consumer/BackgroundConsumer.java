package io.fastleader.it.consumer;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.it.cluster.Await;

/**
 * A {@link FastLeaderConsumer} polling on a thread of its own from the beginning of its
 * partitions until closed, so that it keeps consuming while the test disturbs the cluster. The
 * test names end offsets to cut what it consumed into phases: {@link #finishAt} returns what was
 * handed out since the previous phase ended, once the positions reach those offsets.
 */
public final class BackgroundConsumer implements AutoCloseable {

    private static final Duration POLL = Duration.ofMillis(100);

    private final Thread thread;
    private volatile FastLeaderConsumer<String, String> consumer;
    private volatile Throwable failure;
    private volatile boolean closing;
    /** The phase the polling thread adds to; replaced by that thread when a phase ends. */
    private volatile Consumption consumption = new Consumption();
    /** Set by the test, cleared by the polling thread when it reached them. */
    private volatile PhaseEnd phaseEnd;

    /** Starts consuming {@code partitions} with a consumer configured by {@code config}. */
    public BackgroundConsumer(Map<String, Object> config, Collection<TopicPartition> partitions) {
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
            while (!closing) {
                consumption.add(started.poll(POLL));
                PhaseEnd end = phaseEnd;
                if (end != null && end.reachedBy(started)) {
                    end.finished = consumption;
                    consumption = new Consumption();
                    phaseEnd = null;
                    end.reached.countDown();
                }
            }
        } catch (WakeupException closed) {
            // close() woke the poll up.
        } catch (Throwable e) {
            failure = e;
        } finally {
            PhaseEnd end = phaseEnd;
            if (end != null) {
                end.reached.countDown();
            }
        }
    }

    /** Returns once {@code count} more records than now have been handed out in this phase. */
    public void awaitMoreConsumed(long count) {
        Consumption current = consumption;
        long target = current.count() + count;
        Await.until(count + " more records consumed", Consumption.TIMEOUT, () -> {
            assertRunning();
            return current.count() >= target;
        });
    }

    /**
     * Lets the consumer poll until its positions reach {@code endOffsets}, then ends the phase; the
     * consumer polls on into the next one.
     *
     * @return every record it handed out in the phase
     * @throws AssertionError if it failed or did not get there in time
     */
    public Consumption finishAt(Map<TopicPartition, Long> endOffsets) throws InterruptedException {
        PhaseEnd end = new PhaseEnd(Map.copyOf(endOffsets));
        phaseEnd = end;
        if (!end.reached.await(Consumption.TIMEOUT.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the background consumer did not reach " + endOffsets);
        }
        assertRunning();
        return end.finished;
    }

    private void assertRunning() {
        if (failure != null) {
            throw new AssertionError("the background consumer failed", failure);
        }
        if (!thread.isAlive()) {
            throw new AssertionError("the background consumer stopped");
        }
    }

    /** A metric of the consumer, summed over its tags. */
    public double metric(String group, String name) {
        return Consumption.metric(metrics(), group, name);
    }

    /** The consumer's metrics, live. */
    public Map<MetricName, ? extends Metric> metrics() {
        return consumer.metrics();
    }

    /** Stops polling and closes the consumer. */
    @Override
    public void close() throws InterruptedException {
        closing = true;
        FastLeaderConsumer<String, String> running = consumer;
        if (running != null) {
            running.wakeup();
        }
        thread.join(Duration.ofSeconds(60).toMillis());
    }

    /** End offsets the test waits for, and what the polling thread hands back when it reached them. */
    private static final class PhaseEnd {
        final Map<TopicPartition, Long> offsets;
        final CountDownLatch reached = new CountDownLatch(1);
        volatile Consumption finished;

        PhaseEnd(Map<TopicPartition, Long> offsets) {
            this.offsets = offsets;
        }

        boolean reachedBy(FastLeaderConsumer<String, String> consumer) {
            return offsets.entrySet().stream().allMatch(end -> consumer.position(end.getKey()) >= end.getValue());
        }
    }
}
