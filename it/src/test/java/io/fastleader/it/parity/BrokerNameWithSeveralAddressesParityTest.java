package io.fastleader.it.parity;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.fastleader.it.cluster.ChildMain;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * A broker whose advertised host name resolves to several addresses, the first of them dead, is
 * reached at the next, by {@code KafkaProducer} and fastleader's producer alike
 * ({@code client.dns.lookup=use_all_dns_ips}, kafka-clients' only behaviour for brokers). The
 * broker, in a child JVM, listens on 127.0.0.1 and advertises {@code localhost}: each producer runs
 * in a JVM of its own whose hosts file ({@code jdk.net.hosts.file}) gives that name 127.0.0.2
 * first, where nothing listens, then 127.0.0.1. It bootstraps at 127.0.0.1, so only the
 * broker's advertised name goes through the lookup.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BrokerNameWithSeveralAddressesParityTest {

    private static final String TOPIC = "behind-several-addresses";
    private static final String ACKED = "acked ";
    /** The name the broker advertises: the test's own JVM resolves it as the system does, each producer's through its hosts file. */
    private static final String NAME = "localhost";
    /** Far longer than a producer that tries the next address needs; one that never does fails the send after it. */
    private static final int DELIVERY_TIMEOUT_MS = 30_000;

    @TempDir
    Path dir;

    @Test
    void aBrokerWhoseNamesFirstAddressIsDeadIsReachedAtTheNextAsKafkaClientsReachesIt() throws Exception {
        Map<Flavour, String> outcomes = new EnumMap<>(Flavour.class);
        try (KafkaTestCluster cluster = ClusterSpec.builder().brokers(1).execution(Execution.CHILD_JVM).brokerJvmOption(ClusterSpec.C1_ONLY)
                .advertisedHost(NAME).start()) {
            new Disturbances(cluster).createTopic(new NewTopic(TOPIC, 1, (short) 1));
            Path hosts = Files.writeString(dir.resolve("hosts"), "127.0.0.2 " + NAME + "\n127.0.0.1 " + NAME + "\n");
            for (Flavour flavour : Flavour.values()) {
                outcomes.put(flavour, sendInAChildJvm(flavour, hosts, cluster.bootstrapServers()));
            }
        }

        assertThat(outcomes).allSatisfy((flavour, outcome) -> assertThat(outcome).as(flavour.name()).startsWith(ACKED));
    }

    /** What the child's producer printed: {@code acked <offset>}, or {@code failed <exception>}. */
    private static String sendInAChildJvm(Flavour flavour, Path hosts, String bootstrap) throws IOException, InterruptedException {
        List<String> command = ChildMain.command(List.of("-Djdk.net.hosts.file=" + hosts, "-XX:TieredStopAtLevel=1"), SendOnce.class,
            List.of(flavour.name()), Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, DELIVERY_TIMEOUT_MS,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, DELIVERY_TIMEOUT_MS / 2,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, DELIVERY_TIMEOUT_MS));
        Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.startsWith(ACKED) || line.startsWith(SendOnce.FAILED)) {
                    return line;
                }
            }
            return "no outcome printed";
        } finally {
            child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** The child: {@code flavour key=value...}; sends one record, prints how it ended (its close is not waited for), exits. */
    public static final class SendOnce {
        static final String FAILED = "failed ";

        private SendOnce() {
        }

        public static void main(String[] args) {
            ChildMain.haltWhenParentGone();
            Map<String, Object> config = ChildMain.settings(Arrays.asList(args).subList(1, args.length));
            String outcome;
            try {
                Producer<String, String> producer = Flavour.valueOf(args[0]).producer(config);
                RecordMetadata acked = producer.send(new ProducerRecord<>(TOPIC, "key", "behind several addresses"))
                    .get(2L * DELIVERY_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                outcome = ACKED + acked.offset();
            } catch (Exception e) {
                outcome = FAILED + e.toString().replace('\n', ' ');
            }
            System.out.println(outcome);
            System.out.flush();
            Runtime.getRuntime().halt(0);
        }
    }
}
