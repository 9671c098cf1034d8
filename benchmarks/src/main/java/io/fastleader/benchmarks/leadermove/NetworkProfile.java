package io.fastleader.benchmarks.leadermove;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import io.fastleader.it.cluster.Execution;

/**
 * A named deployment the cluster is made to look like: the round trip every client pays to every
 * broker, the round trip between brokers, and how far one broker's metadata trails the controller.
 * Each is the starting point of the options of the same name, which override it.
 */
enum NetworkProfile {
    /** Everything on one host: no round trip costs anything, the brokers' own work is all there is. */
    LOOPBACK("loopback", "everything on one host: round trips cost nothing", 0, 0, 0, Execution.IN_JVM),
    /** A cluster spread over the zones of one region, its clients in those zones: about 2 ms everywhere. */
    CROSS_ZONE("cross-zone", "a cluster over the zones of one region, clients in those zones: 2 ms round trips everywhere",
        2, 2, 0, Execution.IN_JVM),
    /** A cluster in one region (zones 2 ms apart), its clients in another region, 30 ms away. */
    CROSS_REGION("cross-region", "clients in another region than the cluster: 30 ms to every broker, brokers 2 ms apart",
        30, 2, 0, Execution.IN_JVM),
    /**
     * Cross-zone, and the last broker learns of every metadata change 500 ms after the others: the
     * metadata convergence KIP-951 names as the cause of the pre-KIP tail. Per-broker lag needs
     * brokers in JVMs of their own.
     */
    LAGGING_METADATA("lagging-metadata", "cross-zone, and the last broker's metadata trails the controller by 500 ms",
        2, 2, 500, Execution.CHILD_JVM);

    private final String label;
    private final String models;
    private final Duration clientRtt;
    private final Duration brokerRtt;
    private final Duration metadataLag;
    private final Execution brokers;

    NetworkProfile(String label, String models, int clientRttMs, int brokerRttMs, int metadataLagMs, Execution brokers) {
        this.label = label;
        this.models = models;
        this.clientRtt = Duration.ofMillis(clientRttMs);
        this.brokerRtt = Duration.ofMillis(brokerRttMs);
        this.metadataLag = Duration.ofMillis(metadataLagMs);
        this.brokers = brokers;
    }

    /** The name on the command line and in the report. */
    String label() {
        return label;
    }

    /** What deployment it stands for, in a phrase. */
    String models() {
        return models;
    }

    /** Round trip from every client to every broker. */
    Duration clientRtt() {
        return clientRtt;
    }

    /** Round trip between brokers: replication and controller traffic. */
    Duration brokerRtt() {
        return brokerRtt;
    }

    /** How far the last broker's metadata trails the controller. */
    Duration metadataLag() {
        return metadataLag;
    }

    /** Where the brokers run. */
    Execution brokers() {
        return brokers;
    }

    /** The profile labelled {@code label}. */
    static NetworkProfile ofLabel(String label) {
        return Arrays.stream(values()).filter(p -> p.label.equals(label.toLowerCase(Locale.ROOT))).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no profile '" + label + "': expected one of " + labels()));
    }

    /** Every label, comma-separated. */
    static String labels() {
        return Arrays.stream(values()).map(NetworkProfile::label).collect(Collectors.joining(", "));
    }
}
