package io.fastleader.it.consumer;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;

import io.fastleader.clients.consumer.group.SingleThreadOwner;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.metadata.MetadataConfig;
import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.clients.network.ConnectionConfig;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.PoolConfig;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * What the consumer's pieces are built on, as a client would build it for a test cluster: a
 * connection pool and the metadata kept over it, with Kafka's default retry backoff and a
 * monotonic clock for deadlines. Closes both.
 */
final class ClientStack implements AutoCloseable {

    /**
     * The consumer's one retry policy, {@code retry.backoff.ms} and {@code retry.backoff.max.ms} at Kafka's
     * defaults: following leader epochs as with hints on for requests a partition's leader may refuse, by
     * failures in a row for those a coordinator answers.
     */
    static final EpochBackoff LEADER_RETRY_BACKOFF = EpochBackoff.of(MetadataConfig.defaults());

    final Metrics metrics = new Metrics();
    /** Runs the answers and retries of the request loops built on this stack. */
    final SingleThreadOwner owner = new SingleThreadOwner();
    final ConnectionPool pool = new ConnectionPool(ConnectionConfig.defaults("fastleader-it"), PoolConfig.defaults());
    final ClusterMetadata metadata;

    ClientStack(KafkaTestCluster cluster) {
        metadata = new ClusterMetadata(MetadataConfig.defaults(), pool, cluster.bootstrapAddresses(), metrics);
    }

    /** Metadata requests sent so far for {@code cause} (metric {@code metadata-refreshes-total}). */
    double refreshes(String cause) {
        MetricName name = metrics.metricName("metadata-refreshes-total", MetadataMetrics.GROUP, "", Map.of("cause", cause));
        return (double) metrics.metric(name).metricValue();
    }

    /** Monotonic milliseconds, the clock deadlines are given in. */
    static long nowMs() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    }

    /** A deadline 30 s from now. */
    static long deadline() {
        return nowMs() + 30_000;
    }

    @Override
    public void close() {
        metadata.close();
        pool.close();
        owner.close();
        metrics.close();
    }
}
