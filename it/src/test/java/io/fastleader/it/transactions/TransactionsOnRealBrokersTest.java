package io.fastleader.it.transactions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * Transactions of {@link FastLeaderProducer} on a real 3-broker Kafka 4.3.1 cluster, once per
 * transaction protocol (a subclass per {@code transaction.version}), each checked by a
 * {@code read_committed} reader: every committed record exactly once, no record of an aborted one.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
abstract class TransactionsOnRealBrokersTest {

    private static final int PARTITIONS = 3;

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;

    /** Starts the subclass's cluster, finalized at {@code transactionVersion}. */
    static void startCluster(int transactionVersion) {
        cluster = ClusterSpec.builder().execution(Execution.IN_JVM).transactionVersion(transactionVersion).start();
        disturbances = new Disturbances(cluster);
    }

    @AfterAll
    static void stopCluster() {
        disturbances.close();
        cluster.close();
    }

    @Test
    void committedRecordsAreReadOnceAndAbortedOnesNever() throws Exception {
        String topic = topic("commit-abort");
        try (Producer<String, String> producer = transactional("commit-abort")) {
            producer.initTransactions();
            producer.beginTransaction();
            List<Future<RecordMetadata>> committed = sendAll(producer, topic, "committed", 30);
            producer.commitTransaction();
            assertThat(committed).allMatch(Future::isDone);

            producer.beginTransaction();
            List<Future<RecordMetadata>> aborted = sendAll(producer, topic, "aborted", 30);
            producer.flush();
            producer.abortTransaction();

            producer.beginTransaction();
            sendAll(producer, topic, "after-abort", 10);
            producer.commitTransaction();
            assertThat(aborted).allMatch(Future::isDone);
        }
        assertThat(readCommitted(topic)).containsExactlyInAnyOrderElementsOf(values(List.of("committed", "after-abort"),
                List.of(30, 10)));
    }

    @Test
    void recordsNotYetSentWhenTheTransactionAbortsFailAsAborted() throws Exception {
        String topic = topic("unsent");
        Map<String, Object> lingering = Map.of(ProducerConfig.LINGER_MS_CONFIG, 60_000);
        try (Producer<String, String> producer = transactional("unsent", lingering)) {
            producer.initTransactions();
            producer.beginTransaction();
            Future<RecordMetadata> unsent = producer.send(new ProducerRecord<>(topic, 0, null, "lingering"));
            producer.abortTransaction();

            assertThatThrownBy(unsent::get).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(TransactionAbortedException.class);
        }
        assertThat(readCommitted(topic)).isEmpty();
    }

    @Test
    void aSecondProducerWithTheSameTransactionalIdFencesTheFirst() throws Exception {
        String topic = topic("fenced");
        try (Producer<String, String> first = transactional("fenced");
             Producer<String, String> second = transactional("fenced")) {
            first.initTransactions();
            first.beginTransaction();
            sendAll(first, topic, "zombie", 5);
            first.flush();

            second.initTransactions();
            second.beginTransaction();
            sendAll(second, topic, "successor", 5);
            second.commitTransaction();

            assertThatThrownBy(first::commitTransaction).isInstanceOf(ProducerFencedException.class);
        }
        assertThat(readCommitted(topic)).containsExactlyInAnyOrderElementsOf(values(List.of("successor"), List.of(5)));
    }

    private static String topic(String name) {
        String topic = "txn-" + name;
        disturbances.createTopic(new NewTopic(topic, PARTITIONS, (short) 3));
        return topic;
    }

    private static Producer<String, String> transactional(String transactionalId) {
        return transactional(transactionalId, Map.of());
    }

    private static Producer<String, String> transactional(String transactionalId, Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        config.putAll(extra);
        return new FastLeaderProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    private static List<Future<RecordMetadata>> sendAll(Producer<String, String> producer, String topic, String prefix, int count) {
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            futures.add(producer.send(new ProducerRecord<>(topic, prefix + "-" + i, prefix + "-" + i)));
        }
        return futures;
    }

    private static List<String> values(List<String> prefixes, List<Integer> counts) {
        List<String> values = new ArrayList<>();
        for (int p = 0; p < prefixes.size(); p++) {
            for (int i = 0; i < counts.get(p); i++) {
                values.add(prefixes.get(p) + "-" + i);
            }
        }
        return values;
    }

    private static List<String> readCommitted(String topic) {
        return ReadCommitted.values(cluster.clientConfig(), topic, PARTITIONS);
    }
}
