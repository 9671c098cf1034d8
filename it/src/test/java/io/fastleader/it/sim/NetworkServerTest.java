package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/**
 * The network thread alone, with a dispatch of the test's own in place of the dispatcher: each
 * request frame is two ints, a connection number and a sequence number, and its answer echoes
 * them (plus, for some tests, a payload).
 */
class NetworkServerTest {

    @Test
    void pipelinedRequestsOnManyConnectionsAreAnsweredInOrderOneAtATimePerConnection() throws Exception {
        int connections = 200;
        int perConnection = 20;
        Map<Integer, AtomicInteger> inProgress = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        ExecutorService answering = Executors.newFixedThreadPool(4);
        try (NetworkServer network = new NetworkServer("net-test", (brokerId, frame) -> {
            int connection = frame.getInt(0);
            if (inProgress.computeIfAbsent(connection, c -> new AtomicInteger()).incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            // answered from other threads, as a waiting request is
            return CompletableFuture.supplyAsync(() -> {
                inProgress.get(connection).decrementAndGet();
                return echo(frame, 0);
            }, answering);
        })) {
            int[] ports = {network.listen(0, 0), network.listen(1, 0)};
            List<Socket> sockets = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), ports[c % 2]);
                sockets.add(socket);
                DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                for (int seq = 0; seq < perConnection; seq++) {
                    out.writeInt(8);
                    out.writeInt(c);
                    out.writeInt(seq);
                }
                out.flush();
            }
            for (int c = 0; c < connections; c++) {
                DataInputStream in = new DataInputStream(sockets.get(c).getInputStream());
                for (int seq = 0; seq < perConnection; seq++) {
                    assertThat(in.readInt()).isEqualTo(8);
                    assertThat(in.readInt()).isEqualTo(c);
                    assertThat(in.readInt()).as("connection %d's answers in the order of its requests", c).isEqualTo(seq);
                }
                sockets.get(c).close();
            }
            assertThat(overlaps).as("requests of one connection in progress at once").hasValue(0);
        } finally {
            answering.shutdownNow();
        }
    }

    @Test
    void aWaitingAnswerHoldsUpItsConnectionOnly() throws Exception {
        CompletableFuture<ByteBuffer> waiting = new CompletableFuture<>();
        List<String> dispatched = new CopyOnWriteArrayList<>();
        try (NetworkServer network = new NetworkServer("net-test", (brokerId, frame) -> {
            dispatched.add(frame.getInt(0) + "#" + frame.getInt(4));
            if (frame.getInt(0) == 1 && frame.getInt(4) == 0) {
                return waiting.thenApply(ignored -> echo(frame, 0));
            }
            return CompletableFuture.completedFuture(echo(frame, 0));
        })) {
            int port = network.listen(0, 0);
            try (Socket waiter = new Socket(InetAddress.getLoopbackAddress(), port);
                 Socket other = new Socket(InetAddress.getLoopbackAddress(), port)) {
                request(waiter, 1, 0);
                request(waiter, 1, 1);
                Conditions.await("the waiting request dispatched", () -> dispatched.contains("1#0"));
                request(other, 2, 0);
                assertThat(answer(other)).containsExactly(2, 0);
                request(other, 2, 1);
                assertThat(answer(other)).containsExactly(2, 1);
                assertThat(dispatched).as("the waiting connection's second request is not served yet")
                    .contains("1#0").doesNotContain("1#1");
                assertThat(waiter.getInputStream().available()).isZero();

                waiting.complete(null); // from this thread, not the network's
                assertThat(answer(waiter)).containsExactly(1, 0);
                assertThat(answer(waiter)).containsExactly(1, 1);
                assertThat(dispatched).containsSubsequence("1#0", "2#0", "2#1", "1#1");
            }
        }
    }

    @Test
    void anAnswerLargerThanTheSocketBuffersIsWrittenWholeBeforeTheNext() throws Exception {
        int payload = 16 * 1024 * 1024;
        try (NetworkServer network = new NetworkServer("net-test",
            (brokerId, frame) -> CompletableFuture.completedFuture(echo(frame, frame.getInt(4) == 0 ? payload : 0)))) {
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), network.listen(0, 0))) {
                request(socket, 7, 0);
                request(socket, 7, 1);
                DataInputStream in = new DataInputStream(socket.getInputStream());
                assertThat(in.readInt()).isEqualTo(8 + payload);
                assertThat(in.readInt()).isEqualTo(7);
                assertThat(in.readInt()).isEqualTo(0);
                byte[] rest = new byte[payload];
                in.readFully(rest);
                for (int i = 0; i < payload; i += 4096) {
                    assertThat(rest[i]).isEqualTo((byte) i);
                }
                assertThat(answer(socket)).containsExactly(7, 1);
            }
        }
    }

    @Test
    void aRequestFrameLargerThanTheReadBufferIsServed() throws Exception {
        try (NetworkServer network = new NetworkServer("net-test",
            (brokerId, frame) -> CompletableFuture.completedFuture(echo(frame, 0)))) {
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), network.listen(0, 0))) {
                DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                out.writeInt(8 + 1_000_000);
                out.writeInt(3);
                out.writeInt(0);
                out.write(new byte[1_000_000]);
                out.flush();
                request(socket, 3, 1);
                assertThat(answer(socket)).containsExactly(3, 0);
                assertThat(answer(socket)).containsExactly(3, 1);
            }
        }
    }

    @Test
    void aNegativeOrOversizeFrameClosesItsConnectionOnly() throws Exception {
        try (NetworkServer network = new NetworkServer("net-test",
            (brokerId, frame) -> CompletableFuture.completedFuture(echo(frame, 0)))) {
            int port = network.listen(0, 0);
            for (int size : new int[] {-1, NetworkServer.MAX_REQUEST_BYTES + 1}) {
                try (Socket bad = new Socket(InetAddress.getLoopbackAddress(), port);
                     Socket good = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    new DataOutputStream(bad.getOutputStream()).writeInt(size);
                    assertThat(bad.getInputStream().read()).as("frame size %d", size).isEqualTo(-1);
                    request(good, 1, 0);
                    assertThat(answer(good)).containsExactly(1, 0);
                }
            }
        }
    }

    @Test
    void aRequestThatCannotBeServedClosesItsConnection() throws Exception {
        try (NetworkServer network = new NetworkServer("net-test", (brokerId, frame) -> {
            if (frame.getInt(4) == 0) {
                throw new RequestDispatcher.ProtocolViolation("refused at once");
            }
            return CompletableFuture.failedFuture(new RequestDispatcher.ProtocolViolation("refused later"));
        })) {
            int port = network.listen(0, 0);
            for (int seq = 0; seq < 2; seq++) {
                try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    request(socket, 1, seq);
                    assertThat(socket.getInputStream().read()).isEqualTo(-1);
                }
            }
        }
    }

    @Test
    void closeEndsConnectionsWhoseRequestIsWaitingAndLeavesNoThread() throws Exception {
        NetworkServer network = new NetworkServer("net-close-test", (brokerId, frame) -> new CompletableFuture<>());
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), network.listen(0, 0))) {
            request(socket, 1, 0);
            Conditions.await("the connection accepted", () -> network.connectionCount(0) == 1);
            network.close();
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName).doesNotContain("net-close-test-network");
    }

    @Test
    void aClosedBrokerListensAgainOnItsPort() throws Exception {
        try (NetworkServer network = new NetworkServer("net-test",
            (brokerId, frame) -> CompletableFuture.completedFuture(echo(frame, 0)))) {
            int port = network.listen(4, 0);
            Socket before = new Socket(InetAddress.getLoopbackAddress(), port);
            request(before, 1, 0);
            assertThat(answer(before)).containsExactly(1, 0);
            network.closeBroker(4, true);
            assertThat(network.connectionCount(4)).isZero();
            assertThat(network.listen(4, port)).isEqualTo(port);
            try (Socket after = new Socket(InetAddress.getLoopbackAddress(), port)) {
                request(after, 2, 0);
                assertThat(answer(after)).containsExactly(2, 0);
            }
            before.close();
        }
    }

    private static void request(Socket socket, int connection, int seq) throws IOException {
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(8);
        out.writeInt(connection);
        out.writeInt(seq);
        out.flush();
    }

    /** The next answer on {@code socket}: its two ints, the payload (if any) skipped. */
    private static List<Integer> answer(Socket socket) throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int size = in.readInt();
        List<Integer> ints = List.of(in.readInt(), in.readInt());
        in.skipNBytes(size - 8);
        return ints;
    }

    /** An answer frame echoing the request's two ints, followed by {@code payload} bytes (byte i = i). */
    private static ByteBuffer echo(ByteBuffer frame, int payload) {
        ByteBuffer answer = ByteBuffer.allocate(4 + 8 + payload);
        answer.putInt(8 + payload).putInt(frame.getInt(0)).putInt(frame.getInt(4));
        for (int i = 0; i < payload; i++) {
            answer.put((byte) i);
        }
        return answer.flip();
    }
}
