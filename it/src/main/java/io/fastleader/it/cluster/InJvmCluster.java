package io.fastleader.it.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.GeneralSecurityException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.IntStream;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.api.TerminationStyle;
import io.kroxylicious.testing.kafka.common.KafkaClusterConfig;
import io.kroxylicious.testing.kafka.common.KafkaClusterExecutionMode;
import io.kroxylicious.testing.kafka.common.KafkaClusterFactory;
import io.kroxylicious.testing.kafka.common.KafkaEndpoint;
import io.kroxylicious.testing.kafka.common.KafkaListener;
import io.kroxylicious.testing.kafka.common.KafkaListenerSource;
import io.kroxylicious.testing.kafka.common.KeytoolCertificateGenerator;
import io.kroxylicious.testing.kafka.invm.InVMKafkaCluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;

/**
 * A KRaft cluster provisioned by Kroxylicious' junit5 testing library: brokers inside this JVM
 * ({@link Execution#IN_JVM}) or in Testcontainers ({@link Execution#CONTAINER}). The library
 * brings TLS certificates, SASL users (PLAIN and SCRAM) and the container switch; this class adds
 * waiting for the cluster's reported state, a close that cannot hang, and the
 * {@link NetworkModel}'s relays in front of in-JVM brokers.
 */
final class InJvmCluster implements KafkaTestCluster {

    /** The option of Kafka's unsecured OAUTHBEARER login that names the token's subject. */
    private static final Logger LOG = LoggerFactory.getLogger(InJvmCluster.class);
    private static final String UNSECURED_SUBJECT = "unsecuredLoginStringClaim_sub";

    private final ClusterSpec spec;
    private final KafkaCluster cluster;
    private final NetworkRelays relays;
    private final SortedSet<Integer> brokerIds;

    private InJvmCluster(ClusterSpec spec, KafkaCluster cluster, NetworkRelays relays) {
        this.spec = spec;
        this.cluster = cluster;
        this.relays = relays;
        this.brokerIds = new TreeSet<>();
        IntStream.range(0, spec.brokers()).forEach(brokerIds::add);
    }

    static final String NO_DOCKER = "no Docker engine is reachable here, so the " + Execution.CONTAINER
        + " execution (" + Execution.SWITCH_PROPERTY + "=container) cannot run";

    static InJvmCluster start(ClusterSpec spec) {
        if (spec.execution() == Execution.CONTAINER && !dockerAvailable()) {
            throw new ExecutionUnavailableException(NO_DOCKER);
        }
        NetworkRelays relays = new NetworkRelays(spec.network());
        KafkaClusterConfig config = config(spec);
        // ClusterSpec allows a network model only in-JVM, where the cluster is the library's
        // InVMKafkaCluster, which KafkaClusterFactory would create for this config too.
        KafkaCluster cluster = spec.network().isLoopback() ? KafkaClusterFactory.create(config) : new RelayedInVmCluster(config, relays);
        InJvmCluster started = new InJvmCluster(spec, cluster, relays);
        try {
            if (!spec.featureLevels().isEmpty()) {
                // ClusterSpec allows feature levels only in-JVM, where the cluster is an InVMKafkaCluster.
                InJvmStorage.format((InVMKafkaCluster) cluster, spec.brokers(), spec.featureLevels());
            }
            cluster.start();
            BrokerRegistrations.awaitUnfenced(started.clientConfig(), started.brokerIds);
            return started;
        } catch (RuntimeException e) {
            started.close();
            throw e;
        }
    }

    static boolean dockerAvailable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    private static KafkaClusterConfig config(ClusterSpec spec) {
        KafkaClusterConfig.KafkaClusterConfigBuilder builder = KafkaClusterConfig.builder()
            .execMode(spec.execution() == Execution.CONTAINER ? KafkaClusterExecutionMode.CONTAINER : KafkaClusterExecutionMode.IN_VM)
            .kraftMode(true)
            .kafkaVersion(spec.release().version())
            .brokersNum(spec.brokers())
            // Every node is a combined broker and controller, as in a small production cluster.
            .kraftControllers(spec.brokers())
            .brokerConfigs(spec.effectiveBrokerConfigs());
        Security security = spec.security();
        builder.securityProtocol(security.protocol());
        if (security.protocol().endsWith("SSL")) {
            builder.brokerKeytoolCertificateGenerator(certificates());
        }
        if (security.isOAuthBearer()) {
            // The broker logs in on the listener too; its default validator takes any unsecured token.
            builder.saslMechanism(security.saslMechanism()).jaasServerOption(UNSECURED_SUBJECT, "broker")
                .jaasClientOption(UNSECURED_SUBJECT, security.username());
        } else if (security.brokerLogin() != null) {
            // The testing library makes JAAS entries for the mechanisms it knows only: any other is set here, with no
            // mechanism given to it.
            builder.brokerConfig("sasl.enabled.mechanisms", security.saslMechanism())
                .brokerConfig("listener.name.external." + security.saslMechanism().toLowerCase(Locale.ROOT) + ".sasl.jaas.config",
                    security.brokerLogin());
        } else if (security.saslMechanism() != null) {
            builder.saslMechanism(security.saslMechanism()).user(security.username(), security.password());
        }
        return builder.build();
    }

    private static KeytoolCertificateGenerator certificates() {
        try {
            return new OneCertificate();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create TLS certificates with keytool", e);
        }
    }

    /**
     * The testing library asks for a new key pair each time it writes a node's configuration, so
     * a restarted broker would present a certificate that clients built before the restart do not
     * trust. Every node has the same advertised host, so one certificate, made once, serves them all.
     */
    private static final class OneCertificate extends KeytoolCertificateGenerator {
        private boolean made;

        OneCertificate() throws IOException {
        }

        @Override
        public synchronized void generateSelfSignedCertificateEntry(String email, String domain, String organizationUnit,
                                                                    String organization, String city, String state,
                                                                    String country) throws GeneralSecurityException, IOException {
            if (!made) {
                super.generateSelfSignedCertificateEntry(email, domain, organizationUnit, organization, city, state, country);
                made = true;
            }
        }
    }

    @Override
    public String kafkaVersion() {
        return spec.release().version();
    }

    @Override
    public Execution execution() {
        return spec.execution();
    }

    @Override
    public String bootstrapServers() {
        return cluster.getBootstrapServers();
    }

    @Override
    public InetSocketAddress brokerAddress(int nodeId) {
        requireKnown(nodeId);
        KafkaEndpoint advertised = ((KafkaListenerSource) cluster).getKafkaListener(KafkaListenerSource.Listener.EXTERNAL, nodeId).advertised();
        return new InetSocketAddress(advertised.host(), advertised.port());
    }

    @Override
    public Map<String, Object> clientConfig() {
        Security security = spec.security();
        // A login the brokers were given literally comes with the clients' own in the security's client settings.
        Map<String, Object> configs = new HashMap<>(security.saslMechanism() == null || security.brokerLogin() != null
            ? cluster.getKafkaClientConfiguration()
            : cluster.getKafkaClientConfiguration(security.username(), security.password()));
        configs.putAll(security.clientConfigs());
        return configs;
    }

    @Override
    public synchronized SortedSet<Integer> brokerIds() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(brokerIds));
    }

    @Override
    public Set<Integer> stoppedBrokers() {
        return Set.copyOf(cluster.getStoppedBrokers());
    }

    @Override
    public synchronized void stopBroker(int nodeId) {
        requireRunning(nodeId);
        cluster.stopNodes(id -> id == nodeId, TerminationStyle.GRACEFUL);
        relays.nodeStopped(nodeId);
    }

    @Override
    public synchronized void dropClientConnections(int nodeId) {
        requireRunning(nodeId);
        relays.dropClientConnections(nodeId);
    }

    @Override
    public long clientBytesFrom(int nodeId) {
        return relays.clientBytesFrom(nodeId);
    }

    @Override
    public synchronized void cutClientLinks(int nodeId) {
        requireKnown(nodeId);
        relays.cutClientLinks(nodeId);
    }

    @Override
    public synchronized void restoreClientLinks(int nodeId) {
        requireKnown(nodeId);
        relays.restoreClientLinks(nodeId);
    }

    @Override
    public synchronized void delayClientLinks(int nodeId, Duration extraOneWay) {
        requireKnown(nodeId);
        relays.delayClientLinks(nodeId, extraOneWay);
    }

    @Override
    public synchronized void killBroker(int nodeId) {
        if (!supportsKill()) {
            throw new UnsupportedOperationException("a broker inside this JVM cannot be killed; use "
                + Execution.CHILD_JVM + " or " + Execution.CONTAINER + " for abrupt stops");
        }
        requireRunning(nodeId);
        cluster.stopNodes(id -> id == nodeId, TerminationStyle.ABRUPT);
    }

    @Override
    public boolean supportsKill() {
        return spec.execution().canKill();
    }

    @Override
    public synchronized void startBroker(int nodeId) {
        requireKnown(nodeId);
        if (!cluster.getStoppedBrokers().contains(nodeId)) {
            throw new IllegalStateException("broker " + nodeId + " is already running");
        }
        relays.nodeStarting(nodeId);
        cluster.startNodes(id -> id == nodeId);
        awaitRunningUnfenced();
    }

    @Override
    public synchronized int addBroker() {
        int nodeId = cluster.addBroker();
        brokerIds.add(nodeId);
        awaitRunningUnfenced();
        return nodeId;
    }

    /**
     * Shuts the brokers down, then lets the controllers stop in the background. The last controller
     * standing waits out KRaft's graceful shutdown (5 s, fixed in Kafka) for a successor that cannot
     * be elected any more; nothing of the next test needs it gone, so the next test need not wait.
     */
    @Override
    public synchronized void close() {
        if (spec.execution() != Execution.IN_JVM) {
            closeControllersAndRelays();
            return;
        }
        try {
            InJvmBrokerShutdown.shutDownBrokersBeforeControllers(cluster);
        } catch (RuntimeException e) {
            closeControllersAndRelays();
            throw new IllegalStateException("closing the cluster failed", e);
        }
        Thread closer = new Thread(() -> {
            try {
                closeControllersAndRelays();
            } catch (RuntimeException e) {
                LOG.warn("closing the controllers of a closed cluster failed", e);
            }
        }, "in-jvm-cluster-controllers-closing");
        closer.setDaemon(true);
        closer.start();
    }

    private void closeControllersAndRelays() {
        try {
            cluster.close();
        } catch (Exception e) {
            throw new IllegalStateException("closing the cluster failed", e);
        } finally {
            // Only now: the brokers' controlled shutdowns need their paths to the controllers.
            relays.close();
        }
    }

    private void awaitRunningUnfenced() {
        Set<Integer> running = new TreeSet<>(brokerIds);
        running.removeAll(cluster.getStoppedBrokers());
        BrokerRegistrations.awaitUnfenced(clientConfig(), running);
    }

    private void requireRunning(int nodeId) {
        requireKnown(nodeId);
        if (cluster.getStoppedBrokers().contains(nodeId)) {
            throw new IllegalStateException("broker " + nodeId + " is already stopped");
        }
    }

    private void requireKnown(int nodeId) {
        if (!brokerIds.contains(nodeId)) {
            throw new IllegalArgumentException("no broker " + nodeId + " in this cluster; brokers are " + brokerIds);
        }
    }

    /**
     * The library's in-JVM cluster with every node's listeners advertised at the relays in front
     * of them. The library builds each node's {@code advertised.listeners} (and the TLS
     * certificate's host) from a listener's {@code advertised} endpoint and the shared
     * {@code controller.quorum.voters} from the controller listener's {@code kafkaNet} endpoint,
     * while the broker binds the {@code bind} endpoint; so pointing the first two at relays puts
     * every client and every node-to-node hop through them. The ANON listener, which only the
     * library's own start-up checks use, stays direct.
     */
    private static final class RelayedInVmCluster extends InVMKafkaCluster {
        private final NetworkRelays relays;

        RelayedInVmCluster(KafkaClusterConfig config, NetworkRelays relays) {
            super(config);
            this.relays = relays;
        }

        @Override
        public synchronized KafkaListener getKafkaListener(KafkaListenerSource.Listener listener, int nodeId) {
            KafkaListener direct = super.getKafkaListener(listener, nodeId);
            return switch (listener) {
                case EXTERNAL -> advertisedAt(direct, relays.address(nodeId, NetworkRelays.Traffic.CLIENT, address(direct.kafkaNet())));
                case INTERNAL -> advertisedAt(direct, relays.address(nodeId, NetworkRelays.Traffic.INTER_BROKER, address(direct.kafkaNet())));
                case CONTROLLER -> {
                    KafkaEndpoint relay = endpoint(direct, relays.address(nodeId, NetworkRelays.Traffic.CONTROLLER, address(direct.kafkaNet())));
                    yield new KafkaListener(direct.bind(), relay, relay);
                }
                case ANON -> direct;
            };
        }

        private static KafkaListener advertisedAt(KafkaListener direct, InetSocketAddress relay) {
            return new KafkaListener(direct.bind(), direct.kafkaNet(), endpoint(direct, relay));
        }

        /** The relay under the advertised host name, which the TLS certificate is made for. */
        private static KafkaEndpoint endpoint(KafkaListener direct, InetSocketAddress relay) {
            return new KafkaEndpoint(direct.advertised().host(), relay.getPort());
        }

        private static InetSocketAddress address(KafkaEndpoint endpoint) {
            return new InetSocketAddress(endpoint.host(), endpoint.port());
        }
    }
}
