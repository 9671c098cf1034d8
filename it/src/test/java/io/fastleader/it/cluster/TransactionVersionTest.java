package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * {@link ClusterSpec.Builder#transactionVersion}: the level chosen is the one the cluster
 * finalizes, as kafka-clients' Admin reads it back.
 */
class TransactionVersionTest {

    private static final String TRANSACTION_VERSION = "transaction.version";

    @ParameterizedTest(name = "transaction.version {0}")
    @ValueSource(ints = {1, 2})
    void theClusterFinalizesTheTransactionVersionChosen(int level) throws Exception {
        try (KafkaTestCluster cluster = ClusterSpec.builder().execution(Execution.IN_JVM).transactionVersion(level).start()) {
            assertThat(finalizedTransactionVersion(cluster)).isEqualTo(new FinalizedVersionRange((short) level, (short) level));
        }
    }

    @Test
    void unchosenTheCurrentReleaseFinalizesTransactionVersion2() throws Exception {
        try (KafkaTestCluster cluster = ClusterSpec.builder().execution(Execution.IN_JVM).start()) {
            assertThat(finalizedTransactionVersion(cluster)).isEqualTo(new FinalizedVersionRange((short) 2, (short) 2));
        }
    }

    @Test
    void onlyInJvmClustersAndKnownLevelsAreAccepted() {
        assertThatThrownBy(() -> ClusterSpec.builder().execution(Execution.CHILD_JVM).transactionVersion(1).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not for CHILD_JVM");
        assertThatThrownBy(() -> ClusterSpec.builder().transactionVersion(3))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("transaction.version 3 is none of the levels");
    }

    private static FinalizedVersionRange finalizedTransactionVersion(KafkaTestCluster cluster) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            return admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS).finalizedFeatures().get(TRANSACTION_VERSION);
        }
    }
}
