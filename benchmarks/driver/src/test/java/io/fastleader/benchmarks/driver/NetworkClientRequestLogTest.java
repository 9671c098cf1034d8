package io.fastleader.benchmarks.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real KafkaProducer against a socket that reads and never answers: its first request on a new
 * connection is ApiVersions, logged by NetworkClient before the bytes go out.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NetworkClientRequestLogTest {

    private final ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    private NetworkClientRequestLog log;

    NetworkClientRequestLogTest() throws IOException {
    }

    @AfterEach
    void close() throws IOException {
        if (log != null) {
            log.close();
        }
        server.close();
    }

    @Test
    void countsTheRequestsOfANamedClientOnEveryThread() throws Exception {
        log = NetworkClientRequestLog.install(Set.of("counted"));
        log.watchEveryThread();

        firstRequestOf("counted");

        assertThat(log.sent("counted")).isEqualTo(Map.of("ApiVersions", 1L));
    }

    @Test
    void leavesOutAClientItWasNotAskedToCount() throws Exception {
        log = NetworkClientRequestLog.install(Set.of("counted"));
        log.watchEveryThread();

        firstRequestOf("other");

        assertThat(log.counts("other")).isFalse();
        assertThat(log.sent("counted")).isEmpty();
    }

    @Test
    void countsNothingOnAThreadNotWatched() throws Exception {
        log = NetworkClientRequestLog.install(Set.of("counted"));
        log.watch(Thread.currentThread());

        firstRequestOf("counted");

        assertThat(log.sent("counted")).as("the producer's own I/O thread is not watched").isEmpty();
    }

    /** Starts a producer named {@code clientId} and returns once its first request frame has arrived. */
    private void firstRequestOf(String clientId) throws IOException {
        Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + server.getLocalPort(),
            ProducerConfig.CLIENT_ID_CONFIG, clientId, ProducerConfig.MAX_BLOCK_MS_CONFIG, 1);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            // Asking for metadata makes the producer's I/O thread connect; the answer is not awaited.
            assertThatThrownBy(() -> producer.partitionsFor("any")).isInstanceOf(TimeoutException.class);
            try (Socket connection = server.accept()) {
                DataInputStream frames = new DataInputStream(connection.getInputStream());
                frames.readFully(new byte[frames.readInt()]);
            }
            producer.close(Duration.ZERO);
        }
    }
}
