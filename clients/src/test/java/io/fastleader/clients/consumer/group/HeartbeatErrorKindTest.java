package io.fastleader.clients.consumer.group;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.GroupMaxSizeReachedException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedAssignorException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.fastleader.protocol.ErrorCode;

class HeartbeatErrorKindTest {

    @ParameterizedTest
    @CsvSource({
        "NONE, NONE",
        "NOT_COORDINATOR, COORDINATOR_MOVED",
        "COORDINATOR_NOT_AVAILABLE, COORDINATOR_MOVED",
        "COORDINATOR_LOAD_IN_PROGRESS, RETRIABLE",
        "REQUEST_TIMED_OUT, RETRIABLE",
        "FENCED_MEMBER_EPOCH, FENCED",
        "UNKNOWN_MEMBER_ID, FENCED",
        "GROUP_AUTHORIZATION_FAILED, FATAL",
        "TOPIC_AUTHORIZATION_FAILED, FATAL",
        "UNSUPPORTED_VERSION, FATAL",
        "INVALID_REQUEST, FATAL",
        "GROUP_MAX_SIZE_REACHED, FATAL",
        "UNSUPPORTED_ASSIGNOR, FATAL",
        "UNRELEASED_INSTANCE_ID, FATAL",
        "FENCED_INSTANCE_ID, FATAL",
        "INVALID_REGULAR_EXPRESSION, FATAL",
    })
    void testClassifiesEachHeartbeatErrorOnce(ErrorCode error, HeartbeatErrorKind kind) {
        assertThat(HeartbeatErrorKind.of(error)).isEqualTo(kind);
    }

    @Test
    void testFailsAsKafkaConsumerDoes() {
        assertThat(HeartbeatErrorKind.exception(ErrorCode.GROUP_AUTHORIZATION_FAILED, null, "g"))
                .isInstanceOfSatisfying(GroupAuthorizationException.class, e -> assertThat(e.groupId()).isEqualTo("g"));
        assertThat(HeartbeatErrorKind.exception(ErrorCode.TOPIC_AUTHORIZATION_FAILED, "", "g"))
                .isInstanceOf(TopicAuthorizationException.class).hasMessageContaining("group g");
        assertThat(HeartbeatErrorKind.exception(ErrorCode.GROUP_MAX_SIZE_REACHED, "the group is full", "g"))
                .isInstanceOf(GroupMaxSizeReachedException.class).hasMessage("the group is full");
        assertThat(HeartbeatErrorKind.exception(ErrorCode.UNSUPPORTED_ASSIGNOR, null, "g")).isInstanceOf(UnsupportedAssignorException.class);
        assertThat(HeartbeatErrorKind.exception(ErrorCode.FENCED_INSTANCE_ID, null, "g")).isInstanceOf(FencedInstanceIdException.class);
    }

    @Test
    void testAClusterWithoutTheConsumerGroupProtocolIsToldWhatItNeeds() {
        assertThat(HeartbeatErrorKind.exception(ErrorCode.UNSUPPORTED_VERSION, "not enabled", "g"))
                .isInstanceOf(UnsupportedVersionException.class)
                .hasMessageContaining("group g")
                .hasMessageContaining("Kafka 4.0")
                .hasMessageContaining("group.coordinator.rebalance.protocols")
                .hasMessageEndingWith("not enabled");
    }
}
