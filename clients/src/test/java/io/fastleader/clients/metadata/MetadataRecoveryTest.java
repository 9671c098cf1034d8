package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.fastleader.clients.metadata.MetadataConfig.RecoveryStrategy;
import io.fastleader.clients.metadata.MetadataRecovery.Failure;

class MetadataRecoveryTest {

    private static final long TRIGGER_MS = 300_000;
    private static final int KNOWN_BROKERS = 3;

    private final MetadataRecovery recovery = new MetadataRecovery(RecoveryStrategy.REBOOTSTRAP, TRIGGER_MS);

    @Test
    void testAsksTheBootstrapServersUntilTheFirstAnswer() {
        assertThat(recovery.bootstrapping()).isTrue();
        recovery.requested(0);

        recovery.answered();

        assertThat(recovery.bootstrapping()).isFalse();
    }

    @Test
    void testGoesBackOnceEveryKnownBrokerInTurnCouldNotBeReached() {
        recovery.answered();
        recovery.requested(0);

        assertThat(recovery.failed(Failure.UNREACHABLE, 1, KNOWN_BROKERS)).isFalse();
        assertThat(recovery.failed(Failure.UNREACHABLE, 2, KNOWN_BROKERS)).isFalse();
        assertThat(recovery.failed(Failure.UNREACHABLE, 3, KNOWN_BROKERS)).isTrue();
        assertThat(recovery.bootstrapping()).isTrue();
    }

    @Test
    void testABrokerThatAnswersWithAnErrorIsReachableAndStartsTheRoundAgain() {
        recovery.answered();
        recovery.requested(0);
        recovery.failed(Failure.UNREACHABLE, 1, KNOWN_BROKERS);
        recovery.failed(Failure.UNREACHABLE, 2, KNOWN_BROKERS);

        assertThat(recovery.failed(Failure.ANSWERED_WITH_ERROR, 3, KNOWN_BROKERS)).isFalse();
        assertThat(recovery.failed(Failure.UNREACHABLE, 4, KNOWN_BROKERS)).isFalse();
        assertThat(recovery.failed(Failure.UNREACHABLE, 5, KNOWN_BROKERS)).isFalse();
        assertThat(recovery.failed(Failure.UNREACHABLE, 6, KNOWN_BROKERS)).isTrue();
    }

    @Test
    void testGoesBackOnceMetadataWasWantedForTheTriggerTimeWithoutAnAnswer() {
        recovery.answered();
        recovery.requested(1_000);

        assertThat(recovery.failed(Failure.ANSWERED_WITH_ERROR, 1_000 + TRIGGER_MS - 1, KNOWN_BROKERS)).isFalse();
        assertThat(recovery.failed(Failure.ANSWERED_WITH_ERROR, 1_000 + TRIGGER_MS, KNOWN_BROKERS)).isTrue();
    }

    @Test
    void testTheTriggerTimeCountsFromTheFirstRequestSinceTheLastAnswer() {
        recovery.answered();
        recovery.requested(1_000);
        recovery.requested(200_000);

        assertThat(recovery.failed(Failure.ANSWERED_WITH_ERROR, 1_000 + TRIGGER_MS, KNOWN_BROKERS)).isTrue();
    }

    @Test
    void testGoesBackWhenABrokerAnswersRebootstrapRequired() {
        recovery.answered();
        recovery.requested(0);

        assertThat(recovery.failed(Failure.REBOOTSTRAP_REQUIRED, 1, KNOWN_BROKERS)).isTrue();
    }

    @Test
    void testABootstrapServerAnsweringRebootstrapRequiredIsPassedOverNotGoneBackTo() {
        recovery.requested(0);

        assertThat(recovery.failed(Failure.REBOOTSTRAP_REQUIRED, 1, KNOWN_BROKERS)).isFalse();
        assertThat(recovery.bootstrapping()).isTrue();
    }

    @Test
    void testGoesBackOnceForAMisroutedConnect() {
        recovery.answered();

        assertThat(recovery.misrouted()).isTrue();
        assertThat(recovery.misrouted()).as("already back").isFalse();
    }

    @Test
    void testWithNoneNeverGoesBack() {
        MetadataRecovery none = new MetadataRecovery(RecoveryStrategy.NONE, TRIGGER_MS);
        none.answered();
        none.requested(0);

        assertThat(none.failed(Failure.REBOOTSTRAP_REQUIRED, 1, KNOWN_BROKERS)).isFalse();
        assertThat(none.failed(Failure.UNREACHABLE, 2, 1)).isFalse();
        assertThat(none.failed(Failure.ANSWERED_WITH_ERROR, 2 * TRIGGER_MS, KNOWN_BROKERS)).isFalse();
        assertThat(none.misrouted()).isFalse();
        assertThat(none.bootstrapping()).isFalse();
    }
}
