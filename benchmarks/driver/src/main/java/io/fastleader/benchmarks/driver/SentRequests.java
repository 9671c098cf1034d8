package io.fastleader.benchmarks.driver;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/** The requests a variant's producer and consumer have sent so far, together, by API ({@code Fetch}, {@code Metadata}, ...). */
@FunctionalInterface
interface SentRequests {

    /** The counts now. */
    Map<String, Long> byApi();

    /** Where a variant's counts come from; the coordinator says which. */
    enum Source {
        /** fastleader's own metric, {@code fastleader-network:requests-total} tagged by API. */
        METRICS,
        /** kafka-clients' NetworkClient DEBUG line per request, through {@link NetworkClientRequestLog}. */
        LOG,
        /** Not counted: kafka-clients without the cost of its DEBUG lines. */
        NONE
    }

    /** fastleader's per-API request metrics, summed over both clients. */
    static SentRequests fromMetrics(Producer<?, ?> producer, Consumer<?, ?> consumer) {
        return () -> Metrics.requestsByApi(producer.metrics(), consumer.metrics());
    }

    /**
     * The lines the NetworkClients of {@code clientIds} log, on every thread: a driver's JVM has no
     * other NetworkClient. Install it before the clients are built.
     */
    static SentRequests fromLog(Set<String> clientIds) {
        NetworkClientRequestLog log = NetworkClientRequestLog.install(clientIds);
        log.watchEveryThread();
        return () -> {
            Map<String, Long> sent = new TreeMap<>();
            clientIds.forEach(id -> log.sent(id).forEach((api, count) -> sent.merge(api, count, Long::sum)));
            return sent;
        };
    }
}
