package io.fastleader.clients.network;

import static io.fastleader.clients.network.FrameServer.ranges;
import static org.assertj.core.api.Assertions.assertThat;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import io.fastleader.protocol.message.ApiVersionsResponseData.FinalizedFeatureKey;
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
