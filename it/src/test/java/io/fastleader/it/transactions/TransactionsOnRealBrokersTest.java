package io.fastleader.it.transactions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static io.fastleader.it.transactions.TransactionsFixture.sendAll;
import static io.fastleader.it.transactions.TransactionsFixture.values;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.producer.FastLeaderProducer;

/**
 * Transactions of {@link FastLeaderProducer} on a real 3-broker Kafka 4.3.1 cluster, once per
 * transaction protocol (a subclass per {@code transaction.version}), each checked by a
 * {@code read_committed} reader: every committed record exactly once, no record of an aborted one.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
abstract class TransactionsOnRealBrokersTest {

    private static TransactionsFixture fixture;

    /** Starts the subclass's cluster, finalized at {@code transactionVersion}. */
    static void startCluster(int transactionVersion) {
        fixture = TransactionsFixture.start(transactionVersion, Map.of());
    }

    @AfterAll
    static void stopCluster() {
        fixture.close();
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
        return fixture.topic(name);
    }

    private static Producer<String, String> transactional(String transactionalId) {
        return transactional(transactionalId, Map.of());
    }

    private static Producer<String, String> transactional(String transactionalId, Map<String, Object> extra) {
        return fixture.fastLeader(transactionalId, extra);
    }

    private static List<String> readCommitted(String topic) {
        return fixture.readCommitted(topic);
    }
}
