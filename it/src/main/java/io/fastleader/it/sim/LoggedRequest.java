package io.fastleader.it.sim;

import java.util.Set;

import io.fastleader.protocol.ApiKey;

/**
 * One request as a simulated broker received it, for {@link SimulatedCluster#requestLog()}: the
 * broker, the header's API, version, client id and correlation id, and the faults applied to it
 * (empty when it was served and answered as usual).
 */
public record LoggedRequest(int brokerId, ApiKey api, short version, String clientId, int correlationId, Set<Fault> faults) {

    /** What a fault commanded on {@link SimulatedCluster} did to a request. */
    public enum Fault {
        /** Answered with an injected error, not served ({@link SimulatedCluster#injectError}). */
        ERROR_INJECTED,
        /** Served, never answered ({@link SimulatedCluster#dropAnswers}). */
        ANSWER_DROPPED,
        /** Served, answered late ({@link SimulatedCluster#delay}). */
        ANSWER_DELAYED,
        /** A Metadata request answered from a snapshot ({@link SimulatedCluster#staleMetadata}). */
        STALE_METADATA
    }

    public LoggedRequest {
        faults = Set.copyOf(faults);
    }

    @Override
    public String toString() {
        return "broker " + brokerId + " " + api.displayName() + " v" + version + " " + clientId + "#" + correlationId
            + (faults.isEmpty() ? "" : " " + faults);
    }
}
