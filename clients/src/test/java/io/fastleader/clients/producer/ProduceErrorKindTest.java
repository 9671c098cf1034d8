package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.fastleader.protocol.ErrorCode;

class ProduceErrorKindTest {

    @ParameterizedTest
    @CsvSource({
        "NONE, WRITTEN",
        "DUPLICATE_SEQUENCE_NUMBER, WRITTEN",
        "NOT_LEADER_OR_FOLLOWER, LEADER_MOVED",
        "FENCED_LEADER_EPOCH, LEADER_MOVED",
        "UNKNOWN_LEADER_EPOCH, RETRIABLE",
        "LEADER_NOT_AVAILABLE, LEADER_MOVED",
        "UNKNOWN_TOPIC_OR_PARTITION, LEADER_MOVED",
        "NOT_ENOUGH_REPLICAS, RETRIABLE",
        "NOT_ENOUGH_REPLICAS_AFTER_APPEND, RETRIABLE",
        "REQUEST_TIMED_OUT, RETRIABLE",
        "CORRUPT_MESSAGE, RETRIABLE",
        "OUT_OF_ORDER_SEQUENCE_NUMBER, OUT_OF_SEQUENCE",
        "UNKNOWN_PRODUCER_ID, OUT_OF_SEQUENCE",
        "INVALID_PRODUCER_EPOCH, SEQUENCE_LOST",
        "MESSAGE_TOO_LARGE, TOO_LARGE",
        "TOPIC_AUTHORIZATION_FAILED, FATAL",
        "INVALID_RECORD, FATAL",
        "RECORD_LIST_TOO_LARGE, FATAL",
        "INVALID_REQUIRED_ACKS, FATAL",
    })
    void testClassifiesEachErrorOnce(ErrorCode error, ProduceErrorKind kind) {
        assertThat(ProduceErrorKind.of(error)).isEqualTo(kind);
    }

    @Test
    void testATopicAuthorizationFailureNamesTheBatchsTopicAsKafkaProducerDoes() {
        RuntimeException failure = ProduceErrorKind.exception(ErrorCode.TOPIC_AUTHORIZATION_FAILED, new TopicPartition("orders", 3), null);

        assertThat(failure).isInstanceOf(TopicAuthorizationException.class).hasMessage("Not authorized to access topics: [orders]");
        assertThat(((TopicAuthorizationException) failure).unauthorizedTopics()).containsExactly("orders");
    }

    @Test
    void testAnyOtherFatalErrorCarriesTheBrokersMessage() {
        assertThat(ProduceErrorKind.exception(ErrorCode.INVALID_RECORD, new TopicPartition("orders", 3), "record 2 has no key"))
            .isInstanceOf(InvalidRecordException.class).hasMessage("record 2 has no key");
    }
}
