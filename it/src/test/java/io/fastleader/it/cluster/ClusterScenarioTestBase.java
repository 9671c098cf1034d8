package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.fastleader.it.cluster.Disturbances.StopStyle;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The scenarios every cluster fixture must carry, proven with kafka-clients 4.3.1's producer and
 * consumer: leadership moves and rolling restarts while producing, with every acknowledged record
 * read back, and topic recreation. A subclass starts the cluster in its {@code @BeforeAll}.
 */
@ExtendWith(KafkaClusterExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class ClusterScenarioTestBase {

    static final int RECORDS_PER_SECOND = 1000;
    static final Map<String, String> MIN_ISR_2 = Map.of("min.insync.replicas", "2");

    static KafkaTestCluster cluster;
    static Disturbances disturbances;

    /** Called by each subclass's {@code @BeforeAll} with the cluster it started. */
    static void use(KafkaTestCluster started) {
        cluster = started;
        disturbances = new Disturbances(cluster);
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    @Test
    @Order(1)
    void leadershipOfEveryPartitionOfAHundredMovesWhileProducing() throws Exception {
        String topic = "rotate";
        Map<TopicPartition, Integer> before = leaders(disturbances.createTopic(new NewTopic(topic, 100, (short) 3).configs(MIN_ISR_2)));

        try (SteadyProducer producer = new SteadyProducer(cluster.clientConfig(), topic, RECORDS_PER_SECOND)) {
            producer.awaitMoreAcks(200);
            long sentBefore = producer.sentCount();
            Map<TopicPartition, Integer> after = leaders(disturbances.rotateReplicas(topic));
            assertThat(producer.sentCount()).as("records sent during the move").isGreaterThan(sentBefore);
            producer.awaitMoreAcks(200);
            producer.stopAndFlush();

            assertThat(after).hasSize(100);
            after.forEach((partition, leader) -> assertThat(leader).as("leader of %s", partition).isNotEqualTo(before.get(partition)));
            AckedRecords.assertAllReadBack(producer, cluster.clientConfig());
        }
    }

    @Test
    @Order(2)
    void everyBrokerRestartsGracefullyWhileProducingThenPreferredLeadersReturn() throws Exception {
        rollWhileProducing(StopStyle.GRACEFUL);
    }

    /** Restarts every broker while producing, then brings the preferred leaders back. */
    static void rollWhileProducing(StopStyle style) throws Exception {
        String topic = "roll-" + style.name().toLowerCase(Locale.ROOT);
        disturbances.createTopic(new NewTopic(topic, 30, (short) 3).configs(MIN_ISR_2));

        try (SteadyProducer producer = new SteadyProducer(cluster.clientConfig(), topic, RECORDS_PER_SECOND)) {
            producer.awaitMoreAcks(200);
            long sentBefore = producer.sentCount();
            disturbances.rollingRestart(style, Set.of(topic));
            assertThat(producer.sentCount()).as("records sent during the roll").isGreaterThan(sentBefore);
            producer.awaitMoreAcks(200);
            producer.stopAndFlush();
            AckedRecords.assertAllReadBack(producer, cluster.clientConfig());
        }

        disturbances.electPreferredLeaders(topic).partitions().forEach(p ->
            assertThat(p.leader().id()).as("leader of partition %d", p.partition()).isEqualTo(p.replicas().get(0).id()));
        assertThat(cluster.stoppedBrokers()).isEmpty();
    }

    @Test
    @Order(3)
    void recreatedTopicHasANewIdAndNoRecords() throws Exception {
        String topic = "recreate";
        Uuid first = disturbances.createTopic(new NewTopic(topic, 3, (short) 3).configs(MIN_ISR_2)).topicId();
        try (SteadyProducer producer = new SteadyProducer(cluster.clientConfig(), topic, RECORDS_PER_SECOND)) {
            producer.awaitMoreAcks(50);
            producer.stopAndFlush();
        }

        TopicDescription recreated = disturbances.recreateTopic(topic);

        assertThat(recreated.topicId()).isNotEqualTo(first);
        assertThat(recreated.partitions()).hasSize(3);
        assertThat(recreated.partitions().get(0).replicas()).hasSize(3);
        assertThat(ReadBack.readAll(cluster.clientConfig(), partitions(recreated))).isEmpty();
    }

    static Map<TopicPartition, Integer> leaders(TopicDescription description) {
        Map<TopicPartition, Integer> leaders = new HashMap<>();
        description.partitions().forEach(p -> leaders.put(new TopicPartition(description.name(), p.partition()), p.leader().id()));
        return leaders;
    }

    private static Set<TopicPartition> partitions(TopicDescription description) {
        Set<TopicPartition> partitions = new HashSet<>();
        description.partitions().forEach(p -> partitions.add(new TopicPartition(description.name(), p.partition())));
        return partitions;
    }
}
