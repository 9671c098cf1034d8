package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;

/** The check that a closed cluster gave its listening ports back. */
final class FreedPorts {

    private FreedPorts() {
    }

    /**
     * Every port in {@code addresses} can be bound again on its host. SO_REUSEADDR lets the bind
     * through connections still in TIME_WAIT but never past a socket that is still listening.
     */
    static void assertBindable(List<InetSocketAddress> addresses) {
        for (InetSocketAddress address : addresses) {
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(address.getHostString(), address.getPort()));
            } catch (IOException e) {
                fail("port " + address + " is still bound", e);
            }
        }
    }
}
