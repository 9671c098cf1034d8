package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
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
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseTopic;

/**
 * 100 brokers and 100,000 partitions (1,000 topics of 100, RF 3) in this JVM, one network thread:
 * a producer sends to a sample of 100 partitions while the leaders of 10,000 partitions (the
 * first 100 topics, the sample's included) move at once; a bare socket asks for the Metadata of
 * every partition. Outcomes are asserted; times and heap are printed, never asserted.
 */
class SimulatedClusterScaleTest {

    private static final int BROKERS = 100;
    private static final int TOPICS = 1_000;
    private static final int PARTITIONS_PER_TOPIC = 100;
    private static final int MOVED_TOPICS = 100;
    private static final int SAMPLE_TOPICS = 10;
    private static final int SAMPLE_PARTITIONS_PER_TOPIC = 10;
    private static final int RECORDS = 3_000;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fastleader", "kafka"})
    void aProducerThroughATenThousandPartitionMoveOnAHundredThousandPartitions(String client) throws Exception {
        long heapBefore = usedHeap();
        long started = System.nanoTime();
        try (SimulatedCluster cluster = SimulatedCluster.builder().brokers(BROKERS).requestLogCapacity(0).start()) {
            long brokersUp = System.nanoTime();
            for (int t = 0; t < TOPICS; t++) {
                cluster.createTopic(topic(t), PARTITIONS_PER_TOPIC, 3);
            }
            long topicsCreated = System.nanoTime();
            long heapWithTopics = usedHeap();

            List<String> values = new ArrayList<>();
            List<TopicPartition> targets = new ArrayList<>();
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            Map<TopicPartition, Integer> moved;
            long moveNanos;
            try (Producer<String, String> producer = producer(client, cluster)) {
                send(producer, 0, RECORDS / 3, values, targets, futures);
                producer.flush();
                send(producer, RECORDS / 3, 2 * RECORDS / 3, values, targets, futures);
                Map<TopicPartition, Integer> rotation = new LinkedHashMap<>();
                for (int t = 0; t < MOVED_TOPICS; t++) {
                    rotation.putAll(cluster.nextReplicas(topic(t)));
                }
                long moveStarted = System.nanoTime();
                moved = cluster.moveLeaders(rotation);
                moveNanos = System.nanoTime() - moveStarted;
                send(producer, 2 * RECORDS / 3, RECORDS, values, targets, futures);
                producer.flush();
                for (Future<RecordMetadata> future : futures) {
                    future.get();
                }
            }
            assertThat(moved).hasSize(MOVED_TOPICS * PARTITIONS_PER_TOPIC).containsValues(1);
            assertThat(moved.values()).containsOnly(1);

            Map<TopicPartition, List<String>> sentPerPartition = new HashMap<>();
            for (int i = 0; i < values.size(); i++) {
                sentPerPartition.computeIfAbsent(targets.get(i), k -> new ArrayList<>()).add(values.get(i));
            }
            assertThat(sentPerPartition).hasSize(SAMPLE_TOPICS * SAMPLE_PARTITIONS_PER_TOPIC);
            sentPerPartition.forEach((tp, sent) -> {
                List<LoggedRecord> log = cluster.records(tp);
                assertThat(log).extracting(LoggedRecord::valueString).as("%s: each record once, in send order", tp)
                    .containsExactlyElementsOf(sent);
                assertThat(log.get(log.size() - 1).leaderEpoch()).as("%s: the last record written by the new leader", tp).isEqualTo(1);
            });

            long metadataNanos;
            int partitionsAnswered = 0;
            MetadataResponseData everything;
            try (WireConnection wire = new WireConnection(cluster, 0, "scale")) {
                long asked = System.nanoTime();
                everything = (MetadataResponseData) wire.call(ApiKey.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
                metadataNanos = System.nanoTime() - asked;
            }
            for (MetadataResponseTopic topic : everything.topics()) {
                partitionsAnswered += topic.partitions().size();
            }
            assertThat(everything.brokers()).hasSize(BROKERS);
            assertThat(everything.topics()).hasSize(TOPICS);
            assertThat(partitionsAnswered).isEqualTo(TOPICS * PARTITIONS_PER_TOPIC);
            assertThat(everything.topics().find(topic(0)).partitions().get(0).leaderEpoch()).isEqualTo(1);
            assertThat(everything.topics().find(topic(MOVED_TOPICS)).partitions().get(0).leaderEpoch()).isZero();
            assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .filteredOn(name -> name.startsWith(cluster.name() + "-")).hasSizeLessThanOrEqualTo(2);

            System.out.printf("scale (%s): %d brokers up in %d ms; %d topics x %d partitions created in %d ms; heap used"
                    + " %d MiB before, %d MiB with the topics; move of %d partitions %d ms; Metadata of %d partitions"
                    + " asked and decoded in %d ms%n",
                client, BROKERS, millis(brokersUp - started), TOPICS, PARTITIONS_PER_TOPIC, millis(topicsCreated - brokersUp),
                heapBefore >> 20, heapWithTopics >> 20, moved.size(), millis(moveNanos), partitionsAnswered,
                millis(metadataNanos));
        }
    }

    /** Record {@code i} goes to sample topic {@code i % 10}, partition {@code (i / 10) % 10}, keyed and sent in order. */
    private static void send(Producer<String, String> producer, int from, int to, List<String> values,
                             List<TopicPartition> targets, List<Future<RecordMetadata>> futures) {
        for (int i = from; i < to; i++) {
            TopicPartition tp = new TopicPartition(topic(i % SAMPLE_TOPICS), (i / SAMPLE_TOPICS) % SAMPLE_PARTITIONS_PER_TOPIC);
            String value = "value-" + i;
            values.add(value);
            targets.add(tp);
            futures.add(producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), "key-" + i, value)));
        }
    }

    private static String topic(int index) {
        return String.format("topic-%04d", index);
    }

    private static long usedHeap() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long millis(long nanos) {
        return nanos / 1_000_000;
    }

    private static Producer<String, String> producer(String client, SimulatedCluster cluster) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.brokerAddress(0));
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        // bounds on a hang, never asserted
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
        if (client.equals("fastleader")) {
            return new FastLeaderProducer<>(config, new StringSerializer(), new StringSerializer());
        }
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }
}
