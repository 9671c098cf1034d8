package io.fastleader.it.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.clients.consumer.ConsumerMetrics;
import io.fastleader.clients.consumer.ConsumerSettings;
import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.metadata.FastLeaderConfigs;
import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.cluster.ReadBack;
import io.fastleader.it.cluster.SteadyProducer;

/**
 * {@link FastLeaderConsumer} on a real 3-broker Kafka 4.3.1 cluster: it reads what kafka-clients'
 * producer wrote exactly as kafka-clients' consumer reads it, answers offset and topic lookups as
 * kafka-clients does, keeps reading every acknowledged record once and in order while leaders
 * move and brokers restart (following the brokers' KIP-951 hints), shares committed offsets with
 * kafka-clients, detects a log truncated under it by an unclean election, and leaves no thread
 * behind when closed.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FastLeaderConsumerOnRealBrokersTest {

    private static final int RECORDS_PER_SECOND = 1000;
    private static final int PARTITIONS = 12;
    private static final Map<String, String> MIN_ISR_2 = Map.of("min.insync.replicas", "2");

    /** The topic read by the lookup tests: 6 partitions of 100 records, timestamps 10 ms apart, partition 0 trimmed to offset 10. */
    private static final String PLAIN = "plain";
    private static final int PLAIN_PARTITIONS = 6;
    private static final int PLAIN_RECORDS = 600;
    private static final long PLAIN_TRIMMED_TO = 10;

    /** The commit tests' topics: 3 partitions of 30 records. */
    private static final int COMMITS_PARTITIONS = 3;
    private static final int COMMITS_RECORDS = 30;

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;
    private static Admin admin;
    private static long plainBaseTimestamp;
    private static List<ProducerRecord<String, String>> plainSent;
    private static List<RecordMetadata> plainAcked;

    @BeforeAll
    static void startCluster(@Cluster(execution = Execution.IN_JVM) KafkaTestCluster started) throws Exception {
        cluster = started;
        disturbances = new Disturbances(cluster);
        admin = Admin.create(cluster.clientConfig());
        disturbances.createTopic(new NewTopic(PLAIN, PLAIN_PARTITIONS, (short) 3).configs(MIN_ISR_2));
        plainBaseTimestamp = System.currentTimeMillis() - 60_000;
        plainSent = new ArrayList<>();
        for (int i = 0; i < PLAIN_RECORDS; i++) {
            plainSent.add(new ProducerRecord<>(PLAIN, i % PLAIN_PARTITIONS, plainBaseTimestamp + 10L * i, "key-" + i, "value-" + i,
                    new RecordHeaders().add("n", Integer.toString(i).getBytes())));
        }
        plainAcked = produce(plainSent);
        admin.deleteRecords(Map.of(new TopicPartition(PLAIN, 0), RecordsToDelete.beforeOffset(PLAIN_TRIMMED_TO))).all().get();
    }

    @AfterAll
    static void closeAdmins() {
        admin.close();
        disturbances.close();
    }

    // ---------------------------------------------------------------- reading and lookups

    @Test
    void readsEveryRecordKafkaProducerWroteOnceInOffsetOrderAsKafkaConsumerReadsIt() {
        Map<TopicPartition, Long> ends = kafkaConsumerAnswer(kafka -> kafka.endOffsets(partitions(PLAIN, PLAIN_PARTITIONS)));
        Consumption fast;
        try (FastLeaderConsumer<String, String> consumer = fastLeaderConsumer(Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 50))) {
            consumer.assign(ends.keySet());
            consumer.seekToBeginning(ends.keySet());
            fast = Consumption.until(consumer, ends);
            // The topic's own figure: the group also holds the client-wide one, as KafkaConsumer's does.
            assertThat(Consumption.metric(consumer.metrics(), ConsumerMetrics.KAFKA_GROUP, "records-consumed-total",
                    Map.of("topic", PLAIN))).isEqualTo(fast.count());
        }
        Consumption kafka = kafkaConsumerAnswer(consumer -> {
            consumer.assign(ends.keySet());
            consumer.seekToBeginning(ends.keySet());
            return Consumption.until(consumer, ends);
        });

        for (TopicPartition partition : ends.keySet()) {
            List<String> written = new ArrayList<>();
            for (int i = 0; i < PLAIN_RECORDS; i++) {
                RecordMetadata acked = plainAcked.get(i);
                if (acked.partition() == partition.partition() && (acked.partition() != 0 || acked.offset() >= PLAIN_TRIMMED_TO)) {
                    written.add(acked.offset() + "=" + plainSent.get(i).value());
                }
            }
            assertThat(fast.offsetsAndValues(partition)).as("records of %s", partition).containsExactlyElementsOf(written);
            assertThat(fast.described(partition)).as("records of %s as kafka-clients reads them", partition)
                    .containsExactlyElementsOf(kafka.described(partition));
        }
    }

    @Test
    void beginningEndAndTimeOffsetsAreKafkaConsumersAnswers() {
        Set<TopicPartition> partitions = partitions(PLAIN, PLAIN_PARTITIONS);
        Map<TopicPartition, Long> times = new HashMap<>();
        long[] probes = {0, plainBaseTimestamp + 10L * 7, plainBaseTimestamp + 10L * 301 + 5, plainBaseTimestamp + 10L * 599,
            plainBaseTimestamp + 10L * 600};
        for (TopicPartition partition : partitions) {
            times.put(partition, probes[partition.partition() % probes.length]);
        }
        try (FastLeaderConsumer<String, String> consumer = fastLeaderConsumer(Map.of())) {
            assertThat(consumer.beginningOffsets(partitions)).isEqualTo(kafkaConsumerAnswer(kafka -> kafka.beginningOffsets(partitions)))
                    .containsEntry(new TopicPartition(PLAIN, 0), PLAIN_TRIMMED_TO);
            assertThat(consumer.endOffsets(partitions)).isEqualTo(kafkaConsumerAnswer(kafka -> kafka.endOffsets(partitions)))
                    .containsEntry(new TopicPartition(PLAIN, 1), (long) PLAIN_RECORDS / PLAIN_PARTITIONS);
            assertThat(consumer.offsetsForTimes(times)).isEqualTo(kafkaConsumerAnswer(kafka -> kafka.offsetsForTimes(times)))
                    .containsEntry(new TopicPartition(PLAIN, 4), null);
        }
    }

    @Test
    void seeksAndPositionsLandWhereKafkaConsumersLand() {
        Set<TopicPartition> partitions = partitions(PLAIN, PLAIN_PARTITIONS);
        TopicPartition third = new TopicPartition(PLAIN, 2);
        try (FastLeaderConsumer<String, String> fast = fastLeaderConsumer(Map.of());
             KafkaConsumer<String, String> kafka = kafkaConsumer(Map.of())) {
            for (Consumer<String, String> consumer : List.of(fast, kafka)) {
                consumer.assign(partitions);
            }
            assertSamePositions(fast, kafka, consumer -> consumer.seekToBeginning(partitions));
            assertSamePositions(fast, kafka, consumer -> consumer.seekToEnd(List.of()));
            assertSamePositions(fast, kafka, consumer -> consumer.seek(third, 42));

            fast.pause(partitions);
            fast.resume(Set.of(third));
            kafka.pause(partitions);
            kafka.resume(Set.of(third));
            Map<TopicPartition, Long> pastTheSeek = Map.of(third, 43L);
            assertThat(Consumption.until(fast, pastTheSeek).described(third).get(0)).startsWith("42 ")
                    .isEqualTo(Consumption.until(kafka, pastTheSeek).described(third).get(0));
        }
    }

    private static void assertSamePositions(FastLeaderConsumer<String, String> fast, KafkaConsumer<String, String> kafka,
                                            java.util.function.Consumer<Consumer<String, String>> move) {
        move.accept(fast);
        move.accept(kafka);
        for (TopicPartition partition : kafka.assignment()) {
            assertThat(fast.position(partition)).as("position of %s", partition).isEqualTo(kafka.position(partition));
        }
    }

    @Test
    void partitionsForIsKafkaConsumersAnswer() {
        try (FastLeaderConsumer<String, String> consumer = fastLeaderConsumer(Map.of())) {
            assertThat(sorted(consumer.partitionsFor(PLAIN))).hasSize(PLAIN_PARTITIONS)
                    .isEqualTo(sorted(kafkaConsumerAnswer(kafka -> kafka.partitionsFor(PLAIN))));
            assertThat(consumer.partitionsFor("no-such-topic")).isEqualTo(kafkaConsumerAnswer(kafka -> kafka.partitionsFor("no-such-topic")));
        }
    }

    @Test
    void listTopicsListsWhatKafkaConsumerListsInternalTopicsIncluded() {
        // Looking up a group's offsets makes the group coordinator create __consumer_offsets, if no test did yet.
        kafkaConsumerAnswer(groupConfig("lister", Map.of()), kafka -> kafka.committed(Set.of(new TopicPartition(PLAIN, 0))));
        try (FastLeaderConsumer<String, String> consumer = fastLeaderConsumer(Map.of())) {
            Map<String, List<PartitionInfo>> topics = consumer.listTopics();
            Map<String, List<PartitionInfo>> kafkaTopics = kafkaConsumerAnswer(KafkaConsumer::listTopics);

            assertThat(kafkaTopics).containsKeys(PLAIN, "__consumer_offsets");
            assertThat(topics.keySet()).isEqualTo(kafkaTopics.keySet());
            topics.forEach((topic, infos) -> assertThat(sorted(infos)).as("partitions of %s", topic).isEqualTo(sorted(kafkaTopics.get(topic))));
        }
    }

    private static List<PartitionInfo> sorted(List<PartitionInfo> partitions) {
        return partitions.stream().sorted(Comparator.comparingInt(PartitionInfo::partition)).toList();
    }

    // ---------------------------------------------------------------- leaders move, brokers restart

    @Test
    void leadershipOfEveryPartitionMovesWhileConsumingAndFetchesFollowTheHints() throws Exception {
        String topic = "rotate-hints";
        try (BackgroundConsumer consumer = consumeWhileProducing(topic, Map.of(), () -> disturbances.rotateReplicas(topic))) {
            assertThat(consumer.metric(MetadataMetrics.GROUP, "leader-hints-accepted-total")).isGreaterThan(0);
            assertThat(consumer.metric(ConsumerMetrics.FASTLEADER_GROUP, "fetch-backoffs-skipped-total")).isGreaterThan(0);
        }
    }

    @Test
    void leadershipOfEveryPartitionMovesWhileConsumingWithHintsDisabled() throws Exception {
        String topic = "rotate-no-hints";
        try (BackgroundConsumer consumer = consumeWhileProducing(topic, Map.of(FastLeaderConfigs.LEADER_HINTS_ENABLED, false),
                () -> disturbances.rotateReplicas(topic))) {
            assertThat(consumer.metric(MetadataMetrics.GROUP, "leader-hints-accepted-total")).isZero();
            assertThat(consumer.metric(MetadataMetrics.GROUP, "leader-hints-rejected-total")).isZero();
        }
    }

    @Test
    void aBrokerRestartsGracefullyWhileConsuming() throws Exception {
        String topic = "restart";
        consumeWhileProducing(topic, Map.of(), () -> {
            int broker = cluster.brokerIds().first();
            cluster.stopBroker(broker);
            cluster.startBroker(broker);
            disturbances.awaitFullIsr(topic);
        }).close();
    }

    @Test
    void everyBrokerRestartsInTurnWhileConsuming() throws Exception {
        String topic = "rolling";
        consumeWhileProducing(topic, Map.of(), () -> disturbances.rollingRestart(Disturbances.StopStyle.GRACEFUL, Set.of(topic))).close();
    }

    /**
     * Produces round-robin with kafka-clients' producer to a new topic while a {@link FastLeaderConsumer}
     * reads it from the beginning, runs the disturbance mid-stream, keeps both going, then checks
     * that the consumer handed out exactly the log (every record once, in offset order) and that the
     * log holds every acknowledged record.
     *
     * @return the consumer, stopped at the log's end and still open for its metrics
     */
    private static BackgroundConsumer consumeWhileProducing(String topic, Map<String, Object> overrides, Runnable disturbance)
            throws Exception {
        disturbances.createTopic(new NewTopic(topic, PARTITIONS, (short) 3).configs(MIN_ISR_2));
        Set<TopicPartition> partitions = partitions(topic, PARTITIONS);
        Map<String, Object> config = consumerConfig(overrides);
        BackgroundConsumer consumer = new BackgroundConsumer(config, partitions);
        try (SteadyProducer producer = SteadyProducer.kafkaClients(cluster.clientConfig(), topic, PARTITIONS, RECORDS_PER_SECOND)) {
            producer.awaitMoreAcks(300);
            consumer.awaitMoreConsumed(300);
            disturbance.run();
            producer.awaitMoreAcks(300);
            producer.stopAndFlush();
            assertThat(producer.failures()).isEmpty();
            assertThat(producer.ackedCount()).isEqualTo(producer.sentCount());

            Map<TopicPartition, Map<Long, String>> log = ReadBack.readAll(cluster.clientConfig(), partitions);
            producer.acked().forEach((partition, acked) -> assertThat(log.get(partition)).as("log of %s", partition)
                    .containsAllEntriesOf(acked));
            consumer.finishAt(Consumption.endsOf(log, partitions)).assertExactly(log);
            return consumer;
        } catch (Exception | AssertionError e) {
            consumer.close();
            throw e;
        }
    }

    // ---------------------------------------------------------------- commits

    @Test
    void aNewConsumerOfTheGroupResumesAtTheOffsetsCommitSyncCommitted() {
        String topic = "resume";
        Set<TopicPartition> partitions = produceNumbered(topic, COMMITS_PARTITIONS, COMMITS_RECORDS);
        Map<String, Object> config = groupConfig("resuming", Map.of());
        Map<TopicPartition, Long> committed;
        try (FastLeaderConsumer<String, String> first = fastLeaderConsumer(config)) {
            committed = consumePartway(first, partitions);
            first.commitSync();
        }
        try (FastLeaderConsumer<String, String> second = fastLeaderConsumer(config)) {
            second.assign(partitions);
            for (TopicPartition partition : partitions) {
                assertThat(second.position(partition)).as("position of %s", partition).isEqualTo(committed.get(partition));
            }
            Map<TopicPartition, Long> ends = new HashMap<>();
            partitions.forEach(partition -> ends.put(partition, (long) COMMITS_RECORDS));
            Consumption rest = Consumption.until(second, ends);
            for (TopicPartition partition : partitions) {
                assertThat(rest.of(partition)).as("offsets of %s read after resuming", partition).extracting(ConsumerRecord::offset)
                        .containsExactlyElementsOf(LongStream.range(committed.get(partition), COMMITS_RECORDS).boxed().toList());
            }
        }
    }

    @Test
    void committedOffsetsAreTheSameForKafkaConsumerInEitherDirection() {
        String topic = "shared-commits";
        Set<TopicPartition> partitions = produceNumbered(topic, COMMITS_PARTITIONS, COMMITS_RECORDS);
        Map<String, Object> config = groupConfig("sharing", Map.of());
        TopicPartition first = new TopicPartition(topic, 0);
        OffsetAndMetadata fromKafka = new OffsetAndMetadata(17, Optional.empty(), "from kafka-clients");
        try (FastLeaderConsumer<String, String> fast = fastLeaderConsumer(config);
             KafkaConsumer<String, String> kafka = kafkaConsumer(config)) {
            Map<TopicPartition, Long> positions = consumePartway(fast, partitions);
            fast.commitSync();
            Map<TopicPartition, OffsetAndMetadata> committedByFast = fast.committed(partitions);
            assertThat(committedByFast).allSatisfy((partition, offset) -> assertThat(offset.offset()).isEqualTo(positions.get(partition)));
            assertThat(committedByFast.get(first).leaderEpoch()).isPresent();
            assertThat(kafka.committed(partitions)).isEqualTo(committedByFast);

            kafka.commitSync(Map.of(first, fromKafka));
            assertThat(fast.committed(Set.of(first))).isEqualTo(Map.of(first, fromKafka));
        }
    }

    @Test
    void commitAsyncCallsBackInALaterPollWithTheCommittedPositions() {
        String topic = "async-commits";
        Set<TopicPartition> partitions = produceNumbered(topic, COMMITS_PARTITIONS, COMMITS_RECORDS);
        Map<String, Object> config = groupConfig("async", Map.of());
        try (FastLeaderConsumer<String, String> consumer = fastLeaderConsumer(config)) {
            Map<TopicPartition, Long> positions = consumePartway(consumer, partitions);
            AtomicReference<Map<TopicPartition, OffsetAndMetadata>> calledBackWith = new AtomicReference<>();
            AtomicReference<Exception> calledBackWithFailure = new AtomicReference<>();
            OffsetCommitCallback callback = (offsets, failure) -> {
                calledBackWith.set(offsets);
                calledBackWithFailure.set(failure);
            };
            consumer.commitAsync(callback);
            assertThat(calledBackWith.get()).as("called back before a later poll").isNull();
            consumer.pause(partitions);
            Await.until("the commit callback", Consumption.TIMEOUT, () -> {
                consumer.poll(Duration.ofMillis(100));
                return calledBackWith.get() != null;
            });

            assertThat(calledBackWithFailure.get()).isNull();
            assertThat(offsetsOf(calledBackWith.get())).isEqualTo(positions);
            assertThat(offsetsOf(consumer.committed(partitions))).isEqualTo(positions);
        }
    }

    @Test
    void closeWithAutoCommitCommitsThePositions() {
        String topic = "auto-commits";
        Set<TopicPartition> partitions = produceNumbered(topic, COMMITS_PARTITIONS, COMMITS_RECORDS);
        // Auto-commit on, but not before an hour has passed: only close commits.
        Map<String, Object> config = groupConfig("auto", Map.of(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, true,
                ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, 3_600_000));
        Map<TopicPartition, Long> positions;
        try (FastLeaderConsumer<String, String> consumer = fastLeaderConsumer(config)) {
            positions = consumePartway(consumer, partitions);
            assertThat(offsetsOf(consumer.committed(partitions))).as("committed before close").isEmpty();
        }
        assertThat(offsetsOf(kafkaConsumerAnswer(groupConfig("auto", Map.of()), kafka -> kafka.committed(partitions))))
                .isEqualTo(positions);
    }

    /** A consumer of {@code group} that commits only when told, 7 records a poll, with {@code overrides}. */
    private static Map<String, Object> groupConfig(String group, Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>(Map.of(ConsumerConfig.GROUP_ID_CONFIG, group, ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 7));
        config.putAll(overrides);
        return config;
    }

    /**
     * Assigns {@code partitions}, reads until the first of them reaches offset 10 (with a small
     * {@code max.poll.records} the others are somewhere between 0 and their end), and returns
     * every partition's position.
     */
    private static Map<TopicPartition, Long> consumePartway(Consumer<String, String> consumer, Set<TopicPartition> partitions) {
        consumer.assign(partitions);
        TopicPartition first = partitions.stream().min(Comparator.comparingInt(TopicPartition::partition)).orElseThrow();
        Consumption.until(consumer, Map.of(first, 10L));
        Map<TopicPartition, Long> positions = new HashMap<>();
        partitions.forEach(partition -> positions.put(partition, consumer.position(partition)));
        return positions;
    }

    /** The offsets of those partitions that have one. */
    private static Map<TopicPartition, Long> offsetsOf(Map<TopicPartition, OffsetAndMetadata> committed) {
        return committed.entrySet().stream().filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    // ---------------------------------------------------------------- threads

    @Test
    void noConsumerThreadIsLeftAfterClose() {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        List<Thread> started;
        try (FastLeaderConsumer<String, String> consumer = fastLeaderConsumer(Map.of())) {
            Set<TopicPartition> partitions = partitions(PLAIN, PLAIN_PARTITIONS);
            consumer.assign(partitions);
            Consumption.until(consumer, Map.of(new TopicPartition(PLAIN, 1), 50L));
            started = Thread.getAllStackTraces().keySet().stream()
                    .filter(thread -> !before.contains(thread) && thread.getName().startsWith("fastleader-"))
                    .toList();
            assertThat(started).extracting(Thread::getName).as("the consumer's threads while open")
                    .anyMatch(name -> name.startsWith("fastleader-consumer-"))
                    .anyMatch(name -> name.startsWith("fastleader-metadata-"))
                    .anyMatch(name -> name.startsWith("fastleader-io-"));
        }
        assertThat(started.stream().filter(Thread::isAlive).map(Thread::getName)).as("the consumer's threads alive after close").isEmpty();
    }

    // ---------------------------------------------------------------- log truncation

    /**
     * A partition whose log is truncated under consumers that read past the new leader's log end.
     * The records the consumers read were committed (below the high watermark: the old leader was
     * the whole ISR), so only an unclean election can lose them: replicas {old, new},
     * min.insync.replicas 1, unclean elections allowed; the new leader is stopped, records go to
     * the old leader alone and are consumed, the old leader stops, the new leader starts and is
     * elected uncleanly, and records are written to it. Its log then diverges from what the
     * consumers read at the offset where the old leader's records began.
     *
     * <p>Every fixture node is a KRaft voter, and a cluster of three voters loses its quorum with
     * two nodes down. The old leader is therefore a broker-only node added for this, so that only
     * one voter is ever stopped. Nested tests run after the enclosing class's tests, which so see
     * three brokers.
     *
     * <p>The election happens once, in {@link #truncateTheLogUnderConsumersThatReadPastTheNewEnd},
     * under four consumers that differ only in configuration; each test then polls one of them.
     */
    @Nested
    class LogTruncatedByAnUncleanElection {

        private static final String TOPIC = "unclean";
        private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
        private static final int REPLICATED = 5;
        private static final int OLD_LEADER_ONLY = 5;
        private static final int NEW_LEADER_ONLY = 8;
        private static final Map<String, FastLeaderConsumer<String, String>> CONSUMERS = new LinkedHashMap<>();
        private static final String NONE = "none";
        private static final String EARLIEST = "earliest";
        private static final String LATEST = "latest";
        private static final String NONE_VALIDATING = "none, validating with OffsetsForLeaderEpoch";

        private static int oldLeader;
        private static int newLeader;
        /** The leader epoch of the records both replicas hold, where the new leader's log diverges. */
        private static int replicatedEpoch;

        @BeforeAll
        static void truncateTheLogUnderConsumersThatReadPastTheNewEnd() throws Exception {
            oldLeader = cluster.addBroker();
            newLeader = cluster.brokerIds().first();
            disturbances.createTopic(new NewTopic(TOPIC, Map.of(0, List.of(oldLeader, newLeader)))
                    .configs(Map.of("min.insync.replicas", "1", "unclean.leader.election.enable", "true")));
            produce(numbered(PARTITION, "replicated-", REPLICATED));
            cluster.stopBroker(newLeader);
            produce(numbered(PARTITION, "old-leader-only-", OLD_LEADER_ONLY));

            CONSUMERS.put(NONE, fastLeaderConsumer(Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none")));
            CONSUMERS.put(EARLIEST, fastLeaderConsumer(Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest")));
            CONSUMERS.put(LATEST, fastLeaderConsumer(Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest")));
            CONSUMERS.put(NONE_VALIDATING, fastLeaderConsumer(Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none",
                    ConsumerSettings.LAST_FETCHED_EPOCH_ENABLED, false)));
            List<String> oldLog = new ArrayList<>();
            IntStream.range(0, REPLICATED).forEach(i -> oldLog.add(i + "=replicated-" + i));
            IntStream.range(0, OLD_LEADER_ONLY).forEach(i -> oldLog.add((REPLICATED + i) + "=old-leader-only-" + i));
            for (FastLeaderConsumer<String, String> consumer : CONSUMERS.values()) {
                consumer.assign(Set.of(PARTITION));
                consumer.seekToBeginning(Set.of(PARTITION));
                Consumption read = Consumption.until(consumer, Map.of(PARTITION, (long) REPLICATED + OLD_LEADER_ONLY));
                assertThat(read.offsetsAndValues(PARTITION)).as("read before the election").containsExactlyElementsOf(oldLog);
                replicatedEpoch = read.of(PARTITION).get(REPLICATED - 1).leaderEpoch().orElseThrow();
            }

            cluster.stopBroker(oldLeader);
            cluster.startBroker(newLeader);
            // The controller may elect it by itself, the topic allowing unclean elections; the request then is not needed.
            Await.until("unclean election of broker " + newLeader, Disturbances.TIMEOUT, () -> {
                TopicPartitionInfo described = disturbances.describe(TOPIC).partitions().get(0);
                if (described.leader() != null && described.leader().id() == newLeader) {
                    return true;
                }
                admin.electLeaders(ElectionType.UNCLEAN, Set.of(PARTITION)).all().get();
                return false;
            });
            produce(numbered(PARTITION, "new-leader-only-", NEW_LEADER_ONLY));
        }

        @AfterAll
        static void restartTheOldLeader() {
            CONSUMERS.values().forEach(FastLeaderConsumer::close);
            cluster.stoppedBrokers().forEach(cluster::startBroker);
            disturbances.awaitFullIsr(TOPIC);
        }

        @Test
        void withResetNonePollThrowsLogTruncationExceptionNamingTheFirstDivergingOffset() {
            FastLeaderConsumer<String, String> consumer = CONSUMERS.get(NONE);

            assertTruncationThrown(consumer);
            assertThat(metric(consumer, "offset-validations-total")).as("OffsetsForLeaderEpoch requests").isZero();
        }

        @Test
        void withResetEarliestTheConsumerMovesBackToTheFirstDivergingOffsetAndReadsTheNewLeadersRecords() {
            assertReadsTheNewLeadersRecordsFromTheDivergingOffset(CONSUMERS.get(EARLIEST));
        }

        @Test
        void withResetLatestTheConsumerAlsoMovesBackToTheFirstDivergingOffsetNotToTheEnd() {
            assertReadsTheNewLeadersRecordsFromTheDivergingOffset(CONSUMERS.get(LATEST));
        }

        @Test
        void withoutLastFetchedEpochTheTruncationIsFoundByOffsetsForLeaderEpoch() {
            FastLeaderConsumer<String, String> consumer = CONSUMERS.get(NONE_VALIDATING);

            assertTruncationThrown(consumer);
            assertThat(metric(consumer, "offset-validations-total")).as("OffsetsForLeaderEpoch requests").isPositive();
        }

        private static void assertTruncationThrown(FastLeaderConsumer<String, String> consumer) {
            LogTruncationException thrown = pollUntilThrown(consumer);
            assertThat(thrown.divergentOffsets())
                    .isEqualTo(Map.of(PARTITION, new OffsetAndMetadata(REPLICATED, Optional.of(replicatedEpoch), "")));
            assertThat(thrown.offsetOutOfRangePartitions()).isEqualTo(Map.of(PARTITION, (long) REPLICATED + OLD_LEADER_ONLY));
            assertThat(metric(consumer, "truncations-detected-total")).isEqualTo(1);
        }

        /** Polls until poll throws; no poll before may hand out a record. */
        private static LogTruncationException pollUntilThrown(FastLeaderConsumer<String, String> consumer) {
            long deadline = System.nanoTime() + Consumption.TIMEOUT.toNanos();
            while (System.nanoTime() - deadline < 0) {
                ConsumerRecords<String, String> polled;
                try {
                    polled = consumer.poll(Duration.ofMillis(100));
                } catch (LogTruncationException expected) {
                    return expected;
                }
                assertThat(polled).as("records handed out from the truncated log").isEmpty();
            }
            throw new AssertionError("poll did not throw LogTruncationException within " + Consumption.TIMEOUT);
        }

        private static void assertReadsTheNewLeadersRecordsFromTheDivergingOffset(FastLeaderConsumer<String, String> consumer) {
            Consumption read = Consumption.until(consumer, Map.of(PARTITION, (long) REPLICATED + NEW_LEADER_ONLY));

            assertThat(read.offsetsAndValues(PARTITION)).containsExactlyElementsOf(
                    IntStream.range(0, NEW_LEADER_ONLY).mapToObj(i -> (REPLICATED + i) + "=new-leader-only-" + i).toList());
            assertThat(metric(consumer, "truncations-detected-total")).isEqualTo(1);
        }

        private static double metric(FastLeaderConsumer<String, String> consumer, String name) {
            return Consumption.metric(consumer.metrics(), ConsumerMetrics.FASTLEADER_GROUP, name);
        }

        private static List<ProducerRecord<String, String>> numbered(TopicPartition partition, String prefix, int count) {
            return IntStream.range(0, count)
                    .mapToObj(i -> new ProducerRecord<String, String>(partition.topic(), partition.partition(), null, prefix + i))
                    .toList();
        }
    }

    // ---------------------------------------------------------------- clients

    private static Map<String, Object> consumerConfig(Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.putAll(overrides);
        return config;
    }

    private static FastLeaderConsumer<String, String> fastLeaderConsumer(Map<String, Object> overrides) {
        return new FastLeaderConsumer<>(consumerConfig(overrides), new StringDeserializer(), new StringDeserializer());
    }

    private static KafkaConsumer<String, String> kafkaConsumer(Map<String, Object> overrides) {
        return new KafkaConsumer<>(consumerConfig(overrides), new StringDeserializer(), new StringDeserializer());
    }

    /** What a fresh kafka-clients consumer answers. */
    private static <T> T kafkaConsumerAnswer(java.util.function.Function<KafkaConsumer<String, String>, T> question) {
        return kafkaConsumerAnswer(Map.of(), question);
    }

    private static <T> T kafkaConsumerAnswer(Map<String, Object> overrides, java.util.function.Function<KafkaConsumer<String, String>, T> question) {
        try (KafkaConsumer<String, String> kafka = kafkaConsumer(overrides)) {
            return question.apply(kafka);
        }
    }

    /** Sends with kafka-clients' producer (acks=all) and returns each record's metadata, in order. */
    private static List<RecordMetadata> produce(List<ProducerRecord<String, String>> records) throws Exception {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            records.forEach(record -> futures.add(producer.send(record)));
            producer.flush();
        }
        List<RecordMetadata> acked = new ArrayList<>();
        for (Future<RecordMetadata> future : futures) {
            acked.add(future.get());
        }
        return acked;
    }

    /** Creates {@code topic} with {@code count} partitions of {@code perPartition} records each; returns its partitions. */
    private static Set<TopicPartition> produceNumbered(String topic, int count, int perPartition) {
        disturbances.createTopic(new NewTopic(topic, count, (short) 3).configs(MIN_ISR_2));
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = 0; i < count * perPartition; i++) {
            records.add(new ProducerRecord<>(topic, i % count, null, "record-" + i));
        }
        try {
            produce(records);
        } catch (Exception e) {
            throw new AssertionError("producing to " + topic + " failed", e);
        }
        return partitions(topic, count);
    }

    private static Set<TopicPartition> partitions(String topic, int count) {
        return IntStream.range(0, count).mapToObj(partition -> new TopicPartition(topic, partition)).collect(Collectors.toSet());
    }
}
