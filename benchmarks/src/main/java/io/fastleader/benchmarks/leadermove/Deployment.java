package io.fastleader.benchmarks.leadermove;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.NetworkModel;
import io.fastleader.it.cluster.Security;

/**
 * The cluster the variants share, as a deployment: a {@link NetworkProfile} and the options that
 * override it, the client listeners' security, and where the brokers run.
 *
 * @param profile     the named starting point
 * @param clientRtt   round trip from every client to every broker
 * @param brokerRtt   round trip between brokers
 * @param metadataLag how far the {@link #LAGGING_BROKER}'s metadata trails the controller
 * @param security    PLAINTEXT, or SASL_SSL (SCRAM-SHA-512 over TLS: a reconnect pays both handshakes)
 * @param brokers     where the brokers run
 */
record Deployment(NetworkProfile profile, Duration clientRtt, Duration brokerRtt, Duration metadataLag, String security,
                  Execution brokers) {

    /** The broker whose metadata trails under {@link #metadataLag}: the last of the three. */
    static final int LAGGING_BROKER = 2;
    /** The SCRAM user the SASL_SSL cluster creates for the variants. */
    private static final String USER = "leader-move";
    private static final String PASSWORD = "leader-move-secret";

    Deployment {
        if (!security.equals("PLAINTEXT") && !security.equals("SASL_SSL")) {
            throw new IllegalArgumentException("--security " + security.toLowerCase(Locale.ROOT) + ": expected plaintext or sasl_ssl");
        }
        if (!metadataLag.isZero() && brokers != Execution.CHILD_JVM) {
            throw new IllegalArgumentException("--metadata-lag-ms needs --brokers child_jvm: brokers in one JVM share one way to the quorum");
        }
        if (!security.equals("PLAINTEXT") && brokers == Execution.CHILD_JVM) {
            throw new IllegalArgumentException("--security sasl_ssl needs --brokers in_jvm: child-JVM brokers have no SASL listeners");
        }
    }

    /** The cluster to start, with {@code brokerConfigs} on top of the fixtures' settings. */
    ClusterSpec spec(Map<String, String> brokerConfigs) {
        ClusterSpec.Builder spec = ClusterSpec.builder().execution(brokers)
            .network(new NetworkModel(clientRtt, brokerRtt, Duration.ZERO,
                metadataLag.isZero() ? Map.of() : Map.of(LAGGING_BROKER, metadataLag)))
            .security(security.equals("SASL_SSL") ? Security.saslSsl("SCRAM-SHA-512", USER, PASSWORD) : Security.plaintext());
        brokerConfigs.forEach(spec::brokerConfig);
        return spec.build();
    }

    /** One line for the report: the profile, what it models, and every figure as run. */
    String describe() {
        return String.format(Locale.ROOT, "%s (%s): client RTT %d ms, broker RTT %d ms, metadata lag %d ms on broker %d, %s, brokers %s",
            profile.label(), profile.models(), clientRtt.toMillis(), brokerRtt.toMillis(), metadataLag.toMillis(), LAGGING_BROKER,
            security, brokers.name().toLowerCase(Locale.ROOT));
    }
}
