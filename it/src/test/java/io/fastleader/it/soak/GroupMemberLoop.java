package io.fastleader.it.soak;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * What every member of a soak group does, in this JVM or in a process of its own: poll, hand each
 * record on, then (at most every 500 ms) commit synchronously what it has handed on, so a record is
 * handed on at least once before its offset is committed. A commit refused by a rebalance, or one that failed retriably, is left to the next
 * poll's: the new owner reads those records again, and the read-back counts them as duplicates.
 */
final class GroupMemberLoop {

    private static final Duration POLL = Duration.ofMillis(100);
    /** Commits at most this often, as an application committing after its work would: two cores carry the whole soak. */
    private static final long COMMIT_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    /** Where a member hands its records. */
    interface Sink {
        void consumed(int partition, long offset);

        /** Everything handed on so far is safe; the offsets are committed next. */
        default void beforeCommit() {
        }
    }

    private GroupMemberLoop() {
    }

    /**
     * A member's settings: {@code group.protocol} {@code classic} with a 6 s session (the client's
     * own; the default 45 s would stall a killed member's partitions that long), or {@code consumer},
     * whose session the brokers set.
     */
    static Map<String, Object> config(Map<String, Object> clientConfig, String group, String protocol, String clientId) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200);
        if (protocol.equals("classic")) {
            config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
            config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
        }
        return config;
    }

    /** Subscribes to {@code topic} and consumes until {@link Consumer#wakeup()} or {@code running} turns false. */
    static void run(Consumer<String, String> consumer, String topic, Sink sink, BooleanSupplier running) {
        consumer.subscribe(List.of(topic));
        long lastCommit = System.nanoTime();
        boolean uncommitted = false;
        try {
            while (running.getAsBoolean()) {
                ConsumerRecords<String, String> records = consumer.poll(POLL);
                for (ConsumerRecord<String, String> record : records) {
                    sink.consumed(record.partition(), record.offset());
                }
                uncommitted |= !records.isEmpty();
                // An idle poll commits what is left at once: the last records must not wait for more.
                if (!uncommitted || !records.isEmpty() && System.nanoTime() - lastCommit < COMMIT_INTERVAL_NANOS) {
                    continue;
                }
                sink.beforeCommit();
                lastCommit = System.nanoTime();
                uncommitted = false;
                try {
                    consumer.commitSync();
                } catch (CommitFailedException | RebalanceInProgressException e) {
                    // The partitions went to another member, which reads them from the last commit.
                } catch (RetriableException e) {
                    // The next poll's commit carries these offsets too.
                }
            }
        } catch (WakeupException stopped) {
            // Closed from another thread.
        }
    }
}
