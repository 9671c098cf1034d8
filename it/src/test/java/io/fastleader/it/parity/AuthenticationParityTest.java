package io.fastleader.it.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.token.delegation.DelegationToken;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * Authentication through {@code KafkaProducer}/{@code KafkaConsumer} and fastleader's clients alike,
 * on real brokers: a mechanism that needs kafka-clients' own login (OAUTHBEARER) and a delegation
 * token (a SCRAM extension) work unchanged, a refused password is reported by {@code send},
 * {@code poll} and {@code partitionsFor} with kafka-clients' exception rather than waited out, and a
 * session of a few seconds is renewed on the open connections (KIP-368) with nothing lost.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class AuthenticationParityTest {

    /** Far longer than a refused login takes to be reported: a client that waits it out fails the assertions on the exception. */
    private static final int WAIT_MS = 30_000;
    /** The broker's session lifetime ({@code connections.max.reauth.ms}): clients re-authenticate every 4.25 to 4.75 s. */
    private static final String SESSION_MS = "5000";
    private static final int RENEWALS = 2;
    private static final String REAUTHENTICATIONS = "successful-reauthentication-total";
    /** A topic the wrong password never reaches. */
    private static final String TOPIC = "never-reached";
    private static final String SCRAM_JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"%s\" password=\"%s\"%s;";

    /** SCRAM-SHA-512 with sessions of {@link #SESSION_MS}, and delegation tokens. */
    private static KafkaTestCluster scram;

    @BeforeAll
    static void startScramCluster(@Cluster(brokers = 1, execution = Execution.IN_JVM, securityProtocol = "SASL_PLAINTEXT",
        saslMechanism = "SCRAM-SHA-512", brokerConfig = {"connections.max.reauth.ms=" + SESSION_MS,
            "delegation.token.secret.key=fastleader-token-secret"}) KafkaTestCluster started) {
        scram = started;
    }

    @Test
    void anOAuthBearerLoginProducesAndConsumesAsKafkaClientsDoes(@Cluster(brokers = 1, execution = Execution.IN_JVM,
        securityProtocol = "SASL_PLAINTEXT", saslMechanism = "OAUTHBEARER") KafkaTestCluster cluster) throws Exception {
        assertEachReadsWhatBothWrote(cluster, cluster.clientConfig(), "oauth");
    }

    @Test
    void aDelegationTokenMadeThroughAdminLogsInAsKafkaClientsDoes() throws Exception {
        DelegationToken token;
        try (Admin admin = Admin.create(scram.clientConfig())) {
            token = admin.createDelegationToken().delegationToken().get(WAIT_MS, TimeUnit.MILLISECONDS);
        }
        Map<String, Object> config = new HashMap<>(scram.clientConfig());
        config.put(SaslConfigs.SASL_JAAS_CONFIG, String.format(SCRAM_JAAS, token.tokenInfo().tokenId(), token.hmacAsBase64String(),
            " tokenauth=\"true\""));

        assertEachReadsWhatBothWrote(scram, config, "by-token");
    }

    /**
     * Each flavour's producer, built from {@code config}, writes one record to a new topic; then each
     * flavour's consumer, built from it too, must read both.
     */
    static void assertEachReadsWhatBothWrote(KafkaTestCluster cluster, Map<String, Object> clientConfig, String topic)
            throws Exception {
        new Disturbances(cluster).createTopic(new NewTopic(topic, 1, (short) 1));
        Map<Flavour, String> read = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            try (Producer<String, String> producer = flavour.producer(clientConfig)) {
                producer.send(new ProducerRecord<>(topic, flavour.name(), "by " + flavour)).get(WAIT_MS, TimeUnit.MILLISECONDS);
            }
        }
        TopicPartition partition = new TopicPartition(topic, 0);
        for (Flavour flavour : Flavour.values()) {
            Map<String, Object> config = new HashMap<>(clientConfig);
            config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            try (Consumer<String, String> consumer = flavour.consumer(config)) {
                consumer.assign(List.of(partition));
                StringBuilder values = new StringBuilder();
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
                while (consumer.position(partition) < 2 && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                        values.append(record.value()).append(';');
                    }
                }
                read.put(flavour, values.toString());
            }
        }

        assertThat(read).containsEntry(Flavour.KAFKA, "by KAFKA;by FASTLEADER;").containsEntry(Flavour.FASTLEADER, "by KAFKA;by FASTLEADER;");
    }

    @Test
    void aWrongPasswordFailsSendPollAndPartitionsForAsKafkaClientsDo() {
        Map<String, Object> config = new HashMap<>(scram.clientConfig());
        config.put(SaslConfigs.SASL_JAAS_CONFIG, String.format(SCRAM_JAAS, "fastleader", "wrong", ""));

        assertEachFailsSendPollAndPartitionsForWithSaslAuthenticationException(config);
    }

    /**
     * Each flavour's producer and consumer, built from {@code refusedConfig}, whose login the brokers
     * refuse, must fail {@code send}, {@code partitionsFor} and {@code poll} with
     * {@link SaslAuthenticationException}, well before the 30 s they would otherwise wait.
     */
    static void assertEachFailsSendPollAndPartitionsForWithSaslAuthenticationException(Map<String, Object> refusedConfig) {
        Map<String, Object> config = new HashMap<>(refusedConfig);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, WAIT_MS);
        config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, WAIT_MS);
        Map<Flavour, List<Class<?>>> failures = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            Throwable sent;
            Throwable looked;
            try (Producer<String, String> producer = flavour.producer(config)) {
                sent = catchThrowable(() -> producer.send(new ProducerRecord<>(TOPIC, "k", "v")).get());
                looked = catchThrowable(() -> producer.partitionsFor(TOPIC));
            }
            Throwable polled;
            Throwable listed;
            try (Consumer<String, String> consumer = flavour.consumer(config)) {
                consumer.assign(List.of(new TopicPartition(TOPIC, 0)));
                polled = catchThrowable(() -> consumer.poll(Duration.ofMillis(WAIT_MS)));
                listed = catchThrowable(() -> consumer.partitionsFor(TOPIC));
            }
            failures.put(flavour, List.of(sent instanceof ExecutionException ? sent.getCause().getClass() : classOf(sent),
                classOf(looked), classOf(polled), classOf(listed)));
        }

        List<Class<?>> expected = List.of(SaslAuthenticationException.class, SaslAuthenticationException.class,
            SaslAuthenticationException.class, SaslAuthenticationException.class);
        assertThat(failures).containsEntry(Flavour.KAFKA, expected).containsEntry(Flavour.FASTLEADER, expected);
    }

    @Test
    void aSessionOfAFewSecondsIsRenewedOnTheOpenConnectionsWithNothingLost() {
        Disturbances disturbances = new Disturbances(scram);
        Map<Flavour, Callable<Renewals>> workloads = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            String topic = "renewed-" + flavour.name().toLowerCase(Locale.ROOT);
            disturbances.createTopic(new NewTopic(topic, 1, (short) 1));
            workloads.put(flavour, () -> produceAndConsumeThroughRenewals(scram, flavour, topic));
        }

        Map<Flavour, Renewals> renewals = SideBySide.atOnce("client", workloads);

        for (Flavour flavour : Flavour.values()) {
            Renewals seen = renewals.get(flavour);
            assertThat(seen.reauthentications()).as(flavour + " re-authentications").allMatch(count -> count >= RENEWALS);
            assertThat(seen.newConnections()).as(flavour + " connections opened after the first record").containsOnly(0.0);
            assertThat(seen.consumed()).as(flavour + " records read back").isEqualTo(seen.produced());
        }
    }

    @Test
    void aChangedPasswordRefusesTheNextReauthenticationAsKafkaClientsIsRefused() throws Exception {
        Map<Flavour, Callable<Double>> workloads = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            String user = "rotating-" + flavour.name().toLowerCase(Locale.ROOT);
            String topic = "rotated-" + flavour.name().toLowerCase(Locale.ROOT);
            new Disturbances(scram).createTopic(new NewTopic(topic, 1, (short) 1));
            setPassword(user, "before");
            workloads.put(flavour, () -> refusedReauthenticationsAfterThePasswordChanged(flavour, user, topic));
        }

        Map<Flavour, Double> refused = SideBySide.atOnce("producer", workloads);

        // At least one: each connection open to the broker is refused once (fastleader's producer may hold a second, prewarmed).
        assertThat(refused).containsOnlyKeys(Flavour.values()).allSatisfy((flavour, count) -> assertThat(count).as(flavour.name()).isGreaterThanOrEqualTo(1.0));
    }

    /**
     * Logs a producer in as {@code user}, sends, changes the user's password, and waits for the
     * producer to count the refused re-authentication: how many it counted.
     */
    private static double refusedReauthenticationsAfterThePasswordChanged(Flavour flavour, String user, String topic) throws Exception {
        Map<String, Object> config = new HashMap<>(scram.clientConfig());
        config.put(SaslConfigs.SASL_JAAS_CONFIG, String.format(SCRAM_JAAS, user, "before", ""));
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, WAIT_MS);
        Producer<String, String> producer = flavour.producer(config);
        try {
            // The new user's credentials reach the broker through its metadata log, a moment after they are stored.
            Await.until(user + " logging in", Duration.ofMillis(WAIT_MS),
                () -> producer.send(new ProducerRecord<>(topic, "before the change")).get() != null);
            setPassword(user, "after");
            // kafka-clients re-authenticates a connection when it next writes to it past the due time: keep writing.
            Await.until("the refused re-authentication", Duration.ofMillis(WAIT_MS), () -> {
                producer.send(new ProducerRecord<>(topic, "after the change"));
                return metric(producer.metrics(), "failed-reauthentication-total") >= 1;
            });
            return metric(producer.metrics(), "failed-reauthentication-total");
        } finally {
            // Records sent after the refusal cannot be delivered: close without waiting for them.
            producer.close(Duration.ZERO);
        }
    }

    private static void setPassword(String user, String password) throws Exception {
        try (Admin admin = Admin.create(scram.clientConfig())) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password))).all().get(WAIT_MS, TimeUnit.MILLISECONDS);
        }
    }

    /** What one flavour's producer and consumer did through the renewals: per client, producer first. */
    private record Renewals(List<Double> reauthentications, List<Double> newConnections, long produced, long consumed) {
    }

    /**
     * Produces one record at a time and reads each back until the producer and the consumer have each
     * re-authenticated {@link #RENEWALS} times, then reads what is left.
     */
    private static Renewals produceAndConsumeThroughRenewals(KafkaTestCluster cluster, Flavour flavour, String topic) throws Exception {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // Short long-polls: a Fetch held by the broker delays the SaslHandshake written behind it.
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        TopicPartition partition = new TopicPartition(topic, 0);
        try (Producer<String, String> producer = flavour.producer(config); Consumer<String, String> consumer = flavour.consumer(config)) {
            consumer.assign(List.of(partition));
            long produced = 0;
            long consumed = 0;
            producer.send(new ProducerRecord<>(topic, "first")).get();
            produced++;
            while (consumed < produced) {
                consumed += consumer.poll(Duration.ofMillis(100)).count();
            }
            double producerConnections = metric(producer.metrics(), "connection-creation-total");
            double consumerConnections = metric(consumer.metrics(), "connection-creation-total");
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            while ((metric(producer.metrics(), REAUTHENTICATIONS) < RENEWALS || metric(consumer.metrics(), REAUTHENTICATIONS) < RENEWALS)
                    && System.nanoTime() < deadline) {
                producer.send(new ProducerRecord<>(topic, "record " + produced)).get();
                produced++;
                consumed += consumer.poll(Duration.ofMillis(100)).count();
            }
            while (consumed < produced && System.nanoTime() < deadline) {
                consumed += consumer.poll(Duration.ofMillis(100)).count();
            }
            return new Renewals(List.of(metric(producer.metrics(), REAUTHENTICATIONS), metric(consumer.metrics(), REAUTHENTICATIONS)),
                List.of(metric(producer.metrics(), "connection-creation-total") - producerConnections,
                    metric(consumer.metrics(), "connection-creation-total") - consumerConnections),
                produced, consumed);
        }
    }

    /** The client-wide metric of that name (producer-metrics or consumer-metrics). */
    private static double metric(Map<MetricName, ? extends Metric> metrics, String name) {
        return metrics.entrySet().stream()
            .filter(entry -> entry.getKey().name().equals(name) && entry.getKey().group().endsWith("-metrics")
                && !entry.getKey().tags().containsKey("node-id"))
            .mapToDouble(entry -> ((Number) entry.getValue().metricValue()).doubleValue())
            .findFirst().orElseThrow(() -> new AssertionError("no metric " + name));
    }

    private static Class<?> classOf(Throwable failure) {
        return failure == null ? null : failure.getClass();
    }
}
