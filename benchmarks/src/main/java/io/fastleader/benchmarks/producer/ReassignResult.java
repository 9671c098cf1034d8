package io.fastleader.benchmarks.producer;

import java.util.List;
import java.util.Map;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.common.Latency;

/**
 * What the {@code reassign} scenario measured.
 *
 * @param rotationMillis per rotation, how long until every partition of every topic had its new leader
 * @param clients        per client, in the order of {@link ReassignScenario#CLIENTS}
 */
record ReassignResult(List<Long> rotationMillis, List<ClientResult> clients) {

    /** The result of the client labelled {@code label}. */
    ClientResult client(ClientVariant variant) {
        return clients.stream().filter(c -> c.client().equals(variant.label())).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no result for " + variant.label()));
    }

    /**
     * One client's figures.
     *
     * @param client     the client's label
     * @param sent       records given to {@code send}, warm-up included
     * @param acked      records acknowledged
     * @param errors     records failed (callback exception or {@code send} throwing)
     * @param firstError the first failure, null if none
     * @param latency    send-to-callback latency of the acknowledged records sent after the warm-up
     * @param metrics    the client's own counters at the end (see {@link ReassignScenario#reportedMetrics})
     */
    record ClientResult(String client, long sent, long acked, long errors, String firstError, Latency latency,
                        Map<String, Double> metrics) {
    }
}
