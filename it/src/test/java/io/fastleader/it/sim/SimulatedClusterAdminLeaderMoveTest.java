package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.stream.LongStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.fastleader.clients.producer.FastLeaderProducer;

/**
 * FastLeaderProducer and KafkaProducer 4.3.1 produce keyed records to a topic that Admin
 * created, while Admin reassigns every partition twice: each time the leader is left out of the
 * target and replaced by the broker that held no replica, so leadership moves (epoch + 1) and the
 * old leader no longer hosts the partition. The first reassignment comes between two flushed
 * thirds of the records, the second while the second third is still being sent. Every record
 * acknowledged must be in the log exactly once, at its acknowledged offset, in send order per
 * partition.
 */
class SimulatedClusterAdminLeaderMoveTest {

    private static final int PARTITIONS = 6;
    private static final int RECORDS = 3_000;
    private static final String TOPIC = "reassigned";

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fastleader", "kafka"})
    void everyAcknowledgedRecordOnceAndInOrderThroughAdminReassignments(String client) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.start(3); Admin admin = SimulatedClusterAdminTest.admin(cluster)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 2))).all().get();
            List<String> values = new ArrayList<>();
            List<RecordMetadata> acks = new ArrayList<>();
            try (Producer<String, String> producer = SimulatedClusterLeaderMoveTest.producer(client, cluster)) {
                List<Future<RecordMetadata>> futures = new ArrayList<>();
                SimulatedClusterLeaderMoveTest.send(producer, TOPIC, 0, RECORDS / 3, futures, values);
                producer.flush();

                replaceEveryLeader(admin);
                assertThat(epochs(cluster)).containsOnly(1);
                SimulatedClusterLeaderMoveTest.send(producer, TOPIC, RECORDS / 3, 2 * RECORDS / 3, futures, values);
                replaceEveryLeader(admin);
                assertThat(epochs(cluster)).containsOnly(2);
                SimulatedClusterLeaderMoveTest.send(producer, TOPIC, 2 * RECORDS / 3, RECORDS, futures, values);
                producer.flush();

                for (Future<RecordMetadata> future : futures) {
                    acks.add(future.get());
                }
            }

            Map<Integer, List<String>> sentPerPartition = new HashMap<>();
            for (int i = 0; i < RECORDS; i++) {
                sentPerPartition.computeIfAbsent(acks.get(i).partition(), k -> new ArrayList<>()).add(values.get(i));
            }
            assertThat(sentPerPartition).as("keys spread over every partition").hasSize(PARTITIONS);
            for (int p = 0; p < PARTITIONS; p++) {
                List<LoggedRecord> log = cluster.records(new TopicPartition(TOPIC, p));
                assertThat(log).extracting(LoggedRecord::valueString)
                    .as("partition %d holds every record sent to it, once, in send order", p)
                    .containsExactlyElementsOf(sentPerPartition.get(p));
                assertThat(log).extracting(LoggedRecord::offset).as("consecutive offsets")
                    .containsExactlyElementsOf(LongStream.range(0, log.size()).boxed().toList());
                assertThat(log.get(log.size() - 1).leaderEpoch()).as("the last record was written by the last leader").isEqualTo(2);
            }
            for (int i = 0; i < RECORDS; i++) {
                RecordMetadata ack = acks.get(i);
                LoggedRecord logged = cluster.records(new TopicPartition(TOPIC, ack.partition())).get((int) ack.offset());
                assertThat(logged.valueString()).as("the record acknowledged at %s", ack).isEqualTo(values.get(i));
            }
        }
    }

    /** Reassigns every partition from {@code [leader, follower]} to {@code [the third broker, follower]}. */
    private static void replaceEveryLeader(Admin admin) throws Exception {
        TopicDescription description = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC);
        Map<TopicPartition, Optional<NewPartitionReassignment>> moves = new HashMap<>();
        for (TopicPartitionInfo partition : description.partitions()) {
            List<Integer> replicas = SimulatedClusterAdminTest.replicaIds(partition);
            int leader = partition.leader().id();
            int follower = replicas.get(0) == leader ? replicas.get(1) : replicas.get(0);
            int idle = 3 - leader - follower; // brokers 0, 1 and 2: the one holding no replica
            moves.put(new TopicPartition(TOPIC, partition.partition()), Optional.of(new NewPartitionReassignment(List.of(idle, follower))));
        }
        admin.alterPartitionReassignments(moves).all().get();
    }

    private static List<Integer> epochs(SimulatedCluster cluster) {
        List<Integer> epochs = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            epochs.add(cluster.leaderEpoch(new TopicPartition(TOPIC, p)));
        }
        return epochs;
    }
}
