package io.fastleader.it.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * ACL denials through {@code KafkaProducer}/{@code KafkaConsumer} and fastleader's clients alike, on
 * a broker with {@code StandardAuthorizer}: the client's user may describe but not write one topic,
 * describe but not read another, and not even describe a third; each refusal (of a Produce, of a
 * Fetch, of Metadata) must reach the application as the same exception, with the same message and
 * the same unauthorized topics.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class AuthorizationParityTest {

    private static final String WRITE_DENIED = "write-denied";
    private static final String READ_DENIED = "read-denied";
    private static final String HIDDEN = "hidden";
    /** The user {@link Cluster} makes and logs its clients in as, by default. */
    private static final String USER = "User:fastleader";
    private static final int WAIT_MS = 30_000;

    private static KafkaTestCluster cluster;

    /** Refusals as the application sees them: the exception's class, message and unauthorized topics. */
    private record Refusal(Class<?> type, String message, Set<String> unauthorizedTopics) {
        static Refusal of(Throwable failure) {
            Throwable refused = failure instanceof ExecutionException ? failure.getCause() : failure;
            return new Refusal(refused == null ? null : refused.getClass(), refused == null ? null : refused.getMessage(),
                refused instanceof TopicAuthorizationException denied ? denied.unauthorizedTopics() : Set.of());
        }
    }

    @BeforeAll
    static void startCluster(@Cluster(brokers = 1, execution = Execution.IN_JVM, securityProtocol = "SASL_PLAINTEXT",
        saslMechanism = "SCRAM-SHA-512", brokerConfig = {"authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "super.users=User:ANONYMOUS", "allow.everyone.if.no.acl.found=true"}) KafkaTestCluster started) throws Exception {
        cluster = started;
        Disturbances disturbances = new Disturbances(cluster);
        disturbances.createTopic(new NewTopic(WRITE_DENIED, 1, (short) 1));
        disturbances.createTopic(new NewTopic(READ_DENIED, 1, (short) 1));
        disturbances.createTopic(new NewTopic(HIDDEN, 1, (short) 1));
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createAcls(List.of(
                    acl(USER, WRITE_DENIED, AclOperation.DESCRIBE, AclPermissionType.ALLOW),
                    acl(USER, WRITE_DENIED, AclOperation.WRITE, AclPermissionType.DENY),
                    acl(USER, READ_DENIED, AclOperation.DESCRIBE, AclPermissionType.ALLOW),
                    acl(USER, READ_DENIED, AclOperation.READ, AclPermissionType.DENY),
                    acl(USER, HIDDEN, AclOperation.DESCRIBE, AclPermissionType.DENY)))
                .all().get(WAIT_MS, TimeUnit.MILLISECONDS);
        }
    }

    @Test
    void aProduceToATopicWithoutWriteFailsNamingTheTopicAsKafkaClientsDoes() {
        Map<Flavour, Refusal> refusals = sendTo(WRITE_DENIED);

        assertThat(refusals.get(Flavour.KAFKA).unauthorizedTopics()).containsExactly(WRITE_DENIED);
        assertThat(refusals.get(Flavour.FASTLEADER)).isEqualTo(refusals.get(Flavour.KAFKA));
    }

    @Test
    void aFetchOfATopicWithoutReadFailsThePollNamingTheTopicAsKafkaClientsDoes() {
        Map<Flavour, Refusal> refusals = pollFrom(READ_DENIED);

        assertThat(refusals.get(Flavour.KAFKA).unauthorizedTopics()).containsExactly(READ_DENIED);
        assertThat(refusals.get(Flavour.FASTLEADER)).isEqualTo(refusals.get(Flavour.KAFKA));
    }

    @Test
    void aTopicTheClientMayNotDescribeFailsSendAndPollNamingTheTopicAsKafkaClientsDoes() {
        Map<Flavour, Refusal> sent = sendTo(HIDDEN);
        Map<Flavour, Refusal> polled = pollFrom(HIDDEN);

        assertThat(sent.get(Flavour.KAFKA).unauthorizedTopics()).containsExactly(HIDDEN);
        assertThat(polled.get(Flavour.KAFKA).unauthorizedTopics()).containsExactly(HIDDEN);
        assertThat(sent.get(Flavour.FASTLEADER)).isEqualTo(sent.get(Flavour.KAFKA));
        assertThat(polled.get(Flavour.FASTLEADER)).isEqualTo(polled.get(Flavour.KAFKA));
    }

    /** How a send of one record to {@code topic} fails, through each flavour's producer. */
    private static Map<Flavour, Refusal> sendTo(String topic) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, WAIT_MS);
        Map<Flavour, Refusal> refusals = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            try (Producer<String, String> producer = flavour.producer(config)) {
                refusals.put(flavour, Refusal.of(catchThrowable(() -> producer.send(new ProducerRecord<>(topic, "k", "v")).get())));
            }
        }
        return refusals;
    }

    /** How polls of {@code topic}'s partition 0, from offset 0, fail, through each flavour's consumer. */
    private static Map<Flavour, Refusal> pollFrom(String topic) {
        TopicPartition partition = new TopicPartition(topic, 0);
        return SideBySide.each(cluster, Map.of(), consumer -> {
            consumer.assign(List.of(partition));
            consumer.seek(partition, 0);
            return Refusal.of(catchThrowable(() -> pollUntilRefused(consumer)));
        });
    }

    /** Polls until a poll throws; gives up, throwing nothing, after {@link #WAIT_MS}. */
    private static void pollUntilRefused(Consumer<String, String> consumer) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(200));
        }
    }

    private static AclBinding acl(String principal, String topic, AclOperation operation, AclPermissionType permission) {
        return new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
            new AccessControlEntry(principal, "*", operation, permission));
    }
}
