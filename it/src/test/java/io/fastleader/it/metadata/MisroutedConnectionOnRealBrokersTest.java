package io.fastleader.it.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.cluster.ChildMain;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaRelease;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * KIP-1242 on Kafka 4.4 brokers: a producer whose partition leader stopped, and whose address a
 * broker of another cluster then took (a reused pod IP, a host given to another team's cluster), is
 * refused there with REBOOTSTRAP_REQUIRED, goes back to its bootstrap server and writes to its own
 * cluster's new leader, never to the other cluster. Its cluster is a combined node 0, which the
 * producers bootstrap at, and a broker-only node 1 that leads the partition until it stops; the
 * other cluster is one node listening at node 1's port, holding a topic of the same name.
 * fastleader's producer beside {@code KafkaProducer} 4.4, the first release that checks, in a child
 * JVM on the 4.4 broker's class path, which holds kafka-clients 4.4.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class MisroutedConnectionOnRealBrokersTest {

    private static final String TOPIC = "orders";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String ACKED = "acked";

    @Test
    void aProducerWhoseLeadersAddressServesAnotherClusterGoesBackToItsBootstrapServerAndWritesToItsOwnCluster() throws Exception {
        try (KafkaTestCluster own = fourFour(1).start()) {
            int bootstrapNode = own.brokerIds().first();
            int leader = own.addBroker();
            new Disturbances(own).createTopic(new NewTopic(TOPIC, Map.of(0, List.of(leader, bootstrapNode))));
            String bootstrap = address(own, bootstrapNode);
            try (Producer<String, String> fastleader = new FastLeaderProducer<>(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                     new StringSerializer(), new StringSerializer());
                 KafkaProducerInAChildJvm kafka = new KafkaProducerInAChildJvm(bootstrap)) {
                fastleader.send(new ProducerRecord<>(TOPIC, "to node " + leader)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(kafka.send("to node " + leader)).isEqualTo(ACKED);
                int leadersPort = own.brokerAddress(leader).getPort();
                own.stopBroker(leader);

                try (KafkaTestCluster other = fourFour(1).clientPorts(List.of(leadersPort)).start()) {
                    new Disturbances(other).createTopic(new NewTopic(TOPIC, 1, (short) 1));

                    fastleader.send(new ProducerRecord<>(TOPIC, "after node " + leader + " stopped")).get(WAIT.toSeconds(), TimeUnit.SECONDS);
                    assertThat(kafka.send("after node " + leader + " stopped")).isEqualTo(ACKED);

                    assertThat(endOffset(other)).as("records written to the other cluster").isZero();
                }
            }
            assertThat(endOffset(own)).as("records written to the producers' own cluster").isEqualTo(4);
        }
    }

    private static ClusterSpec.Builder fourFour(int brokers) {
        return ClusterSpec.builder().brokers(brokers).execution(Execution.CHILD_JVM).release(KafkaRelease.KAFKA_4_4)
            .brokerJvmOption(ClusterSpec.C1_ONLY);
    }

    private static String address(KafkaTestCluster cluster, int nodeId) {
        return cluster.brokerAddress(nodeId).getHostString() + ":" + cluster.brokerAddress(nodeId).getPort();
    }

    private static long endOffset(KafkaTestCluster cluster) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            return admin.listOffsets(Map.of(PARTITION, OffsetSpec.latest())).partitionResult(PARTITION)
                .get(WAIT.toSeconds(), TimeUnit.SECONDS).offset();
        }
    }

    /** A {@code KafkaProducer} 4.4 in a child JVM that sends one record per line it is given and answers each with its outcome. */
    private static final class KafkaProducerInAChildJvm implements AutoCloseable {
        private final Process child;
        private final BufferedWriter commands;
        private final BufferedReader outcomes;

        KafkaProducerInAChildJvm(String bootstrap) throws IOException {
            List<String> command = ChildMain.commandBeside(KafkaRelease.KAFKA_4_4.brokerClasspath(), List.of(ClusterSpec.C1_ONLY),
                SendEachLine.class, List.of(), Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
            child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            commands = new BufferedWriter(new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8));
            outcomes = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        }

        /** {@code acked}, or {@code failed <exception>}. */
        String send(String value) throws IOException {
            commands.write(value);
            commands.newLine();
            commands.flush();
            String line;
            while ((line = outcomes.readLine()) != null) {
                if (line.equals(ACKED) || line.startsWith(SendEachLine.FAILED)) {
                    return line;
                }
            }
            return "no outcome: the child ended";
        }

        @Override
        public void close() throws Exception {
            child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** The child: a {@code KafkaProducer} of the kafka-clients on its class path; each line of input is one record; end of input ends it. */
    public static final class SendEachLine {
        static final String FAILED = "failed ";
        /** The child loads nothing of the test class, whose other members need this JVM's class path. */
        private static final long WAIT_SECONDS = 60;

        private SendEachLine() {
        }

        public static void main(String[] args) throws IOException {
            Map<String, Object> config = ChildMain.settings(List.of(args));
            BufferedReader lines = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
                String line;
                while ((line = lines.readLine()) != null) {
                    String outcome;
                    try {
                        producer.send(new ProducerRecord<>(TOPIC, line)).get(WAIT_SECONDS, TimeUnit.SECONDS);
                        outcome = ACKED;
                    } catch (Exception e) {
                        outcome = FAILED + e.toString().replace('\n', ' ');
                    }
                    System.out.println(outcome);
                    System.out.flush();
                }
            }
            Runtime.getRuntime().halt(0);
        }
    }
}
