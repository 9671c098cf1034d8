package io.fastleader.it.group;

import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

import io.fastleader.clients.consumer.FastLeaderConsumer;

/**
 * One member of a consumer group, polling on a thread of its own until stopped: a
 * {@link FastLeaderConsumer} or a {@code KafkaConsumer} with {@code group.protocol=consumer}. Its
 * rebalance listener reports to the group's {@link Ownership}; every record it hands out is kept,
 * as {@code partition@offset}, with how many times it was seen.
 */
final class GroupMember implements AutoCloseable {

    static final Comparator<TopicPartition> PARTITION_ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);
    private static final Duration POLL = Duration.ofMillis(100);

    /** Which client a member runs. */
    enum Flavour {
        FASTLEADER(config -> new FastLeaderConsumer<>(config, new StringDeserializer(), new StringDeserializer())),
        KAFKA(config -> new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer()));

        private final Function<Map<String, Object>, Consumer<String, String>> build;

        Flavour(Function<Map<String, Object>, Consumer<String, String>> build) {
            this.build = build;
        }
    }

    private final String name;
    private final Ownership ownership;
    private final Thread thread;
    private final Map<String, Integer> seen = new ConcurrentHashMap<>();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final Set<Integer> lost = ConcurrentHashMap.newKeySet();
    private volatile Consumer<String, String> consumer;
    private volatile CloseOptions closeWith;
    private volatile Throwable failure;
    private volatile boolean stopping;

    /**
     * Starts a member that subscribes to {@code topic}.
     *
     * @param onRevoked runs in {@code onPartitionsRevoked} before the ownership is released (say, a commit)
     */
    GroupMember(String name, Flavour flavour, Map<String, Object> config, String topic, Ownership ownership,
                java.util.function.Consumer<Consumer<String, String>> onRevoked) {
        this.name = name;
        this.ownership = ownership;
        this.thread = new Thread(() -> run(flavour, config, topic, onRevoked), "group-member-" + name);
        thread.start();
    }

    private void run(Flavour flavour, Map<String, Object> config, String topic,
                     java.util.function.Consumer<Consumer<String, String>> onRevoked) {
        Consumer<String, String> started = flavour.build.apply(config);
        consumer = started;
        try {
            started.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    events.add("revoked " + partitions);
                    onRevoked.accept(started);
                    ownership.released(name, partitions);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    events.add("assigned " + partitions);
                    ownership.assigned(name, partitions);
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    events.add("lost " + partitions);
                    partitions.forEach(partition -> lost.add(partition.partition()));
                    ownership.released(name, partitions);
                }
            });
            while (!stopping) {
                for (ConsumerRecord<String, String> record : started.poll(POLL)) {
                    seen.merge(record.partition() + "@" + record.offset(), 1, Integer::sum);
                }
            }
        } catch (WakeupException stopped) {
            // stop() woke the poll up.
        } catch (Throwable e) {
            failure = e;
        } finally {
            started.close(closeWith == null ? CloseOptions.timeout(Duration.ofSeconds(30)) : closeWith);
        }
    }

    String name() {
        return name;
    }

    /** Records handed out, as {@code partition@offset}, each with how many times. */
    Map<String, Integer> seen() {
        return seen;
    }

    List<String> events() {
        return events;
    }

    /** The partitions this member lost (fenced, or its poll timer expired): their uncommitted records may be read again. */
    Set<Integer> lost() {
        return lost;
    }

    Throwable failure() {
        return failure;
    }

    /**
     * The consumer's metric {@code name} in {@code group}, summed over its tags; 0 before the
     * consumer exists. Read it before {@link #stop}: a closed consumer's metrics are gone.
     */
    double metric(String group, String metricName) {
        Consumer<String, String> running = consumer;
        if (running == null) {
            return 0;
        }
        return running.metrics().entrySet().stream()
                .filter(e -> e.getKey().group().equals(group) && e.getKey().name().equals(metricName))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }

    /** Stops polling and closes the consumer with {@code options}, waiting for the close. */
    void stop(CloseOptions options) throws InterruptedException {
        closeWith = options;
        stopping = true;
        Consumer<String, String> running = consumer;
        if (running != null) {
            running.wakeup();
        }
        thread.join(TimeUnit.SECONDS.toMillis(60));
    }

    @Override
    public void close() throws InterruptedException {
        if (thread.isAlive()) {
            stop(CloseOptions.timeout(Duration.ofSeconds(30)));
        }
    }

    static Set<String> union(Collection<GroupMember> members) {
        Set<String> all = ConcurrentHashMap.newKeySet();
        members.forEach(member -> all.addAll(member.seen().keySet()));
        return all;
    }
}
