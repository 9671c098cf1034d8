package io.fastleader.clients.network;

import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * What a connection's ApiVersions handshake told: the version of each API the connection uses, the
 * highest that both the broker and our schemas speak, and the feature levels the cluster had
 * finalized then. Callers ask for an API, never for a version, unless a feature level caps it.
 */
public final class NegotiatedVersions {

    /** {@link #finalizedFeaturesEpoch()} when the broker reported no finalized features. */
    public static final long UNKNOWN_FEATURES_EPOCH = -1;

    /** The broker's range of each API whose range overlaps our window. */
    private final Map<ApiKey, BrokerRange> brokerRanges;
    private final long finalizedFeaturesEpoch;
    private final Map<String, Short> finalizedLevels;

    private NegotiatedVersions(Map<ApiKey, BrokerRange> brokerRanges, long finalizedFeaturesEpoch, Map<String, Short> finalizedLevels) {
        this.brokerRanges = Collections.unmodifiableMap(brokerRanges);
        this.finalizedFeaturesEpoch = finalizedFeaturesEpoch;
        this.finalizedLevels = Map.copyOf(finalizedLevels);
    }

    /**
     * Intersects the broker's ranges with our windows, and keeps the cluster's finalized features
     * if the broker knew them.
     */
    public static NegotiatedVersions from(ApiVersionsResponseData response) {
        Map<ApiKey, BrokerRange> brokerRanges = new EnumMap<>(ApiKey.class);
        for (ApiVersionsResponseData.ApiVersion advertised : response.apiKeys()) {
            ApiKey.forId(advertised.apiKey()).ifPresent(api -> {
                BrokerRange range = new BrokerRange(advertised.minVersion(), advertised.maxVersion());
                if (range.lowestInCommon(api) <= range.highestInCommon(api)) {
                    brokerRanges.put(api, range);
                }
            });
        }
        // The schema gives the levels a meaning only at a known epoch; -1 says the broker knows none.
        Map<String, Short> finalizedLevels = new HashMap<>();
        long epoch = response.finalizedFeaturesEpoch();
        if (epoch >= 0) {
            // Kafka writes a feature's one finalized level as both its min and max level, and omits level 0.
            response.finalizedFeatures().forEach(feature -> finalizedLevels.put(feature.name(), feature.maxVersionLevel()));
        }
        return new NegotiatedVersions(brokerRanges, epoch >= 0 ? epoch : UNKNOWN_FEATURES_EPOCH, finalizedLevels);
    }

    /** Whether the broker speaks some version of {@code api} that we speak too. */
    public boolean supports(ApiKey api) {
        return brokerRanges.containsKey(api);
    }

    /**
     * The version to use for {@code api}.
     *
     * @throws UnsupportedVersionException if the broker's range and ours do not overlap
     */
    public short version(ApiKey api) {
        return version(api, api.highestVersion());
    }

    /**
     * The version to use for {@code api} when the caller may send none newer than {@code atMost}:
     * for an API whose newer versions mean more than the cluster has enabled. A transactional
     * Produce above v11, for one, adds its partitions to the transaction itself, which is
     * {@code transaction.version} 2's protocol.
     *
     * @throws UnsupportedVersionException if the broker's range and ours do not overlap, or
     *         {@code atMost} is below the lowest version both speak
     */
    public short version(ApiKey api, short atMost) {
        BrokerRange range = brokerRange(api);
        short lowest = range.lowestInCommon(api);
        if (atMost < lowest) {
            throw new UnsupportedVersionException(api.displayName() + " capped at v" + atMost
                + " is below v" + lowest + ", the lowest version both the broker (v" + range.min() + "-v" + range.max()
                + ") and we (v" + api.lowestVersion() + "-v" + api.highestVersion() + ") speak");
        }
        return (short) Math.min(range.highestInCommon(api), atMost);
    }

    /**
     * The level the cluster has finalized {@code feature} at, such as {@code transaction.version},
     * as the broker reported it in the handshake; 0, the level Kafka takes for a feature that is
     * off, when the feature is not finalized or the broker reported no finalized features.
     */
    public short finalizedLevel(String feature) {
        return finalizedLevels.getOrDefault(feature, (short) 0);
    }

    /**
     * The epoch of the finalized features, which grows with every change to them, so that of two
     * brokers' reports the one with the higher epoch is the newer; {@link #UNKNOWN_FEATURES_EPOCH}
     * when the broker reported none.
     */
    public long finalizedFeaturesEpoch() {
        return finalizedFeaturesEpoch;
    }

    private BrokerRange brokerRange(ApiKey api) {
        BrokerRange range = brokerRanges.get(api);
        if (range == null) {
            throw new UnsupportedVersionException("the broker speaks no version of " + api.displayName()
                + " in our window v" + api.lowestVersion() + "-v" + api.highestVersion());
        }
        return range;
    }

    @Override
    public String toString() {
        Map<ApiKey, Short> versions = new EnumMap<>(ApiKey.class);
        brokerRanges.forEach((api, range) -> versions.put(api, range.highestInCommon(api)));
        return versions + ", finalized features " + finalizedLevels + " at epoch " + finalizedFeaturesEpoch;
    }

    /** The versions of an API the broker advertised, as it advertised them. */
    private record BrokerRange(short min, short max) {

        short lowestInCommon(ApiKey api) {
            return (short) Math.max(min, api.lowestVersion());
        }

        short highestInCommon(ApiKey api) {
            return (short) Math.min(max, api.highestVersion());
        }
    }
}
