package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.fastleader.protocol.ErrorCode;

class ListOffsetsErrorKindTest {

    @ParameterizedTest
    @CsvSource({
        "NONE, FOUND",
        "UNSUPPORTED_FOR_MESSAGE_FORMAT, NOT_FOUND",
        "NOT_LEADER_OR_FOLLOWER, LEADER_MOVED",
        "FENCED_LEADER_EPOCH, LEADER_MOVED",
        "LEADER_NOT_AVAILABLE, LEADER_MOVED",
        "UNKNOWN_TOPIC_OR_PARTITION, LEADER_MOVED",
        "REPLICA_NOT_AVAILABLE, LEADER_MOVED",
        "KAFKA_STORAGE_ERROR, LEADER_MOVED",
        "UNKNOWN_LEADER_EPOCH, RETRIABLE",
        "OFFSET_NOT_AVAILABLE, RETRIABLE",
        "REQUEST_TIMED_OUT, RETRIABLE",
        "TOPIC_AUTHORIZATION_FAILED, FATAL",
        "INVALID_REQUEST, FATAL",
        "UNKNOWN_SERVER_ERROR, FATAL",
    })
    void testClassifiesEachErrorOnce(ErrorCode error, ListOffsetsErrorKind kind) {
        assertThat(ListOffsetsErrorKind.of(error)).isEqualTo(kind);
    }
}
