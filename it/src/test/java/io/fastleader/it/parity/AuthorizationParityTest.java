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
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * ACL denials through {@code KafkaProducer}/{@code KafkaConsumer} and fastleader's clients alike, on
 * a broker with {@code StandardAuthorizer}: the client's user may describe but not write one topic,
 * describe but not read another, and not even describe a third, nor read one group nor write one
 * transactional id; each refusal (of a Produce, of a Fetch, of Metadata, of a group's join or
 * commit, of InitProducerId) must reach the application as the same exception, with the same
 * message and the same unauthorized topics or group.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class AuthorizationParityTest {

    private static final String WRITE_DENIED = "write-denied";
    private static final String READ_DENIED = "read-denied";
    private static final String HIDDEN = "hidden";
    private static final String DENIED_GROUP = "denied-group";
    private static final String DENIED_TRANSACTIONAL_ID = "denied-transactional-id";
    /** The user {@link Cluster} makes and logs its clients in as, by default. */
    private static final String USER = "User:fastleader";
    private static final int WAIT_MS = 30_000;

    private static KafkaTestCluster cluster;

    /** Refusals as the application sees them: the exception's class, message, unauthorized topics and group. */
    private record Refusal(Class<?> type, String message, Set<String> unauthorizedTopics, String groupId) {
        static Refusal of(Throwable failure) {
            Throwable refused = failure instanceof ExecutionException ? failure.getCause() : failure;
            return new Refusal(refused == null ? null : refused.getClass(), refused == null ? null : refused.getMessage(),
                refused instanceof TopicAuthorizationException denied ? denied.unauthorizedTopics() : Set.of(),
                refused instanceof GroupAuthorizationException denied ? denied.groupId() : null);
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
                    acl(USER, HIDDEN, AclOperation.DESCRIBE, AclPermissionType.DENY),
                    acl(USER, ResourceType.GROUP, DENIED_GROUP, AclOperation.READ, AclPermissionType.DENY),
                    acl(USER, ResourceType.TRANSACTIONAL_ID, DENIED_TRANSACTIONAL_ID, AclOperation.WRITE, AclPermissionType.DENY)))
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

    @ParameterizedTest
    @ValueSource(strings = {"classic", "consumer"})
    void aGroupWithoutReadFailsThePollOfASubscriptionAsKafkaClientsDoes(String protocol) {
        Map<Flavour, Refusal> refusals = SideBySide.each(cluster, deniedGroup(protocol), consumer -> {
            consumer.subscribe(List.of(WRITE_DENIED));
            return Refusal.of(catchThrowable(() -> pollUntilRefused(consumer)));
        });

        assertThat(refusals.get(Flavour.KAFKA).groupId()).isEqualTo(DENIED_GROUP);
        assertThat(refusals.get(Flavour.FASTLEADER)).isEqualTo(refusals.get(Flavour.KAFKA));
    }

    @ParameterizedTest
    @ValueSource(strings = {"classic", "consumer"})
    void aGroupWithoutReadFailsACommitAsKafkaClientsDoes(String protocol) {
        TopicPartition partition = new TopicPartition(WRITE_DENIED, 0);
        Map<Flavour, Refusal> refusals = SideBySide.each(cluster, deniedGroup(protocol), consumer -> {
            consumer.assign(List.of(partition));
            return Refusal.of(catchThrowable(() -> consumer.commitSync(Map.of(partition, new OffsetAndMetadata(0)))));
        });

        assertThat(refusals.get(Flavour.KAFKA).groupId()).isEqualTo(DENIED_GROUP);
        assertThat(refusals.get(Flavour.FASTLEADER)).isEqualTo(refusals.get(Flavour.KAFKA));
    }

    @Test
    void aTransactionalIdWithoutWriteFailsInitTransactionsAsKafkaClientsDoes() {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, DENIED_TRANSACTIONAL_ID);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, WAIT_MS);
        Map<Flavour, Refusal> refusals = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            try (Producer<String, String> producer = flavour.producer(config)) {
                refusals.put(flavour, Refusal.of(catchThrowable(producer::initTransactions)));
            }
        }

        assertThat(refusals.get(Flavour.KAFKA).type()).isEqualTo(TransactionalIdAuthorizationException.class);
        assertThat(refusals.get(Flavour.FASTLEADER)).isEqualTo(refusals.get(Flavour.KAFKA));
    }

    private static Map<String, Object> deniedGroup(String protocol) {
        return Map.of(ConsumerConfig.GROUP_ID_CONFIG, DENIED_GROUP, ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol,
            ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, WAIT_MS);
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
        return acl(principal, ResourceType.TOPIC, topic, operation, permission);
    }

    private static AclBinding acl(String principal, ResourceType type, String name, AclOperation operation, AclPermissionType permission) {
        return new AclBinding(new ResourcePattern(type, name, PatternType.LITERAL), new AccessControlEntry(principal, "*", operation, permission));
    }
}
