package io.fastleader.it.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.parity.Flavour;

/**
 * A leader move under {@code acks=0}, FastLeaderProducer beside KafkaProducer 4.3.1, each on a topic
 * of its own on one real 3-broker cluster. With {@code acks=0} a broker answers nothing, not even a
 * refusal: the old leader refuses by closing the connection, and the records on it are lost. What
 * is guaranteed, and checked for both: every record sent before the move arrives; one record per
 * partition sent to the old leaders once the move is done arrives at most once; those closed
 * connections alone make the producer learn every new leader (it sends nothing more meanwhile,
 * and its periodic refresh is minutes away); and every record sent after that arrives, in order,
 * written by the new leader.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class AcksZeroLeaderMoveOnRealBrokersTest {

    private static final int PARTITIONS = 3;
    private static final int RECORDS_PER_PHASE = 300;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;

    @BeforeAll
    static void startCluster(@Cluster KafkaTestCluster started) {
        cluster = started;
        disturbances = new Disturbances(cluster);
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    /** What one flavour's topic's log holds after the move, by partition. */
    private record Move(Map<Integer, List<ConsumerRecord<String, String>>> logByPartition) {

        /** The values of the partition's records written in {@code phase}, in log order. */
        List<String> values(int partition, String phase) {
            return logByPartition.get(partition).stream().map(ConsumerRecord::value).filter(value -> value.startsWith(phase))
                    .toList();
        }

        /** The leader epoch of the partition's records written in {@code phase}, in log order. */
        List<Integer> epochs(int partition, String phase) {
            return logByPartition.get(partition).stream().filter(record -> record.value().startsWith(phase))
                    .map(record -> record.leaderEpoch().orElseThrow()).toList();
        }
    }

    @Test
    void afterEveryLeaderMovedRecordsReachTheNewLeadersAsWithKafkaProducer() {
        Map<Flavour, Move> moves = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            moves.put(flavour, moveUnder(flavour));
        }

        moves.forEach((flavour, move) -> {
            for (int partition = 0; partition < PARTITIONS; partition++) {
                assertThat(move.values(partition, "before-")).as("%s: partition %d's records sent before the move", flavour, partition)
                        .containsExactlyElementsOf(sentInPhase("before-", partition));
                assertThat(move.values(partition, "moving-")).as("%s: partition %d's record sent to its old leader", flavour, partition)
                        .isSubsetOf("moving-" + partition).doesNotHaveDuplicates();
                assertThat(move.values(partition, "after-")).as("%s: partition %d's records sent once the new leader was known",
                        flavour, partition).containsExactlyElementsOf(sentInPhase("after-", partition));
                int oldEpoch = move.epochs(partition, "before-").get(0);
                assertThat(move.epochs(partition, "after-")).as("%s: partition %d's records after the move, by its new leader",
                        flavour, partition).allMatch(epoch -> epoch > oldEpoch);
            }
        });
    }

    /**
     * Sends the three phases with a producer of {@code flavour}: records before the move, read back
     * in full; then, once every partition's replica list has rotated, one record per partition, to
     * the old leaders, and nothing more until the producer names every new leader; then records
     * again, read back in full.
     */
    private static Move moveUnder(Flavour flavour) {
        String topic = "acks-zero-move-" + flavour.name().toLowerCase();
        disturbances.createTopic(new NewTopic(topic, PARTITIONS, (short) 3));
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "0");
        try (Producer<String, String> producer = flavour.producer(config)) {
            sendPhase(producer, topic, "before-");
            awaitLog(topic, "before-");
            Map<Integer, Integer> newLeaders = leaders(disturbances.rotateReplicas(topic));
            for (int partition = 0; partition < PARTITIONS; partition++) {
                producer.send(new ProducerRecord<>(topic, partition, null, "moving-" + partition));
            }
            producer.flush();
            Await.until(flavour + " naming every new leader of " + topic + ", told only by the old leaders' closed connections",
                    WAIT, () -> producer.partitionsFor(topic).stream().allMatch(info -> ledBy(info, newLeaders)));
            sendPhase(producer, topic, "after-");
        }
        return new Move(awaitLog(topic, "after-"));
    }

    /** Sends {@link #RECORDS_PER_PHASE} records round-robin over the partitions, values {@code phase} then their index. */
    private static void sendPhase(Producer<String, String> producer, String topic, String phase) {
        for (int i = 0; i < RECORDS_PER_PHASE; i++) {
            producer.send(new ProducerRecord<>(topic, i % PARTITIONS, null, phase + i));
        }
        producer.flush();
    }

    /** The values {@link #sendPhase} sent to {@code partition}, in send order. */
    private static List<String> sentInPhase(String phase, int partition) {
        return IntStream.range(0, RECORDS_PER_PHASE).filter(i -> i % PARTITIONS == partition).mapToObj(i -> phase + i).toList();
    }

    /**
     * Reads the topic from the beginning until it holds every record of {@code phase}: a flush under
     * {@code acks=0} returns before the broker has appended them.
     */
    private static Map<Integer, List<ConsumerRecord<String, String>>> awaitLog(String topic, String phase) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.clientConfig(), new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> all = IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(topic, p)).toList();
            consumer.assign(all);
            consumer.seekToBeginning(all);
            Map<Integer, List<ConsumerRecord<String, String>>> log = new HashMap<>();
            all.forEach(partition -> log.put(partition.partition(), new ArrayList<>()));
            Await.until(topic + " holding every record of " + phase, WAIT, () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> log.get(record.partition()).add(record));
                return log.values().stream().mapToLong(records -> records.stream()
                        .filter(record -> record.value().startsWith(phase)).count()).sum() >= RECORDS_PER_PHASE;
            });
            return log;
        }
    }

    private static Map<Integer, Integer> leaders(TopicDescription description) {
        Map<Integer, Integer> leaders = new HashMap<>();
        for (TopicPartitionInfo partition : description.partitions()) {
            leaders.put(partition.partition(), partition.leader().id());
        }
        return leaders;
    }

    /** Whether the producer's view of a partition ({@code partitionsFor}: its metadata) names the leader {@code leaders} does. */
    private static boolean ledBy(PartitionInfo info, Map<Integer, Integer> leaders) {
        return info.leader() != null && info.leader().id() == leaders.get(info.partition());
    }
}
