package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LeaderMoveRecoveriesTest {

    private static final String GROUP = "fastleader-test";
    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private final Metrics metrics = new Metrics();
    private final List<String> lines = new ArrayList<>();
    private final LeaderMoveRecoveries recoveries = new LeaderMoveRecoveries("produce", metrics, GROUP, lines::add);

    @AfterEach
    void closeMetrics() {
        metrics.close();
    }

    @Test
    void testARecoveryRunsFromTheFirstRefusalToTheFirstAnswerFromTheNewLeader() {
        recoveries.refused(P0, 1, 7, false, 1_000);
        recoveries.refused(P0, 1, 7, false, 1_030);

        recoveries.answered(P0, 2, 8, 1_080);

        assertThat(metric("leader-move-recoveries-total")).isEqualTo(1.0);
        assertThat(metric("leader-move-recovery-time-ms-total")).isEqualTo(80.0);
        assertThat(metric("leader-move-recovery-time-ms-max")).isEqualTo(80.0);
    }

    @Test
    void testAnAnswerAtTheRefusedLeadershipIsNoMove() {
        recoveries.refused(P0, 1, 7, false, 1_000);

        recoveries.answered(P0, 1, 7, 1_050);
        recoveries.answered(P0, 2, 8, 1_100);

        assertThat(metric("leader-move-recoveries-total")).isZero();
        assertThat(lines).isEmpty();
    }

    @Test
    void testANewerEpochOnTheRefusingBrokerIsARecovery() {
        recoveries.refused(P0, 1, 7, false, 1_000);

        recoveries.answered(P0, 1, 8, 1_020);

        assertThat(metric("leader-move-recoveries-total")).isEqualTo(1.0);
    }

    @Test
    void testAnswersOfPartitionsNeverRefusedRecordNothing() {
        recoveries.refused(P1, 1, 7, false, 1_000);

        recoveries.answered(P0, 2, 8, 1_050);

        assertThat(metric("leader-move-recoveries-total")).isZero();
    }

    @Test
    void testAForgottenPartitionsNextAnswerRecordsNothing() {
        recoveries.refused(P0, 1, 7, false, 1_000);

        recoveries.forget(P0);
        recoveries.answered(P0, 2, 8, 500_000);

        assertThat(metric("leader-move-recoveries-total")).isZero();
    }

    @Test
    void testTheLogLineNamesThePartitionLeadersEpochsSourceAndRecoveryTime() {
        recoveries.refused(P0, 1, 7, false, 1_000);
        recoveries.answered(P0, 2, 8, 1_042);

        assertThat(lines).containsExactly(
                "Leader of orders-0 moved from broker 1 to 2 (leader epoch 7 to 8), followed from Metadata: produce recovered in 42 ms");
    }

    @Test
    void testAHintAcceptedOnALaterRefusalMarksTheMoveAsFollowedFromAHint() {
        recoveries.refused(P0, 1, 7, false, 1_000);
        recoveries.refused(P0, 1, 7, true, 1_010);

        recoveries.answered(P0, 2, 8, 1_015);

        assertThat(lines).singleElement().asString().contains("followed from a KIP-951 hint: produce recovered in 15 ms");
    }

    @Test
    void testARollLogsAtMostTenLinesPerWindowAndTheNextLineCountsThoseLeftOut() {
        for (int partition = 0; partition < 25; partition++) {
            TopicPartition moved = new TopicPartition("orders", partition);
            recoveries.refused(moved, 1, 7, true, 1_000);
            recoveries.answered(moved, 2, 8, 1_010 + partition);
        }
        TopicPartition later = new TopicPartition("payments", 0);
        recoveries.refused(later, 2, 8, true, 1_010 + LeaderMoveRecoveries.WINDOW_MS);
        recoveries.answered(later, 3, 9, 1_020 + LeaderMoveRecoveries.WINDOW_MS);

        assertThat(metric("leader-move-recoveries-total")).isEqualTo(26.0);
        assertThat(lines).hasSize(LeaderMoveRecoveries.LINES_PER_WINDOW + 1);
        assertThat(lines.get(lines.size() - 1)).startsWith("Leader of payments-0 moved")
                .endsWith("(15 earlier leader moves not logged: at most 10 lines per 10 s)");
    }

    private double metric(String name) {
        return (double) metrics.metric(metrics.metricName(name, GROUP)).metricValue();
    }
}
