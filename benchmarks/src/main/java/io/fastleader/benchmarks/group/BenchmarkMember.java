package io.fastleader.benchmarks.group;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.WakeupException;

import io.fastleader.benchmarks.common.ClientVariant;

/**
 * One member of a benchmark group, polling on a thread of its own and reporting each record's
 * produce time (the first 8 bytes of its value) to the group's {@link RecoveryWatch}.
 */
final class BenchmarkMember {

    private static final Duration POLL = Duration.ofMillis(50);

    private final Thread thread;
    private volatile Consumer<byte[], byte[]> consumer;
    private volatile CloseOptions closeWith = CloseOptions.timeout(Duration.ofSeconds(30));
    private volatile boolean stopping;
    private volatile Throwable failure;
    private volatile int owned;

    BenchmarkMember(String name, ClientVariant variant, Map<String, Object> config, String topic, RecoveryWatch watch) {
        this.thread = new Thread(() -> run(variant, config, topic, watch), "benchmark-member-" + name);
        thread.start();
    }

    private void run(ClientVariant variant, Map<String, Object> config, String topic, RecoveryWatch watch) {
        Consumer<byte[], byte[]> started = variant.consumer(config);
        consumer = started;
        try {
            started.subscribe(List.of(topic));
            while (!stopping) {
                for (ConsumerRecord<byte[], byte[]> record : started.poll(POLL)) {
                    watch.consumed(record.partition(), ByteBuffer.wrap(record.value()).getLong(), System.currentTimeMillis());
                }
                owned = started.assignment().size();
            }
        } catch (WakeupException stopped) {
            // stop() woke the poll up.
        } catch (Throwable e) {
            failure = e;
        } finally {
            started.close(closeWith);
        }
    }

    /** How many partitions the member owned after its last poll. */
    int owned() {
        return owned;
    }

    Throwable failure() {
        return failure;
    }

    /** Stops polling and closes the consumer with {@code options}. */
    void stop(CloseOptions options) throws InterruptedException {
        closeWith = options;
        stopping = true;
        Consumer<byte[], byte[]> running = consumer;
        if (running != null) {
            running.wakeup();
        }
        thread.join(TimeUnit.SECONDS.toMillis(60));
    }
}
