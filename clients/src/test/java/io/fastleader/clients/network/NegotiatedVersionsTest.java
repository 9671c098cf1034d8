package io.fastleader.clients.network;

import static io.fastleader.clients.network.FrameServer.ranges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import io.fastleader.protocol.message.ApiVersionsResponseData.FinalizedFeatureKey;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;

class NegotiatedVersionsTest {

    private static final String TRANSACTION_VERSION = "transaction.version";

    @Test
    void readsTheLevelAndEpochOfTheClustersFinalizedFeatures() {
        NegotiatedVersions versions = NegotiatedVersions.from(finalized(7, TRANSACTION_VERSION, 2, "metadata.version", 27));

        assertThat(versions.finalizedLevel(TRANSACTION_VERSION)).isEqualTo((short) 2);
        assertThat(versions.finalizedLevel("metadata.version")).isEqualTo((short) 27);
        assertThat(versions.finalizedFeaturesEpoch()).isEqualTo(7);
    }

    @Test
    void aFeatureTheClusterHasNotFinalizedIsAtLevelZero() {
        NegotiatedVersions versions = NegotiatedVersions.from(finalized(7, "metadata.version", 27));

        assertThat(versions.finalizedLevel(TRANSACTION_VERSION)).isZero();
    }

    @Test
    void ignoresFinalizedFeaturesReportedAtEpochMinusOne() {
        NegotiatedVersions versions = NegotiatedVersions.from(finalized(-1, TRANSACTION_VERSION, 2));

        assertThat(versions.finalizedLevel(TRANSACTION_VERSION)).isZero();
        assertThat(versions.finalizedFeaturesEpoch()).isEqualTo(NegotiatedVersions.UNKNOWN_FEATURES_EPOCH);
    }

    @Test
    void aBrokerThatReportsNoFeaturesHasEveryFeatureAtLevelZeroAndNoEpoch() {
        NegotiatedVersions versions = NegotiatedVersions.from(ranges(ApiKey.API_VERSIONS, 0, 2));

        assertThat(versions.finalizedLevel(TRANSACTION_VERSION)).isZero();
        assertThat(versions.finalizedFeaturesEpoch()).isEqualTo(NegotiatedVersions.UNKNOWN_FEATURES_EPOCH);
    }

    @Test
    void aCapBelowTheNegotiatedVersionIsTheVersionUsed() {
        NegotiatedVersions versions = NegotiatedVersions.from(ranges(ApiKey.PRODUCE, 3, 13, ApiKey.END_TXN, 0, 5));

        assertThat(versions.version(ApiKey.PRODUCE, (short) 11)).isEqualTo((short) 11);
        assertThat(versions.version(ApiKey.END_TXN, (short) 4)).isEqualTo((short) 4);
    }

    @Test
    void aCapAboveTheNegotiatedVersionLeavesIt() {
        NegotiatedVersions versions = NegotiatedVersions.from(ranges(ApiKey.END_TXN, 0, 3));

        assertThat(versions.version(ApiKey.END_TXN, (short) 4)).isEqualTo((short) 3);
    }

    /** Say a release that no longer speaks EndTxn below v5, as KIP-896 dropped other old versions. */
    @Test
    void aCapBelowTheBrokersRangeFailsNamingTheApiTheCapAndBothRanges() {
        NegotiatedVersions versions = NegotiatedVersions.from(ranges(ApiKey.END_TXN, 5, 6));

        assertThatThrownBy(() -> versions.version(ApiKey.END_TXN, (short) 4))
            .isInstanceOf(UnsupportedVersionException.class)
            .hasMessage("EndTxn capped at v4 is below v5, the lowest version both the broker (v5-v6) and we (v0-v5) speak");
    }

    /** Kafka 4.0+ brokers still advertise Produce v0-v2, which they refuse (KAFKA-18659); our window starts at v3. */
    @Test
    void aCapBelowOurWindowFailsThoughTheBrokerAdvertisesIt() {
        NegotiatedVersions versions = NegotiatedVersions.from(ranges(ApiKey.PRODUCE, 0, 13));

        assertThatThrownBy(() -> versions.version(ApiKey.PRODUCE, (short) 2))
            .isInstanceOf(UnsupportedVersionException.class)
            .hasMessage("Produce capped at v2 is below v3, the lowest version both the broker (v0-v13) and we (v3-v12) speak");
    }

    /** An ApiVersions answer finalizing {@code namesAndLevels} (name, level pairs) at {@code epoch}, as a KRaft broker writes them. */
    static ApiVersionsResponseData finalized(long epoch, Object... namesAndLevels) {
        ApiVersionsResponseData response = ranges(ApiKey.API_VERSIONS, 0, 4).setFinalizedFeaturesEpoch(epoch);
        for (int i = 0; i < namesAndLevels.length; i += 2) {
            short level = ((Number) namesAndLevels[i + 1]).shortValue();
            response.finalizedFeatures().add(new FinalizedFeatureKey().setName((String) namesAndLevels[i])
                .setMinVersionLevel(level).setMaxVersionLevel(level));
        }
        return response;
    }
}
