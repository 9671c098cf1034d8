package io.fastleader.clients.shaded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.security.KeyStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLEngine;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.security.auth.SslEngineFactory;
import org.apache.kafka.common.security.ssl.DefaultSslEngineFactory;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * The fastleader-clients artifact over TLS beside the one kafka-clients release on this JVM's
 * classpath (chosen per failsafe execution in the pom), against a real broker whose client listener
 * is TLS only (SASL_SSL, logging in with an unsecured OAUTHBEARER token), with a certificate made for
 * the run: TLS engines come from that release's {@link SslEngineFactory}, Kafka's default one or the
 * application's {@code ssl.engine.factory.class}. The broker is {@link BesideKafkaClientsIT}'s too,
 * started once per release's JVM.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class TlsBesideKafkaClientsIT {

    private static final String RELEASE = System.getProperty("fastleader.kafka-clients.release");

    private static KafkaTestCluster cluster;

    @BeforeAll
    static void startBroker(@Cluster(brokers = 1, execution = Execution.CHILD_JVM, securityProtocol = "SASL_SSL",
            saslMechanism = "OAUTHBEARER", brokerConfig = "group.initial.rebalance.delay.ms=0", shared = true) KafkaTestCluster started) {
        cluster = started;
    }

    @Test
    void testProducesAndConsumesOverTlsWithKafkasDefaultEngineFactory() throws Exception {
        String topic = newTopic("tls-default");
        try (Producer<String, String> producer = new FastLeaderProducer<>(producerConfig(Map.of()));
             Consumer<String, String> consumer = new FastLeaderConsumer<>(consumerConfig())) {
            producer.send(new ProducerRecord<>(topic, "key", "over TLS")).get(30, TimeUnit.SECONDS);
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(Set.of(partition));
            consumer.seekToBeginning(Set.of(partition));

            assertThat(BesideKafkaClientsIT.pollValues(consumer, 1)).containsExactly("over TLS");
        }
    }

    @Test
    void testMakesEveryTlsEngineWithTheApplicationsEngineFactoryAndClosesItWithTheClient() throws Exception {
        String topic = newTopic("tls-engine-factory");
        RecordingEngineFactory.MADE.clear();
        Producer<String, String> producer = new FastLeaderProducer<>(producerConfig(
            Map.of(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG, RecordingEngineFactory.class.getName())));
        RecordingEngineFactory factory;
        try {
            producer.send(new ProducerRecord<>(topic, "key", "through the application's factory")).get(30, TimeUnit.SECONDS);

            assertThat(RecordingEngineFactory.MADE).as("engine factories the producer made").hasSize(1);
            factory = RecordingEngineFactory.MADE.get(0);
            assertThat(factory.configs).as("what the factory was configured with")
                .containsEntry(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, cluster.clientConfig().get(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG));
            assertThat(factory.clientEngines).as("the brokers it made client engines for")
                .isNotEmpty().allSatisfy(broker -> assertThat(cluster.bootstrapServers()).contains(broker));
            assertThat(factory.closed).isFalse();
        } finally {
            producer.close();
        }
        assertThat(factory.closed).as("the factory closed with the producer").isTrue();
    }

    private static String newTopic(String name) throws Exception {
        String topic = name + "-" + RELEASE;
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        return topic;
    }

    private static Map<String, Object> producerConfig(Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.putAll(overrides);
        return config;
    }

    private static Map<String, Object> consumerConfig() {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return config;
    }

    /** An application's engine factory: Kafka's default one, recording what it was asked for. */
    public static final class RecordingEngineFactory implements SslEngineFactory {
        static final List<RecordingEngineFactory> MADE = new CopyOnWriteArrayList<>();

        private final DefaultSslEngineFactory delegate = new DefaultSslEngineFactory();
        final List<String> clientEngines = new CopyOnWriteArrayList<>();
        volatile Map<String, Object> configs;
        volatile boolean closed;

        public RecordingEngineFactory() {
            MADE.add(this);
        }

        @Override
        public void configure(Map<String, ?> configs) {
            this.configs = new HashMap<>(configs);
            delegate.configure(configs);
        }

        @Override
        public SSLEngine createClientSslEngine(String peerHost, int peerPort, String endpointIdentification) {
            clientEngines.add(peerHost + ":" + peerPort);
            return delegate.createClientSslEngine(peerHost, peerPort, endpointIdentification);
        }

        @Override
        public SSLEngine createServerSslEngine(String peerHost, int peerPort) {
            return delegate.createServerSslEngine(peerHost, peerPort);
        }

        @Override
        public boolean shouldBeRebuilt(Map<String, Object> nextConfigs) {
            return delegate.shouldBeRebuilt(nextConfigs);
        }

        @Override
        public Set<String> reconfigurableConfigs() {
            return delegate.reconfigurableConfigs();
        }

        @Override
        public KeyStore keystore() {
            return delegate.keystore();
        }

        @Override
        public KeyStore truststore() {
            return delegate.truststore();
        }

        @Override
        public void close() throws IOException {
            closed = true;
            delegate.close();
        }
    }
}
