package io.fastleader.it.parity;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.group.RecordingListener;

/**
 * Group members side by side: one {@code KafkaConsumer} 4.3.1 under {@code group.protocol=consumer}
 * and one {@code FastLeaderConsumer}, each alone in a group of its own on a real 3-broker cluster,
 * driven through the same calls; what the application sees (listener calls, exceptions, the group
 * as the coordinator describes it) must be the same.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GroupParityTest {

    private static final String TOPIC = "grouped";
    private static final int RECORDS = 30;
    private static final Duration SETTLED = Duration.ofSeconds(60);

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;
    private static int groups;

    @BeforeAll
    static void startCluster(@Cluster(execution = Execution.IN_JVM, brokerConfig = {
            "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.heartbeat.interval.ms=500",
            "group.consumer.min.session.timeout.ms=6000", "group.consumer.session.timeout.ms=6000"}) KafkaTestCluster started) throws Exception {
        cluster = started;
        disturbances = new Disturbances(cluster);
        disturbances.createTopic(new NewTopic(TOPIC, 3, (short) 3));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.clientConfig(), new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(TOPIC, i % 3, "key", "value-" + i)).get();
            }
        }
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    /**
     * {@code wakeup()} is for a blocked call: a close that finds one pending still commits (in the
     * listener, as applications do, or by auto-commit), revokes and leaves.
     */
    @ParameterizedTest(name = "auto-commit {0}")
    @ValueSource(booleans = {false, true})
    void aWakeupPendingWhenClosedDoesNotStopTheMemberCommittingAndLeaving(boolean autoCommit) throws Exception {
        Map<Flavour, List<String>> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            String group = newGroup(flavour);
            List<String> events = new ArrayList<>();
            Map<String, Object> config = memberConfig(group);
            config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, autoCommit);
            // Nothing auto-committed while polling: only the close commits.
            config.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, 600_000);
            Consumer<String, String> consumer = flavour.consumer(config);
            try {
                consumer.subscribe(List.of(TOPIC), autoCommit ? new RecordingListener(events, true) : committingOnRevoke(consumer, events));
                Set<String> read = new HashSet<>();
                Await.until("every record read", SETTLED, () -> {
                    consumer.poll(Duration.ofMillis(100)).forEach(record -> read.add(record.partition() + "@" + record.offset()));
                    return read.size() == RECORDS;
                });
                consumer.wakeup();
            } finally {
                consumer.close();
            }
            events.add("members after close " + members(group));
            events.add("committed " + committed(group));
            seen.put(flavour, events);
        }

        String everything = "[grouped-0, grouped-1, grouped-2]";
        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).endsWith("revoked " + everything,
                "members after close 0", "committed {grouped-0=10, grouped-1=10, grouped-2=10}");
    }

    /** Listener and commit callbacks run on the application's thread, the one calling the consumer. */
    @Test
    void callbacksRunOnTheThreadThatCallsTheConsumer() {
        Map<Flavour, List<String>> seen = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            Thread caller = Thread.currentThread();
            List<String> events = new ArrayList<>();
            Consumer<String, String> consumer = flavour.consumer(memberConfig(newGroup(flavour)));
            try {
                consumer.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        events.add("revoked on the caller " + (Thread.currentThread() == caller));
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        events.add("assigned on the caller " + (Thread.currentThread() == caller));
                    }
                });
                Await.until("the member's assignment", SETTLED, () -> {
                    consumer.poll(Duration.ofMillis(100));
                    return !consumer.assignment().isEmpty();
                });
                consumer.commitAsync((offsets, failure) -> events.add("commit callback on the caller "
                        + (Thread.currentThread() == caller) + ", failure " + failure));
                Await.until("the commit callback", SETTLED, () -> {
                    consumer.poll(Duration.ofMillis(100));
                    return events.stream().anyMatch(event -> event.startsWith("commit"));
                });
                consumer.unsubscribe();
                // Up to here: KafkaConsumer revokes again in close() (a difference listed in clients/README).
                seen.put(flavour, List.copyOf(events));
            } finally {
                consumer.close();
            }
        }

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).containsExactly("assigned on the caller true",
                "commit callback on the caller true, failure null", "revoked on the caller true");
    }

    /** Records each callback as {@link RecordingListener} does, committing synchronously in {@code onPartitionsRevoked} first. */
    private static ConsumerRebalanceListener committingOnRevoke(Consumer<String, String> consumer, List<String> events) {
        RecordingListener recording = new RecordingListener(events, true);
        return new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                consumer.commitSync();
                events.add("committed");
                recording.onPartitionsRevoked(partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                recording.onPartitionsAssigned(partitions);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                recording.onPartitionsLost(partitions);
            }
        };
    }

    private static String newGroup(Flavour flavour) {
        return "group-parity-" + (++groups) + "-" + flavour.name().toLowerCase();
    }

    private static Map<String, Object> memberConfig(String group) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return config;
    }

    /** The offsets committed for {@code group}, by partition. */
    private static Map<String, Long> committed(String group) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            Map<String, Long> offsets = new TreeMap<>();
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
                    .forEach((partition, offset) -> offsets.put(partition.toString(), offset.offset()));
            return offsets;
        }
    }

    /** How many members the coordinator describes in {@code group}. */
    private static int members(String group) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            return admin.describeConsumerGroups(List.of(group)).all().get().get(group).members().size();
        }
    }
}
