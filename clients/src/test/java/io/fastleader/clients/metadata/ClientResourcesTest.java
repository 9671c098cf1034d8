package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.Test;

class ClientResourcesTest {

    private final ClientResources resources = new ClientResources("FastLeaderTestClient");
    private final List<String> closed = new ArrayList<>();

    @Test
    void resourcesCloseLastRegisteredFirstAndOnlyOnce() {
        resources.register(() -> closed.add("metrics"));
        resources.register(() -> closed.add("serializer"));
        resources.register(() -> closed.add("pool"));

        resources.close();
        resources.close();

        assertThat(closed).containsExactly("pool", "serializer", "metrics");
    }

    @Test
    void aResourceThatFailsToCloseDoesNotKeepTheOthersOpen() {
        resources.register(() -> closed.add("metrics"));
        resources.register(() -> {
            throw new IllegalStateException("scripted close failure");
        });
        resources.register(() -> closed.add("pool"));

        resources.close();

        assertThat(closed).containsExactly("pool", "metrics");
    }

    @Test
    void aFailedStartClosesWhatWasOpenedAndNamesTheClient() {
        resources.register(() -> closed.add("metrics"));
        IllegalArgumentException cause = new IllegalArgumentException("scripted start failure");

        KafkaException thrown = resources.failedToStart(cause);

        assertThat(closed).containsExactly("metrics");
        assertThat(thrown).hasMessage("Failed to construct the FastLeaderTestClient").hasCause(cause);
    }
}
