package io.fastleader.it.parity;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
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
 * The same consumer workloads run through {@code Consumer<K,V>} once with kafka-clients'
 * {@code KafkaConsumer} and once with {@code FastLeaderConsumer}, on one log of a real 3-broker
 * cluster, and what the application sees compared field by field: the records and their fields,
 * offset lookups, commits, and the exceptions of calls from other threads.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ConsumerParityTest {

    private static final String TOPIC = "consumed";
    /** Recent enough that retention never deletes the log under the test. */
    private static final long FIRST_TIMESTAMP = System.currentTimeMillis() - 60_000;
    private static final int PARTITIONS = 3;
    private static final int RECORDS = 600;
    private static final List<TopicPartition> ALL = IntStream.range(0, PARTITIONS)
            .mapToObj(partition -> new TopicPartition(TOPIC, partition)).toList();

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;

    @BeforeAll
    static void startClusterAndWriteTheLog(@Cluster(execution = Execution.IN_JVM) KafkaTestCluster started) throws Exception {
        cluster = started;
        disturbances = new Disturbances(cluster);
        disturbances.createTopic(new NewTopic(TOPIC, PARTITIONS, (short) 3));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.clientConfig(), new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(TOPIC, null, FIRST_TIMESTAMP + i, "key-" + (i % 41), "value-" + i,
                        List.of(new RecordHeader("index", Integer.toString(i).getBytes(UTF_8))))).get();
            }
        }
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    @Test
    void readsTheSameRecordsWithTheSameFields() {
        Map<Flavour, List<String>> read = each(Map.of(), consumer -> {
            consumer.assign(ALL);
            consumer.seekToBeginning(ALL);
            List<ConsumerRecord<String, String>> records = new ArrayList<>();
            Await.until("reading " + TOPIC + " to its end", Duration.ofSeconds(60), () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return records.size() >= RECORDS;
            });
            List<String> seen = new ArrayList<>(records.stream()
                    .sorted(Comparator.<ConsumerRecord<String, String>>comparingInt(ConsumerRecord::partition)
                            .thenComparingLong(ConsumerRecord::offset))
                    .map(ConsumerParityTest::describe)
                    .toList());
            ALL.forEach(partition -> seen.add("lag of " + partition + " " + consumer.currentLag(partition)));
            return seen;
        });

        assertThat(read.get(Flavour.FASTLEADER)).hasSize(RECORDS + PARTITIONS).containsExactlyElementsOf(read.get(Flavour.KAFKA));
    }

    @Test
    void offsetLookupsAgree() {
        Map<Flavour, String> lookups = each(Map.of(), consumer -> {
            Map<TopicPartition, Long> middle = ALL.stream()
                    .collect(Collectors.toMap(partition -> partition, partition -> FIRST_TIMESTAMP + RECORDS / 2));
            consumer.assign(ALL);
            consumer.seekToEnd(ALL);
            Map<TopicPartition, Long> positions = ALL.stream().collect(Collectors.toMap(partition -> partition, consumer::position));
            String beginning = "beginning " + consumer.beginningOffsets(ALL);
            // Asked right after endOffsets: KafkaConsumer takes any offset it lists (beginning, for times) as the end.
            String end = " end " + consumer.endOffsets(ALL) + " lag at end " + consumer.currentLag(ALL.get(0));
            return beginning + end + " positions at end " + positions + " for times " + consumer.offsetsForTimes(middle);
        });

        assertThat(lookups.get(Flavour.FASTLEADER)).isEqualTo(lookups.get(Flavour.KAFKA));
    }

    @Test
    void standaloneCommitsReadBackAlike() {
        Map<Flavour, Map<TopicPartition, OffsetAndMetadata>> committed = new HashMap<>();
        for (Flavour flavour : Flavour.values()) {
            Map<String, Object> config = Map.of(ConsumerConfig.GROUP_ID_CONFIG, "parity-" + flavour.name().toLowerCase(),
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            committed.put(flavour, with(flavour, config, consumer -> {
                consumer.assign(ALL);
                consumer.commitSync(Map.of(ALL.get(0), new OffsetAndMetadata(7, "seven"), ALL.get(2), new OffsetAndMetadata(3)));
                return consumer.committed(Set.copyOf(ALL));
            }));
        }

        assertThat(committed.get(Flavour.FASTLEADER)).isEqualTo(committed.get(Flavour.KAFKA));
    }

    @Test
    void aSecondThreadIsRefusedWhileOneIsInPollAndWakeupEndsThePoll() {
        Map<Flavour, List<String>> seen = each(Map.of(), consumer -> {
            consumer.assign(ALL);
            consumer.seekToEnd(ALL);
            List<String> events = new ArrayList<>();
            CompletableFuture<String> polling = CompletableFuture.supplyAsync(() -> {
                // The probe below may hold the consumer at the instant poll starts; then poll is the
                // second thread and is refused, which is not what this test is about: poll again.
                // Bounded by time, not tries: on a loaded machine the probe can win a thousand races in a row.
                long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() - giveUpAt < 0) {
                    try {
                        consumer.poll(Duration.ofSeconds(60));
                        return "poll returned";
                    } catch (ConcurrentModificationException probeHeldTheConsumer) {
                        Thread.onSpinWait();
                    } catch (RuntimeException e) {
                        return "poll threw " + e.getClass().getName();
                    }
                }
                return "poll refused for 30 s";
            });
            Await.until("the poll to hold the consumer, or to end", Duration.ofSeconds(30), () -> {
                try {
                    consumer.assignment();
                    return polling.isDone();
                } catch (RuntimeException e) {
                    events.add("second thread got " + e.getClass().getName());
                    return true;
                }
            });
            consumer.wakeup();
            events.add(polling.join());
            return events;
        });

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA)).containsExactly(
                "second thread got java.util.ConcurrentModificationException",
                "poll threw org.apache.kafka.common.errors.WakeupException");
    }

    @Test
    void aGroupMemberSeesTheSameCallbacksRecordsAndCommits() {
        Map<Flavour, List<String>> seen = new HashMap<>();
        Map<Flavour, List<String>> untilClosed = new HashMap<>();
        for (Flavour flavour : Flavour.values()) {
            Map<String, Object> config = Map.of(ConsumerConfig.GROUP_ID_CONFIG, "parity-member-" + flavour.name().toLowerCase(),
                    ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            seen.put(flavour, with(flavour, config, consumer -> {
                List<String> events = new ArrayList<>();
                untilClosed.put(flavour, events);
                consumer.subscribe(List.of(TOPIC), new RecordingListener(events, false));
                events.add("subscription " + consumer.subscription());
                Set<String> records = new TreeSet<>();
                Await.until("reading " + TOPIC + " as a group member", Duration.ofSeconds(60), () -> {
                    consumer.poll(Duration.ofMillis(200)).forEach(record -> records.add(record.partition() + "@" + record.offset()));
                    return records.size() >= RECORDS;
                });
                events.add(records.size() + " records, assignment " + new TreeSet<>(consumer.assignment().stream()
                        .map(TopicPartition::toString).toList()));
                ConsumerGroupMetadata member = consumer.groupMetadata();
                events.add("member: has a member id " + !member.memberId().isEmpty()
                        + ", epoch above 0 " + (member.generationId() > 0));
                consumer.commitSync();
                consumer.unsubscribe();
                events.add("after unsubscribe: subscription " + consumer.subscription() + ", assignment " + consumer.assignment());
                events.add("committed " + new TreeMap<>(consumer.committed(Set.copyOf(ALL)).entrySet().stream()
                        .collect(Collectors.toMap(entry -> entry.getKey().toString(), entry -> entry.getValue().offset()))));
                return List.copyOf(events);
            }));
        }

        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA));
        // A difference on purpose (clients/README): KafkaConsumer 4.3.1 revokes the old partitions again in close(),
        // after unsubscribe() revoked them all; fastleader revokes nothing it no longer owns.
        assertThat(untilClosed.get(Flavour.KAFKA)).hasSize(seen.get(Flavour.KAFKA).size() + 1)
                .last().isEqualTo("revoked [consumed-0, consumed-1, consumed-2]");
        assertThat(untilClosed.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.FASTLEADER));
    }

    @Test
    void groupCallsAreRefusedAlike() {
        Map<Flavour, List<String>> refusals = new HashMap<>();
        for (Flavour flavour : Flavour.values()) {
            Map<String, Object> grouped = Map.of(ConsumerConfig.GROUP_ID_CONFIG, "parity-refusals-" + flavour.name().toLowerCase(),
                    ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
            List<String> refused = new ArrayList<>();
            refused.add(with(flavour, Map.of(), consumer -> refusal(() -> consumer.subscribe(List.of(TOPIC)))));
            refused.addAll(with(flavour, grouped, consumer -> List.of(
                    refusal(() -> consumer.poll(Duration.ZERO)),
                    refusal(() -> consumer.subscribe((Collection<String>) null)),
                    refusal(() -> consumer.subscribe(List.of(" "))),
                    refusal(() -> {
                        consumer.subscribe(List.of(TOPIC));
                        consumer.assign(ALL);
                    }),
                    refusal(() -> {
                        consumer.subscribe(List.of());
                        consumer.assign(ALL);
                        consumer.subscribe(List.of(TOPIC));
                    }))));
            refusals.put(flavour, refused);
        }

        assertThat(refusals.get(Flavour.FASTLEADER)).isEqualTo(refusals.get(Flavour.KAFKA));
    }

    private static String refusal(Runnable call) {
        try {
            call.run();
            return "accepted";
        } catch (RuntimeException e) {
            return e.getClass().getName() + ": " + e.getMessage();
        }
    }

    private static <T> Map<Flavour, T> each(Map<String, Object> config, Function<Consumer<String, String>, T> workload) {
        return SideBySide.each(cluster, config, workload);
    }

    private static <T> T with(Flavour flavour, Map<String, Object> config, Function<Consumer<String, String>, T> workload) {
        return SideBySide.with(cluster, flavour, config, workload);
    }

    private static String describe(ConsumerRecord<String, String> record) {
        StringBuilder headers = new StringBuilder();
        record.headers().forEach(header -> headers.append(header.key()).append('=').append(new String(header.value(), UTF_8)));
        return record.partition() + "@" + record.offset() + " " + record.key() + "=" + record.value() + " " + record.timestampType()
                + " " + record.timestamp() + " epoch " + record.leaderEpoch() + " key " + record.serializedKeySize() + "B value "
                + record.serializedValueSize() + "B " + headers;
    }
}
