package io.fastleader.clients.metadata;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configuration keys fastleader adds to Kafka's, shared by the producer and the consumer.
 * They all start with {@code fastleader.}; everything else is a Kafka key and is parsed by
 * Kafka's own {@code ProducerConfig} or {@code ConsumerConfig}.
 */
public final class FastLeaderConfigs {

    /** Whether KIP-951 hints are used at all; off gives a pre-KIP-951 baseline for comparisons. */
    public static final String LEADER_HINTS_ENABLED = "fastleader.leader.hints.enabled";
    /** Delay of the Metadata refresh that confirms an accepted hint. */
    public static final String HINT_CONFIRMATION_DELAY_MS = "fastleader.leader.hint.confirmation.delay.ms";
    /** Whether connections to every broker hosting a replica of a partition in use are opened ahead of need. */
    public static final String CONNECTIONS_PREWARM = "fastleader.connections.prewarm";

    private static final String PREFIX = "fastleader.";
    private static final Logger LOG = LoggerFactory.getLogger(FastLeaderConfigs.class);

    private FastLeaderConfigs() {
    }

    /** A definition of the keys every fastleader client takes; a client adds its own to it. */
    public static ConfigDef common() {
        return new ConfigDef()
                .define(LEADER_HINTS_ENABLED, Type.BOOLEAN, true, Importance.MEDIUM,
                        "Follow KIP-951 leader hints from Produce and Fetch responses, going to an advancing leader "
                                + "at once. false backs off and refreshes Metadata, as clients did before KIP-951.")
                .define(HINT_CONFIRMATION_DELAY_MS, Type.LONG, MetadataConfig.DEFAULT_HINT_CONFIRMATION_DELAY.toMillis(),
                        ConfigDef.Range.atLeast(0), Importance.LOW,
                        "After a hint is accepted, wait this long before the Metadata refresh that confirms it.")
                .define(CONNECTIONS_PREWARM, Type.BOOLEAN, true, Importance.LOW,
                        "Open connections to every broker hosting a replica of a partition in use, so a leader move "
                                + "never waits for a TCP or TLS handshake.");
    }

    /**
     * {@code bootstrap.servers}, resolved and checked as the Java client does, with
     * {@code client.dns.lookup}. Through the {@code ClientUtils} overload every kafka-clients
     * release 3.7 to 4.4 has: the one taking the whole configuration is gone in 4.4. With a positive
     * {@code bootstrap.resolve.timeout.ms} (4.4) the names are left unresolved, as kafka-clients 4.4
     * leaves them, for the connects to resolve within that time.
     *
     * @throws org.apache.kafka.common.config.ConfigException for an address that cannot be parsed, or
     *         (unless resolution is left for later) resolved
     */
    public static List<InetSocketAddress> bootstrapServers(AbstractConfig kafka) {
        List<String> servers = kafka.getList(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
        Duration resolveTimeout = MetadataConfig.bootstrapResolveTimeout(kafka);
        if (resolveTimeout.isZero()) {
            return ClientUtils.parseAndValidateAddresses(servers, kafka.getString(CommonClientConfigs.CLIENT_DNS_LOOKUP_CONFIG));
        }
        LOG.info("Asynchronous bootstrap DNS resolution is enabled via {}={}. This evolving feature may undergo "
                + "compatibility-breaking changes in a minor release.", BootstrapResolution.TIMEOUT_CONFIG, resolveTimeout.toMillis());
        List<InetSocketAddress> unresolved = new ArrayList<>();
        for (String server : servers) {
            unresolved.add(unresolvedAddress(server.trim()));
        }
        if (unresolved.isEmpty()) {
            throw new ConfigException("No resolvable bootstrap urls given in " + CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
        }
        return unresolved;
    }

    /** {@code host:port}, or {@code [ipv6]:port}, as an address left for a connect to resolve. */
    private static InetSocketAddress unresolvedAddress(String server) {
        int colon = server.lastIndexOf(':');
        String host = colon > 0 ? server.substring(0, colon) : "";
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            int port = Integer.parseInt(server.substring(colon + 1));
            if (!host.isEmpty() && port >= 0 && port <= 65535) {
                return InetSocketAddress.createUnresolved(host, port);
            }
        } catch (NumberFormatException notAPort) {
            // Falls through to the refusal below.
        }
        throw new ConfigException("Invalid url in " + CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG + ": " + server);
    }

    /**
     * Logs the keys supplied that neither Kafka's definition of the client nor any plugin read, in
     * the line {@code KafkaProducer} and {@code KafkaConsumer} log once they are built ("These
     * configurations '[...]' were supplied but are not used yet."), and warns of each key set that
     * fastleader does not build ({@link KafkaKeys#warnNotBuilt}). Called last in a
     * client's constructor: a plugin marks the keys it reads from the configuration it is given as
     * used.
     *
     * @param definition the client's kafka-clients definition ({@code ProducerConfig.configDef()} or
     *                   {@code ConsumerConfig.configDef()}): its keys are known, so not logged as unused
     */
    public static void logUnusedKeys(AbstractConfig kafka, ConfigDef definition, KafkaKeys.Clients client) {
        definition.names().forEach(kafka::ignore);
        kafka.logUnused();
        KafkaKeys.warnNotBuilt(kafka, definition, client);
    }

    /**
     * Splits a client's configuration: the {@code fastleader.} keys are parsed by {@code definition}
     * (unknown ones logged, as Kafka logs unknown keys) and removed from {@code configs}, which
     * keeps the Kafka keys.
     *
     * @throws org.apache.kafka.common.config.ConfigException naming the key, the value and what is allowed
     */
    public static Map<String, Object> takeFastLeaderKeys(Map<String, Object> configs, ConfigDef definition) {
        Map<String, Object> ours = new HashMap<>();
        configs.entrySet().removeIf(entry -> {
            if (!entry.getKey().startsWith(PREFIX)) {
                return false;
            }
            ours.put(entry.getKey(), entry.getValue());
            return true;
        });
        for (String key : ours.keySet()) {
            if (!definition.names().contains(key)) {
                LOG.warn("These configurations '{}' were supplied but are not known fastleader keys; known: {}",
                        key, definition.names());
            }
        }
        return definition.parse(ours);
    }
}
