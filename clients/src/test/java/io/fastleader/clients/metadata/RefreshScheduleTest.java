package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

class RefreshScheduleTest {

    private static final MetadataConfig CONFIG = new MetadataConfig(Duration.ofMinutes(5), Duration.ofMillis(100),
            Duration.ofMillis(1000), Duration.ofMillis(300), true, MetadataConfig.NO_IDLE_EXPIRY, true,
            MetadataConfig.RecoveryStrategy.REBOOTSTRAP, MetadataConfig.DEFAULT_REBOOTSTRAP_TRIGGER, true,
            MetadataConfig.RESOLVED_AT_CONSTRUCTION);

    private final TopicUse topicsInUse = new TopicUse(MetadataConfig.NO_IDLE_EXPIRY);
    /** The midpoint of the jitter range: every backoff is exactly its base term. */
    private final RefreshSchedule schedule = new RefreshSchedule(CONFIG, topicsInUse, () -> 0.5);

    @Test
    void testNothingIsDueBeforeAnyTopicIsUsed() {
        assertThat(schedule.nextDueMs()).isEqualTo(Long.MAX_VALUE);
        assertThat(schedule.start(1_000)).isNull();
    }

    @Test
    void testNewTopicIsFetchedAtOnce() {
        use("orders");

        RefreshPlan plan = schedule.start(0);

        assertThat(plan.topicsByCause()).isEqualTo(Map.of(RefreshCause.NEW_TOPIC, Set.of("orders")));
    }

    @Test
    void testOnlyOneRequestIsInFlight() {
        use("orders");
        schedule.start(0);

        schedule.refreshNow(RefreshCause.LEADER_ERROR, Set.of("orders"));

        assertThat(schedule.nextDueMs()).isEqualTo(Long.MAX_VALUE);
        assertThat(schedule.start(50)).isNull();
    }

    @Test
    void testRequestsMadeWhileInFlightGoOutTogetherInTheNext() {
        use("orders");
        schedule.start(0);
        schedule.refreshNow(RefreshCause.LEADER_ERROR, Set.of("orders"));
        schedule.refreshNow(RefreshCause.REJECTED_HINT, Set.of("payments"));
        schedule.refreshNow(RefreshCause.LEADER_ERROR, Set.of("audit"));
        schedule.succeeded(10);

        RefreshPlan next = schedule.start(110);

        assertThat(next.topicsByCause()).isEqualTo(Map.of(
                RefreshCause.LEADER_ERROR, Set.of("orders", "audit"),
                RefreshCause.REJECTED_HINT, Set.of("payments")));
        assertThat(next.topics()).containsExactly("audit", "orders", "payments");
    }

    @Test
    void testUrgentRefreshWaitsRetryBackoffAfterLastAnswer() {
        completeFirstRefresh(1_000);

        schedule.refreshNow(RefreshCause.REJECTED_HINT, Set.of("orders"));

        assertThat(schedule.nextDueMs()).isEqualTo(1_100);
        assertThat(schedule.start(1_099)).isNull();
        assertThat(schedule.start(1_100).causes()).containsExactly(RefreshCause.REJECTED_HINT);
    }

    @Test
    void testFailuresBackOffExponentiallyUpToTheMaximum() {
        use("orders");
        List<Long> waits = new ArrayList<>();
        long now = 0;
        for (int failure = 0; failure < 6; failure++) {
            schedule.start(now);
            schedule.failed(now);
            long due = schedule.nextDueMs();
            waits.add(due - now);
            now = due;
        }

        assertThat(waits).containsExactly(100L, 200L, 400L, 800L, 1000L, 1000L);
    }

    @Test
    void testFailedRequestAsksAgainForWhatItCarried() {
        use("orders");
        schedule.start(0);
        schedule.failed(0);

        RefreshPlan retry = schedule.start(100);

        assertThat(retry.topicsByCause()).isEqualTo(Map.of(RefreshCause.NEW_TOPIC, Set.of("orders")));
    }

    @Test
    void testSuccessResetsTheFailureBackoff() {
        use("orders");
        schedule.start(0);
        schedule.failed(0);
        schedule.start(100);
        schedule.failed(100);
        schedule.start(300);
        schedule.succeeded(300);

        schedule.refreshNow(RefreshCause.LEADER_ERROR, Set.of("orders"));

        assertThat(schedule.nextDueMs()).isEqualTo(400);
    }

    @Test
    void testHintConfirmationIsDueAfterTheDelay() {
        completeFirstRefresh(0);

        schedule.confirmLater(Set.of("orders"), 1_000);

        assertThat(schedule.nextDueMs()).isEqualTo(1_300);
        assertThat(schedule.start(1_299)).isNull();
        assertThat(schedule.start(1_300).topicsByCause()).isEqualTo(Map.of(RefreshCause.HINT_CONFIRMATION, Set.of("orders")));
    }

    @Test
    void testConfirmationIsNotRepeatedOnceSent() {
        completeFirstRefresh(0);
        schedule.confirmLater(Set.of("orders"), 1_000);
        schedule.start(1_300);
        schedule.succeeded(1_310);

        assertThat(schedule.nextDueMs()).isEqualTo(1_310 + Duration.ofMinutes(5).toMillis());
    }

    @Test
    void testFailedConfirmationIsRetriedAfterBackoff() {
        completeFirstRefresh(0);
        schedule.confirmLater(Set.of("orders"), 1_000);
        schedule.start(1_300);
        schedule.failed(1_300);

        RefreshPlan retry = schedule.start(1_400);

        assertThat(retry.topicsByCause()).isEqualTo(Map.of(RefreshCause.HINT_CONFIRMATION, Set.of("orders")));
    }

    @Test
    void testEveryTopicInUseIsRefreshedAfterMaxAge() {
        use("orders", "payments");
        schedule.start(0);
        schedule.succeeded(0);
        long maxAge = Duration.ofMinutes(5).toMillis();

        assertThat(schedule.start(maxAge - 1)).isNull();
        RefreshPlan periodic = schedule.start(maxAge);

        assertThat(periodic.topicsByCause()).isEqualTo(Map.of(RefreshCause.PERIODIC, Set.of("orders", "payments")));
    }

    @Test
    void testRemovedTopicLeavesThePeriodicRefresh() {
        use("orders", "payments");
        schedule.start(0);
        schedule.succeeded(0);

        topicsInUse.remove(List.of("payments"));

        assertThat(schedule.start(Duration.ofMinutes(5).toMillis()).topics()).containsExactly("orders");
    }

    @Test
    void testFailedPeriodicRefreshBacksOffInsteadOfLooping() {
        use("orders");
        schedule.start(0);
        schedule.succeeded(0);
        long maxAge = Duration.ofMinutes(5).toMillis();
        schedule.start(maxAge);

        schedule.failed(maxAge);

        assertThat(schedule.nextDueMs()).isEqualTo(maxAge + 100);
    }

    /** Puts topics in use as {@link ClusterMetadata#awaitTopics} does with topics new to it: in use, and asked for at once. */
    private void use(String... topics) {
        topicsInUse.add(List.of(topics), 0);
        schedule.refreshNow(RefreshCause.NEW_TOPIC, List.of(topics));
    }

    private void completeFirstRefresh(long nowMs) {
        use("orders");
        schedule.start(nowMs);
        schedule.succeeded(nowMs);
    }
}
