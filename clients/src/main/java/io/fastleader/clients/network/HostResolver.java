package io.fastleader.clients.network;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;

/**
 * Resolves a broker's address to every address its host name has, so that a connect that fails at
 * one is tried at the next, as kafka-clients' {@code ClusterConnectionStates} tries a broker's
 * addresses in turn ({@code client.dns.lookup=use_all_dns_ips}, the only behaviour it has for
 * brokers). A seam so that {@link ConnectionPool}'s choice of address can be tested without DNS.
 */
@FunctionalInterface
public interface HostResolver {

    /** The JDK's resolver, which may block: the pool calls it on its loop, as kafka-clients resolves on its network thread. */
    HostResolver SYSTEM = broker -> broker.isUnresolved()
        ? Arrays.stream(InetAddress.getAllByName(broker.getHostString())).map(address -> new InetSocketAddress(address, broker.getPort())).toList()
        : List.of(broker);

    /** Leaves every address as it is, for a connector that resolves a name itself. */
    HostResolver NONE = List::of;

    /**
     * Every address of {@code broker}, in the resolver's order; {@code broker} alone if it is resolved already.
     *
     * @throws UnknownHostException if its host name has no address
     */
    List<InetSocketAddress> resolve(InetSocketAddress broker) throws UnknownHostException;
}
