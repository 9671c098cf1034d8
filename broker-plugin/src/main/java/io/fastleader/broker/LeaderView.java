package io.fastleader.broker;

import java.util.Optional;

/** What the proxy currently believes about leaders and how clients reach brokers. */
public interface LeaderView {

    /** The partition's leader as last reported by the cluster, if known. */
    Optional<PartitionLeader> leader(Partition partition);

    /**
     * The address the proxy advertises to clients for {@code nodeId}, if it has advertised one.
     * Only such an address may go into a hint: a broker's own address would send the client
     * around the proxy.
     */
    Optional<Endpoint> advertisedEndpoint(int nodeId);
}
