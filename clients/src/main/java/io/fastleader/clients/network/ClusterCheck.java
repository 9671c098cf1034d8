package io.fastleader.clients.network;

import java.util.Objects;

/**
 * The broker a connection is meant to reach, named in its ApiVersions request (v5, KIP-1242) so
 * that a broker that is not that node of that cluster refuses it with REBOOTSTRAP_REQUIRED: an
 * address reused by another broker, or by another cluster's, is found out before a request goes
 * there ({@link MisroutedConnectionException}).
 *
 * @param clusterId the cluster id the last Metadata answer gave
 * @param nodeId    the node's id, never a bootstrap server's
 */
public record ClusterCheck(String clusterId, int nodeId) {

    public ClusterCheck {
        Objects.requireNonNull(clusterId, "clusterId");
        if (nodeId < 0) {
            throw new IllegalArgumentException("a bootstrap server (" + nodeId + ") has no node id to check");
        }
    }
}
