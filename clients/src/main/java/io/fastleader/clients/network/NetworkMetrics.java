package io.fastleader.clients.network;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.fastleader.protocol.ApiKey;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Meter;
import org.apache.kafka.common.metrics.stats.SampledStat;
import org.apache.kafka.common.metrics.stats.WindowedCount;
import org.apache.kafka.common.metrics.stats.WindowedSum;

/**
 * A client's network metrics, under the names, groups and meanings of the Java client's network
 * layer. In the client's group ({@code producer-metrics}, {@code consumer-metrics}):
 * {@code connection-count}, {@code connection-creation-rate/-total}, {@code connection-close-rate/-total},
 * {@code successful-authentication-rate/-total}, {@code failed-authentication-rate/-total},
 * {@code successful-reauthentication-rate/-total}, {@code failed-reauthentication-rate/-total},
 * {@code reauthentication-latency-avg/-max} (ms, KIP-368), {@code successful-authentication-no-reauth-total} (0),
 * {@code network-io-rate/-total} (requests and responses), {@code outgoing-byte-rate/-total},
 * {@code request-rate/-total}, {@code request-size-avg/-max}, {@code incoming-byte-rate/-total} and
 * {@code response-rate/-total}, frames counted with their size prefix; and the I/O loop's selects,
 * {@code select-rate/-total}, {@code io-wait-time-ns-avg}, {@code io-wait-ratio}, {@code io-wait-time-ns-total},
 * {@code io-time-ns-avg}, {@code io-ratio}, {@code io-time-ns-total} ({@link #selected}). In the node group
 * ({@code producer-node-metrics}, {@code consumer-node-metrics}), tagged {@code node-id=node-<id>}
 * (bootstrap servers under -1, -2, ...), the same traffic per broker and {@code request-latency-avg/-max},
 * which the client records on the sensor {@link #latencySensorName} names. A node's metrics appear
 * with its first connection. Each of a broker's connections counts in {@code connection-count} and
 * under the broker's one {@code node-id}: a consumer's Fetch and rebalance (JoinGroup, SyncGroup)
 * connections as its connection for everything else (the Java client counts its group coordinator
 * connection under {@code node-id=node-<2147483647 - id>}). And {@code requests-total} per API in
 * {@value #GROUP}, tagged {@code api=Produce}, {@code api=Metadata}, ... (the names of Kafka's
 * protocol guide), which the Java client does not break down; a per-API metric appears with the
 * first request of its API.
 */
public final class NetworkMetrics {

    /** fastleader's network metric group. */
    public static final String GROUP = "fastleader-network";

    private final Metrics metrics;
    private final String nodeGroup;
    private final Sensor bytesSent;
    private final Sensor bytesReceived;
    private final Sensor connectionsCreated;
    private final Sensor connectionsClosed;
    private final Sensor authentications;
    private final Sensor failedAuthentications;
    private final Sensor reauthentications;
    private final Sensor failedReauthentications;
    private final Sensor reauthenticationLatency;
    private final Sensor selectWait;
    private final Sensor selectIo;
    private final AtomicInteger openConnections = new AtomicInteger();
    private final AtomicInteger requestsInFlight = new AtomicInteger();
    private final Map<ApiKey, Sensor> byApi = new EnumMap<>(ApiKey.class);
    private final Map<Integer, NodeSensors> nodes = new ConcurrentHashMap<>();

    /**
     * Registers the metrics in {@code metrics}: the client-wide ones in {@code clientGroup}, the
     * per-broker ones in {@code nodeGroup}.
     */
    public NetworkMetrics(Metrics metrics, String clientGroup, String nodeGroup) {
        this.metrics = metrics;
        this.nodeGroup = nodeGroup;
        Sensor networkIo = metrics.sensor("fastleader-network:network-io");
        networkIo.add(new Meter(new WindowedCount(),
                metrics.metricName("network-io-rate", clientGroup,
                        "The number of network operations (reads or writes) on all connections per second"),
                metrics.metricName("network-io-total", clientGroup,
                        "The total number of network operations (reads or writes) on all connections")));
        bytesSent = sentStats(metrics.sensor("fastleader-network:bytes-sent", networkIo), clientGroup, Map.of());
        bytesReceived = receivedStats(metrics.sensor("fastleader-network:bytes-received", networkIo), clientGroup, Map.of());
        connectionsCreated = countMeter("connection-creation", clientGroup, "new connections established");
        connectionsClosed = countMeter("connection-close", clientGroup, "connections closed");
        authentications = countMeter("successful-authentication", clientGroup, "connections with successful authentication");
        failedAuthentications = countMeter("failed-authentication", clientGroup, "connections with failed authentication");
        reauthentications = countMeter("successful-reauthentication", clientGroup, "successful re-authentication of connections");
        failedReauthentications = countMeter("failed-reauthentication", clientGroup, "failed re-authentication of connections");
        // Counted by brokers, of clients that cannot re-authenticate; a client's stays 0, as kafka-clients' does.
        metrics.sensor("fastleader-network:successful-authentication-no-reauth").add(metrics.metricName(
                "successful-authentication-no-reauth-total", clientGroup,
                "The total number of connections with successful authentication where the client does not support re-authentication"),
                new CumulativeSum());
        reauthenticationLatency = metrics.sensor("fastleader-network:reauthentication-latency");
        reauthenticationLatency.add(metrics.metricName("reauthentication-latency-max", clientGroup,
                "The max latency observed due to re-authentication"), new Max());
        reauthenticationLatency.add(metrics.metricName("reauthentication-latency-avg", clientGroup,
                "The average latency observed due to re-authentication"), new Avg());
        metrics.addMetric(metrics.metricName("connection-count", clientGroup, "The current number of active connections."),
                (Measurable) (config, now) -> openConnections.get());
        selectWait = metrics.sensor("fastleader-network:select-time");
        selectWait.add(meter(new WindowedCount(), "select", clientGroup, Map.of(), "times the I/O layer checked for new I/O to perform"));
        selectWait.add(metrics.metricName("io-wait-time-ns-avg", clientGroup,
                "The average length of time the I/O thread spent waiting for a socket ready for reads or writes in nanoseconds."), new Avg());
        selectWait.add(threadTimeMeter("io-wait", clientGroup, "waiting"));
        selectIo = metrics.sensor("fastleader-network:io-time");
        selectIo.add(metrics.metricName("io-time-ns-avg", clientGroup, "The average length of time for I/O per select call in nanoseconds."),
                new Avg());
        selectIo.add(threadTimeMeter("io", clientGroup, "doing I/O"));
    }

    /**
     * One select of the client's I/O loop, as kafka-clients' {@code Selector} records each of its
     * polls: {@code waitNanos} in the select, then {@code ioNanos} handling the sockets it found ready.
     */
    void selected(long waitNanos, long ioNanos) {
        long nowMs = System.currentTimeMillis();
        selectWait.record(waitNanos, nowMs, false);
        selectIo.record(ioNanos, nowMs, false);
    }

    /**
     * The listener for a new connection to node {@code nodeId}: what it carries counts in the
     * client's totals and in the node's own metrics.
     */
    public ConnectionListener connectionTo(int nodeId) {
        return new Connection(nodes.computeIfAbsent(nodeId, NodeSensors::new));
    }

    /** Requests written and not yet answered, on every connection: the producer's {@code requests-in-flight}. */
    public int requestsInFlight() {
        return requestsInFlight.get();
    }

    /**
     * The name of the sensor of node {@code nodeId}'s {@code request-latency-avg/-max}, there once
     * a connection to the node opened; the client records on it the round trips it times (the
     * producer its Produce requests, the consumer its Fetches), as the Java client does.
     */
    public static String latencySensorName(int nodeId) {
        return "node-" + nodeId + ".latency";
    }

    private Sensor countMeter(String prefix, String group, String what) {
        Sensor sensor = metrics.sensor("fastleader-network:" + prefix);
        sensor.add(meter(new WindowedCount(), prefix, group, Map.of(), what));
        return sensor;
    }

    /** Adds what the Java client reports of requests written to {@code sensor}, recorded with each request's size. */
    private Sensor sentStats(Sensor sensor, String group, Map<String, String> tags) {
        sensor.add(meter(new WindowedSum(), "outgoing-byte", group, tags, "outgoing bytes sent"));
        sensor.add(meter(new WindowedCount(), "request", group, tags, "requests sent"));
        sensor.add(metrics.metricName("request-size-avg", group, "The average size of requests sent.", tags), new Avg());
        sensor.add(metrics.metricName("request-size-max", group, "The maximum size of any request sent.", tags), new Max());
        return sensor;
    }

    /** Adds what the Java client reports of responses read to {@code sensor}, recorded with each response's size. */
    private Sensor receivedStats(Sensor sensor, String group, Map<String, String> tags) {
        sensor.add(meter(new WindowedSum(), "incoming-byte", group, tags, "bytes read"));
        sensor.add(meter(new WindowedCount(), "response", group, tags, "responses received"));
        return sensor;
    }

    /** {@code <prefix>-ratio} and {@code <prefix>-time-ns-total}, of nanoseconds recorded. */
    private Meter threadTimeMeter(String prefix, String group, String action) {
        return new Meter(TimeUnit.NANOSECONDS,
                metrics.metricName(prefix + "-ratio", group, "The fraction of time the I/O thread spent " + action),
                metrics.metricName(prefix + "-time-ns-total", group, "The total time the I/O thread spent " + action));
    }

    private Meter meter(SampledStat rate, String prefix, String group, Map<String, String> tags, String what) {
        return new Meter(rate, metrics.metricName(prefix + "-rate", group, "The number of " + what + " per second", tags),
                metrics.metricName(prefix + "-total", group, "The total number of " + what, tags));
    }

    private synchronized Sensor apiSensor(ApiKey api) {
        return byApi.computeIfAbsent(api, key -> {
            Sensor sensor = metrics.sensor("fastleader-network:requests:" + key.displayName());
            sensor.add(metrics.metricName("requests-total", GROUP, "Requests sent of one API", "api", key.displayName()),
                    new CumulativeCount());
            return sensor;
        });
    }

    /** One broker's sensors; recording on them records on the client's totals too (their parents). */
    private final class NodeSensors {
        final Sensor bytesSent;
        final Sensor bytesReceived;

        NodeSensors(int nodeId) {
            Map<String, String> tags = Map.of("node-id", "node-" + nodeId);
            String prefix = "node-" + nodeId;
            this.bytesSent = sentStats(metrics.sensor(prefix + ".bytes-sent", NetworkMetrics.this.bytesSent), nodeGroup, tags);
            this.bytesReceived = receivedStats(metrics.sensor(prefix + ".bytes-received", NetworkMetrics.this.bytesReceived),
                    nodeGroup, tags);
            Sensor latency = metrics.sensor(latencySensorName(nodeId));
            latency.add(metrics.metricName("request-latency-avg", nodeGroup, "The average request latency in ms", tags), new Avg());
            latency.add(metrics.metricName("request-latency-max", nodeGroup, "The maximum request latency in ms", tags), new Max());
        }
    }

    /** One connection: what it sends and receives, and the requests it leaves unanswered when it closes. */
    private final class Connection implements ConnectionListener {
        private final NodeSensors node;
        private final AtomicInteger unanswered = new AtomicInteger();

        Connection(NodeSensors node) {
            this.node = node;
        }

        @Override
        public void connected() {
            openConnections.incrementAndGet();
            connectionsCreated.record();
        }

        @Override
        public void authenticated() {
            authentications.record();
        }

        @Override
        public void authenticationFailed() {
            failedAuthentications.record();
        }

        @Override
        public void reauthenticated(long latencyNanos) {
            reauthentications.record();
            reauthenticationLatency.record(TimeUnit.NANOSECONDS.toMillis(latencyNanos));
        }

        @Override
        public void reauthenticationFailed() {
            failedReauthentications.record();
        }

        @Override
        public void sent(ApiKey api, int bytes) {
            unanswered.incrementAndGet();
            requestsInFlight.incrementAndGet();
            // No quota to check: these sensors have none.
            long nowMs = System.currentTimeMillis();
            node.bytesSent.record(bytes, nowMs, false);
            apiSensor(api).record(1, nowMs, false);
        }

        @Override
        public void writtenWithoutResponse() {
            // As in the Java client, such a request is in flight until written, and no response is counted.
            unanswered.decrementAndGet();
            requestsInFlight.decrementAndGet();
        }

        @Override
        public void received(int bytes) {
            unanswered.decrementAndGet();
            requestsInFlight.decrementAndGet();
            node.bytesReceived.record(bytes, System.currentTimeMillis(), false);
        }

        @Override
        public void closed() {
            requestsInFlight.addAndGet(-unanswered.getAndSet(0));
            openConnections.decrementAndGet();
            connectionsClosed.record();
        }
    }
}
