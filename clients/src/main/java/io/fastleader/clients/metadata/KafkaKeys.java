package io.fastleader.clients.metadata;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.types.Password;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every configuration key kafka-clients 3.7 to 4.4 defines for a producer or a consumer, with what
 * fastleader does with it: {@link Treatment#HONOURED honoured} as kafka-clients honours it,
 * {@link Treatment#PARTLY in part}, or {@link Treatment#NOT_BUILT not built}. A key not built that
 * the application set, to other than its default, gets one WARN when the client is built
 * ({@link #warnNotBuilt}), so no key is ignored in silence. A key honoured in part is acted on, and
 * is not warned of: serializers and interceptors are among them, and every application sets them.
 * clients/README.md renders the table ({@link #markdown}); the tests fail on a key of any release
 * in the matrix that the table lacks.
 */
public final class KafkaKeys {

    /** What fastleader does with a key. */
    public enum Treatment {
        /** Read and acted on as kafka-clients does. */
        HONOURED,
        /** Read, with some of what kafka-clients does with it not done: the note says what. */
        PARTLY,
        /** Parsed and validated by kafka-clients' definition, then not acted on: the note says what is missing. */
        NOT_BUILT
    }

    /** Which client defines the key. */
    public enum Clients {
        PRODUCER, CONSUMER, BOTH;

        boolean includes(Clients client) {
            return this == BOTH || this == client;
        }
    }

    /**
     * One key of the table.
     *
     * @param name      the key
     * @param clients   which client defines it
     * @param treatment what fastleader does with it
     * @param note      for a key not wholly honoured, what is not done; otherwise how, briefly, or empty
     * @param actsAs    for a key not built, the value whose behaviour fastleader has, if one has it (set
     *                  to that value, the key needs no warning); otherwise null
     */
    public record Key(String name, Clients clients, Treatment treatment, String note, String actsAs) {
        public Key {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(clients, "clients");
            Objects.requireNonNull(treatment, "treatment");
            Objects.requireNonNull(note, "note");
            if (treatment != Treatment.HONOURED && note.isEmpty()) {
                throw new IllegalArgumentException(name + " is " + treatment + " and needs a note saying what is not done");
            }
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(KafkaKeys.class);
    /** Notes many keys share. */
    private static final String SASL_PLUGINS = "through kafka-clients' own JAAS login and SASL callback handlers, as there";
    private static final String SSL_ENGINE_FACTORY = "through kafka-clients' SslEngineFactory, as there";
    private static final String PLUGINS = "beside kafka-clients 4.1 and later, a plugin that implements Monitorable is given its plugin metrics (KIP-877)";
    private static final Map<String, Key> TABLE = table();

    private KafkaKeys() {
    }

    /** Every key of the table, by name, in name order. */
    public static Map<String, Key> all() {
        return Collections.unmodifiableMap(TABLE);
    }

    /**
     * The keys of {@code defined} (a kafka-clients release's {@code configNames()} for {@code client})
     * the table lacks, or lists for the other client only: what a test fails on.
     */
    public static Set<String> missing(Set<String> defined, Clients client) {
        Set<String> missing = new TreeSet<>();
        for (String name : defined) {
            Key key = TABLE.get(name);
            if (key == null || !key.clients().includes(client)) {
                missing.add(name);
            }
        }
        return missing;
    }

    /** Logs one WARN for each key {@link #notBuilt} finds. */
    public static void warnNotBuilt(AbstractConfig kafka, ConfigDef definition, Clients client) {
        notBuilt(kafka, definition, client).forEach(LOG::warn);
    }

    /**
     * What {@link #warnNotBuilt} logs, one line per key, in name order: each key of {@code client}
     * not built that {@code kafka} sets to other than {@code definition}'s default and other than
     * the value fastleader acts as, with its value (a password hidden) and what is not done.
     */
    static List<String> notBuilt(AbstractConfig kafka, ConfigDef definition, Clients client) {
        return notBuilt(TABLE, kafka, definition, client);
    }

    /** {@link #notBuilt(AbstractConfig, ConfigDef, Clients)} by {@code table}'s treatments. */
    static List<String> notBuilt(Map<String, Key> table, AbstractConfig kafka, ConfigDef definition, Clients client) {
        Map<String, Object> defaults = definition.defaultValues();
        List<String> warnings = new ArrayList<>();
        for (String name : new TreeSet<>(kafka.originals().keySet())) {
            Key key = table.get(name);
            if (key == null || key.treatment() != Treatment.NOT_BUILT || !key.clients().includes(client)
                    || !definition.names().contains(name)) {
                continue;
            }
            Object value = kafka.values().get(name);
            if (Objects.equals(value, defaults.get(name)) || String.valueOf(value).equals(key.actsAs())) {
                continue;
            }
            warnings.add(warning(key, value));
        }
        return warnings;
    }

    /** The WARN for {@code key} set to {@code value}; a password (no key not built is one today) is written hidden. */
    static String warning(Key key, Object value) {
        return "Configuration '" + key.name() + "' was supplied as '" + (value instanceof Password ? Password.HIDDEN : value)
            + "' but fastleader does not act on it: " + key.note();
    }

    /** The table as clients/README.md shows it: one row per key, in name order. */
    public static String markdown() {
        StringBuilder out = new StringBuilder("| key | producer | consumer | treatment | what is not done, or how |\n|---|---|---|---|---|\n");
        for (Key key : TABLE.values()) {
            out.append("| `").append(key.name()).append("` | ")
                .append(key.clients().includes(Clients.PRODUCER) ? "yes" : "—").append(" | ")
                .append(key.clients().includes(Clients.CONSUMER) ? "yes" : "—").append(" | ")
                .append(key.treatment().name().toLowerCase(Locale.ROOT).replace('_', ' ')).append(" | ")
                .append(key.note()).append(" |\n");
        }
        return out.toString();
    }

    private static Map<String, Key> table() {
        Map<String, Key> table = new TreeMap<>();
        for (Key key : List.of(
            honoured("acks", Clients.PRODUCER),
            honoured("allow.auto.create.topics", Clients.CONSUMER),
            honoured("auto.commit.interval.ms", Clients.CONSUMER),
            honoured("auto.include.jmx.reporter", Clients.BOTH),
            honoured("auto.offset.reset", Clients.CONSUMER),
            honoured("batch.size", Clients.PRODUCER),
            honoured("bootstrap.resolve.timeout.ms", Clients.BOTH),
            honoured("bootstrap.servers", Clients.BOTH),
            honoured("buffer.memory", Clients.PRODUCER),
            honoured("buffer.memory.allocation.strategy", Clients.PRODUCER, "incremental: a batch starts with 16 KiB and doubles "
                    + "its memory as records need it, up to batch.size (kafka-clients adds 16 KiB at a time), so it holds at most twice what it has written"),
            honoured("check.crcs", Clients.CONSUMER),
            honoured("client.dns.lookup", Clients.BOTH),
            honoured("client.id", Clients.BOTH),
            partly("client.rack", Clients.BOTH, "sent in group membership (rack-aware assignors see it) and preferred by the producer's partitioner under partitioner.rack.aware; every Fetch goes to the leader (no KIP-392 fetching from the nearest replica)"),
            honoured("compression.gzip.level", Clients.PRODUCER),
            honoured("compression.lz4.level", Clients.PRODUCER),
            honoured("compression.type", Clients.PRODUCER),
            honoured("compression.zstd.level", Clients.PRODUCER),
            honoured("config.providers", Clients.BOTH, "resolved by kafka-clients' own configuration; fastleader.* keys are not resolved through providers"),
            honoured("connections.max.idle.ms", Clients.BOTH),
            honoured("default.api.timeout.ms", Clients.CONSUMER),
            honoured("delivery.timeout.ms", Clients.PRODUCER),
            honoured("enable.auto.commit", Clients.CONSUMER),
            honoured("enable.idempotence", Clients.PRODUCER),
            honoured("enable.metrics.push", Clients.BOTH),
            honoured("exclude.internal.topics", Clients.CONSUMER),
            honoured("fetch.max.bytes", Clients.CONSUMER),
            honoured("fetch.max.wait.ms", Clients.CONSUMER),
            honoured("fetch.min.bytes", Clients.CONSUMER),
            honoured("group.id", Clients.CONSUMER),
            honoured("group.instance.id", Clients.CONSUMER),
            honoured("group.protocol", Clients.CONSUMER),
            honoured("group.remote.assignor", Clients.CONSUMER),
            honoured("heartbeat.interval.ms", Clients.CONSUMER),
            honoured("interceptor.classes", Clients.BOTH, PLUGINS),
            partly("internal.leave.group.on.close", Clients.CONSUMER, "false keeps a dynamic classic member in its group on close, as KafkaConsumer 3.7 to 4.1 does; its rebalance listener is still told of the revocation, as 4.1 does (3.7 to 4.0 tell it nothing)"),
            honoured("internal.throw.on.fetch.stable.offset.unsupported", Clients.CONSUMER),
            honoured("isolation.level", Clients.CONSUMER),
            honoured("key.deserializer", Clients.CONSUMER, PLUGINS),
            honoured("key.serializer", Clients.PRODUCER, PLUGINS),
            honoured("linger.ms", Clients.PRODUCER),
            honoured("max.block.ms", Clients.PRODUCER),
            honoured("max.in.flight.requests.per.connection", Clients.PRODUCER),
            honoured("max.partition.fetch.bytes", Clients.CONSUMER),
            honoured("max.poll.interval.ms", Clients.CONSUMER),
            honoured("max.poll.records", Clients.CONSUMER),
            honoured("max.request.size", Clients.PRODUCER),
            honoured("metadata.cluster.check.enable", Clients.BOTH, "beside a release without the key (before 4.4) too, as if true: see clients/README.md's differences"),
            honoured("metadata.max.age.ms", Clients.BOTH),
            honoured("metadata.max.idle.ms", Clients.PRODUCER),
            honoured("metadata.recovery.rebootstrap.trigger.ms", Clients.BOTH),
            honoured("metadata.recovery.strategy", Clients.BOTH, "a rebootstrap keeps the known brokers' open connections, where kafka-clients closes them: see clients/README.md's differences"),
            honoured("metric.reporters", Clients.BOTH),
            honoured("metrics.num.samples", Clients.BOTH),
            honoured("metrics.recording.level", Clients.BOTH),
            honoured("metrics.sample.window.ms", Clients.BOTH),
            honoured("partition.assignment.strategy", Clients.CONSUMER),
            honoured("partitioner.adaptive.partitioning.enable", Clients.PRODUCER, "a retried batch at a queue's front leaves the queue's length as it was, so a leader move does not make a partition look slow"),
            honoured("partitioner.availability.timeout.ms", Clients.PRODUCER),
            partly("partitioner.class", Clients.PRODUCER, "built and called, told of new batches where 3.x tells it (onNewBatch); the Cluster it is given holds the record's topic only, where kafka-clients' holds every topic the producer knows"),
            honoured("partitioner.ignore.keys", Clients.PRODUCER),
            honoured("partitioner.rack.aware", Clients.PRODUCER),
            honoured("receive.buffer.bytes", Clients.BOTH),
            honoured("reconnect.backoff.max.ms", Clients.BOTH),
            honoured("reconnect.backoff.ms", Clients.BOTH),
            honoured("request.timeout.ms", Clients.BOTH),
            honoured("retries", Clients.PRODUCER),
            honoured("retry.backoff.max.ms", Clients.BOTH, "a new leader epoch restarts the backoff series (KIP-951), on purpose"),
            honoured("retry.backoff.ms", Clients.BOTH, "a new leader epoch restarts the backoff series (KIP-951), on purpose"),
            honoured("sasl.client.callback.handler.class", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.jaas.config", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.kerberos.kinit.cmd", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.kerberos.min.time.before.relogin", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.kerberos.service.name", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.kerberos.ticket.renew.jitter", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.kerberos.ticket.renew.window.factor", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.login.callback.handler.class", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.login.class", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.login.connect.timeout.ms", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.login.read.timeout.ms", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.login.refresh.buffer.seconds", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.login.refresh.min.period.seconds", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.login.refresh.window.factor", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.login.refresh.window.jitter", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.login.retry.backoff.max.ms", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.login.retry.backoff.ms", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.mechanism", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.allow.unverified.audience", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.allow.unverified.issuer", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.assertion.algorithm", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.assertion.claim.aud", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.assertion.claim.exp.seconds", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.assertion.claim.iss", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.assertion.claim.jti.include", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.assertion.claim.nbf.seconds", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.assertion.claim.sub", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.assertion.file", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.assertion.private.key.file", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.assertion.private.key.passphrase", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.assertion.template.file", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.client.credentials.client.id", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.client.credentials.client.secret", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.clock.skew.seconds", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.expected.audience", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.expected.issuer", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.header.urlencode", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.jwks.endpoint.refresh.ms", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.jwks.endpoint.url", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.jwt.retriever.class", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.jwt.validator.class", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.scope", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.scope.claim.name", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.sub.claim.name", Clients.BOTH, SASL_PLUGINS),
            honoured("sasl.oauthbearer.token.endpoint.url", Clients.BOTH, SASL_PLUGINS),
            honoured("security.protocol", Clients.BOTH),
            honoured("security.providers", Clients.BOTH),
            honoured("send.buffer.bytes", Clients.BOTH),
            honoured("session.timeout.ms", Clients.CONSUMER),
            honoured("share.acknowledgement.mode", Clients.CONSUMER, "KafkaShareConsumer's; KafkaConsumer does not use it either"),
            honoured("share.acquire.mode", Clients.CONSUMER, "KafkaShareConsumer's; KafkaConsumer does not use it either"),
            honoured("socket.connection.setup.timeout.max.ms", Clients.BOTH),
            honoured("socket.connection.setup.timeout.ms", Clients.BOTH),
            honoured("ssl.cipher.suites", Clients.BOTH, SSL_ENGINE_FACTORY),
            honoured("ssl.enabled.protocols", Clients.BOTH, SSL_ENGINE_FACTORY),
            honoured("ssl.endpoint.identification.algorithm", Clients.BOTH),
            honoured("ssl.engine.factory.class", Clients.BOTH, "the application's SslEngineFactory makes every TLS engine, one per client"),
            honoured("ssl.key.password", Clients.BOTH),
            honoured("ssl.keymanager.algorithm", Clients.BOTH, SSL_ENGINE_FACTORY),
            honoured("ssl.keystore.certificate.chain", Clients.BOTH),
            honoured("ssl.keystore.key", Clients.BOTH),
            honoured("ssl.keystore.location", Clients.BOTH),
            honoured("ssl.keystore.password", Clients.BOTH),
            honoured("ssl.keystore.type", Clients.BOTH),
            honoured("ssl.protocol", Clients.BOTH),
            honoured("ssl.provider", Clients.BOTH, SSL_ENGINE_FACTORY),
            honoured("ssl.secure.random.implementation", Clients.BOTH, SSL_ENGINE_FACTORY),
            honoured("ssl.trustmanager.algorithm", Clients.BOTH, SSL_ENGINE_FACTORY),
            honoured("ssl.truststore.certificates", Clients.BOTH),
            honoured("ssl.truststore.location", Clients.BOTH),
            honoured("ssl.truststore.password", Clients.BOTH),
            honoured("ssl.truststore.type", Clients.BOTH),
            honoured("transaction.timeout.ms", Clients.PRODUCER),
            honoured("transaction.two.phase.commit.enable", Clients.PRODUCER, "as kafka-clients 4.1 to 4.4 act on it: refused beside "
                    + "a transaction.timeout.ms given too (their ConfigException), and no request changes, as none of them sends Enable2Pc"),
            honoured("transactional.id", Clients.PRODUCER),
            honoured("value.deserializer", Clients.CONSUMER, PLUGINS),
            honoured("value.serializer", Clients.PRODUCER, PLUGINS))) {
            if (table.put(key.name(), key) != null) {
                throw new IllegalStateException("the key table lists " + key.name() + " twice");
            }
        }
        return table;
    }

    private static Key honoured(String name, Clients clients) {
        return new Key(name, clients, Treatment.HONOURED, "", null);
    }

    private static Key honoured(String name, Clients clients, String how) {
        return new Key(name, clients, Treatment.HONOURED, how, null);
    }

    private static Key partly(String name, Clients clients, String notDone) {
        return new Key(name, clients, Treatment.PARTLY, notDone, null);
    }
}
