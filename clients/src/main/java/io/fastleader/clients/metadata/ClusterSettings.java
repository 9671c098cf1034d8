package io.fastleader.clients.metadata;

import java.net.InetSocketAddress;
import java.util.List;

import io.fastleader.clients.network.ConnectionConfig;
import io.fastleader.clients.network.PoolConfig;

/**
 * What every client is configured with to reach the cluster, parsed from its Kafka and
 * {@code fastleader.} keys: the producer's and the consumer's settings both give it, and
 * {@link ClientResources#openCluster} starts either client's connections and metadata from it.
 */
public interface ClusterSettings {

    /** {@code bootstrap.servers}, resolved and checked as the Java client does. */
    List<InetSocketAddress> bootstrapServers();

    /** The transport's settings for a client that names itself {@code clientId} to brokers. */
    ConnectionConfig connectionConfig(String clientId);

    /** The connection pool's settings. */
    PoolConfig poolConfig();

    /** The metadata settings. */
    MetadataConfig metadataConfig();

    /** {@code fastleader.connections.prewarm}: whether {@link ReplicaPrewarm} runs. */
    boolean connectionsPrewarm();
}
