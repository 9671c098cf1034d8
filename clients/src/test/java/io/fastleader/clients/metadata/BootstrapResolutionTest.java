package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Duration;

import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.network.BrokerConnectionException;

/** {@code bootstrap.resolve.timeout.ms}'s rules, on a clock the test gives. */
class BootstrapResolutionTest {

    private static final long START_MS = 1_000;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Throwable UNRESOLVED = new BrokerConnectionException("cannot connect",
            new UnknownHostException("bootstrap.invalid: Name or service not known"));

    @Test
    void testANameThatDoesNotResolveWithinTheTimeoutFailsTheClient() {
        BootstrapResolution resolution = new BootstrapResolution(TIMEOUT, START_MS);

        assertThat(resolution.requestEnded(UNRESOLVED, START_MS + TIMEOUT.toMillis() - 1)).isNull();
        KafkaException failure = resolution.requestEnded(UNRESOLVED, START_MS + TIMEOUT.toMillis());

        assertThat(failure).hasMessage("Failed to resolve bootstrap servers after 30000ms. "
                + "Please check your bootstrap.servers configuration and DNS settings.");
    }

    @Test
    void testAConnectThatGotPastResolutionEndsTheTimeout() {
        BootstrapResolution resolution = new BootstrapResolution(TIMEOUT, START_MS);

        assertThat(resolution.requestEnded(new BrokerConnectionException("refused", new ConnectException("Connection refused")),
                START_MS + 1)).isNull();

        assertThat(resolution.resolved()).isTrue();
        assertThat(resolution.requestEnded(UNRESOLVED, START_MS + TIMEOUT.toMillis() * 2)).isNull();
    }

    @Test
    void testAnAnswerEndsTheTimeout() {
        BootstrapResolution resolution = new BootstrapResolution(TIMEOUT, START_MS);

        resolution.requestEnded(null, START_MS + 1);

        assertThat(resolution.requestEnded(UNRESOLVED, START_MS + TIMEOUT.toMillis() * 2)).isNull();
    }

    @Test
    void testNamesResolvedAsTheClientWasBuiltNeverFailIt() {
        BootstrapResolution resolution = new BootstrapResolution(MetadataConfig.RESOLVED_AT_CONSTRUCTION, START_MS);

        assertThat(resolution.resolved()).isTrue();
        assertThat(resolution.requestEnded(UNRESOLVED, START_MS + 1)).isNull();
    }

    @Test
    void testRemainingTimeCountsDownToZero() {
        BootstrapResolution resolution = new BootstrapResolution(TIMEOUT, START_MS);

        assertThat(resolution.remainingMs(START_MS + 10_000)).isEqualTo(20_000);
        assertThat(resolution.remainingMs(START_MS + 40_000)).isZero();
    }
}
