package io.fastleader.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.transaction.KafkaTransactionManager;

/**
 * {@link OrdersApplication}, with the starter on its classpath and nothing else of fastleader's,
 * against a real single-broker cluster (in a child JVM: the test classpath is the application's,
 * without the broker). Each test boots the application on a topic of its own. A client is
 * fastleader's when its metrics hold the group {@code fastleader-metadata}, which kafka-clients'
 * never register.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class StarterOnABrokerTest {

    private static final String FASTLEADER_METRIC_GROUP = "fastleader-metadata";

    private static KafkaTestCluster cluster;

    @BeforeAll
    static void startBroker(@Cluster(brokers = 1) KafkaTestCluster started) {
        cluster = started;
    }

    @Test
    void testTheAutoConfiguredKafkaTemplateAndKafkaListenerRunOnFastLeaderWithBootsSpringKafkaProperties() throws Exception {
        try (ConfigurableApplicationContext application = OrdersApplication.run("orders", bootstrapServers(),
                "spring.kafka.producer.client-id=order-writer", "spring.kafka.consumer.client-id=order-reader")) {
            KafkaTemplate<String, String> template = template(application);
            template.send("orders", "order-1").get(30, TimeUnit.SECONDS);

            assertThat(application.getBean(OrdersApplication.class).received().poll(60, TimeUnit.SECONDS))
                .as("the record the template sent, as the listener received it").isEqualTo("order-1");
            assertThat(template.getProducerFactory()).isInstanceOf(FastLeaderProducerFactory.class);
            assertThat(groups(template.metrics())).as("the template's producer's metric groups").contains(FASTLEADER_METRIC_GROUP);
            assertThat(clientIds(template.metrics())).as("spring.kafka.producer.client-id, as Boot applies it")
                .allMatch(clientId -> clientId.startsWith("order-writer"));
            Map<String, Map<MetricName, ? extends Metric>> consumers = listenerContainer(application).metrics();
            assertThat(consumers).as("the listener's consumers, by client id").isNotEmpty()
                .allSatisfy((clientId, metrics) -> {
                    assertThat(clientId).as("spring.kafka.consumer.client-id, as Boot applies it").startsWith("order-reader");
                    assertThat(groups(metrics)).as("metric groups of consumer %s", clientId).contains(FASTLEADER_METRIC_GROUP);
                });
        }
    }

    @Test
    void testFastLeaderEnabledFalseLeavesBootsKafkaProducerAndKafkaConsumer() throws Exception {
        try (ConfigurableApplicationContext application = OrdersApplication.run("orders-without-fastleader", bootstrapServers(),
                FastLeaderKafkaAutoConfiguration.ENABLED_PROPERTY + "=false")) {
            KafkaTemplate<String, String> template = template(application);
            template.send("orders-without-fastleader", "order-1").get(30, TimeUnit.SECONDS);
            // Received, so the listener's consumer exists and has metrics to look at.
            assertThat(application.getBean(OrdersApplication.class).received().poll(60, TimeUnit.SECONDS)).isEqualTo("order-1");

            assertThat(template.getProducerFactory().getClass()).isEqualTo(DefaultKafkaProducerFactory.class);
            assertThat(application.getBean(DefaultKafkaConsumerFactory.class).getClass()).isEqualTo(DefaultKafkaConsumerFactory.class);
            assertThat(groups(template.metrics())).as("kafka-clients' KafkaProducer's metric groups")
                .contains("producer-metrics").doesNotContain(FASTLEADER_METRIC_GROUP);
            assertThat(listenerContainer(application).metrics()).isNotEmpty().allSatisfy((clientId, metrics) ->
                assertThat(groups(metrics)).as("kafka-clients' KafkaConsumer's metric groups")
                    .contains("consumer-fetch-manager-metrics").doesNotContain(FASTLEADER_METRIC_GROUP));
        }
    }

    @Test
    void testATransactionIdPrefixMakesTheTemplateAndTheListenerTransactionalOnFastLeader() throws Exception {
        try (ConfigurableApplicationContext application = OrdersApplication.run("paid-orders", bootstrapServers(),
                "spring.kafka.producer.transaction-id-prefix=paid-orders-tx-", "spring.kafka.consumer.isolation-level=read-committed")) {
            KafkaTemplate<String, String> template = template(application);
            template.executeInTransaction(operations -> operations.send("paid-orders", "order-1"));

            assertThat(application.getBean(OrdersApplication.class).received().poll(60, TimeUnit.SECONDS))
                .as("the committed record, read read_committed").isEqualTo("order-1");
            assertThat(template.getProducerFactory()).isInstanceOf(FastLeaderProducerFactory.class);
            assertThat(template.getProducerFactory().transactionCapable()).isTrue();
            KafkaTransactionManager<?, ?> transactionManager = application.getBean(KafkaTransactionManager.class);
            assertThat(transactionManager.getProducerFactory())
                .as("the transaction manager Boot declares for the prefix").isSameAs(template.getProducerFactory());
            assertThat(listenerContainer(application).getContainerProperties().getKafkaAwareTransactionManager())
                .as("the listener's container, which commits what it consumed in a transaction").isSameAs(transactionManager);
            // The container sends its offsets in the transaction of each delivery (sendOffsetsToTransaction), on fastleader.
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
                Await.until("the listener's offset committed in its transaction", Duration.ofSeconds(30), () ->
                    new OffsetAndMetadata(1).equals(admin.listConsumerGroupOffsets("paid-orders-readers").partitionsToOffsetAndMetadata()
                        .get().get(new TopicPartition("paid-orders", 0))));
            }
        }
    }

    @Test
    void testBootsMicrometerMetricsMeasureFastLeadersProducerAndListenerConsumer() throws Exception {
        try (ConfigurableApplicationContext application = OrdersApplication.builder("measured-orders", bootstrapServers(),
                "spring.kafka.producer.client-id=measured-writer", "spring.kafka.consumer.client-id=measured-reader")
                .sources(Metered.class).run()) {
            template(application).send("measured-orders", "order-1").get(30, TimeUnit.SECONDS);
            assertThat(application.getBean(OrdersApplication.class).received().poll(60, TimeUnit.SECONDS)).isEqualTo("order-1");

            MeterRegistry registry = application.getBean(MeterRegistry.class);
            assertThat(meterNames(registry, "kafkaProducerFactory.measured-writer"))
                .as("meters of the template's producer, by the listener Boot's Kafka metrics auto-configuration adds")
                .anyMatch(name -> name.startsWith("kafka.producer.")).anyMatch(name -> name.contains("fastleader"));
            assertThat(meterNames(registry, "kafkaConsumerFactory.measured-reader"))
                .as("meters of the listener's consumer").anyMatch(name -> name.startsWith("kafka.consumer.")).anyMatch(name -> name.contains("fastleader"));
        }
    }

    /** The names of the meters Spring's Micrometer listeners registered for the client Spring knows as {@code springId}. */
    private static Set<String> meterNames(MeterRegistry registry, String springIdPrefix) {
        return registry.getMeters().stream()
            .filter(meter -> {
                String springId = meter.getId().getTag("spring.id");
                return springId != null && springId.startsWith(springIdPrefix);
            })
            .map(meter -> meter.getId().getName())
            .collect(Collectors.toCollection(java.util.TreeSet::new));
    }

    /** What Actuator gives an application: a meter registry, which turns on Boot's Kafka metrics auto-configuration. */
    @Configuration(proxyBeanMethods = false)
    static class Metered {

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    private static String bootstrapServers() {
        return "spring.kafka.bootstrap-servers=" + cluster.bootstrapServers();
    }

    @SuppressWarnings("unchecked")
    private static KafkaTemplate<String, String> template(ConfigurableApplicationContext application) {
        return application.getBean(KafkaTemplate.class);
    }

    private static MessageListenerContainer listenerContainer(ConfigurableApplicationContext application) {
        return application.getBean(KafkaListenerEndpointRegistry.class).getListenerContainer(OrdersApplication.LISTENER_ID);
    }

    private static Set<String> groups(Map<MetricName, ? extends Metric> metrics) {
        return metrics.keySet().stream().map(MetricName::group).collect(Collectors.toSet());
    }

    private static Set<String> clientIds(Map<MetricName, ? extends Metric> metrics) {
        return metrics.keySet().stream().map(name -> name.tags().get("client-id")).filter(id -> id != null).collect(Collectors.toSet());
    }
}
