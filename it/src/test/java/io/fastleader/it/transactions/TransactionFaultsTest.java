package io.fastleader.it.transactions;

import static io.fastleader.it.transactions.TransactionsFixture.nameOf;
import static io.fastleader.it.transactions.TransactionsFixture.sendAll;
import static io.fastleader.it.transactions.TransactionsFixture.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;

import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.cluster.Await;

/**
 * Transactions of {@link FastLeaderProducer} through faults on a real 3-broker Kafka 4.3.1
 * cluster, once per transaction protocol (a subclass per {@code transaction.version}): the
 * coordinator's broker restarted, a partition's leader moved, fencing across the two clients, a
 * transaction the coordinator aborts for its timeout. Each is checked by a {@code read_committed}
 * reader: every committed record exactly once, no record of an aborted transaction.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
abstract class TransactionFaultsTest {

    /** Short enough for a test to outlive; the broker refuses nothing above 0 (its limit is {@code transaction.max.timeout.ms}). */
    private static final int SHORT_TRANSACTION_TIMEOUT_MS = 3000;
    private static final Duration AWAIT = Duration.ofSeconds(60);

    private static TransactionsFixture fixture;

    /**
     * Starts the subclass's cluster, finalized at {@code transactionVersion}; its coordinators look
     * for timed-out transactions every half second rather than every 10 s.
     */
    static void startCluster(int transactionVersion) {
        fixture = TransactionsFixture.start(transactionVersion,
                Map.of("transaction.abort.timed.out.transaction.cleanup.interval.ms", "500"));
    }

    @AfterAll
    static void stopCluster() {
        fixture.close();
    }

    /** Where the transaction stands when its coordinator's broker is restarted. */
    enum Phase {
        /** initTransactions done, before beginTransaction and the first send. */
        BEFORE_FIRST_SEND,
        /** Between the transaction's first records (written) and its next ones. */
        BETWEEN_SENDS,
        /** After sendOffsetsToTransaction, before the last records. */
        AFTER_SEND_OFFSETS,
        /** Every record written, just before commitTransaction. */
        BEFORE_COMMIT
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Phase.class)
    void aTransactionWhoseCoordinatorRestartsStillCommits(Phase phase) throws Exception {
        String name = nameOf("restart", phase);
        String topic = fixture.topic(name);
        String input = fixture.topic(name + "-input");
        String groupId = name + "-group";
        Map<TopicPartition, OffsetAndMetadata> consumed = Map.of(new TopicPartition(input, 0), new OffsetAndMetadata(42));
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        long producerId;
        try (Producer<String, String> producer = fixture.fastLeader(name, Map.of())) {
            producer.initTransactions();
            TransactionDescription initialized = fixture.describeTransaction(name);
            producerId = initialized.producerId();
            restartCoordinatorIf(phase == Phase.BEFORE_FIRST_SEND, name, topic, input);

            producer.beginTransaction();
            sent.addAll(sendAll(producer, topic, "first", 10));
            producer.flush();
            restartCoordinatorIf(phase == Phase.BETWEEN_SENDS, name, topic, input);

            sent.addAll(sendAll(producer, topic, "second", 10));
            producer.sendOffsetsToTransaction(consumed, new ConsumerGroupMetadata(groupId));
            restartCoordinatorIf(phase == Phase.AFTER_SEND_OFFSETS, name, topic, input);

            sent.addAll(sendAll(producer, topic, "third", 10));
            producer.flush();
            restartCoordinatorIf(phase == Phase.BEFORE_COMMIT, name, topic, input);

            producer.commitTransaction();
            assertThat(sent).allMatch(Future::isDone);
        }
        assertThat(fixture.readCommitted(topic)).containsExactlyInAnyOrderElementsOf(
                values(List.of("first", "second", "third"), List.of(10, 10, 10)));
        assertThat(fixture.committedOffsets(groupId)).isEqualTo(Map.of(new TopicPartition(input, 0), 42L));
        TransactionDescription ended = fixture.awaitCompleteCommit(name);
        assertThat(ended.producerId()).isEqualTo(producerId);
        // A fresh id starts at epoch 0; under version 2 its EndTxn bumped it once, the restart not at all.
        assertThat(ended.producerEpoch()).isEqualTo((short) (fixture.transactionVersion >= 2 ? 1 : 0));
    }

    /**
     * When {@code now}: stops the broker coordinating {@code transactionalId}'s transactions and
     * starts it again, then waits for it to lead its share of {@code topics} again, so the
     * leadership moving back is part of the restart, not a surprise later.
     */
    private static void restartCoordinatorIf(boolean now, String transactionalId, String... topics) {
        if (!now) {
            return;
        }
        int coordinator = fixture.describeTransaction(transactionalId).coordinatorId();
        fixture.cluster.stopBroker(coordinator);
        fixture.cluster.startBroker(coordinator);
        for (String topic : topics) {
            fixture.disturbances.awaitFullIsr(topic);
            fixture.disturbances.electPreferredLeaders(topic);
        }
    }

    @Test
    void sendsGoOnThroughALeaderMoveAndCommitOnceInOrder() throws Exception {
        String topic = fixture.topic("leader-move");
        Map<Integer, List<String>> sentByPartition = new ConcurrentHashMap<>();
        AtomicBoolean moved = new AtomicBoolean();
        try (Producer<String, String> producer = fixture.fastLeader("leader-move", Map.of())) {
            producer.initTransactions();
            producer.beginTransaction();
            // Each record waits for the one before it, so records keep going out while the leaders move.
            CompletableFuture<Integer> sending = CompletableFuture.supplyAsync(() -> {
                int sent = 0;
                int afterMove = 0;
                while (afterMove < 30) {
                    int partition = sent % TransactionsFixture.PARTITIONS;
                    String value = "p" + partition + "-" + sent;
                    try {
                        producer.send(new ProducerRecord<>(topic, partition, null, value)).get(60, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new IllegalStateException("sending " + value + " failed", e);
                    }
                    sentByPartition.computeIfAbsent(partition, p -> new ArrayList<>()).add(value);
                    sent++;
                    afterMove += moved.get() ? 1 : 0;
                }
                return sent;
            });
            Await.until("records sent before the move", AWAIT, () -> sentByPartition.size() == TransactionsFixture.PARTITIONS);
            fixture.disturbances.rotateReplicas(topic);
            moved.set(true);
            int sent = sending.get(120, TimeUnit.SECONDS);
            producer.commitTransaction();
            assertThat(sent).isGreaterThanOrEqualTo(30 + TransactionsFixture.PARTITIONS);
            assertThat(hintsAccepted(producer)).as("refused transactional batches went to the leaders their refusals named")
                    .isPositive();
        }
        Map<Integer, List<String>> readByPartition = new LinkedHashMap<>();
        for (ConsumerRecord<String, String> record : fixture.readCommittedRecords(topic)) {
            readByPartition.computeIfAbsent(record.partition(), p -> new ArrayList<>()).add(record.value());
        }
        assertThat(readByPartition).isEqualTo(sentByPartition);
    }

    @Test
    void aFastLeaderProducerIsFencedByAKafkaProducerWithItsTransactionalId() {
        zombieIsFencedBySuccessor("fenced-fastleader", fixture::fastLeader, fixture::kafka);
    }

    @Test
    void aKafkaProducerIsFencedByAFastLeaderProducerWithItsTransactionalId() {
        zombieIsFencedBySuccessor("fenced-kafka", fixture::kafka, fixture::fastLeader);
    }

    /**
     * The zombie's transaction is open with records written when the successor initializes with
     * the same transactional id and commits one of its own: the zombie's commit fails as fenced and
     * only the successor's records are read.
     */
    private static void zombieIsFencedBySuccessor(String id, BiFunction<String, Map<String, Object>, Producer<String, String>> zombieOf,
                                                  BiFunction<String, Map<String, Object>, Producer<String, String>> successorOf) {
        try (Producer<String, String> zombie = zombieOf.apply(id, Map.of());
             Producer<String, String> successor = successorOf.apply(id, Map.of())) {
            zombieIsFencedBySuccessor(id, zombie, successor);
        }
    }

    private static void zombieIsFencedBySuccessor(String id, Producer<String, String> zombie, Producer<String, String> successor) {
        String topic = fixture.topic(id);
        zombie.initTransactions();
        zombie.beginTransaction();
        sendAll(zombie, topic, "zombie", 5);
        zombie.flush();
        TransactionDescription zombies = fixture.describeTransaction(id);
        assertThat(zombies.state()).isEqualTo(TransactionState.ONGOING);

        successor.initTransactions();
        successor.beginTransaction();
        sendAll(successor, topic, "successor", 5);
        successor.commitTransaction();
        TransactionDescription successors = fixture.describeTransaction(id);

        assertThat(catchThrowable(zombie::commitTransaction)).isInstanceOf(ProducerFencedException.class);
        assertThat(successors.producerId()).isEqualTo(zombies.producerId());
        assertThat(successors.producerEpoch()).isGreaterThan(zombies.producerEpoch());
        assertThat(fixture.readCommitted(topic)).containsExactlyInAnyOrderElementsOf(values(List.of("successor"), List.of(5)));
    }

    /**
     * A zombie of an older generation: offsets sent with a FastLeaderConsumer's group metadata from
     * before a rebalance are refused by the group's coordinator, and the transaction must be
     * aborted; both producers fail the same way, and nothing of either transaction is read.
     */
    @Test
    void offsetsSentWithAnOlderGenerationsGroupMetadataFailTheTransactionAsKafkaProducersDo() {
        String input = fixture.topic("older-generation-in");
        String output = fixture.topic("older-generation-out");
        Map<TopicPartition, OffsetAndMetadata> offsets = Map.of(new TopicPartition(input, 0), new OffsetAndMetadata(0));
        Map<String, List<Class<?>>> failures = new LinkedHashMap<>();
        try (FastLeaderConsumer<String, String> first = member("older-generation");
             FastLeaderConsumer<String, String> second = member("older-generation")) {
            first.subscribe(List.of(input));
            Await.until("the first member assigned", AWAIT, () -> {
                first.poll(Duration.ofMillis(100));
                return !first.assignment().isEmpty();
            });
            ConsumerGroupMetadata older = first.groupMetadata();
            second.subscribe(List.of(input));
            Await.until("a rebalance to the next generation", AWAIT, () -> {
                first.poll(Duration.ofMillis(100));
                second.poll(Duration.ofMillis(100));
                return first.groupMetadata().generationId() > older.generationId() && !second.assignment().isEmpty();
            });

            try (Producer<String, String> fastLeader = fixture.fastLeader("older-generation-fastleader", Map.of());
                 Producer<String, String> kafka = fixture.kafka("older-generation-kafka", Map.of())) {
                for (Producer<String, String> producer : List.of(fastLeader, kafka)) {
                    producer.initTransactions();
                    producer.beginTransaction();
                    sendAll(producer, output, "older-generation", 5);
                    Throwable offsetsRefused = catchThrowable(() -> producer.sendOffsetsToTransaction(offsets, older));
                    Throwable commitRefused = catchThrowable(producer::commitTransaction);
                    producer.abortTransaction();
                    failures.put(producer.getClass().getSimpleName(), List.of(classOf(offsetsRefused), classOf(commitRefused)));
                }
            }
        }
        assertThat(failures.get("FastLeaderProducer")).containsExactly(CommitFailedException.class, KafkaException.class)
                .isEqualTo(failures.get("KafkaProducer"));
        assertThat(fixture.readCommitted(output)).isEmpty();
    }

    private static FastLeaderConsumer<String, String> member(String group) {
        Map<String, Object> config = new HashMap<>(fixture.cluster.clientConfig());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return new FastLeaderConsumer<>(config, new StringDeserializer(), new StringDeserializer());
    }

    private static Class<?> classOf(Throwable thrown) {
        return thrown == null ? null : thrown.getClass();
    }

    @Test
    void aTransactionThatOutlivesItsTimeoutFailsToCommitAsKafkaProducersDoes() throws Exception {
        String topic = fixture.topic("timed-out");
        Map<String, Object> shortTimeout = Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, SHORT_TRANSACTION_TIMEOUT_MS);
        try (Producer<String, String> fastLeader = fixture.fastLeader("timed-out-fastleader", shortTimeout);
             Producer<String, String> kafka = fixture.kafka("timed-out-kafka", shortTimeout)) {
            for (Producer<String, String> producer : List.of(fastLeader, kafka)) {
                producer.initTransactions();
                producer.beginTransaction();
                sendAll(producer, topic, "timed-out", 5);
                producer.flush();
            }
            for (String id : List.of("timed-out-fastleader", "timed-out-kafka")) {
                Await.until(id + "'s transaction aborted by its coordinator", AWAIT,
                        () -> fixture.describeTransaction(id).state() != TransactionState.ONGOING);
            }

            for (String id : List.of("timed-out-fastleader", "timed-out-kafka")) {
                // A fresh id's epoch 0, bumped once by the coordinator's abort.
                assertThat(fixture.describeTransaction(id).producerEpoch()).as(id).isEqualTo((short) 1);
            }

            Throwable kafkas = catchThrowable(kafka::commitTransaction);
            Throwable fastLeaders = catchThrowable(fastLeader::commitTransaction);

            assertThat(kafkas).isNotNull();
            assertThat(fastLeaders).isExactlyInstanceOf(kafkas.getClass());
            // Version 1: the coordinator bumped the epoch when it aborted, so the commit's is fenced.
            // Version 2: the commit, one epoch behind, is taken for a retry of the EndTxn that aborted, and refused.
            assertThat(kafkas).isInstanceOf(fixture.transactionVersion >= 2 ? InvalidTxnStateException.class
                    : ProducerFencedException.class);
        }
        assertThat(fixture.readCommitted(topic)).isEmpty();
    }

    private static double hintsAccepted(Producer<String, String> producer) {
        return producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().group().equals(MetadataMetrics.GROUP) && e.getKey().name().equals("leader-hints-accepted-total"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }
}
