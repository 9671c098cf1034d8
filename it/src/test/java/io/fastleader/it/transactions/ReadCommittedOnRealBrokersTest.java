package io.fastleader.it.transactions;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.parity.Flavour;
import io.fastleader.it.parity.SideBySide;
import io.fastleader.it.transactions.MirroredLog.Seen;

/**
 * {@code isolation.level=read_committed} in {@code FastLeaderConsumer}, side by side with
 * kafka-clients' {@code KafkaConsumer}, on logs that kafka-clients' transactional
 * {@code KafkaProducer} wrote to a real 3-broker cluster: once with classic transactions
 * ({@code transaction.version} 1) and once with KIP-890's (2), whose producer adds partitions
 * through Produce itself and bumps its epoch at every commit or abort.
 *
 * <p>Every partition of a topic holds the same log ({@link MirroredLog}), so each test knows what
 * a consumer should hand out at each offset, and where its position should end.
 */
@ParameterizedClass(name = "transaction.version {0}")
@ValueSource(ints = {1, 2})
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ReadCommittedOnRealBrokersTest {

    private static final int PARTITIONS = 3;
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Map<String, Object> READ_COMMITTED = Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");

    @Parameter
    int transactionVersion;

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;
    private static Admin admin;
    private static int topics;
    /** A log of committed, aborted and interleaved transactions and plain records, read by every test that only reads. */
    private static MirroredLog history;

    @BeforeParameterizedClassInvocation
    static void startClusterAndWriteHistory(int transactionVersion) throws Exception {
        cluster = ClusterSpec.builder().execution(Execution.IN_JVM).transactionVersion(transactionVersion).start();
        disturbances = new Disturbances(cluster);
        admin = Admin.create(cluster.clientConfig());
        history = writeHistory(new MirroredLog(admin, newTopic(), PARTITIONS));
    }

    @AfterParameterizedClassInvocation
    static void closeCluster() throws Exception {
        admin.close();
        disturbances.close();
        cluster.close();
    }

    /**
     * Two transactional producers and a plain one, in the patterns a consumer must tell apart: a
     * plain record inside a transaction, two transactions open at once of which one aborts, a
     * producer that commits after its own abort, and an ABORT marker last in every partition.
     */
    private static MirroredLog writeHistory(MirroredLog log) throws Exception {
        try (Producer<String, String> committer = transactionalProducer(log.topic() + "-committer", Map.of());
             // Compressed batches: a consumer tells the aborted ones by their headers.
             Producer<String, String> aborter = transactionalProducer(log.topic() + "-aborter",
                     Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"));
             Producer<String, String> plain = plainProducer()) {
            log.begin(committer);
            log.send(committer, "committed-1a");
            log.send(plain, "plain-1");
            log.send(committer, "committed-1b");
            log.commit(committer);

            log.begin(aborter);
            log.send(aborter, "aborted-2a");
            log.begin(committer);
            log.send(committer, "committed-2a");
            log.send(plain, "plain-2");
            log.send(aborter, "aborted-2b");
            log.abort(aborter);
            log.send(committer, "committed-2b");
            log.commit(committer);

            log.begin(committer);
            log.send(committer, "aborted-3");
            log.abort(committer);
            log.begin(committer);
            log.send(committer, "committed-4");
            log.commit(committer);

            log.send(plain, "plain-5");
            log.begin(aborter);
            log.send(aborter, "aborted-6");
            log.abort(aborter);
        }
        return log;
    }

    @Test
    void theHistoryIsWrittenWithTheChosenTransactionProtocol() throws Exception {
        TopicPartition partition = new TopicPartition(history.topic(), 0);
        List<Integer> epochs = admin.describeProducers(List.of(partition)).partitionResult(partition).get(30, TimeUnit.SECONDS)
                .activeProducers().stream().map(ProducerState::producerEpoch).sorted().toList();

        // KIP-890 bumps the epoch at every commit and abort: four of the committer, two of the aborter.
        assertThat(epochs).as("epochs of the plain producer, the aborter and the committer")
                .isEqualTo(transactionVersion == 2 ? List.of(0, 2, 4) : List.of(0, 0, 0));
    }

    @Test
    void assignedConsumersHandOutTheSameRecordsInTheSameOrder() {
        Map<Flavour, Reading> read = SideBySide.each(cluster, READ_COMMITTED, consumer -> readFromBeginning(consumer, history));

        assertThat(read.get(Flavour.FASTLEADER)).isEqualTo(read.get(Flavour.KAFKA))
                .isEqualTo(everyPartition(history.readCommitted(), history.end()));
    }

    @Test
    void subscribedConsumersHandOutTheSameRecordsInTheSameOrder() {
        Map<Flavour, Reading> read = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            Map<String, Object> config = new HashMap<>(READ_COMMITTED);
            config.put(ConsumerConfig.GROUP_ID_CONFIG, history.topic() + "-" + flavour);
            config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            read.put(flavour, SideBySide.with(cluster, flavour, config, consumer -> {
                consumer.subscribe(List.of(history.topic()));
                return readUntil(consumer, history.end());
            }));
        }

        assertThat(read.get(Flavour.FASTLEADER)).isEqualTo(read.get(Flavour.KAFKA))
                .isEqualTo(everyPartition(history.readCommitted(), history.end()));
    }

    @Test
    void recordsOfAbortedTransactionsAreNeverHandedOut() {
        Map<Flavour, Reading> read = SideBySide.each(cluster, READ_COMMITTED, consumer -> readFromBeginning(consumer, history));

        assertThat(history.abortedOffsets()).hasSize(4);
        read.forEach((flavour, reading) -> assertThat(reading.offsets()).as("offsets %s hands out", flavour)
                .doesNotContainAnyElementsOf(history.abortedOffsets()));
    }

    @Test
    void markersAreNeverHandedOutAndPositionsEndPastTheLastOne() {
        Map<Flavour, Reading> read = SideBySide.each(cluster, READ_COMMITTED, consumer -> readFromBeginning(consumer, history));

        assertThat(history.markerOffsets()).hasSize(6).endsWith(history.end() - 1);
        read.forEach((flavour, reading) -> {
            assertThat(reading.offsets()).as("offsets %s hands out", flavour).doesNotContainAnyElementsOf(history.markerOffsets());
            assertThat(reading.positions()).as("positions of %s", flavour).isEqualTo(everyPartition(history.end()));
        });
    }

    @Test
    void readUncommittedHandsOutAbortedRecordsAsKafkaConsumerDoes() {
        Map<Flavour, Reading> read = SideBySide.each(cluster, Map.of(), consumer -> readFromBeginning(consumer, history));

        assertThat(read.get(Flavour.FASTLEADER)).isEqualTo(read.get(Flavour.KAFKA))
                .isEqualTo(everyPartition(history.readUncommitted(), history.end()));
        assertThat(read.get(Flavour.FASTLEADER).offsets()).containsAll(history.abortedOffsets());
    }

    @Test
    void readsStopAtTheLastStableOffsetWhileATransactionIsOpenAndGoOnOnceItCommits() throws Exception {
        MirroredLog log = new MirroredLog(admin, newTopic(), PARTITIONS);
        Map<Flavour, Reading> whileOpen;
        Map<Flavour, Reading> afterCommit;
        List<Seen> stableWhileOpen;
        long lastStableWhileOpen;
        try (Producer<String, String> transactional = transactionalProducer(log.topic(), Map.of());
             Producer<String, String> plain = plainProducer();
             SideBySide.Open consumers = SideBySide.open(cluster, READ_COMMITTED)) {
            commitOneThenBegin(log, transactional);
            log.send(transactional, "open-2a");
            log.send(plain, "plain-after-open");
            log.send(transactional, "open-2b");
            stableWhileOpen = log.readCommitted();
            lastStableWhileOpen = log.lastStableOffset();
            whileOpen = consumers.each(consumer -> readFromBeginning(consumer, log));

            log.commit(transactional);
            afterCommit = consumers.each(consumer -> readUntil(consumer, log.end()));
        }

        assertThat(whileOpen.get(Flavour.FASTLEADER)).isEqualTo(whileOpen.get(Flavour.KAFKA))
                .isEqualTo(everyPartition(stableWhileOpen, lastStableWhileOpen));
        List<Seen> committedLater = log.readCommitted().subList(stableWhileOpen.size(), log.readCommitted().size());
        assertThat(committedLater).extracting(Seen::value).containsExactly("open-2a", "plain-after-open", "open-2b");
        assertThat(afterCommit.get(Flavour.FASTLEADER)).isEqualTo(afterCommit.get(Flavour.KAFKA))
                .isEqualTo(everyPartition(committedLater, log.end()));
    }

    @Test
    void pollsThatOnlyStepOverAnAbortedTransactionReportTheNewPositions() throws Exception {
        MirroredLog log = new MirroredLog(admin, newTopic(), PARTITIONS);
        Map<Flavour, Reading> afterAbort;
        try (Producer<String, String> transactional = transactionalProducer(log.topic(), Map.of());
             SideBySide.Open consumers = SideBySide.open(cluster, READ_COMMITTED)) {
            commitOneThenBegin(log, transactional);
            log.send(transactional, "aborted-2a");
            log.send(transactional, "aborted-2b");
            consumers.each(consumer -> readFromBeginning(consumer, log));

            log.abort(transactional);
            afterAbort = consumers.each(consumer -> readUntil(consumer, log.end()));
        }

        assertThat(afterAbort.get(Flavour.FASTLEADER)).isEqualTo(afterAbort.get(Flavour.KAFKA))
                .isEqualTo(everyPartition(List.of(), log.end()));
    }

    @Test
    void aPollCutShortByMaxPollRecordsLeavesThePositionOnTheNextRecordToHandOut() {
        TopicPartition partition = new TopicPartition(history.topic(), 0);
        Map<String, Object> config = new HashMap<>(READ_COMMITTED);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1);
        Map<Flavour, Map<Long, Long>> positionAfterEachRecord = SideBySide.each(cluster, config, consumer -> {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            Map<Long, Long> positions = new LinkedHashMap<>();
            Await.until("position at " + history.end(), READ_TIMEOUT, () -> {
                consumer.poll(POLL).forEach(record -> positions.put(record.offset(), consumer.position(partition)));
                return consumer.position(partition) >= history.end();
            });
            return positions;
        });

        List<Long> handedOut = history.readCommitted().stream().map(Seen::offset).toList();
        List<Long> nextToHandOut = new ArrayList<>(handedOut.subList(1, handedOut.size()));
        nextToHandOut.add(history.end());
        positionAfterEachRecord.forEach((flavour, positions) ->
                assertThat(positions.keySet()).as("what %s hands out", flavour).containsExactlyElementsOf(handedOut));
        assertThat(positionAfterEachRecord.get(Flavour.FASTLEADER).values()).containsExactlyElementsOf(nextToHandOut);
        // A deliberate difference (clients/README.md): KafkaConsumer stops after the record, and
        // steps over the markers and aborted batches that follow it in the next poll.
        assertThat(positionAfterEachRecord.get(Flavour.KAFKA).values())
                .containsExactlyElementsOf(handedOut.stream().map(offset -> offset + 1).toList());
    }

    @Test
    void endOffsetsLagAndPositionsAgreeWhileATransactionIsOpen() throws Exception {
        MirroredLog log = new MirroredLog(admin, newTopic(), PARTITIONS);
        Map<Flavour, Map<Integer, EndsSeen>> seen;
        long lastStable;
        try (Producer<String, String> transactional = transactionalProducer(log.topic(), Map.of());
             Producer<String, String> plain = plainProducer()) {
            log.send(plain, "plain-1");
            log.begin(transactional);
            log.send(transactional, "open-2");
            log.send(plain, "plain-after-open");
            lastStable = log.lastStableOffset();
            seen = SideBySide.each(cluster, READ_COMMITTED, consumer -> endsSeen(consumer, log));
            log.abort(transactional);
        }

        EndsSeen expected = new EndsSeen(lastStable, OptionalLong.of(lastStable), lastStable, OptionalLong.of(0), lastStable);
        assertThat(seen.get(Flavour.FASTLEADER)).isEqualTo(seen.get(Flavour.KAFKA))
                .isEqualTo(everyPartition(partition -> expected));
    }

    /** Commits a transaction of one record, {@code committed-1}, and begins the next. */
    private static void commitOneThenBegin(MirroredLog log, Producer<String, String> transactional) throws Exception {
        log.begin(transactional);
        log.send(transactional, "committed-1");
        log.commit(transactional);
        log.begin(transactional);
    }

    /**
     * What a consumer reports of a partition's end: {@code endOffsets}, {@code currentLag} at the
     * beginning right after it, the position and lag once it read to that end, and the position
     * {@code seekToEnd} gives.
     */
    private record EndsSeen(long endOffset, OptionalLong lagAtBeginning, long positionAtEnd, OptionalLong lagAtEnd,
                            long positionAfterSeekToEnd) {
    }

    private static Map<Integer, EndsSeen> endsSeen(Consumer<String, String> consumer, MirroredLog log) {
        List<TopicPartition> partitions = partitions(log.topic());
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        // currentLag needs a position, which seekToBeginning leaves to be looked up.
        partitions.forEach(consumer::position);
        Map<TopicPartition, Long> endOffsets = consumer.endOffsets(partitions);
        Map<TopicPartition, OptionalLong> lagAtBeginning = lags(consumer, partitions);
        Reading reading = readUntil(consumer, log.lastStableOffset());
        Map<TopicPartition, OptionalLong> lagAtEnd = lags(consumer, partitions);
        consumer.seekToEnd(partitions);
        return everyPartition(partition -> {
            TopicPartition topicPartition = partitions.get(partition);
            return new EndsSeen(endOffsets.get(topicPartition), lagAtBeginning.get(topicPartition),
                    reading.positions().get(partition), lagAtEnd.get(topicPartition), consumer.position(topicPartition));
        });
    }

    private static Map<TopicPartition, OptionalLong> lags(Consumer<String, String> consumer, List<TopicPartition> partitions) {
        Map<TopicPartition, OptionalLong> lags = new HashMap<>();
        partitions.forEach(partition -> lags.put(partition, consumer.currentLag(partition)));
        return lags;
    }

    /**
     * What a consumer handed out, partition by partition in the order it handed them out, where
     * each partition's position stood after, and the last next offset its polls reported for each
     * partition ({@code ConsumerRecords.nextOffsets()}, what an application commits).
     */
    private record Reading(Map<Integer, List<Seen>> records, Map<Integer, Long> positions, Map<Integer, Long> nextOffsets) {

        List<Long> offsets() {
            return records.values().stream().flatMap(List::stream).map(Seen::offset).toList();
        }
    }

    /** Assigns every partition of {@code log}'s topic and reads them from their beginning to its last stable offset. */
    private static Reading readFromBeginning(Consumer<String, String> consumer, MirroredLog log) {
        List<TopicPartition> partitions = partitions(log.topic());
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return readUntil(consumer, log.lastStableOffset());
    }

    /** Polls until every partition of the topic is assigned and at {@code position} or beyond. */
    private static Reading readUntil(Consumer<String, String> consumer, long position) {
        Map<Integer, List<Seen>> records = new TreeMap<>();
        Map<Integer, Long> nextOffsets = new TreeMap<>();
        Await.until("every position at " + position + " or beyond", READ_TIMEOUT, () -> {
            ConsumerRecords<String, String> polled = consumer.poll(POLL);
            for (ConsumerRecord<String, String> record : polled) {
                records.computeIfAbsent(record.partition(), partition -> new ArrayList<>()).add(new Seen(record.offset(), record.value()));
            }
            polled.nextOffsets().forEach((partition, next) -> nextOffsets.put(partition.partition(), next.offset()));
            return consumer.assignment().size() == PARTITIONS
                    && consumer.assignment().stream().allMatch(partition -> consumer.position(partition) >= position);
        });
        Map<Integer, Long> positions = new TreeMap<>();
        consumer.assignment().forEach(partition -> positions.put(partition.partition(), consumer.position(partition)));
        return new Reading(records, positions, nextOffsets);
    }

    /** Every partition handing out {@code records} and ending at {@code position}, as its polls report. */
    private static Reading everyPartition(List<Seen> records, long position) {
        // A consumer's reading lists only the partitions it handed records out of.
        Map<Integer, List<Seen>> handedOut = records.isEmpty() ? Map.of() : everyPartition(partition -> records);
        return new Reading(handedOut, everyPartition(position), everyPartition(position));
    }

    private static Map<Integer, Long> everyPartition(long position) {
        return everyPartition(partition -> position);
    }

    private static <T> Map<Integer, T> everyPartition(Function<Integer, T> value) {
        Map<Integer, T> byPartition = new TreeMap<>();
        IntStream.range(0, PARTITIONS).forEach(partition -> byPartition.put(partition, value.apply(partition)));
        return byPartition;
    }

    private static List<TopicPartition> partitions(String topic) {
        return IntStream.range(0, PARTITIONS).mapToObj(partition -> new TopicPartition(topic, partition)).toList();
    }

    private static String newTopic() {
        String topic = "read-committed-" + ++topics;
        disturbances.createTopic(new NewTopic(topic, PARTITIONS, (short) 3));
        return topic;
    }

    /** kafka-clients' own producer, transactions initialized. */
    private static Producer<String, String> transactionalProducer(String transactionalId, Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.putAll(overrides);
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        Producer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
        producer.initTransactions();
        return producer;
    }

    /** kafka-clients' own producer, without transactions (idempotent, as by default). */
    private static Producer<String, String> plainProducer() {
        return new KafkaProducer<>(cluster.clientConfig(), new StringSerializer(), new StringSerializer());
    }
}
