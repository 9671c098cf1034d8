package io.fastleader.it.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.fastleader.clients.network.BrokerConnection;
import io.fastleader.clients.network.BrokerConnectionException;
import io.fastleader.clients.network.ConnectionConfig;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.PoolConfig;
import io.fastleader.clients.network.SecurityConfig;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.FetchRequestData;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceResponseData;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * fastleader's own broker connection against real Kafka 4.3.1 brokers, over PLAINTEXT, TLS and SASL. Negotiation with a 3.6.2
 * broker is checked in {@code LegacyClusterTest}.
 */
@ExtendWith(KafkaClusterExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BrokerConnectionOnRealBrokersTest {

    private static final ConnectionConfig CONFIG = ConnectionConfig.defaults("fastleader-it");

    @Test
    @Order(1)
    void negotiatesOurNewestVersionsWithKafka43(@Cluster(brokers = 1, execution = Execution.IN_JVM) KafkaTestCluster cluster) {
        try (BrokerConnection connection = BrokerConnection.open(cluster.firstBootstrapAddress(), CONFIG)) {
            // v4, the newest a 4.3 broker speaks: v5 (KIP-1242) came with 4.4.
            assertThat(connection.versions().version(ApiKey.API_VERSIONS)).isEqualTo((short) 4);
            assertThat(connection.versions().version(ApiKey.PRODUCE)).isEqualTo(ApiKey.PRODUCE.highestVersion());
            assertThat(connection.versions().version(ApiKey.FETCH)).isEqualTo(ApiKey.FETCH.highestVersion());
            assertThat(connection.versions().version(ApiKey.METADATA)).isEqualTo(ApiKey.METADATA.highestVersion());
        }
    }

    @Test
    @Order(3)
    void metadataProduceAndAThousandPipelinedRequests(@Cluster(execution = Execution.IN_JVM) KafkaTestCluster cluster) throws Exception {
        TopicDescription topic;
        try (Disturbances disturbances = new Disturbances(cluster)) {
            topic = disturbances.createTopic(new NewTopic("round-trips", 1, (short) 3));
        }
        Node leader = topic.partitions().get(0).leader();
        try (BrokerConnection connection = BrokerConnection.open(new InetSocketAddress(leader.host(), leader.port()), CONFIG)) {
            MetadataResponseData metadata = (MetadataResponseData) connection.send(ApiKey.METADATA, new MetadataRequestData()
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("round-trips"))))
                .get(30, TimeUnit.SECONDS);
            assertThat(metadata.brokers()).extracting(MetadataResponseData.MetadataResponseBroker::nodeId)
                .containsExactlyInAnyOrderElementsOf(cluster.brokerIds());
            assertThat(metadata.topics().find("round-trips").partitions().get(0).leaderId()).isEqualTo(leader.id());

            ProduceResponseData produced = (ProduceResponseData) connection.send(ApiKey.PRODUCE, produce("round-trips", "hello"))
                .get(30, TimeUnit.SECONDS);
            ProduceResponseData.PartitionProduceResponse partition = produced.responses().find("round-trips").partitionResponses().get(0);
            assertThat(partition.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(partition.baseOffset()).isZero();

            List<Integer> completionOrder = new ArrayList<>();
            List<CompletableFuture<ApiMessage>> responses = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                int index = i;
                responses.add(connection.send(ApiKey.METADATA, new MetadataRequestData().setTopics(List.of()))
                    .whenComplete((response, failure) -> {
                        synchronized (completionOrder) {
                            completionOrder.add(index);
                        }
                    }));
            }
            CompletableFuture.allOf(responses.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertThat(completionOrder).hasSize(1000).isSorted();
        }
    }

    @Test
    @Order(4)
    void aBrokerStoppedMidRequestFailsItPromptlyAndTheNextRequestReconnects(
        @Cluster(execution = Execution.IN_JVM) KafkaTestCluster cluster) throws Exception {
        TopicDescription topic;
        try (Disturbances disturbances = new Disturbances(cluster)) {
            topic = disturbances.createTopic(new NewTopic("long-poll", 1, (short) 3));
        }
        Node leader = topic.partitions().get(0).leader();
        ConnectionConfig patient = new ConnectionConfig("fastleader-it", 5, Duration.ofMinutes(2), Duration.ofSeconds(10), 100 << 20,
            SecurityConfig.PLAINTEXT);
        try (ConnectionPool pool = new ConnectionPool(patient, PoolConfig.defaults())) {
            pool.updateNodes(Map.of(leader.id(), new InetSocketAddress(leader.host(), leader.port())));
            pool.connect(leader.id()).get(30, TimeUnit.SECONDS);
            // An empty partition and a high minimum: the broker parks this fetch for maxWaitMs.
            CompletableFuture<ApiMessage> parked = pool.send(leader.id(), ApiKey.FETCH, new FetchRequestData()
                .setMaxWaitMs(60_000).setMinBytes(1 << 20).setMaxBytes(1 << 20).setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopicId(topic.topicId()).setPartitions(List.of(
                    new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0).setPartitionMaxBytes(1 << 20))))));

            cluster.stopBroker(leader.id());

            ExecutionException failure = org.assertj.core.api.Assertions.catchThrowableOfType(
                () -> parked.get(60, TimeUnit.SECONDS), ExecutionException.class);
            assertThat(failure.getCause()).isInstanceOf(BrokerConnectionException.class)
                .hasMessageNotContaining("no response within");

            cluster.startBroker(leader.id());

            assertThat(pool.send(leader.id(), ApiKey.METADATA, new MetadataRequestData().setTopics(List.of())).get(30, TimeUnit.SECONDS))
                .isInstanceOf(MetadataResponseData.class);
        }
    }

    @Test
    @Order(5)
    void speaksTlsToABrokerWhoseCertificateItTrusts(
        @Cluster(brokers = 1, execution = Execution.IN_JVM, securityProtocol = "SSL") KafkaTestCluster cluster) throws Exception {
        assertMetadataRoundTrip(cluster);
    }

    @Test
    @Order(5)
    void speaksTlsWithAPemTruststoreFile(@Cluster(brokers = 1, execution = Execution.IN_JVM, securityProtocol = "SSL")
                                         KafkaTestCluster cluster, @TempDir Path files) throws Exception {
        Map<String, Object> configs = new HashMap<>(cluster.clientConfig());
        Path pem = Files.writeString(files.resolve("truststore.pem"), certificatesAsPem(configs));
        configs.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
        configs.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, pem.toString());
        configs.remove(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG);

        assertMetadataRoundTrip(cluster, configs);
    }

    @Test
    @Order(6)
    void authenticatesWithSaslPlain(@Cluster(brokers = 1, execution = Execution.IN_JVM,
        securityProtocol = "SASL_PLAINTEXT", saslMechanism = "PLAIN") KafkaTestCluster cluster) throws Exception {
        assertMetadataRoundTrip(cluster);
    }

    @Test
    @Order(7)
    void authenticatesWithScramSha256AndRefusesAWrongPassword(@Cluster(brokers = 1, execution = Execution.IN_JVM,
        securityProtocol = "SASL_PLAINTEXT", saslMechanism = "SCRAM-SHA-256") KafkaTestCluster cluster) throws Exception {
        assertMetadataRoundTrip(cluster);

        Map<String, Object> wrong = new HashMap<>(cluster.clientConfig());
        wrong.put(SaslConfigs.SASL_JAAS_CONFIG,
            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"fastleader\" password=\"wrong\";");
        ConnectionConfig config = CONFIG.withSecurity(SecurityConfig.fromKafkaConfigs(wrong));
        assertThatThrownBy(() -> BrokerConnection.open(cluster.firstBootstrapAddress(), config))
            .isInstanceOf(SaslAuthenticationException.class)
            .hasMessage("Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256");
    }

    @Test
    @Order(8)
    void authenticatesWithScramSha512OverTls(@Cluster(brokers = 1, execution = Execution.IN_JVM,
        securityProtocol = "SASL_SSL", saslMechanism = "SCRAM-SHA-512") KafkaTestCluster cluster) throws Exception {
        assertMetadataRoundTrip(cluster);
    }

    @Test
    @Order(9)
    void authenticatesWithAnUnsecuredOAuthBearerToken(@Cluster(brokers = 1, execution = Execution.IN_JVM,
        securityProtocol = "SASL_PLAINTEXT", saslMechanism = "OAUTHBEARER") KafkaTestCluster cluster) throws Exception {
        assertMetadataRoundTrip(cluster);
    }

    /** Connects with the cluster's own client security settings and reads the cluster's brokers. */
    private static void assertMetadataRoundTrip(KafkaTestCluster cluster) throws Exception {
        assertMetadataRoundTrip(cluster, cluster.clientConfig());
    }

    /** Connects with the security settings in {@code clientConfigs} and reads the cluster's brokers. */
    private static void assertMetadataRoundTrip(KafkaTestCluster cluster, Map<String, Object> clientConfigs) throws Exception {
        ConnectionConfig config = CONFIG.withSecurity(SecurityConfig.fromKafkaConfigs(clientConfigs));
        try (BrokerConnection connection = BrokerConnection.open(cluster.firstBootstrapAddress(), config)) {
            MetadataResponseData metadata = (MetadataResponseData) connection.send(ApiKey.METADATA,
                new MetadataRequestData().setTopics(List.of())).get(30, TimeUnit.SECONDS);
            assertThat(metadata.brokers()).extracting(MetadataResponseData.MetadataResponseBroker::nodeId)
                .containsExactlyInAnyOrderElementsOf(cluster.brokerIds());
        }
    }

    /** The certificates of the trust store a cluster's client config names, as PEM text. */
    private static String certificatesAsPem(Map<String, Object> clientConfigs) throws Exception {
        KeyStore store = KeyStore.getInstance(String.valueOf(
            clientConfigs.getOrDefault(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, SslConfigs.DEFAULT_SSL_TRUSTSTORE_TYPE)));
        Object password = clientConfigs.get(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG);
        try (InputStream in = Files.newInputStream(Path.of(String.valueOf(clientConfigs.get(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG))))) {
            store.load(in, password == null ? null : (password instanceof Password secret ? secret.value() : password.toString()).toCharArray());
        }
        StringBuilder pem = new StringBuilder();
        Base64.Encoder base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
        for (String alias : Collections.list(store.aliases())) {
            Certificate certificate = store.getCertificate(alias);
            if (certificate != null) {
                pem.append("-----BEGIN CERTIFICATE-----\n").append(base64.encodeToString(certificate.getEncoded()))
                    .append("\n-----END CERTIFICATE-----\n");
            }
        }
        return pem.toString();
    }

    private static ProduceRequestData produce(String topic, String value) {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(value.getBytes()));
        ProduceRequestData request = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
        request.topicData().add(new ProduceRequestData.TopicProduceData().setName(topic)
            .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records))));
        return request;
    }
}
