package io.fastleader.it.parity;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.network.DelayLink;

/**
 * A cluster replaced behind its bootstrap address ({@code metadata.recovery.strategy}, KIP-899):
 * the producers bootstrap through a relay (a load balancer, or a DNS name, in front of the cluster)
 * to a first one-broker cluster, which then goes away; a second cluster, whose broker listens
 * elsewhere, comes up behind the same relay. With {@code rebootstrap} a producer goes back to its
 * bootstrap address once its one known broker cannot be reached, finds the new cluster there and
 * delivers; with {@code none} it keeps to the broker it knew and its record times out. Both for
 * {@code KafkaProducer} 4.3.1 and fastleader's producer, side by side.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RebootstrapParityTest {

    private static final String TOPIC = "replaced-behind-bootstrap";
    /** Long enough for a rebootstrap many times over; a producer that never finds the new cluster fails the record after it. */
    private static final int DELIVERY_TIMEOUT_MS = 10_000;

    private record Case(Flavour flavour, String strategy) {
        @Override
        public String toString() {
            return flavour + " with " + strategy;
        }
    }

    @Test
    void aProducerFindsAClusterReplacedBehindItsBootstrapAddressWithRebootstrapAndNotWithNone() throws Exception {
        Map<Case, Producer<String, String>> producers = new LinkedHashMap<>();
        Map<Case, String> outcomes = new LinkedHashMap<>();
        InetSocketAddress bootstrap;
        InetSocketAddress firstBroker;
        try {
            try (KafkaTestCluster first = oneBroker();
                 DelayLink relay = DelayLink.open(first.firstBootstrapAddress(), Duration.ZERO, Duration.ZERO)) {
                new Disturbances(first).createTopic(new NewTopic(TOPIC, 1, (short) 1));
                bootstrap = relay.address();
                firstBroker = first.brokerAddress(first.brokerIds().first());
                for (Flavour flavour : Flavour.values()) {
                    for (String strategy : List.of("rebootstrap", "none")) {
                        Producer<String, String> producer = flavour.producer(config(bootstrap, strategy));
                        producers.put(new Case(flavour, strategy), producer);
                        producer.send(new ProducerRecord<>(TOPIC, "first cluster")).get(30, TimeUnit.SECONDS);
                    }
                }
            }
            // Nothing may take the first broker's port while the second cluster starts: it stays refused, as a host gone.
            try (Socket firstBrokersPort = reserve(firstBroker);
                 KafkaTestCluster second = oneBroker();
                 DelayLink relay = DelayLink.open(bootstrap, second.firstBootstrapAddress(), Duration.ZERO, Duration.ZERO, Duration.ZERO)) {
                new Disturbances(second).createTopic(new NewTopic(TOPIC, 1, (short) 1));
                Map<Case, Future<RecordMetadata>> sends = new LinkedHashMap<>();
                producers.forEach((key, producer) -> sends.put(key, producer.send(new ProducerRecord<>(TOPIC, "second cluster"))));
                for (Map.Entry<Case, Future<RecordMetadata>> send : sends.entrySet()) {
                    outcomes.put(send.getKey(), outcome(send.getValue()));
                }
            }
        } finally {
            producers.values().forEach(producer -> producer.close(Duration.ZERO));
        }

        List<String> expected = new ArrayList<>();
        outcomes.keySet().forEach(key -> expected.add(key + ": " + (key.strategy().equals("none") ? TimeoutException.class.getSimpleName()
            : "acked")));
        assertThat(outcomes.entrySet()).map(entry -> entry.getKey() + ": " + entry.getValue()).containsExactlyElementsOf(expected);
    }

    private static KafkaTestCluster oneBroker() {
        return ClusterSpec.builder().brokers(1).execution(Execution.IN_JVM).start();
    }

    /**
     * Idempotence off: the new cluster has never heard of the producer id the first one gave, and
     * that story (UNKNOWN_PRODUCER_ID, an epoch bump) is not the one told here.
     */
    private static Map<String, Object> config(InetSocketAddress bootstrap, String strategy) {
        return Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap.getHostString() + ":" + bootstrap.getPort(),
            CommonClientConfigs.METADATA_RECOVERY_STRATEGY_CONFIG, strategy,
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false,
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, DELIVERY_TIMEOUT_MS,
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, DELIVERY_TIMEOUT_MS / 2);
    }

    /** {@code acked} (only the second cluster is there to ack), or the simple name of the exception the send failed with. */
    private static String outcome(Future<RecordMetadata> send) throws InterruptedException, java.util.concurrent.TimeoutException {
        try {
            send.get(3L * DELIVERY_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            return "acked";
        } catch (ExecutionException failed) {
            return failed.getCause().getClass().getSimpleName();
        }
    }

    /** Binds {@code address}'s port without listening on it: connects there are refused, and no broker can take the port. */
    private static Socket reserve(InetSocketAddress address) throws IOException {
        Socket socket = new Socket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(address.getHostString(), address.getPort()));
        return socket;
    }
}
