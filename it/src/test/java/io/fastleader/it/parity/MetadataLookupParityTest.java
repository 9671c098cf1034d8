package io.fastleader.it.parity;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Disturbances.StopStyle;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * The consumer's metadata lookups ({@code partitionsFor}, {@code listTopics}) through
 * {@code KafkaConsumer} and {@code FastLeaderConsumer} alike, when brokers are down: a dead
 * address first in {@code bootstrap.servers}, no broker at all, and a rolling restart under a
 * lookup every 100 ms. Every lookup must answer while one broker is up, and give up only at its
 * timeout, with Kafka's exception.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MetadataLookupParityTest {

    private static final String TOPIC = "looked-up";

    private static KafkaTestCluster cluster;
    private static Disturbances disturbances;

    @BeforeAll
    static void startCluster(@Cluster(execution = Execution.IN_JVM) KafkaTestCluster started) {
        cluster = started;
        disturbances = new Disturbances(cluster);
        disturbances.createTopic(new NewTopic(TOPIC, 4, (short) 3));
    }

    @AfterAll
    static void closeAdmin() {
        disturbances.close();
    }

    @Test
    void lookupsPassADeadFirstBootstrapAddressOverAndAgree() throws IOException {
        String bootstrap = "127.0.0.1:" + closedPort() + "," + cluster.clientConfig().get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG);
        Map<Flavour, String> answers = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            try (Consumer<String, String> consumer = flavour.consumer(config(bootstrap, Map.of()))) {
                answers.put(flavour, "topics " + new TreeMap<>(consumer.listTopics()).keySet()
                        + " partitions " + describe(consumer.partitionsFor(TOPIC)));
            }
        }

        assertThat(answers.get(Flavour.FASTLEADER)).isEqualTo(answers.get(Flavour.KAFKA)).contains(TOPIC);
    }

    @Test
    void lookupsWithNoBrokerUpThrowTimeoutExceptionAtTheirTimeout() throws IOException {
        String bootstrap = "127.0.0.1:" + closedPort() + ",127.0.0.1:" + closedPort();
        // Both flavours at once, each on a thread of its own: each waits out its own timeouts against the same closed ports.
        Map<Flavour, Callable<List<String>>> lookups = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            Map<String, Object> config = config(bootstrap, Map.of(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 1000));
            lookups.put(flavour, () -> {
                try (Consumer<String, String> consumer = flavour.consumer(config)) {
                    return List.of(thrown(consumer::listTopics), thrown(() -> consumer.partitionsFor(TOPIC)));
                }
            });
        }
        Map<Flavour, List<String>> failures = SideBySide.atOnce("consumer", lookups);

        assertThat(failures.get(Flavour.FASTLEADER)).isEqualTo(failures.get(Flavour.KAFKA))
                .containsOnly("org.apache.kafka.common.errors.TimeoutException");
    }

    @Test
    void listTopicsEvery100MsAnswersThroughARollingRestart() {
        AtomicBoolean rolling = new AtomicBoolean(true);
        Map<Flavour, CompletableFuture<List<String>>> callers = new EnumMap<>(Flavour.class);
        for (Flavour flavour : Flavour.values()) {
            callers.put(flavour, CompletableFuture.supplyAsync(() -> listTopicsWhile(flavour, rolling), runnable -> {
                Thread thread = new Thread(runnable, "lookups-" + flavour);
                thread.start();
            }));
        }
        try {
            disturbances.rollingRestart(StopStyle.GRACEFUL, Set.of(TOPIC));
        } finally {
            rolling.set(false);
        }

        for (Flavour flavour : Flavour.values()) {
            List<String> outcomes = callers.get(flavour).join();
            assertThat(outcomes).as("%s: each listTopics call through the roll", flavour).hasSizeGreaterThan(10)
                    .containsOnly("answered");
        }
    }

    /** Calls {@code listTopics} every 100 ms while {@code rolling}; each call's outcome, "answered" or the exception's type. */
    private static List<String> listTopicsWhile(Flavour flavour, AtomicBoolean rolling) {
        List<String> outcomes = new ArrayList<>();
        String bootstrap = (String) cluster.clientConfig().get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG);
        try (Consumer<String, String> consumer = flavour.consumer(config(bootstrap, Map.of()))) {
            while (rolling.get() && outcomes.size() < 2_000) {
                outcomes.add(thrown(() -> {
                    if (!consumer.listTopics().containsKey(TOPIC)) {
                        throw new AssertionError(TOPIC + " missing");
                    }
                }));
                try {
                    TimeUnit.MILLISECONDS.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        return outcomes;
    }

    private static Map<String, Object> config(String bootstrap, Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.putAll(overrides);
        return config;
    }

    /** "answered", or the type of what {@code call} threw. */
    private static String thrown(Runnable call) {
        try {
            call.run();
            return "answered";
        } catch (RuntimeException | AssertionError e) {
            return e.getClass().getName();
        }
    }

    private static String describe(List<PartitionInfo> partitions) {
        return partitions.stream()
                .sorted((a, b) -> Integer.compare(a.partition(), b.partition()))
                .map(info -> info.partition() + ":leader " + id(info.leader()) + " replicas " + ids(info.replicas()))
                .toList()
                .toString();
    }

    private static int id(Node node) {
        return node == null ? -1 : node.id();
    }

    private static List<Integer> ids(Node[] nodes) {
        List<Integer> ids = new ArrayList<>();
        for (Node node : nodes) {
            ids.add(node.id());
        }
        return ids;
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
