package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.fastleader.clients.producer.ProduceErrorKind;
import io.fastleader.protocol.ErrorCode;

class FetchErrorKindTest {

    @Test
    void leadershipRefusalsMayCarryAHint() {
        assertThat(FetchErrorKind.of(ErrorCode.NOT_LEADER_OR_FOLLOWER)).isEqualTo(FetchErrorKind.LEADER_MOVED);
        assertThat(FetchErrorKind.of(ErrorCode.FENCED_LEADER_EPOCH)).isEqualTo(FetchErrorKind.LEADER_MOVED);
    }

    @Test
    void aStaleViewOfThePartitionIsALeaderMoveWithoutAHint() {
        assertThat(FetchErrorKind.of(ErrorCode.UNKNOWN_TOPIC_ID)).isEqualTo(FetchErrorKind.LEADER_MOVED);
        assertThat(FetchErrorKind.of(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)).isEqualTo(FetchErrorKind.LEADER_MOVED);
        assertThat(FetchErrorKind.of(ErrorCode.KAFKA_STORAGE_ERROR)).isEqualTo(FetchErrorKind.LEADER_MOVED);
    }

    @ParameterizedTest
    @EnumSource(ErrorCode.class)
    void anErrorIsALeaderMoveForTheConsumerExactlyWhenItIsOneForTheProducer(ErrorCode error) {
        assertThat(FetchErrorKind.of(error) == FetchErrorKind.LEADER_MOVED)
                .isEqualTo(ProduceErrorKind.of(error) == ProduceErrorKind.LEADER_MOVED);
    }

    @Test
    void aBrokerBehindTheClientIsRetriedWithoutRefreshing() {
        assertThat(FetchErrorKind.of(ErrorCode.UNKNOWN_LEADER_EPOCH)).isEqualTo(FetchErrorKind.RETRY_LATER);
        assertThat(FetchErrorKind.of(ErrorCode.OFFSET_NOT_AVAILABLE)).isEqualTo(FetchErrorKind.RETRY_LATER);
    }

    @Test
    void anyOtherRetriableErrorIsRetriedAndAnyOtherErrorIsRaised() {
        assertThat(FetchErrorKind.of(ErrorCode.THROTTLING_QUOTA_EXCEEDED)).isEqualTo(FetchErrorKind.RETRY_LATER);
        assertThat(FetchErrorKind.of(ErrorCode.TOPIC_AUTHORIZATION_FAILED)).isEqualTo(FetchErrorKind.FATAL);
        assertThat(FetchErrorKind.of(ErrorCode.OFFSET_OUT_OF_RANGE)).isEqualTo(FetchErrorKind.OFFSET_OUT_OF_RANGE);
    }

    @Test
    void testATopicAuthorizationFailureNamesTheTopicAsKafkaConsumerDoes() {
        RuntimeException failure = FetchErrorKind.exception(ErrorCode.TOPIC_AUTHORIZATION_FAILED, new TopicPartition("orders", 3));

        assertThat(failure).isInstanceOf(TopicAuthorizationException.class).hasMessage("Not authorized to access topics: [orders]");
        assertThat(((TopicAuthorizationException) failure).unauthorizedTopics()).containsExactly("orders");
    }
}
