package io.fastleader.it.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fastleader.it.cluster.Await;

/** {@link DelayLink} in front of a plain echo server on loopback. */
class DelayLinkTest {

    private static final int SOCKET_TIMEOUT_MS = 20_000;

    private EchoServer echo;

    @BeforeEach
    void startEchoServer() throws IOException {
        echo = new EchoServer();
    }

    @AfterEach
    void stopEchoServer() throws IOException {
        echo.close();
    }

    @Test
    void everyByteArrivesInOrderUnderJitterAndTheCloseFollowsThem() throws Exception {
        byte[] sent = new byte[1 << 20];
        new Random(42).nextBytes(sent);
        try (DelayLink link = DelayLink.open(echo.address(), Duration.ofMillis(2), Duration.ofMillis(10));
             Socket socket = connect(link.address())) {
            // Many small writes make many chunks, each with its own jitter.
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
                try {
                    OutputStream out = socket.getOutputStream();
                    for (int offset = 0; offset < sent.length; offset += 997) {
                        out.write(sent, offset, Math.min(997, sent.length - offset));
                    }
                    // The half-close reaches the echo server behind the data; it answers with its own close.
                    socket.shutdownOutput();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });

            byte[] received = socket.getInputStream().readAllBytes();

            writing.get(SOCKET_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            assertThat(received).isEqualTo(sent);
        }
    }

    @Test
    void zeroDelayIsAPlainRelay() throws Exception {
        try (DelayLink link = DelayLink.open(echo.address(), Duration.ZERO, Duration.ZERO);
             Socket socket = connect(link.address())) {
            assertThat(echoOnce(socket, "plain")).isEqualTo("plain");
        }
    }

    @Test
    void aRoundTripCostsAtLeastTwiceTheOneWayDelay() throws Exception {
        Duration oneWay = Duration.ofMillis(60);
        try (DelayLink link = DelayLink.open(echo.address(), oneWay, Duration.ZERO);
             Socket socket = connect(link.address())) {
            long start = System.nanoTime();
            assertThat(echoOnce(socket, "ping")).isEqualTo("ping");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(oneWay.multipliedBy(2));
        }
    }

    @Test
    void anAddedDelayLengthensTheRoundTripUntilItIsRemoved() throws Exception {
        Duration oneWay = Duration.ofMillis(20);
        Duration added = Duration.ofMillis(300);
        Duration delayedRoundTrip = oneWay.plus(added).multipliedBy(2);
        try (DelayLink link = DelayLink.open(echo.address(), oneWay, Duration.ZERO);
             Socket socket = connect(link.address())) {
            link.addedDelay(added);
            assertThat(timedEcho(socket, "slowed")).isGreaterThanOrEqualTo(delayedRoundTrip);

            link.addedDelay(Duration.ZERO);

            // Far below the added delay's round trip, which a loaded machine does not reach either.
            assertThat(timedEcho(socket, "restored")).isGreaterThanOrEqualTo(oneWay.multipliedBy(2)).isLessThan(delayedRoundTrip);
        }
    }

    @Test
    void everyByteArrivesInOrderUnderJitterWhileTheAddedDelayChanges() throws Exception {
        byte[] sent = new byte[1 << 20];
        new Random(7).nextBytes(sent);
        int changeEvery = 64 * 1024;
        try (DelayLink link = DelayLink.open(echo.address(), Duration.ofMillis(2), Duration.ofMillis(10));
             Socket socket = connect(link.address())) {
            CompletableFuture<Integer> writing = CompletableFuture.supplyAsync(() -> {
                int changes = 0;
                try {
                    OutputStream out = socket.getOutputStream();
                    for (int offset = 0; offset < sent.length; offset += 997) {
                        if (offset / changeEvery != (offset + 997) / changeEvery) {
                            // Removing the delay makes the next chunks due before those still held back.
                            link.addedDelay(changes++ % 2 == 0 ? Duration.ofMillis(30) : Duration.ZERO);
                        }
                        out.write(sent, offset, Math.min(997, sent.length - offset));
                    }
                    socket.shutdownOutput();
                    return changes;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });

            byte[] received = socket.getInputStream().readAllBytes();

            assertThat(writing.get(SOCKET_TIMEOUT_MS, TimeUnit.MILLISECONDS)).isEqualTo(sent.length / changeEvery);
            assertThat(received).isEqualTo(sent);
        }
    }

    @Test
    void eachDirectionHasItsOwnDelay() throws Exception {
        Duration towardsClient = Duration.ofMillis(120);
        try (DelayLink link = DelayLink.open(echo.address(), Duration.ZERO, towardsClient, Duration.ZERO);
             Socket socket = connect(link.address())) {
            long start = System.nanoTime();
            assertThat(echoOnce(socket, "ping")).isEqualTo("ping");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(towardsClient);
        }
    }

    @Test
    void theUpstreamsBytesAreCountedWhenTheyReachTheLinkBeforeTheirDelay() throws Exception {
        try (DelayLink link = DelayLink.open(echo.address(), Duration.ZERO, Duration.ofMinutes(1), Duration.ZERO);
             Socket socket = connect(link.address())) {
            assertThat(link.bytesFromUpstream()).isZero();
            socket.getOutputStream().write("ping".getBytes());
            Await.until("the echo at the link", Duration.ofSeconds(10), () -> link.bytesFromUpstream() == 4);
            assertThat(socket.getInputStream().available()).isZero();
        }
    }

    @Test
    void aSuspendedLinkRefusesAndDropsConnectionsAndAResumedOneAcceptsOnTheSamePort() throws Exception {
        try (DelayLink link = DelayLink.open(echo.address(), Duration.ofMillis(5), Duration.ZERO);
             Socket before = connect(link.address())) {
            assertThat(echoOnce(before, "before")).isEqualTo("before");

            link.suspend();

            assertThat(link.isSuspended()).isTrue();
            assertClosedByPeer(before);
            assertThatThrownBy(() -> connect(link.address()).close()).isInstanceOf(ConnectException.class);

            link.resume();

            assertThat(link.isSuspended()).isFalse();
            try (Socket after = connect(link.address())) {
                assertThat(after.getPort()).isEqualTo(link.port());
                assertThat(echoOnce(after, "after")).isEqualTo("after");
            }
        }
    }

    @Test
    void closeLeavesNoThreadOfTheLink() throws Exception {
        DelayLink link = DelayLink.open(echo.address(), Duration.ofMillis(5), Duration.ofMillis(5));
        try (Socket first = connect(link.address()); Socket second = connect(link.address())) {
            assertThat(echoOnce(first, "one")).isEqualTo("one");
            assertThat(echoOnce(second, "two")).isEqualTo("two");
            link.close();
        }

        assertThat(Thread.getAllStackTraces().keySet())
            .filteredOn(thread -> thread.getName().startsWith("delay-link-"))
            .isEmpty();
        assertThatThrownBy(link::resume).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anUpstreamThatRefusesClosesTheClientAtOnce() throws Exception {
        InetSocketAddress nobodyListens;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            nobodyListens = new InetSocketAddress(probe.getInetAddress(), probe.getLocalPort());
        }
        try (DelayLink link = DelayLink.open(nobodyListens, Duration.ofMillis(50), Duration.ZERO);
             Socket socket = connect(link.address())) {
            assertClosedByPeer(socket);
        }
    }

    @Test
    void negativeDurationsAreRefused() {
        assertThatThrownBy(() -> DelayLink.open(echo.address(), Duration.ofMillis(-1), Duration.ZERO))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("must not be negative");
        assertThatThrownBy(() -> DelayLink.open(echo.address(), Duration.ZERO, Duration.ofMillis(-1)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("jitter");
        try (DelayLink link = DelayLink.open(echo.address(), Duration.ZERO, Duration.ZERO)) {
            assertThatThrownBy(() -> link.addedDelay(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("added delay");
        }
    }

    private static Socket connect(InetSocketAddress address) throws IOException {
        Socket socket = new Socket(address.getAddress(), address.getPort());
        socket.setSoTimeout(SOCKET_TIMEOUT_MS);
        return socket;
    }

    /** How long one echo of {@code message} took, after checking it came back whole. */
    private static Duration timedEcho(Socket socket, String message) throws IOException {
        long start = System.nanoTime();
        assertThat(echoOnce(socket, message)).isEqualTo(message);
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private static String echoOnce(Socket socket, String message) throws IOException {
        byte[] bytes = message.getBytes();
        socket.getOutputStream().write(bytes);
        return new String(socket.getInputStream().readNBytes(bytes.length));
    }

    /** The peer closed the socket: a read sees the end of the stream or a reset, not the timeout. */
    private static void assertClosedByPeer(Socket socket) throws IOException {
        try {
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        } catch (SocketException reset) {
            assertThat(reset).hasMessageContaining("reset");
        }
    }

    /** Echoes every connection's bytes back and closes its side once the client has closed its own. */
    private static final class EchoServer implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final Thread acceptor = new Thread(this::acceptUntilClosed, "echo-server");

        EchoServer() throws IOException {
            acceptor.setDaemon(true);
            acceptor.start();
        }

        InetSocketAddress address() {
            return new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
        }

        private void acceptUntilClosed() {
            while (true) {
                Socket socket;
                try {
                    socket = listener.accept();
                } catch (IOException e) {
                    return;
                }
                Thread echoing = new Thread(() -> echo(socket), "echo-server-connection");
                echoing.setDaemon(true);
                echoing.start();
            }
        }

        private static void echo(Socket socket) {
            try (socket) {
                InputStream in = socket.getInputStream();
                OutputStream out = socket.getOutputStream();
                in.transferTo(out);
            } catch (IOException e) {
                // The link closed the connection.
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }
}
