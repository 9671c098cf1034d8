package io.fastleader.clients.consumer;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.serialization.Deserializer;

import io.fastleader.clients.consumer.group.ConsumerGroup;
import io.fastleader.clients.consumer.group.LeaveOperation;
import io.fastleader.clients.consumer.group.StableOffsets;
import io.fastleader.clients.metadata.ClusterSettings;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.metadata.FastLeaderConfigs;
import io.fastleader.clients.metadata.KafkaKeys;
import io.fastleader.clients.metadata.MetadataConfig;
import io.fastleader.clients.network.ConnectionConfig;
import io.fastleader.clients.network.ExponentialBackoff;
import io.fastleader.clients.network.PoolConfig;

/**
 * A consumer's configuration: the {@link ConsumerConfig} keys with Kafka's defaults and checks,
 * plus fastleader's own keys under {@code fastleader.}. Kafka's {@link ConsumerConfig} parses and
 * validates the Kafka keys (a bad value fails with its {@code ConfigException}, naming key and
 * value, and unknown keys are logged as Kafka logs them); this class adds the cross-key checks
 * {@code KafkaConsumer} makes and turns the result into the settings of each part of the client.
 */
public final class ConsumerSettings implements ClusterSettings {

    /** kafka-clients 3.7 to 4.1's internal key, not public there and gone from 4.2. */
    static final String LEAVE_GROUP_ON_CLOSE = "internal.leave.group.on.close";

    /**
     * kafka-clients' internal key (3.7 to 4.4), false by default: a broker older than 2.5 is asked for
     * its committed offsets as they are; true fails the fetch instead.
     */
    static final String THROW_ON_FETCH_STABLE_OFFSET_UNSUPPORTED = "internal.throw.on.fetch.stable.offset.unsupported";

    /**
     * Whether Fetch requests carry {@code LastFetchedEpoch} (Fetch v12+), so that a log truncated
     * under the consumer comes back as {@code DivergingEpoch} in the Fetch response itself. false
     * validates a position with an OffsetsForLeaderEpoch request after every leader change before
     * fetching again, as {@code KafkaConsumer} does.
     */
    public static final String LAST_FETCHED_EPOCH_ENABLED = "fastleader.last.fetched.epoch.enabled";

    /** Requests a consumer may have in flight on one connection: one Fetch plus the offset lookups of a poll. */
    private static final int MAX_IN_FLIGHT_PER_CONNECTION = 100;

    /** What a JoinGroup may take beyond the rebalance timeout, for the coordinator's small delays: {@code KafkaConsumer}'s 5 s. */
    private static final long REBALANCE_TIMEOUT_LAPSE_MS = 5_000;

    private static final ConfigDef FASTLEADER_KEYS = FastLeaderConfigs.common()
            .define(LAST_FETCHED_EPOCH_ENABLED, Type.BOOLEAN, true, Importance.LOW,
                    "Send LastFetchedEpoch in Fetch requests so a truncated log is reported in the Fetch response. "
                            + "false validates positions with OffsetsForLeaderEpoch after each leader change, as "
                            + "KafkaConsumer does.");

    private final ConsumerConfig kafka;
    private final Map<String, Object> fastleader;
    private final ResetStrategy resetStrategy;
    private final boolean autoCommit;

    private ConsumerSettings(ConsumerConfig kafka, Map<String, Object> fastleader) {
        this.kafka = kafka;
        this.fastleader = fastleader;
        this.resetStrategy = ResetStrategy.parse(kafka.getString(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG));
        this.autoCommit = autoCommit(kafka);
    }

    /**
     * Parses and checks a consumer's configuration.
     *
     * @param configs           the configuration as given to the consumer's constructor
     * @param keyDeserializer   the key deserializer given as an instance, or null to create it from {@code key.deserializer}
     * @param valueDeserializer the value deserializer given as an instance, or null to create it from {@code value.deserializer}
     * @throws org.apache.kafka.common.config.ConfigException naming the key, the value and what is allowed
     * @throws InvalidConfigurationException when {@code enable.auto.commit=true} is asked for without a {@code group.id}
     */
    public static ConsumerSettings parse(Map<String, ?> configs, Deserializer<?> keyDeserializer,
                                         Deserializer<?> valueDeserializer) {
        Map<String, Object> kafkaKeys = new HashMap<>(configs);
        Map<String, Object> fastleaderKeys = FastLeaderConfigs.takeFastLeaderKeys(kafkaKeys, FASTLEADER_KEYS);
        return new ConsumerSettings(new ConsumerConfig(
                ConsumerConfig.appendDeserializerToConfig(kafkaKeys, keyDeserializer, valueDeserializer)), fastleaderKeys);
    }

    /** The parsed Kafka keys, for plugins (deserializers, interceptors) and anything not typed here. */
    public ConsumerConfig kafkaConfig() {
        return kafka;
    }

    /** The key deserializer given to the constructor, or else one of {@code key.deserializer}, configured. */
    <K> Deserializer<K> keyDeserializer(Deserializer<K> given) {
        return deserializer(given, ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, true);
    }

    /** The value deserializer given to the constructor, or else one of {@code value.deserializer}, configured. */
    <V> Deserializer<V> valueDeserializer(Deserializer<V> given) {
        return deserializer(given, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, false);
    }

    /** {@code given}, or else an instance of the class {@code key} names, configured with the consumer's {@code client.id}. */
    @SuppressWarnings("unchecked")
    private <T> Deserializer<T> deserializer(Deserializer<T> given, String key, boolean isKey) {
        if (given != null) {
            return given;
        }
        Deserializer<T> configured = kafka.getConfiguredInstance(key, Deserializer.class);
        configured.configure(kafka.originals(clientIdOverride()), isKey);
        return configured;
    }

    /** The {@code interceptor.classes}, each configured with the consumer's {@code client.id}. */
    @SuppressWarnings("unchecked")
    <K, V> List<ConsumerInterceptor<K, V>> interceptors() {
        return (List<ConsumerInterceptor<K, V>>) (List<?>) kafka.getConfiguredInstances(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG,
                ConsumerInterceptor.class, clientIdOverride());
    }

    private Map<String, Object> clientIdOverride() {
        return Map.of(CommonClientConfigs.CLIENT_ID_CONFIG, clientId());
    }

    /** {@code bootstrap.servers}, resolved and checked as the Java client does. */
    @Override
    public List<InetSocketAddress> bootstrapServers() {
        return FastLeaderConfigs.bootstrapServers(kafka);
    }

    /** {@code client.id}; when none was given, Kafka's {@code consumer-<group.id>-<n>}, as {@code ConsumerConfig} generates it. */
    public String clientId() {
        return kafka.getString(CommonClientConfigs.CLIENT_ID_CONFIG);
    }

    /** {@code group.id}, if given: needed to commit and read committed offsets. */
    public Optional<String> groupId() {
        return Optional.ofNullable(kafka.getString(ConsumerConfig.GROUP_ID_CONFIG)).filter(id -> !id.isEmpty());
    }

    /** {@code group.instance.id}: a static member's id, if given. */
    public Optional<String> groupInstanceId() {
        return Optional.ofNullable(kafka.getString(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
    }

    /** {@code client.rack}, if given: the coordinator's rack-aware assignors use it. */
    public Optional<String> clientRack() {
        return Optional.ofNullable(kafka.getString(ConsumerConfig.CLIENT_RACK_CONFIG)).filter(rack -> !rack.isEmpty());
    }

    /** {@code group.remote.assignor}, if given; else the coordinator picks its first configured one. */
    public Optional<String> remoteAssignor() {
        return Optional.ofNullable(kafka.getString(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG));
    }

    /**
     * {@code max.poll.interval.ms}: a member that does not poll for this long leaves its group. It is
     * also the member's rebalance timeout, as in {@code KafkaConsumer} under the consumer protocol.
     */
    public int maxPollIntervalMs() {
        return kafka.getInt(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG);
    }

    /** {@code metadata.max.age.ms}: how often a {@code Pattern} subscription looks for new matching topics. */
    public long metadataMaxAgeMs() {
        return kafka.getLong(ConsumerConfig.METADATA_MAX_AGE_CONFIG);
    }

    /**
     * What the group needs of this configuration; empty without a {@code group.id}.
     *
     * @param offsetsRetryBackoff the consumer's one retry policy, which the group's offset commits and fetches follow too
     */
    public Optional<ConsumerGroup.Settings> groupSettings(EpochBackoff offsetsRetryBackoff) {
        return groupId().map(id -> new ConsumerGroup.Settings(id, groupInstanceId(), clientRack(), remoteAssignor(),
                maxPollIntervalMs(), new ExponentialBackoff(Duration.ofMillis(retryBackoffMs()), Duration.ofMillis(retryBackoffMaxMs()),
                ExponentialBackoff.KAFKA_JITTER), offsetsRetryBackoff, metadataMaxAgeMs(),
                kafka.getBoolean(ConsumerConfig.EXCLUDE_INTERNAL_TOPICS_CONFIG), classicGroup()));
    }

    /**
     * What {@code close} does about the group when asked to do {@code requested}: {@code KafkaConsumer}'s
     * classic member of kafka-clients 3.7 to 4.1 sends no LeaveGroup on a default close when
     * {@code internal.leave.group.on.close} is false (Kafka Streams sets it so, to keep a restarting
     * instance's partitions). Releases from 4.2 define no such key and leave, as the consumer protocol does.
     */
    public LeaveOperation onClose(LeaveOperation requested) {
        boolean stays = requested == LeaveOperation.DEFAULT && groupProtocol() == GroupProtocol.CLASSIC
                && ConsumerConfig.configNames().contains(LEAVE_GROUP_ON_CLOSE)
                && Boolean.FALSE.equals(kafka.values().get(LEAVE_GROUP_ON_CLOSE));
        return stays ? LeaveOperation.REMAIN_IN_GROUP : requested;
    }

    /** {@code group.protocol}: {@code classic} unless set, as for {@code KafkaConsumer}. */
    public GroupProtocol groupProtocol() {
        return GroupProtocol.valueOf(kafka.getString(ConsumerConfig.GROUP_PROTOCOL_CONFIG).toUpperCase(Locale.ROOT));
    }

    /**
     * What the classic protocol needs, under it: {@code session.timeout.ms}, {@code heartbeat.interval.ms}
     * and the {@code partition.assignment.strategy} assignors, configured as {@code KafkaConsumer} configures them.
     *
     * @throws IllegalArgumentException when the heartbeat interval is not below the session timeout, as from {@code KafkaConsumer}
     */
    private Optional<ConsumerGroup.Classic> classicGroup() {
        if (groupProtocol() != GroupProtocol.CLASSIC) {
            return Optional.empty();
        }
        int sessionTimeoutMs = kafka.getInt(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
        int heartbeatIntervalMs = kafka.getInt(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);
        if (heartbeatIntervalMs >= sessionTimeoutMs) {
            throw new IllegalArgumentException("Heartbeat must be set lower than the session timeout");
        }
        List<ConsumerPartitionAssignor> assignors = ConsumerPartitionAssignor.getAssignorInstances(
                kafka.getList(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG), kafka.originals(clientIdOverride()));
        return Optional.of(new ConsumerGroup.Classic(sessionTimeoutMs, heartbeatIntervalMs, assignors));
    }

    /** {@code enable.auto.commit}; always false without a {@code group.id}. */
    public boolean autoCommit() {
        return autoCommit;
    }

    public long autoCommitIntervalMs() {
        return kafka.getInt(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG);
    }

    public ResetStrategy resetStrategy() {
        return resetStrategy;
    }

    public IsolationLevel isolationLevel() {
        return IsolationLevel.valueOf(kafka.getString(ConsumerConfig.ISOLATION_LEVEL_CONFIG).toUpperCase(Locale.ROOT));
    }

    /**
     * Whether fetches of committed offsets ask for stable ones, as {@code KafkaConsumer} asks: under
     * {@code read_committed}; of a broker too old to be asked, the offsets as they are, unless
     * {@code internal.throw.on.fetch.stable.offset.unsupported} is true, which fails the fetch.
     */
    public StableOffsets stableOffsets() {
        if (isolationLevel() != IsolationLevel.READ_COMMITTED) {
            return StableOffsets.NOT_ASKED;
        }
        return Boolean.TRUE.equals(kafka.values().get(THROW_ON_FETCH_STABLE_OFFSET_UNSUPPORTED))
                ? StableOffsets.ASKED : StableOffsets.ASKED_WHERE_SPOKEN;
    }

    public boolean checkCrcs() {
        return kafka.getBoolean(ConsumerConfig.CHECK_CRCS_CONFIG);
    }

    public int fetchMinBytes() {
        return kafka.getInt(ConsumerConfig.FETCH_MIN_BYTES_CONFIG);
    }

    public int fetchMaxBytes() {
        return kafka.getInt(ConsumerConfig.FETCH_MAX_BYTES_CONFIG);
    }

    public int fetchMaxWaitMs() {
        return kafka.getInt(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG);
    }

    public int maxPartitionFetchBytes() {
        return kafka.getInt(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG);
    }

    public int maxPollRecords() {
        return kafka.getInt(ConsumerConfig.MAX_POLL_RECORDS_CONFIG);
    }

    /** {@code default.api.timeout.ms}: how long the blocking calls without a timeout argument wait. */
    public Duration defaultApiTimeout() {
        return Duration.ofMillis(kafka.getInt(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG));
    }

    public long retryBackoffMs() {
        return kafka.getLong(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG);
    }

    public long retryBackoffMaxMs() {
        return kafka.getLong(ConsumerConfig.RETRY_BACKOFF_MAX_MS_CONFIG);
    }

    public boolean leaderHintsEnabled() {
        return (Boolean) fastleader.get(FastLeaderConfigs.LEADER_HINTS_ENABLED);
    }

    public boolean lastFetchedEpochEnabled() {
        return (Boolean) fastleader.get(LAST_FETCHED_EPOCH_ENABLED);
    }

    @Override
    public boolean connectionsPrewarm() {
        return (Boolean) fastleader.get(FastLeaderConfigs.CONNECTIONS_PREWARM);
    }

    /**
     * The transport's settings: timeouts, security and the kind of I/O threads. JoinGroup and
     * SyncGroup, which the coordinator holds for up to the rebalance timeout
     * ({@code max.poll.interval.ms}), time out after
     * {@code max(request.timeout.ms, max.poll.interval.ms + 5 s)}, as {@code KafkaConsumer} times its
     * JoinGroup.
     */
    @Override
    public ConnectionConfig connectionConfig(String clientId) {
        return ConnectionConfig.from(kafka, clientId, MAX_IN_FLIGHT_PER_CONNECTION)
                .withRebalanceRequestTimeout(rebalanceRequestTimeout());
    }

    /** {@code max(request.timeout.ms, max.poll.interval.ms + 5 s)}, in longs: {@code max.poll.interval.ms} may be {@code Integer.MAX_VALUE}. */
    private Duration rebalanceRequestTimeout() {
        long requestTimeoutMs = kafka.getInt(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG);
        return Duration.ofMillis(Math.max(requestTimeoutMs, maxPollIntervalMs() + REBALANCE_TIMEOUT_LAPSE_MS));
    }

    /** The connection pool's settings. */
    @Override
    public PoolConfig poolConfig() {
        return PoolConfig.from(kafka);
    }

    /** The metadata settings, with {@code allow.auto.create.topics}; assigned topics stay in use until unassigned. */
    @Override
    public MetadataConfig metadataConfig() {
        return MetadataConfig.from(kafka, Duration.ofMillis((Long) fastleader.get(FastLeaderConfigs.HINT_CONFIRMATION_DELAY_MS)),
                kafka.getBoolean(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG), MetadataConfig.NO_IDLE_EXPIRY, leaderHintsEnabled());
    }

    /** Logs the keys neither Kafka's nor fastleader's, as Kafka logs them, and warns of the keys set that fastleader does not build. */
    void logIgnoredKeys() {
        FastLeaderConfigs.logUnusedKeys(kafka, ConsumerConfig.configDef(), KafkaKeys.Clients.CONSUMER);
    }

    /** Kafka's rule: auto-commit needs a group; asked for explicitly without one, it is an error. */
    private static boolean autoCommit(ConsumerConfig kafka) {
        boolean configured = kafka.getBoolean(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
        String groupId = kafka.getString(ConsumerConfig.GROUP_ID_CONFIG);
        if (groupId != null && !groupId.isEmpty()) {
            return configured;
        }
        if (configured && kafka.originals().containsKey(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG)) {
            throw new InvalidConfigurationException(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG
                    + " cannot be set to true when no " + ConsumerConfig.GROUP_ID_CONFIG + " is given");
        }
        return false;
    }
}
