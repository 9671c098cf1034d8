package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BrokerAvailabilityTest {

    @Test
    void testABrokerReadyWithoutTakingBatchesForLongerThanTheTimeoutIsUnavailableUntilItTakesSome() {
        BrokerAvailability availability = new BrokerAvailability(100);
        availability.noteReady(1, true, 0);

        availability.noteReady(1, false, 100);
        assertThat(availability.isAvailable(1)).as("ready 100 ms without taking any").isTrue();

        availability.noteReady(1, false, 101);
        assertThat(availability.isAvailable(1)).as("ready 101 ms without taking any").isFalse();
        assertThat(availability.isAvailable(2)).as("another broker").isTrue();

        availability.noteReady(1, true, 150);
        assertThat(availability.isAvailable(1)).as("took batches again").isTrue();
    }

    @Test
    void testABrokerFirstSeenReadyCountsFromThen() {
        BrokerAvailability availability = new BrokerAvailability(100);

        availability.noteReady(1, false, 1_000);

        assertThat(availability.isAvailable(1)).isTrue();
    }

    @Test
    void testWithATimeoutOfZeroEveryBrokerIsAvailableAndNothingNeedsNoting() {
        BrokerAvailability availability = new BrokerAvailability(0);
        availability.noteReady(1, true, 0);
        availability.noteReady(1, false, 1_000_000);

        assertThat(availability.isOn()).isFalse();
        assertThat(availability.isAvailable(1)).isTrue();
    }
}
