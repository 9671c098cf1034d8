package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.fastleader.clients.producer.ProduceErrorKind;

class FetchErrorKindTest {

    @Test
    void leadershipRefusalsMayCarryAHint() {
        assertThat(FetchErrorKind.of(Errors.NOT_LEADER_OR_FOLLOWER)).isEqualTo(FetchErrorKind.LEADER_MOVED);
        assertThat(FetchErrorKind.of(Errors.FENCED_LEADER_EPOCH)).isEqualTo(FetchErrorKind.LEADER_MOVED);
    }

    @Test
    void aStaleViewOfThePartitionIsALeaderMoveWithoutAHint() {
        assertThat(FetchErrorKind.of(Errors.UNKNOWN_TOPIC_ID)).isEqualTo(FetchErrorKind.LEADER_MOVED);
        assertThat(FetchErrorKind.of(Errors.UNKNOWN_TOPIC_OR_PARTITION)).isEqualTo(FetchErrorKind.LEADER_MOVED);
        assertThat(FetchErrorKind.of(Errors.KAFKA_STORAGE_ERROR)).isEqualTo(FetchErrorKind.LEADER_MOVED);
    }

    @ParameterizedTest
    @EnumSource(Errors.class)
    void anErrorIsALeaderMoveForTheConsumerExactlyWhenItIsOneForTheProducer(Errors error) {
        assertThat(FetchErrorKind.of(error) == FetchErrorKind.LEADER_MOVED)
                .isEqualTo(ProduceErrorKind.of(error) == ProduceErrorKind.LEADER_MOVED);
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
