package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

class TopicUseTest {

    private static final long IDLE_MS = 300_000;

    private final TopicUse topics = new TopicUse(Duration.ofMillis(IDLE_MS));

    @Test
    void testATopicNotUsedForTheIdleTimeExpires() {
        topics.add(List.of("orders"), 1_000);

        assertThat(topics.expire(1_000 + IDLE_MS - 1)).isEmpty();
        assertThat(topics.expire(1_000 + IDLE_MS)).containsExactly("orders");
        assertThat(topics.contains("orders")).isFalse();
    }

    @Test
    void testAUseRestartsTheIdleTimeAtTheNextPass() {
        topics.add(List.of("orders", "payments"), 1_000);

        assertThat(topics.touch("orders")).isTrue();
        assertThat(topics.expire(2_000)).isEmpty();

        assertThat(topics.expire(1_000 + IDLE_MS)).containsExactly("payments");
        assertThat(topics.expire(2_000 + IDLE_MS - 1)).isEmpty();
        assertThat(topics.expire(2_000 + IDLE_MS)).containsExactly("orders");
    }

    @Test
    void testAUseMarkedOnceIdleKeepsTheTopicAtThePassThatWouldHaveExpiredIt() {
        topics.add(List.of("orders"), 1_000);

        assertThat(topics.touch("orders")).isTrue();

        assertThat(topics.expire(1_000 + IDLE_MS)).isEmpty();
        assertThat(topics.expire(1_000 + 2 * IDLE_MS)).containsExactly("orders");
    }

    @Test
    void testAUseOfATopicNotInUseAddsNothing() {
        topics.add(List.of("orders"), 1_000);
        topics.expire(1_000 + IDLE_MS);

        assertThat(topics.touch("orders")).isFalse();
        assertThat(topics.contains("orders")).isFalse();
    }

    @Test
    void testATopicAddedAgainAfterItExpiredCountsItsUsesAnew() {
        topics.add(List.of("orders"), 1_000);
        topics.expire(1_000 + IDLE_MS);
        topics.add(List.of("orders"), 2_000 + IDLE_MS);

        assertThat(topics.touch("orders")).isTrue();
        assertThat(topics.expire(3_000 + IDLE_MS)).isEmpty();

        assertThat(topics.expire(3_000 + 2 * IDLE_MS - 1)).isEmpty();
        assertThat(topics.expire(3_000 + 2 * IDLE_MS)).containsExactly("orders");
    }

    @Test
    void testWithoutIdleExpiryTopicsStayUntilRemoved() {
        TopicUse kept = new TopicUse(MetadataConfig.NO_IDLE_EXPIRY);
        kept.add(List.of("orders"), 1_000);

        assertThat(kept.expire(Long.MAX_VALUE / 2)).isEmpty();
        kept.remove(List.of("orders"));
        assertThat(kept.contains("orders")).isFalse();
    }
}
