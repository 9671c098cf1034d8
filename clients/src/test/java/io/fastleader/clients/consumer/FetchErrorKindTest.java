package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class FetchErrorKindTest {

    @Test
    void leadershipRefusalsMayCarryAHint() {
        assertThat(FetchErrorKind.of(Errors.NOT_LEADER_OR_FOLLOWER)).isEqualTo(FetchErrorKind.LEADER_MOVED);
        assertThat(FetchErrorKind.of(Errors.FENCED_LEADER_EPOCH)).isEqualTo(FetchErrorKind.LEADER_MOVED);
    }

    @Test
    void aStaleViewOfThePartitionRefreshesMetadata() {
        assertThat(FetchErrorKind.of(Errors.UNKNOWN_TOPIC_ID)).isEqualTo(FetchErrorKind.STALE_METADATA);
        assertThat(FetchErrorKind.of(Errors.UNKNOWN_TOPIC_OR_PARTITION)).isEqualTo(FetchErrorKind.STALE_METADATA);
        assertThat(FetchErrorKind.of(Errors.KAFKA_STORAGE_ERROR)).isEqualTo(FetchErrorKind.STALE_METADATA);
    }

    @Test
    void aBrokerBehindTheClientIsRetriedWithoutRefreshing() {
        assertThat(FetchErrorKind.of(Errors.UNKNOWN_LEADER_EPOCH)).isEqualTo(FetchErrorKind.RETRY_LATER);
        assertThat(FetchErrorKind.of(Errors.OFFSET_NOT_AVAILABLE)).isEqualTo(FetchErrorKind.RETRY_LATER);
    }

    @Test
    void anyOtherRetriableErrorIsRetriedAndAnyOtherErrorIsRaised() {
        assertThat(FetchErrorKind.of(Errors.THROTTLING_QUOTA_EXCEEDED)).isEqualTo(FetchErrorKind.RETRY_LATER);
        assertThat(FetchErrorKind.of(Errors.TOPIC_AUTHORIZATION_FAILED)).isEqualTo(FetchErrorKind.FATAL);
        assertThat(FetchErrorKind.of(Errors.OFFSET_OUT_OF_RANGE)).isEqualTo(FetchErrorKind.OFFSET_OUT_OF_RANGE);
    }
}
