package io.fastleader.benchmarks.common;

import java.time.Duration;
import java.util.List;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * One consumer reading partitions from their start, on a thread of its own, handing every record
 * out with the moment its poll returned: the end of an end-to-end latency. Closing it closes the
 * consumer.
 */
public final class PartitionTail<K, V> implements AutoCloseable {

    /** What is done with each record read. */
    @FunctionalInterface
    public interface Handler<K, V> {
        /** {@code record} was handed out by a poll that returned at {@code nowMs} (wall clock). */
        void read(ConsumerRecord<K, V> record, long nowMs);
    }

    private final Consumer<K, V> consumer;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;

    /** Starts reading {@code partitions} from their start with {@code consumer} on a thread named {@code threadName}. */
    public PartitionTail(Consumer<K, V> consumer, List<TopicPartition> partitions, String threadName, Handler<K, V> handler) {
        this.consumer = consumer;
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        thread = new Thread(() -> {
            try {
                while (running) {
                    var records = consumer.poll(Duration.ofMillis(50));
                    long nowMs = System.currentTimeMillis();
                    for (ConsumerRecord<K, V> record : records) {
                        handler.read(record, nowMs);
                    }
                }
            } catch (WakeupException e) {
                // closing
            } catch (Throwable e) {
                failure = e;
                System.err.println(threadName + " FAILED: " + e);
                e.printStackTrace();
            }
        }, threadName);
        thread.start();
    }

    /** What stopped the reading other than {@link #close}, or null. */
    public Throwable failure() {
        return failure;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        thread.join(30_000);
        consumer.close(Duration.ofSeconds(10));
    }
}
