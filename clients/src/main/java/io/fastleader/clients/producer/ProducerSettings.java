package io.fastleader.clients.producer;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.metadata.ClusterSettings;
import io.fastleader.clients.metadata.FastLeaderConfigs;
import io.fastleader.clients.metadata.MetadataConfig;
import io.fastleader.clients.network.ConnectionConfig;
import io.fastleader.clients.network.PoolConfig;

/**
 * A producer's configuration: the {@link ProducerConfig} keys with Kafka's defaults and checks,
 * plus fastleader's own keys under {@code fastleader.}. Kafka's {@link ProducerConfig} parses and
 * validates the Kafka keys (so a bad value fails with the same {@link ConfigException}, naming key
 * and value, and an unknown key is logged as Kafka logs it); this class adds the cross-key checks
 * {@code KafkaProducer} makes and turns the result into the settings of each part of the client.
 */
public final class ProducerSettings implements ClusterSettings {

    /**
     * A batch that ends (acknowledged or failed) more than this many milliseconds after its creation
     * is logged with where its time went ({@link SlowBatchLog}); 0 logs every batch, -1 (the default) none.
     */
    public static final String SLOW_BATCH_LOG_MS = "fastleader.slow.batch.log.ms";

    /** kafka-clients 4.4's key for a built-in partitioner that prefers partitions led in {@code client.rack}. */
    private static final String PARTITIONER_RACK_AWARE_CONFIG = "partitioner.rack.aware";
    private static final String BUFFER_MEMORY_ALLOCATION_STRATEGY_CONFIG = "buffer.memory.allocation.strategy";

    private static final Logger LOG = LoggerFactory.getLogger(ProducerSettings.class);
    /**
     * Whether the kafka-clients on the classpath defines the {@code compression.*.level} keys
     * (3.8+, KIP-390). Before, {@code KafkaProducer} compressed at each codec's default level and
     * {@code ProducerConfig} throws for a key it does not define.
     */
    private static final boolean COMPRESSION_LEVEL_KEYS_DEFINED =
            ProducerConfig.configNames().contains(ProducerConfig.COMPRESSION_GZIP_LEVEL_CONFIG);

    private static final ConfigDef FASTLEADER_KEYS = FastLeaderConfigs.common()
            .define(SLOW_BATCH_LOG_MS, Type.LONG, SlowBatchLog.OFF, ConfigDef.Range.atLeast(SlowBatchLog.OFF), Importance.LOW,
                    "Log, on the logger " + SlowBatchLog.LOGGER_NAME + " at INFO, every batch that ends more than this "
                            + "many milliseconds after its creation, with the time it spent in each phase (queued, "
                            + "in-flight, behind-in-flight, backoff, metadata, connecting). 0 logs every batch; -1 none.");

    private final ProducerConfig kafka;
    private final long deliveryTimeoutMs;
    private final boolean leaderHintsEnabled;
    private final Duration hintConfirmationDelay;
    private final boolean connectionsPrewarm;
    private final long slowBatchLogMs;
    // Read per record or per request: kept, since each kafka.get* is a lookup that also marks the key used.
    private final long maxBlockMs;
    private final int maxRequestSize;
    private final long retryBackoffMs;
    private final boolean partitionerIgnoreKeys;

    private ProducerSettings(ProducerConfig kafka, Map<String, Object> fastleader) {
        this.kafka = kafka;
        this.deliveryTimeoutMs = deliveryTimeout(kafka);
        this.maxBlockMs = kafka.getLong(ProducerConfig.MAX_BLOCK_MS_CONFIG);
        this.maxRequestSize = kafka.getInt(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        this.retryBackoffMs = kafka.getLong(ProducerConfig.RETRY_BACKOFF_MS_CONFIG);
        this.partitionerIgnoreKeys = kafka.getBoolean(ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG);
        this.leaderHintsEnabled = (Boolean) fastleader.get(FastLeaderConfigs.LEADER_HINTS_ENABLED);
        this.hintConfirmationDelay = Duration.ofMillis((Long) fastleader.get(FastLeaderConfigs.HINT_CONFIRMATION_DELAY_MS));
        this.connectionsPrewarm = (Boolean) fastleader.get(FastLeaderConfigs.CONNECTIONS_PREWARM);
        this.slowBatchLogMs = (Long) fastleader.get(SLOW_BATCH_LOG_MS);
    }

    /**
     * Parses and checks a producer's configuration.
     *
     * @param configs         the configuration as given to the producer's constructor
     * @param keySerializer   the key serializer given as an instance, or null to create it from {@code key.serializer}
     * @param valueSerializer the value serializer given as an instance, or null to create it from {@code value.serializer}
     * @throws ConfigException naming the key, the value and what is allowed
     * @throws KafkaException    with a {@link ConfigException} cause for a {@code delivery.timeout.ms} set below
     *                           {@code linger.ms + request.timeout.ms}, as {@code KafkaProducer} throws it
     */
    public static ProducerSettings parse(Map<String, ?> configs, Serializer<?> keySerializer, Serializer<?> valueSerializer) {
        Map<String, Object> kafkaKeys = new HashMap<>(configs);
        Map<String, Object> fastleaderKeys = FastLeaderConfigs.takeFastLeaderKeys(kafkaKeys, FASTLEADER_KEYS);
        // As KafkaProducer does: an instance given to the constructor stands in for its class key.
        if (keySerializer != null) {
            kafkaKeys.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, keySerializer.getClass());
        }
        if (valueSerializer != null) {
            kafkaKeys.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, valueSerializer.getClass());
        }
        ProducerConfig kafka = new ProducerConfig(kafkaKeys);
        ProducerSettings settings;
        try {
            settings = new ProducerSettings(kafka, fastleaderKeys);
        } catch (ConfigException e) {
            // KafkaProducer checks the delivery timeout while it is being built, so it wraps this one.
            throw new KafkaException("Failed to construct kafka producer", e);
        }
        return settings;
    }

    /** The parsed Kafka keys, for plugins (serializers, partitioner, interceptors) and anything not typed here. */
    public ProducerConfig kafkaConfig() {
        return kafka;
    }

    /** {@code bootstrap.servers}, resolved and checked as the Java client does. */
    @Override
    public List<InetSocketAddress> bootstrapServers() {
        return FastLeaderConfigs.bootstrapServers(kafka);
    }

    /**
     * {@code client.id}: when none was given, the one kafka-clients' {@code ProducerConfig} gives,
     * {@code producer-<transactional.id>} or {@code producer-N} from the sequence {@code KafkaProducer}s share.
     */
    public String clientId() {
        return kafka.getString(CommonClientConfigs.CLIENT_ID_CONFIG);
    }

    /**
     * {@code acks} as the Produce request carries it: -1 for all; 0 for none, when the broker
     * answers nothing. Kafka's checks apply: {@code acks} other than all turns idempotence off unless
     * {@code enable.idempotence} was given, and is refused if it was given true or with {@code transactional.id}.
     */
    public short acks() {
        String acks = kafka.getString(ProducerConfig.ACKS_CONFIG);
        return "all".equals(acks) ? (short) -1 : Short.parseShort(acks);
    }

    /**
     * {@code transactional.id}, or null for a producer without transactions. Kafka's own checks
     * apply: one with idempotence turned off is refused.
     */
    public String transactionalId() {
        return kafka.getString(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
    }

    /** {@code transaction.timeout.ms}: how long the coordinator lets a transaction of this producer stay open. */
    public int transactionTimeoutMs() {
        return kafka.getInt(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG);
    }

    /** {@code enable.idempotence}, after Kafka's defaulting (on unless a conflicting key turned it off). */
    public boolean idempotent() {
        return kafka.getBoolean(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
    }

    /** {@code compression.type} with its level key, or the codec's default level where kafka-clients has no level keys. */
    public Compression compression() {
        return compression(COMPRESSION_LEVEL_KEYS_DEFINED);
    }

    /** {@link #compression()}, told whether {@code ProducerConfig} defines the level keys. */
    Compression compression(boolean levelKeysDefined) {
        CompressionType type = CompressionType.forName(kafka.getString(ProducerConfig.COMPRESSION_TYPE_CONFIG));
        return switch (type) {
            case NONE -> Compression.NONE;
            case GZIP -> Compression.gzip().level(level(type, ProducerConfig.COMPRESSION_GZIP_LEVEL_CONFIG, levelKeysDefined)).build();
            case SNAPPY -> Compression.snappy().build();
            case LZ4 -> Compression.lz4().level(level(type, ProducerConfig.COMPRESSION_LZ4_LEVEL_CONFIG, levelKeysDefined)).build();
            case ZSTD -> Compression.zstd().level(level(type, ProducerConfig.COMPRESSION_ZSTD_LEVEL_CONFIG, levelKeysDefined)).build();
        };
    }

    private int level(CompressionType type, String key, boolean levelKeysDefined) {
        return levelKeysDefined ? kafka.getInt(key) : type.defaultLevel();
    }

    public int batchSize() {
        return kafka.getInt(ProducerConfig.BATCH_SIZE_CONFIG);
    }

    public long lingerMs() {
        return kafka.getLong(ProducerConfig.LINGER_MS_CONFIG);
    }

    public long bufferMemory() {
        return kafka.getLong(ProducerConfig.BUFFER_MEMORY_CONFIG);
    }

    /**
     * {@code buffer.memory.allocation.strategy} (from kafka-clients 4.4); {@link BufferAllocation#FULL},
     * its default, beside a release without it.
     */
    public BufferAllocation bufferAllocation() {
        return kafka.values().get(BUFFER_MEMORY_ALLOCATION_STRATEGY_CONFIG) instanceof String strategy
                ? BufferAllocation.of(strategy) : BufferAllocation.FULL;
    }

    public long maxBlockMs() {
        return maxBlockMs;
    }

    /** {@code delivery.timeout.ms}; as in Kafka, raised to {@code linger.ms + request.timeout.ms} when left at its default. */
    public long deliveryTimeoutMs() {
        return deliveryTimeoutMs;
    }

    public int maxRequestSize() {
        return maxRequestSize;
    }

    /** {@code request.timeout.ms}: how long a broker may take to answer, and the Produce request's replication timeout. */
    public int requestTimeoutMs() {
        return kafka.getInt(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG);
    }

    /** {@code max.in.flight.requests.per.connection}. */
    public int maxInFlightPerConnection() {
        return kafka.getInt(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION);
    }

    /** {@code retry.backoff.ms}. */
    public long retryBackoffMs() {
        return retryBackoffMs;
    }

    /**
     * The rack the built-in partitioner prefers partitions led in: {@code client.rack} under
     * {@code partitioner.rack.aware=true} (both producer keys from kafka-clients 4.4); null otherwise,
     * and beside a release without them.
     */
    public String partitionerRack() {
        Object rack = kafka.values().get(CommonClientConfigs.CLIENT_RACK_CONFIG);
        boolean rackAware = Boolean.TRUE.equals(kafka.values().get(PARTITIONER_RACK_AWARE_CONFIG));
        return rackAware && rack instanceof String named && !named.isEmpty() ? named : null;
    }

    /** {@code partitioner.adaptive.partitioning.enable}: unkeyed records go less to partitions whose queues are longer. */
    public boolean partitionerAdaptive() {
        return kafka.getBoolean(ProducerConfig.PARTITIONER_ADPATIVE_PARTITIONING_ENABLE_CONFIG);
    }

    /**
     * {@code partitioner.availability.timeout.ms}: how long a leader may have batches ready without
     * taking any before the adaptive partitioner leaves its partitions out; 0 never does.
     */
    public long partitionerAvailabilityTimeoutMs() {
        return kafka.getLong(ProducerConfig.PARTITIONER_AVAILABILITY_TIMEOUT_MS_CONFIG);
    }

    /** {@code partitioner.ignore.keys}: keyed records are spread as unkeyed ones are. */
    public boolean partitionerIgnoreKeys() {
        return partitionerIgnoreKeys;
    }

    public int retries() {
        return kafka.getInt(ProducerConfig.RETRIES_CONFIG);
    }

    public boolean leaderHintsEnabled() {
        return leaderHintsEnabled;
    }

    @Override
    public boolean connectionsPrewarm() {
        return connectionsPrewarm;
    }

    /** {@code fastleader.slow.batch.log.ms}: the slow-batch log's threshold, {@link SlowBatchLog#OFF} by default. */
    public long slowBatchLogMs() {
        return slowBatchLogMs;
    }

    /** The transport's settings: in-flight limit, timeouts, security. */
    @Override
    public ConnectionConfig connectionConfig(String clientId) {
        return ConnectionConfig.from(kafka, clientId, maxInFlightPerConnection());
    }

    /** The connection pool's settings. */
    @Override
    public PoolConfig poolConfig() {
        return PoolConfig.from(kafka);
    }

    /**
     * The metadata settings; a producer always lets brokers create topics it sends to, as Kafka's
     * does, and stops refreshing a topic it has not sent to for {@code metadata.max.idle.ms}.
     */
    @Override
    public MetadataConfig metadataConfig() {
        return MetadataConfig.from(kafka, hintConfirmationDelay, true,
                Duration.ofMillis(kafka.getLong(ProducerConfig.METADATA_MAX_IDLE_CONFIG)), leaderHintsEnabled());
    }

    /** Kafka's rule: an explicit delivery timeout shorter than linger plus request timeout is an error. */
    private static long deliveryTimeout(ProducerConfig kafka) {
        long configured = kafka.getInt(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG);
        long floor = kafka.getLong(ProducerConfig.LINGER_MS_CONFIG) + kafka.getInt(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG);
        if (configured >= floor) {
            return configured;
        }
        if (kafka.originals().containsKey(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)) {
            throw new ConfigException(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG + " should be equal to or larger than "
                    + ProducerConfig.LINGER_MS_CONFIG + " + " + ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG);
        }
        LOG.warn("{} should be equal to or larger than {} + {}. Setting it to {}.", ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                ProducerConfig.LINGER_MS_CONFIG, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, floor);
        return floor;
    }
}
