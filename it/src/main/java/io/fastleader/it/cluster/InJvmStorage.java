package io.fastleader.it.cluster;

import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.invoke.MethodHandles;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.kroxylicious.testing.kafka.invm.InVMKafkaCluster;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * Formats an in-JVM cluster's storage with chosen feature levels, as
 * {@code kafka-storage format --feature name=level} does, before the testing library starts it.
 *
 * <p>The library formats each node's log directory itself just before starting it, with the
 * release's default feature levels and no way to choose others; but it skips a directory already
 * formatted. So this formats every initial node's directory first, with the library's own
 * settings plus the levels: the KRaft controllers then bootstrap the metadata log with them. A
 * broker added later gets the library's format, which does not matter: a node joining a running
 * cluster takes the finalized features from the metadata log, not from its bootstrap file.
 */
final class InJvmStorage {

    /** The controller listener the library configures on every node. */
    private static final String CONTROLLER_LISTENER = "CONTROLLER";

    private InJvmStorage() {
    }

    /** Formats nodes {@code 0} to {@code nodes - 1} of {@code cluster}, not started yet, with {@code featureLevels}. */
    static void format(InVMKafkaCluster cluster, int nodes, Map<String, Short> featureLevels) {
        Path root = storageRoot(cluster);
        for (int nodeId = 0; nodeId < nodes; nodeId++) {
            // The library's log.dir for a node, which also holds its metadata log.
            String logDir = root.resolve("broker-" + nodeId).toAbsolutePath().toString();
            Formatter formatter = new Formatter()
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .setClusterId(cluster.getClusterId())
                .setNodeId(nodeId)
                .setControllerListenerName(CONTROLLER_LISTENER)
                .setMetadataLogDirectory(logDir)
                .setDirectories(List.of(logDir))
                .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION);
            featureLevels.forEach(formatter::setFeatureLevel);
            try {
                formatter.run();
            } catch (Exception e) {
                throw new IllegalStateException("formatting the storage of node " + nodeId + " with " + featureLevels + " failed", e);
            }
        }
    }

    private static Path storageRoot(InVMKafkaCluster cluster) {
        try {
            // A VarHandle resolves only this field (see InJvmBrokerShutdown on why not reflect over them all).
            return (Path) MethodHandles.privateLookupIn(InVMKafkaCluster.class, MethodHandles.lookup())
                .findVarHandle(InVMKafkaCluster.class, "tempDirectory", Path.class)
                .get(cluster);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the testing library's in-JVM cluster changed shape", e);
        }
    }
}
