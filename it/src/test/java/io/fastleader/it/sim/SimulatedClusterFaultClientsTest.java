package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;

/**
 * FastLeaderProducer and KafkaProducer 4.3.1, unmodified and idempotent (their default), produce
 * keyed records to a 3-broker simulated cluster through each fault a client must survive: a
 * broker stopped, a broker killed and failed over, a Produce answer dropped, retriable Produce
 * errors injected, stale Metadata. Every
 * record acknowledged must be in the simulated log exactly once, at its acknowledged offset, in
 * send order per partition.
 */
class SimulatedClusterFaultClientsTest {

    private static final int PARTITIONS = 6;
    private static final int RECORDS = 1_500;
    private static final String TOPIC = "faults";

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fastleader", "kafka"})
    void everyAcknowledgedRecordOnceAndInOrderThroughAStoppedBroker(String client) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            cluster.createTopic(TOPIC, PARTITIONS, 3);
            Sent sent = new Sent();
            Map<TopicPartition, Integer> moved;
            try (Producer<String, String> producer = producer(client, cluster, 10_000)) {
                sent.send(producer, RECORDS / 3);
                producer.flush();
                sent.send(producer, RECORDS / 3);
                moved = cluster.stopBroker(0);
                sent.send(producer, RECORDS / 3);
                producer.flush();
                sent.acknowledged();
            }
            assertThat(moved).as("broker 0 led every third partition").hasSize(PARTITIONS / 3).containsValues(1, 1);
            sent.assertLogged(cluster);
            for (TopicPartition tp : moved.keySet()) {
                assertThat(cluster.leader(tp)).isEqualTo(1);
                List<LoggedRecord> log = cluster.records(tp);
                assertThat(log.get(log.size() - 1).leaderEpoch()).as("%s's last record written by its new leader", tp).isEqualTo(1);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fastleader", "kafka"})
    void everyAcknowledgedRecordOnceAndInOrderThroughAKilledBrokerFailedOver(String client) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            cluster.createTopic(TOPIC, PARTITIONS, 3);
            Sent sent = new Sent();
            try (Producer<String, String> producer = producer(client, cluster, 10_000)) {
                sent.send(producer, RECORDS / 3);
                producer.flush();
                sent.send(producer, RECORDS / 3);
                cluster.killBroker(0);
                cluster.clearRequestLog();
                // the client has lost broker 0 and asks the others; Metadata still names broker 0 leader
                Conditions.await("a Metadata request after the kill",
                    () -> cluster.requestLog().stream().anyMatch(r -> r.api() == ApiKey.METADATA));
                Map<TopicPartition, Integer> moved = cluster.failOver(0);
                assertThat(moved).hasSize(PARTITIONS / 3).containsValues(1, 1);
                sent.send(producer, RECORDS / 3);
                producer.flush();
                sent.acknowledged();
            }
            assertThat(cluster.requestLog()).as("a dead broker serves nothing").noneMatch(r -> r.brokerId() == 0);
            sent.assertLogged(cluster);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fastleader", "kafka"})
    void everyAcknowledgedRecordOnceAndInOrderThroughADroppedProduceAnswer(String client) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            cluster.createTopic(TOPIC, PARTITIONS, 3);
            Sent sent = new Sent();
            // request.timeout.ms 1 s: the client gives up on the dropped answer after it
            try (Producer<String, String> producer = producer(client, cluster, 1_000)) {
                sent.send(producer, RECORDS / 3);
                producer.flush();
                cluster.clearRequestLog();
                cluster.dropAnswers(0, ApiKey.PRODUCE, 1);
                sent.send(producer, 2 * RECORDS / 3);
                producer.flush();
                sent.acknowledged();
            }
            List<LoggedRequest> toBroker0 = cluster.requestLog().stream()
                .filter(r -> r.brokerId() == 0 && r.api() == ApiKey.PRODUCE).toList();
            assertThat(toBroker0.get(0).faults()).containsExactly(LoggedRequest.Fault.ANSWER_DROPPED);
            assertThat(toBroker0).as("Produce requests after the one dropped, on a new connection").hasSizeGreaterThan(1);
            sent.assertLogged(cluster);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fastleader", "kafka"})
    void everyAcknowledgedRecordOnceAndInOrderThroughInjectedRetriableProduceErrors(String client) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            cluster.createTopic(TOPIC, PARTITIONS, 3);
            Sent sent = new Sent();
            try (Producer<String, String> producer = producer(client, cluster, 10_000)) {
                sent.send(producer, RECORDS / 3);
                producer.flush();
                cluster.clearRequestLog();
                cluster.injectError(0, ApiKey.PRODUCE, ErrorCode.NOT_ENOUGH_REPLICAS, 3);
                sent.send(producer, 2 * RECORDS / 3);
                producer.flush();
                sent.acknowledged();
            }
            assertThat(cluster.requestLog()).filteredOn(r -> r.brokerId() == 0 && r.api() == ApiKey.PRODUCE)
                .extracting(LoggedRequest::faults).as("three refused, then served")
                .startsWith(Set.of(LoggedRequest.Fault.ERROR_INJECTED), Set.of(LoggedRequest.Fault.ERROR_INJECTED),
                    Set.of(LoggedRequest.Fault.ERROR_INJECTED), Set.of());
            sent.assertLogged(cluster);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fastleader", "kafka"})
    void everyAcknowledgedRecordOnceAndInOrderThroughStaleMetadataAfterAMove(String client) throws Exception {
        // without hints, the clients learn the new leaders from Metadata only
        try (SimulatedCluster cluster = SimulatedCluster.builder().brokers(3).hints(false).start()) {
            cluster.createTopic(TOPIC, PARTITIONS, 3);
            Sent sent = new Sent();
            try (Producer<String, String> producer = producer(client, cluster, 10_000)) {
                sent.send(producer, RECORDS / 3);
                producer.flush();
                cluster.clearRequestLog();
                for (int broker : cluster.brokerIds()) {
                    cluster.staleMetadata(broker);
                }
                cluster.moveLeaders(cluster.nextReplicas(TOPIC));
                sent.send(producer, RECORDS / 3);
                Conditions.await("two stale Metadata answers", () -> cluster.requestLog().stream()
                    .filter(r -> r.faults().contains(LoggedRequest.Fault.STALE_METADATA)).count() >= 2);
                for (int broker : cluster.brokerIds()) {
                    cluster.freshMetadata(broker);
                }
                sent.send(producer, RECORDS / 3);
                producer.flush();
                sent.acknowledged();
            }
            sent.assertLogged(cluster);
            for (int p = 0; p < PARTITIONS; p++) {
                List<LoggedRecord> log = cluster.records(new TopicPartition(TOPIC, p));
                assertThat(log.get(log.size() - 1).leaderEpoch()).isEqualTo(1);
            }
        }
    }

    /** The records sent, in order, and their acknowledgements. */
    private static final class Sent {
        private final List<String> values = new ArrayList<>();
        private final List<Future<RecordMetadata>> futures = new ArrayList<>();
        private final List<RecordMetadata> acks = new ArrayList<>();

        /** Sends {@code count} more records, keyed over 30 keys so the default partitioner spreads them. */
        void send(Producer<String, String> producer, int count) {
            for (int i = 0; i < count; i++) {
                String value = "value-" + values.size();
                futures.add(producer.send(new ProducerRecord<>(TOPIC, "key-" + (values.size() % 30), value)));
                values.add(value);
            }
        }

        void acknowledged() throws Exception {
            for (Future<RecordMetadata> future : futures) {
                acks.add(future.get());
            }
        }

        /** Each partition's log holds exactly the records sent to it, in send order, each at its acknowledged offset. */
        void assertLogged(SimulatedCluster cluster) {
            assertThat(acks).hasSize(values.size());
            Map<Integer, List<String>> sentPerPartition = new HashMap<>();
            for (int i = 0; i < values.size(); i++) {
                sentPerPartition.computeIfAbsent(acks.get(i).partition(), k -> new ArrayList<>()).add(values.get(i));
            }
            assertThat(sentPerPartition).as("keys spread over every partition").hasSize(PARTITIONS);
            Map<Integer, List<LoggedRecord>> logs = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                List<LoggedRecord> log = cluster.records(new TopicPartition(TOPIC, p));
                logs.put(p, log);
                assertThat(log).extracting(LoggedRecord::valueString)
                    .as("partition %d holds every record sent to it, once, in send order", p)
                    .containsExactlyElementsOf(sentPerPartition.get(p));
                for (int i = 0; i < log.size(); i++) {
                    assertThat(log.get(i).offset()).isEqualTo(i);
                }
            }
            for (int i = 0; i < values.size(); i++) {
                RecordMetadata ack = acks.get(i);
                assertThat(logs.get(ack.partition()).get((int) ack.offset()).valueString())
                    .as("the record acknowledged at %s", ack).isEqualTo(values.get(i));
            }
        }
    }

    private static Producer<String, String> producer(String client, SimulatedCluster cluster, int requestTimeoutMs) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 2048);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, requestTimeoutMs);
        // bounds on a hang, never asserted
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        if (client.equals("fastleader")) {
            return new FastLeaderProducer<>(config, new StringSerializer(), new StringSerializer());
        }
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }
}
