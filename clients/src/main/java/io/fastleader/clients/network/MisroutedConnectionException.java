package io.fastleader.clients.network;

/**
 * The broker at a node's address is not that node of the client's cluster: it answered the
 * connection's ApiVersions, which named both ({@link ClusterCheck}), with REBOOTSTRAP_REQUIRED. The
 * client's view of the cluster is stale; it goes back to its bootstrap servers.
 */
public class MisroutedConnectionException extends BrokerConnectionException {

    private static final long serialVersionUID = 1L;

    private final String clusterId;
    private final int nodeId;

    /** The broker at {@code broker} (host:port) refused to be {@code expected}. */
    public MisroutedConnectionException(String broker, ClusterCheck expected) {
        super("the broker at " + broker + " is not node " + expected.nodeId() + " of cluster " + expected.clusterId()
            + ": it answered ApiVersions with REBOOTSTRAP_REQUIRED", null);
        this.clusterId = expected.clusterId();
        this.nodeId = expected.nodeId();
    }

    /** The cluster the connection was meant for. */
    public String clusterId() {
        return clusterId;
    }

    /** The node the connection was meant for. */
    public int nodeId() {
        return nodeId;
    }
}
