package io.fastleader.clients;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** For tests whose client acts on threads of its own: waiting until it has done something, and a port it cannot reach. */
public final class Eventually {

    private Eventually() {
    }

    /**
     * Returns once {@code condition} holds, looking every few milliseconds; fails naming {@code what}
     * if it still does not hold after {@code patience}. A bound on a wait, not a timing claim.
     */
    public static void until(String what, Duration patience, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("still waiting for " + what).isNegative();
            Thread.sleep(5);
        }
    }

    /** A loopback port nothing listens on: connecting to it is refused. */
    public static int refusingPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
