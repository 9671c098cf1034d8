package io.fastleader.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link QuickStart} against a real single-broker Kafka cluster in this JVM. */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class QuickStartTest {

    @Test
    void testReadsBackEveryRecordItWroteAndPrintsTheLeaderHintCounts(@Cluster(brokers = 1) KafkaTestCluster cluster)
            throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();

        QuickStart.Outcome outcome = QuickStart.run(cluster.bootstrapServers(), "quickstart", 100,
                new PrintStream(printed, true, StandardCharsets.UTF_8));

        assertThat(outcome.produced()).isEqualTo(100);
        assertThat(outcome.consumed()).isEqualTo(100);
        // Nothing moved a leader, so no hint was needed; the counts are there to watch when one does.
        assertThat(outcome.producerHints()).containsEntry("leader-hints-accepted-total", 0.0)
            .containsKey("leader-hints-rejected-total{reason=not-advancing}");
        assertThat(outcome.consumerHints()).containsEntry("leader-hints-accepted-total", 0.0);
        assertThat(printed.toString(StandardCharsets.UTF_8))
            .contains("produced 100 records to quickstart")
            .contains("consumed 100 of 100 records")
            .contains("producer leader hints: {")
            .contains("consumer leader hints: {");
    }
}
