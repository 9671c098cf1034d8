package io.fastleader.it.transactions;

import static io.fastleader.it.transactions.TransactionsFixture.nameOf;
import static io.fastleader.it.transactions.TransactionsFixture.sendAll;
import static io.fastleader.it.transactions.TransactionsFixture.values;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.producer.Producer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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

    /**
     * Long against the test's reaction to a request written (a poll of the metric every 100 ms, then
     * the cut): each direction holds 300 ms. Short against the test's length, which is about 30
     * round trips.
     */
    private static final Duration CLIENT_RTT = Duration.ofMillis(600);
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

    /** Where the commit's EndTxn is when its connection to the coordinator is cut. */
    enum Cut {
        /** Written by the client, not yet at the coordinator: the coordinator never sees it. */
        REQUEST_ON_ITS_WAY,
        /** Answered by the coordinator, the answer not yet at the client: the transaction committed unbeknown to it. */
        ANSWER_ON_ITS_WAY
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Cut.class)
    void aCommitWhoseConnectionIsLostAfterItsEndTxnWasSentIsResentAndCommitsOnce(Cut cut) throws Exception {
        String id = nameOf("end-txn-lost", cut);
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
            // Half a round trip before it reaches the coordinator, nothing else of this test's on the link.
            long answeredBefore = fixture.cluster.clientBytesFrom(coordinator);
            if (cut == Cut.ANSWER_ON_ITS_WAY) {
                Await.until("EndTxn answered", AWAIT, () -> fixture.cluster.clientBytesFrom(coordinator) > answeredBefore);
            }
            // Either way the answer cannot be back yet: the relay holds each direction half a round trip.
            fixture.cluster.dropClientConnections(coordinator);
            commit.get(AWAIT.toSeconds(), TimeUnit.SECONDS);
            if (cut == Cut.REQUEST_ON_ITS_WAY) {
                assertThat(endTxnRequests(producer)).isEqualTo(2);
            } else {
                // Sent again at least once: a resend that finds the markers still being written is told CONCURRENT_TRANSACTIONS.
                assertThat(endTxnRequests(producer)).isGreaterThanOrEqualTo(2);
            }

            // The producer holds the epoch the coordinator does: its next transaction commits.
            producer.beginTransaction();
            sendAll(producer, topic, "next", 5);
            producer.commitTransaction();
        }
        assertThat(fixture.readCommitted(topic)).containsExactlyInAnyOrderElementsOf(
                values(List.of("committed", "next"), List.of(10, 5)));
        TransactionDescription ended = fixture.awaitCompleteCommit(id);
        // A fresh id starts at epoch 0; under version 2 each commit bumped it once, however often it was sent.
        assertThat(ended.producerEpoch()).isEqualTo((short) (fixture.transactionVersion >= 2 ? 2 : 0));
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
