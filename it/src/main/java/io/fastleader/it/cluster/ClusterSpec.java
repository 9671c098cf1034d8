package io.fastleader.it.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.apache.kafka.server.common.TransactionVersion;

/**
 * What cluster to start. Build one with {@link #builder()}, then {@link #start()} it.
 *
 * @param brokers       number of nodes, each a combined broker and KRaft controller
 * @param execution     where the brokers run
 * @param release       which Apache Kafka broker
 * @param security      the client listener's security
 * @param brokerConfigs broker settings on top of {@link #DEFAULT_BROKER_CONFIGS}
 * @param network       the delays between clients and brokers and among brokers
 * @param featureLevels Kafka features (by name) finalized at the levels given when the storage is
 *                      formatted; a feature not named here gets the release's default level
 * @param brokerJvmOptions options added to each child-JVM broker's {@code java} command line
 * @param advertisedHost the host name child-JVM brokers advertise their client listener under, which
 *                       clients resolve; null for the address they listen on, 127.0.0.1
 */
public record ClusterSpec(int brokers, Execution execution, KafkaRelease release, Security security,
                          Map<String, String> brokerConfigs, NetworkModel network, Map<String, Short> featureLevels,
                          List<String> brokerJvmOptions, String advertisedHost, List<Integer> clientPorts) {

    /**
     * Settings every fixture broker gets. They keep a small cluster small and quick on a 2-core
     * machine: a 2 MiB cleaner buffer instead of 128 MiB per broker, and a fast session timeout
     * so a restarted broker is unfenced in well under a second instead of about six.
     */
    public static final Map<String, String> DEFAULT_BROKER_CONFIGS = Map.of(
        "log.cleaner.dedupe.buffer.size", "2097152",
        "broker.session.timeout.ms", "3000",
        "broker.heartbeat.interval.ms", "500",
        "auto.create.topics.enable", "false");

    /**
     * A {@link Builder#brokerJvmOption broker JVM option} for brokers that must start quickly more
     * than run fast: C1 only. Test clusters take it; benchmarks' clusters do not.
     */
    public static final String C1_ONLY = "-XX:TieredStopAtLevel=1";

    public ClusterSpec {
        brokerJvmOptions = List.copyOf(brokerJvmOptions);
        if (!brokerJvmOptions.isEmpty() && execution != Execution.CHILD_JVM) {
            throw new IllegalArgumentException("broker JVM options " + brokerJvmOptions + " need brokers in child JVMs, not " + execution);
        }
        if (brokers < 1) {
            throw new IllegalArgumentException("a cluster needs at least one broker, not " + brokers);
        }
        if (release.childJvmOnly() && execution != Execution.CHILD_JVM) {
            throw new IllegalArgumentException("Kafka " + release.version() + " brokers run only as child JVMs, not " + execution);
        }
        if (execution == Execution.CHILD_JVM && security.saslMechanism() != null
                && !(security.isOAuthBearer() && security.brokerLogin() == null)) {
            throw new IllegalArgumentException("child-JVM clusters have PLAINTEXT, SSL, or SASL with unsecured OAUTHBEARER client"
                + " listeners only; use IN_JVM or CONTAINER for " + security.protocol() + " with " + security.saslMechanism());
        }
        clientPorts = List.copyOf(clientPorts);
        if (!clientPorts.isEmpty() && (execution != Execution.CHILD_JVM || clientPorts.size() != brokers || !network.isLoopback())) {
            throw new IllegalArgumentException("client ports " + clientPorts + " are set for loopback CHILD_JVM brokers only, one per"
                + " broker: not for " + brokers + " brokers in " + execution);
        }
        if (advertisedHost != null && execution != Execution.CHILD_JVM) {
            throw new IllegalArgumentException("an advertised host name is set for CHILD_JVM brokers only, not " + execution);
        }
        brokerConfigs = Map.copyOf(brokerConfigs);
        featureLevels = Map.copyOf(featureLevels);
        if (!featureLevels.isEmpty() && execution != Execution.IN_JVM) {
            // Only in-JVM storage is formatted by this fixture's own code (InJvmStorage).
            throw new IllegalArgumentException("feature levels " + featureLevels + " are set when an " + Execution.IN_JVM
                + " cluster's storage is formatted; not for " + execution);
        }
        requireFeasible(network, brokers, execution);
    }

    private static void requireFeasible(NetworkModel network, int brokers, Execution execution) {
        Objects.requireNonNull(network, "network");
        if (network.isLoopback()) {
            return;
        }
        if (execution == Execution.CONTAINER) {
            throw new IllegalArgumentException("a network model needs brokers on this machine's loopback; use IN_JVM or CHILD_JVM, not " + execution);
        }
        if (!network.hasMetadataLag()) {
            return;
        }
        if (execution != Execution.CHILD_JVM) {
            // The testing library writes one controller.quorum.voters string for every node, so one
            // node's path to the quorum cannot be slowed alone.
            throw new IllegalArgumentException("metadataLag needs CHILD_JVM brokers, whose controller.quorum.voters is written per node; not " + execution);
        }
        for (int nodeId : network.metadataLag().keySet()) {
            if (nodeId >= brokers) {
                throw new IllegalArgumentException("metadataLag names node " + nodeId + ", but the cluster starts with nodes 0 to " + (brokers - 1));
            }
        }
        long lagging = network.metadataLag().values().stream().filter(lag -> !lag.isZero()).count();
        if (2 * lagging >= brokers) {
            // Commits need a majority of the voters; if lagging nodes were needed for it, every commit would lag.
            throw new IllegalArgumentException("metadataLag on " + lagging + " of " + brokers
                + " nodes would slow every commit of the KRaft quorum: fewer than half of the nodes may lag");
        }
    }

    /** A builder for a 3-broker cluster of the current release, run as {@link Execution#fromSwitch()} says. */
    public static Builder builder() {
        return new Builder();
    }

    /** Every broker setting: the defaults, overridden by {@link #brokerConfigs()}. */
    public Map<String, String> effectiveBrokerConfigs() {
        Map<String, String> all = new LinkedHashMap<>(DEFAULT_BROKER_CONFIGS);
        all.putAll(brokerConfigs);
        return all;
    }

    /** Starts the cluster and returns once every broker is registered and unfenced. */
    public KafkaTestCluster start() {
        return switch (execution) {
            case IN_JVM, CONTAINER -> InJvmCluster.start(this);
            case CHILD_JVM -> ChildJvmCluster.start(this);
            case SIMULATED -> SimulatedTestCluster.start(this);
        };
    }

    /** Builds a {@link ClusterSpec}. */
    public static final class Builder {
        private int brokers = 3;
        private Execution execution = Execution.fromSwitch();
        private KafkaRelease release = KafkaRelease.CURRENT;
        private Security security = Security.plaintext();
        private final Map<String, String> brokerConfigs = new LinkedHashMap<>();
        private NetworkModel network = NetworkModel.loopback();
        private final Map<String, Short> featureLevels = new LinkedHashMap<>();
        private final List<String> brokerJvmOptions = new ArrayList<>();
        private String advertisedHost;
        private List<Integer> clientPorts = List.of();

        private Builder() {
        }

        /** Number of nodes (default 3). */
        public Builder brokers(int brokers) {
            this.brokers = brokers;
            return this;
        }

        /** Where the brokers run (default: {@link Execution#fromSwitch()}). */
        public Builder execution(Execution execution) {
            this.execution = execution;
            return this;
        }

        /**
         * Which broker (default {@link KafkaRelease#CURRENT}). Any other release
         * ({@link KafkaRelease#LEGACY}, {@link KafkaRelease#KAFKA_3_9}) implies child JVMs.
         */
        public Builder release(KafkaRelease release) {
            this.release = release;
            if (release.childJvmOnly()) {
                this.execution = Execution.CHILD_JVM;
            }
            return this;
        }

        /** The client listener's security (default PLAINTEXT). */
        public Builder security(Security security) {
            this.security = security;
            return this;
        }

        /** One broker setting, applied to every broker. */
        public Builder brokerConfig(String key, String value) {
            brokerConfigs.put(key, value);
            return this;
        }

        /**
         * The delays between clients and brokers and among brokers (default
         * {@link NetworkModel#loopback()}: none, and no relay).
         */
        public Builder network(NetworkModel network) {
            this.network = Objects.requireNonNull(network, "network");
            return this;
        }

        /**
         * The transaction protocol the cluster speaks, finalized as the feature
         * {@code transaction.version} when the storage is formatted, as
         * {@code kafka-storage format --feature transaction.version=<level>} would: 1, classic
         * transactions (AddPartitionsToTxn for every partition); 2, KIP-890 part 2 (Produce v12
         * adds partitions implicitly, and every EndTxn bumps the producer epoch). Unset, the
         * release's default for its latest production {@code metadata.version}: 2 for Kafka 4.3.1.
         * In-JVM clusters only.
         */
        public Builder transactionVersion(int level) {
            if (Arrays.stream(TransactionVersion.values()).noneMatch(known -> known.featureLevel() == level)) {
                throw new IllegalArgumentException("transaction.version " + level + " is none of the levels Kafka "
                    + KafkaRelease.CURRENT.version() + " knows: " + Arrays.toString(TransactionVersion.values()));
            }
            featureLevels.put(TransactionVersion.FEATURE_NAME, (short) level);
            return this;
        }

        /**
         * One option added to each broker's {@code java} command line, after the fixture's own
         * (a small heap, the serial collector); {@link Execution#CHILD_JVM} only. For example
         * {@link #C1_ONLY}: a restarted broker that shares two cores with a busy test is unfenced
         * in about 28 s instead of 41 s, at the cost of its peak speed.
         */
        public Builder brokerJvmOption(String option) {
            brokerJvmOptions.add(Objects.requireNonNull(option, "option"));
            return this;
        }

        /**
         * The host name the brokers advertise their client listener under, which clients then
         * resolve, instead of the address they listen on (127.0.0.1); {@link Execution#CHILD_JVM} only.
         */
        public Builder advertisedHost(String host) {
            this.advertisedHost = Objects.requireNonNull(host, "host");
            return this;
        }

        /**
         * The ports the brokers' client listeners bind, one per broker in node id order, instead of
         * free ones: a cluster that takes over another's addresses; loopback {@link Execution#CHILD_JVM} only.
         */
        public Builder clientPorts(List<Integer> ports) {
            this.clientPorts = List.copyOf(ports);
            return this;
        }

        /**
         * The spec.
         *
         * @throws IllegalArgumentException if the settings contradict each other, e.g. a
         *                                  {@link NetworkModel#metadataLag()} the execution cannot do
         */
        public ClusterSpec build() {
            return new ClusterSpec(brokers, execution, release, security, brokerConfigs, network, featureLevels, brokerJvmOptions,
                advertisedHost, clientPorts);
        }

        /** Builds the spec and starts the cluster. */
        public KafkaTestCluster start() {
            return build().start();
        }
    }
}
