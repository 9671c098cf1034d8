package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Clusters with TLS and SASL client listeners, for the transport's tests, each reached with kafka-clients. */
@ExtendWith(KafkaClusterExtension.class)
class SecureListenersTest {

    @Test
    void sslListenerServesClientsThatTrustItsCertificate(
        @Cluster(brokers = 1, execution = Execution.IN_JVM, securityProtocol = "SSL") KafkaTestCluster cluster) throws Exception {
        assertThat(cluster.clientConfig()).containsEntry(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        assertRoundTrip(cluster);
    }

    @Test
    void saslPlainListenerServesItsUser(
        @Cluster(brokers = 1, execution = Execution.IN_JVM, securityProtocol = "SASL_PLAINTEXT", saslMechanism = "PLAIN")
        KafkaTestCluster cluster) throws Exception {
        assertRoundTrip(cluster);
    }

    @Test
    void saslScramListenerServesItsUserAndRefusesAWrongPassword(
        @Cluster(brokers = 1, execution = Execution.IN_JVM, securityProtocol = "SASL_PLAINTEXT", saslMechanism = "SCRAM-SHA-256")
        KafkaTestCluster cluster) throws Exception {
        assertRoundTrip(cluster);

        Map<String, Object> wrong = new HashMap<>(cluster.clientConfig());
        wrong.put(SaslConfigs.SASL_JAAS_CONFIG,
            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"fastleader\" password=\"wrong\";");
        try (Admin admin = Admin.create(wrong)) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get())
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(SaslAuthenticationException.class);
        }
    }

    @Test
    void saslScramOverTlsListenerServesItsUser(
        @Cluster(brokers = 1, execution = Execution.IN_JVM, securityProtocol = "SASL_SSL", saslMechanism = "SCRAM-SHA-512")
        KafkaTestCluster cluster) throws Exception {
        assertRoundTrip(cluster);
    }

    @Test
    void childJvmOAuthBearerListenerServesUnsecuredTokensAndReplicatesOverIt(
        @Cluster(brokers = 2, execution = Execution.CHILD_JVM, securityProtocol = "SASL_PLAINTEXT", saslMechanism = "OAUTHBEARER")
        KafkaTestCluster cluster) throws Exception {
        assertThat(cluster.clientConfig()).containsEntry(SaslConfigs.SASL_MECHANISM, "OAUTHBEARER");

        assertRoundTrip(cluster, (short) 2);

        try (Admin admin = Admin.create(cluster.clientConfig())) {
            Await.until("both replicas of the topic in sync", Duration.ofSeconds(30), () ->
                admin.describeTopics(List.of("secured")).allTopicNames().get().get("secured").partitions().get(0).isr().size() == 2);
        }
    }

    @Test
    void aClientBuiltBeforeABrokerRestartStillTrustsTheRestartedBroker() throws Exception {
        try (KafkaTestCluster cluster = ClusterSpec.builder().brokers(1).execution(Execution.IN_JVM)
                 .security(Security.saslSsl("SCRAM-SHA-512", "fastleader", "fastleader-secret")).start();
             KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.clientConfig(), new StringSerializer(),
                 new StringSerializer())) {
            try (Admin admin = Admin.create(cluster.clientConfig())) {
                admin.createTopics(List.of(new NewTopic("restarted", 1, (short) 1))).all().get();
            }
            producer.send(new ProducerRecord<>("restarted", "before")).get();

            cluster.stopBroker(0);
            cluster.startBroker(0);

            assertThat(producer.send(new ProducerRecord<>("restarted", "after")).get().offset()).isEqualTo(1);
        }
    }

    private static void assertRoundTrip(KafkaTestCluster cluster) throws Exception {
        assertRoundTrip(cluster, (short) 1);
    }

    /** Creates a topic of {@code replicas}, produces one record and consumes it back with the cluster's client config. */
    private static void assertRoundTrip(KafkaTestCluster cluster, short replicas) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(List.of(new NewTopic("secured", 1, replicas))).all().get();
        }
        RecordMetadata sent;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.clientConfig(), new StringSerializer(), new StringSerializer())) {
            sent = producer.send(new ProducerRecord<>("secured", "key", "over " + cluster.clientConfig().get(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG))).get();
        }
        TopicPartition partition = new TopicPartition("secured", 0);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.clientConfig(), new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(partition));
            consumer.seek(partition, sent.offset());
            List<String> values = new ArrayList<>();
            Await.until("the record read back", Duration.ofSeconds(30), () -> {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                records.forEach(r -> values.add(r.value()));
                return !values.isEmpty();
            });
            assertThat(values.get(0)).startsWith("over ");
        }
    }
}
