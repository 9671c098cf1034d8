package io.fastleader.it.transactions;

import static io.fastleader.it.transactions.TransactionsFixture.sendAll;
import static io.fastleader.it.transactions.TransactionsFixture.values;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.Producer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.network.NetworkMetrics;
import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.NetworkModel;

/**
 * Transactions of {@link FastLeaderProducer} whose coordinator connection breaks, on a real
 * 3-broker Kafka 4.3.1 cluster that clients reach through relays ({@link NetworkModel}), once per
 * transaction protocol (a subclass per {@code transaction.version}). The relays hold every request
 * and answer half a round trip, so a connection cut just after the client wrote a request is cut
 * before its answer can be back; each test is checked by a {@code read_committed} reader.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
abstract class TransactionFaultsOnRelaysTest {

    /** Long against the test's reaction to a request written (a poll of the metric, then the cut), short against the test's length. */
    private static final Duration CLIENT_RTT = Duration.ofMillis(1000);
    private static final Duration AWAIT = Duration.ofSeconds(60);

    private static TransactionsFixture fixture;

    /** Starts the subclass's cluster, finalized at {@code transactionVersion}, behind client relays. */
    static void startCluster(int transactionVersion) {
        fixture = TransactionsFixture.start(transactionVersion, Map.of(), NetworkModel.loopback().withClientRtt(CLIENT_RTT));
    }

    @AfterAll
    static void stopCluster() {
        fixture.close();
    }

    @Test
    void aCommitWhoseConnectionIsLostAfterItsEndTxnWasSentIsResentAndCommitsOnce() throws Exception {
        String id = "end-txn-lost";
        String topic = fixture.topic(id);
        try (Producer<String, String> producer = fixture.fastLeader(id, Map.of())) {
            producer.initTransactions();
            producer.beginTransaction();
            sendAll(producer, topic, "committed", 10);
            producer.flush();
            int coordinator = fixture.describeTransaction(id).coordinatorId();
            assertThat(endTxnRequests(producer)).isZero();

            CompletableFuture<Void> commit = CompletableFuture.runAsync(producer::commitTransaction);
            Await.until("EndTxn sent", AWAIT, () -> endTxnRequests(producer) == 1);
            // Its answer cannot be back yet: the relay holds each direction half a round trip.
            fixture.cluster.dropClientConnections(coordinator);
            commit.get(AWAIT.toSeconds(), TimeUnit.SECONDS);

            // The outcome unknown, the commit was sent again, once.
            assertThat(endTxnRequests(producer)).isEqualTo(2);
        }
        assertThat(fixture.readCommitted(topic)).containsExactlyInAnyOrderElementsOf(values(List.of("committed"), List.of(10)));
        Await.until(id + " completely committed", AWAIT,
                () -> fixture.describeTransaction(id).state() == TransactionState.COMPLETE_COMMIT);
        TransactionDescription ended = fixture.describeTransaction(id);
        // A fresh id starts at epoch 0; under version 2 the commit bumped it once, however often it was sent.
        assertThat(ended.producerEpoch()).isEqualTo((short) (fixture.transactionVersion >= 2 ? 1 : 0));
    }

    /** How many EndTxn requests {@code producer} has written, from fastleader's per-API request count. */
    private static double endTxnRequests(Producer<String, String> producer) {
        return producer.metrics().entrySet().stream()
                .filter(metric -> metric.getKey().group().equals(NetworkMetrics.GROUP)
                        && metric.getKey().name().equals("requests-total")
                        && "EndTxn".equals(metric.getKey().tags().get("api")))
                .mapToDouble(metric -> ((Number) metric.getValue().metricValue()).doubleValue())
                .sum();
    }
}
