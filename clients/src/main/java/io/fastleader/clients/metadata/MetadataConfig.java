package io.fastleader.clients.metadata;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.AbstractConfig;

import io.fastleader.clients.network.ExponentialBackoff;

/**
 * How the client keeps its metadata current, named after the Kafka configs they come from.
 *
 * @param metadataMaxAge         {@code metadata.max.age.ms}: refresh at least this often
 * @param retryBackoff           {@code retry.backoff.ms}: the least time between two refreshes, and the
 *                               wait after a first failed one
 * @param retryBackoffMax        {@code retry.backoff.max.ms}: the wait doubles per consecutive failure up to this
 * @param hintConfirmationDelay  {@code fastleader.leader.hint.confirmation.delay.ms}: after an accepted hint,
 *                               how long to wait before the refresh that confirms it (brokers' metadata
 *                               caches catch up with the controller in that time)
 * @param allowAutoTopicCreation whether Metadata requests ask the broker to create missing topics
 *                               ({@code allow.auto.create.topics} for consumers; producers always ask)
 * @param metadataMaxIdle        {@code metadata.max.idle.ms} (producers): a topic not used for this long is no
 *                               longer refreshed, and its next use waits for its metadata as a new topic's
 *                               does; {@link #NO_IDLE_EXPIRY} keeps every topic until the client drops it
 * @param leaderHintsEnabled     {@code fastleader.leader.hints.enabled}: whether a refusal's {@code CurrentLeader}
 *                               may move a partition before a Metadata refresh confirms it
 * @param recoveryStrategy       {@code metadata.recovery.strategy}: whether the client goes back to its bootstrap
 *                               servers once the brokers it knows cannot give it metadata
 * @param rebootstrapTrigger     {@code metadata.recovery.rebootstrap.trigger.ms}: with {@link RecoveryStrategy#REBOOTSTRAP},
 *                               how long the client may go on wanting metadata it cannot get before it goes back
 * @param clusterCheck           {@code metadata.cluster.check.enable} (KIP-1242), with {@link RecoveryStrategy#REBOOTSTRAP}:
 *                               whether each connect to a known broker names the cluster and node it means to reach, so
 *                               that a broker that is another refuses it and the client goes back to its bootstrap servers
 * @param bootstrapResolveTimeout {@code bootstrap.resolve.timeout.ms} (4.4): zero ({@link #RESOLVED_AT_CONSTRUCTION}) when
 *                               the bootstrap servers' names were resolved as the client was built; else how long
 *                               they may take to resolve before the client fails for good ({@link BootstrapResolution})
 */
public record MetadataConfig(Duration metadataMaxAge, Duration retryBackoff, Duration retryBackoffMax,
                             Duration hintConfirmationDelay, boolean allowAutoTopicCreation, Duration metadataMaxIdle,
                             boolean leaderHintsEnabled, RecoveryStrategy recoveryStrategy, Duration rebootstrapTrigger,
                             boolean clusterCheck, Duration bootstrapResolveTimeout) {

    /** kafka-clients 4.4's key for KIP-1242's check; earlier releases do not define it. */
    public static final String CLUSTER_CHECK_ENABLE_CONFIG = "metadata.cluster.check.enable";

    /** A {@code bootstrapResolveTimeout} for names resolved as the client was built: kafka-clients' default, and all before 4.4. */
    public static final Duration RESOLVED_AT_CONSTRUCTION = Duration.ZERO;

    /** The values of {@code metadata.recovery.strategy} (KIP-899). */
    public enum RecoveryStrategy {
        /** Once a Metadata answer has named the brokers, only they are asked: the client never goes back to its bootstrap servers. */
        NONE,
        /** Back to the bootstrap servers, resolved anew, when no known broker can give metadata (KIP-899, KIP-1102). */
        REBOOTSTRAP
    }

    /** kafka-clients 4's {@code metadata.recovery.rebootstrap.trigger.ms} default: 5 minutes. */
    public static final Duration DEFAULT_REBOOTSTRAP_TRIGGER = Duration.ofMinutes(5);

    /** A {@code rebootstrapTrigger} that never fires: kafka-clients 3.8 and 3.9 rebootstrap only when no broker can be reached. */
    public static final Duration NO_REBOOTSTRAP_TRIGGER = Duration.ofMillis(Long.MAX_VALUE);

    /** The default of {@code fastleader.leader.hint.confirmation.delay.ms}. */
    public static final Duration DEFAULT_HINT_CONFIRMATION_DELAY = Duration.ofMillis(300);

    /** A {@code metadataMaxIdle} that never expires a topic: consumers drop their topics themselves. */
    public static final Duration NO_IDLE_EXPIRY = Duration.ofMillis(Long.MAX_VALUE);

    /**
     * Kafka's defaults: refresh every 5 minutes, retry backoff 100 ms growing to 1 s; topics kept until
     * dropped; hints followed; back to the bootstrap servers as kafka-clients 4 goes back, and as 4.4
     * checks the cluster at each connect.
     */
    public static MetadataConfig defaults() {
        return new MetadataConfig(Duration.ofMinutes(5), Duration.ofMillis(100), Duration.ofMillis(1000),
                DEFAULT_HINT_CONFIRMATION_DELAY, true, NO_IDLE_EXPIRY, true, RecoveryStrategy.REBOOTSTRAP,
                DEFAULT_REBOOTSTRAP_TRIGGER, true, RESOLVED_AT_CONSTRUCTION);
    }

    /**
     * The settings from a parsed producer or consumer configuration. A release without
     * {@code metadata.recovery.strategy} (3.7) never rebootstraps, and one without
     * {@code metadata.recovery.rebootstrap.trigger.ms} (3.8, 3.9) only once no broker can be reached,
     * as their own clients do. The cluster is checked at each connect under {@code rebootstrap} unless
     * {@code metadata.cluster.check.enable} (4.4) is false: beside a release without the key too, as
     * nothing is lost by it.
     *
     * @param hintConfirmationDelay  {@code fastleader.leader.hint.confirmation.delay.ms}
     * @param allowAutoTopicCreation whether Metadata requests may create missing topics
     * @param metadataMaxIdle        {@code metadata.max.idle.ms} for a producer, {@link #NO_IDLE_EXPIRY} for a consumer
     * @param leaderHintsEnabled     {@code fastleader.leader.hints.enabled}
     */
    public static MetadataConfig from(AbstractConfig kafka, Duration hintConfirmationDelay, boolean allowAutoTopicCreation,
                                      Duration metadataMaxIdle, boolean leaderHintsEnabled) {
        RecoveryStrategy recoveryStrategy = recoveryStrategy(kafka);
        return new MetadataConfig(Duration.ofMillis(kafka.getLong(CommonClientConfigs.METADATA_MAX_AGE_CONFIG)),
                Duration.ofMillis(kafka.getLong(CommonClientConfigs.RETRY_BACKOFF_MS_CONFIG)),
                Duration.ofMillis(kafka.getLong(CommonClientConfigs.RETRY_BACKOFF_MAX_MS_CONFIG)),
                hintConfirmationDelay, allowAutoTopicCreation, metadataMaxIdle, leaderHintsEnabled,
                recoveryStrategy, rebootstrapTrigger(kafka), clusterCheck(kafka, recoveryStrategy), bootstrapResolveTimeout(kafka));
    }

    /** {@code bootstrap.resolve.timeout.ms}, {@link #RESOLVED_AT_CONSTRUCTION} beside a release without the key (before 4.4). */
    public static Duration bootstrapResolveTimeout(AbstractConfig kafka) {
        Object timeoutMs = kafka.values().get(BootstrapResolution.TIMEOUT_CONFIG);
        return timeoutMs == null ? RESOLVED_AT_CONSTRUCTION : Duration.ofMillis((Long) timeoutMs);
    }

    private static boolean clusterCheck(AbstractConfig kafka, RecoveryStrategy recoveryStrategy) {
        return recoveryStrategy == RecoveryStrategy.REBOOTSTRAP
                && !Boolean.FALSE.equals(kafka.values().get(CLUSTER_CHECK_ENABLE_CONFIG));
    }

    private static RecoveryStrategy recoveryStrategy(AbstractConfig kafka) {
        Object strategy = kafka.values().get(CommonClientConfigs.METADATA_RECOVERY_STRATEGY_CONFIG);
        return strategy == null ? RecoveryStrategy.NONE : RecoveryStrategy.valueOf(strategy.toString().toUpperCase(Locale.ROOT));
    }

    private static Duration rebootstrapTrigger(AbstractConfig kafka) {
        Object triggerMs = kafka.values().get(CommonClientConfigs.METADATA_RECOVERY_REBOOTSTRAP_TRIGGER_MS_CONFIG);
        return triggerMs == null ? NO_REBOOTSTRAP_TRIGGER : Duration.ofMillis((Long) triggerMs);
    }

    public MetadataConfig {
        requireNotNegative("metadata.max.age.ms", metadataMaxAge);
        requireNotNegative("retry.backoff.ms", retryBackoff);
        requireNotNegative("retry.backoff.max.ms", retryBackoffMax);
        requireNotNegative("fastleader.leader.hint.confirmation.delay.ms", hintConfirmationDelay);
        requireNotNegative("metadata.max.idle.ms", metadataMaxIdle);
        Objects.requireNonNull(recoveryStrategy, "metadata.recovery.strategy");
        requireNotNegative("metadata.recovery.rebootstrap.trigger.ms", rebootstrapTrigger);
        requireNotNegative(BootstrapResolution.TIMEOUT_CONFIG, bootstrapResolveTimeout);
    }

    /** The backoff between refreshes: {@code retry.backoff.ms} .. {@code retry.backoff.max.ms}, Kafka's jitter. */
    public ExponentialBackoff refreshBackoff() {
        return new ExponentialBackoff(retryBackoff, retryBackoffMax, ExponentialBackoff.KAFKA_JITTER);
    }

    private static void requireNotNegative(String key, Duration value) {
        Objects.requireNonNull(value, key);
        if (value.isNegative()) {
            throw new IllegalArgumentException(key + " must not be negative, not " + value.toMillis());
        }
    }
}
