package io.fastleader.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.spring.boot.FastLeaderConsumerFactory;
import io.fastleader.spring.boot.FastLeaderProducerFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.support.TopicPartitionOffset;

/**
 * The Spring Kafka recipe against a real single-broker Kafka cluster: in this JVM here, in a child
 * JVM in {@code examples/spring-boot}, whose classpath is an application's without the broker.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SpringKafkaRecipeTest {

    private static final String TOPIC = "orders";
    private static final int RECORDS = 50;

    @Test
    void testAKafkaTemplateSendsThroughFastLeaderAndAContainerGivenItsPartitionReceivesAndCommitsEveryRecord(
            @Cluster(brokers = 1) KafkaTestCluster cluster) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(Set.of(new NewTopic(TOPIC, Optional.of(1), Optional.empty()))).all().get();
        }

        Set<String> groups = sendOrders(cluster, TOPIC, 1);
        assertThat(groups).as("the template's producer is fastleader's").contains(MetadataMetrics.GROUP);

        Map<String, Object> consumerConfigs = consumerConfigs(cluster, "order-readers");
        ContainerProperties containerProperties = new ContainerProperties(new TopicPartitionOffset(TOPIC, 0, 0L));
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        containerProperties.setMessageListener((MessageListener<String, String>) record -> received.add(record.value()));
        ConcurrentMessageListenerContainer<String, String> container =
            new ConcurrentMessageListenerContainer<>(new FastLeaderConsumerFactory<>(consumerConfigs), containerProperties);
        List<String> values = new ArrayList<>();
        container.start();
        try {
            while (values.size() < RECORDS) {
                String value = received.poll(30, TimeUnit.SECONDS);
                assertThat(value).as("record %d of %d", values.size() + 1, RECORDS).isNotNull();
                values.add(value);
            }
        } finally {
            container.stop();
        }

        assertThat(values).as("every record, in the order sent")
            .isEqualTo(IntStream.range(0, RECORDS).mapToObj(i -> "order-" + i).toList());
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            Map<TopicPartition, OffsetAndMetadata> committed =
                admin.listConsumerGroupOffsets("order-readers").partitionsToOffsetAndMetadata().get();
            assertThat(committed).as("offsets the container committed through fastleader's consumer")
                .containsEntry(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(RECORDS));
        }
    }

    @Test
    void testAContainerGivenATopicSharesItsPartitionsInAGroupAndReceivesAndCommitsEveryRecord(
            @Cluster(brokers = 1) KafkaTestCluster cluster) throws Exception {
        String topic = "grouped-orders";
        int partitions = 4;
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(Set.of(new NewTopic(topic, Optional.of(partitions), Optional.empty()))).all().get();
        }
        sendOrders(cluster, topic, partitions);

        Map<String, Object> consumerConfigs = consumerConfigs(cluster, "grouped-order-readers");
        consumerConfigs.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        ContainerProperties containerProperties = new ContainerProperties(topic);
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        containerProperties.setMessageListener((MessageListener<String, String>) record -> received.add(record.value()));
        ConcurrentMessageListenerContainer<String, String> container =
            new ConcurrentMessageListenerContainer<>(new FastLeaderConsumerFactory<>(consumerConfigs), containerProperties);
        container.setConcurrency(2);
        Set<String> values = new TreeSet<>();
        container.start();
        try {
            while (values.size() < RECORDS) {
                String value = received.poll(30, TimeUnit.SECONDS);
                assertThat(value).as("record %d of %d", values.size() + 1, RECORDS).isNotNull();
                values.add(value);
            }
            // The second consumer may join after the first has read everything; the coordinator then moves partitions to it.
            Await.until("both consumers of the container own partitions", Duration.ofSeconds(60), () -> {
                Map<String, Collection<TopicPartition>> owned = container.getAssignmentsByClientId();
                return owned.size() == 2 && owned.values().stream().noneMatch(Collection::isEmpty);
            });
        } finally {
            container.stop();
        }

        assertThat(values).containsExactlyInAnyOrderElementsOf(IntStream.range(0, RECORDS).mapToObj(i -> "order-" + i).toList());
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            Map<TopicPartition, OffsetAndMetadata> committed =
                admin.listConsumerGroupOffsets("grouped-order-readers").partitionsToOffsetAndMetadata().get();
            for (int partition = 0; partition < partitions; partition++) {
                assertThat(committed).as("offsets the group's members committed").containsEntry(
                    new TopicPartition(topic, partition), new OffsetAndMetadata(RECORDS / partitions + (partition < RECORDS % partitions ? 1 : 0)));
            }
        }
    }

    @Test
    void testATransactionalKafkaTemplateCommitsWhatItsTransactionSentAndRollsBackWhatAFailureInterrupted(
            @Cluster(brokers = 1) KafkaTestCluster cluster) throws Exception {
        String topic = "paid-orders";
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(Set.of(new NewTopic(topic, Optional.of(2), Optional.empty()))).all().get();
        }
        Map<String, Object> producerConfigs = new HashMap<>(cluster.clientConfig());
        producerConfigs.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        producerConfigs.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        FastLeaderProducerFactory<String, String> producers = new FastLeaderProducerFactory<>(producerConfigs);
        producers.setTransactionIdPrefix("paid-orders-tx-");
        try {
            KafkaTemplate<String, String> template = new KafkaTemplate<>(producers);
            Set<String> groups = template.executeInTransaction(operations -> {
                IntStream.range(0, RECORDS).forEach(i -> operations.send(topic, "key-" + i, "paid-" + i));
                Set<String> metricGroups = new TreeSet<>();
                operations.metrics().keySet().forEach(name -> metricGroups.add(name.group()));
                return metricGroups;
            });
            assertThat(groups).as("the template's producer is fastleader's").contains(MetadataMetrics.GROUP);
            assertThatThrownBy(() -> template.executeInTransaction(operations -> {
                IntStream.range(0, RECORDS).forEach(i -> operations.send(topic, "key-" + i, "rolled-back-" + i));
                throw new IllegalStateException("payment declined");
            })).isInstanceOf(IllegalStateException.class).hasMessage("payment declined");
        } finally {
            producers.destroy();
        }

        Map<String, Object> readerConfigs = consumerConfigs(cluster, "paid-order-auditors");
        readerConfigs.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(readerConfigs)) {
            reader.assign(partitions);
            reader.seekToBeginning(partitions);
            Map<TopicPartition, Long> lastStable = reader.endOffsets(partitions);
            Await.until("the committed transaction read", Duration.ofSeconds(30), () -> {
                reader.poll(Duration.ofMillis(100)).forEach(record -> values.add(record.value()));
                return partitions.stream().allMatch(partition -> reader.position(partition) >= lastStable.get(partition));
            });
        }
        assertThat(values).as("the committed transaction's records once each, none of the rolled back one's")
            .containsExactlyInAnyOrderElementsOf(IntStream.range(0, RECORDS).mapToObj(i -> "paid-" + i).toList());
    }

    /**
     * Sends {@link #RECORDS} orders through a {@code KafkaTemplate} on fastleader's producer, spread
     * over the topic's partitions in turn.
     *
     * @return the metric groups the template's producer reported
     */
    private static Set<String> sendOrders(KafkaTestCluster cluster, String topic, int partitions) throws Exception {
        Map<String, Object> producerConfigs = new HashMap<>(cluster.clientConfig());
        producerConfigs.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        producerConfigs.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        FastLeaderProducerFactory<String, String> producers = new FastLeaderProducerFactory<>(producerConfigs);
        try {
            KafkaTemplate<String, String> template = new KafkaTemplate<>(producers);
            for (int i = 0; i < RECORDS; i++) {
                template.send(topic, i % partitions, "key-" + i, "order-" + i).get(30, TimeUnit.SECONDS);
            }
            Set<String> groups = new TreeSet<>();
            template.metrics().keySet().forEach(name -> groups.add(name.group()));
            return groups;
        } finally {
            producers.destroy();
        }
    }

    private static Map<String, Object> consumerConfigs(KafkaTestCluster cluster, String groupId) {
        Map<String, Object> configs = new HashMap<>(cluster.clientConfig());
        configs.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        configs.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        configs.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        return configs;
    }
}
