package io.fastleader.clients.consumer.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.GroupMaxSizeReachedException;
import org.apache.kafka.common.errors.InconsistentGroupProtocolException;
import org.apache.kafka.common.errors.InvalidSessionTimeoutException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import io.fastleader.protocol.ErrorCode;

class ClassicErrorKindTest {

    /** The errors {@code AbstractCoordinator} handles by name; every other one by whether it is retriable. */
    private static final Map<ErrorCode, ClassicErrorKind> NAMED = Map.of(
            ErrorCode.NONE, ClassicErrorKind.NONE,
            ErrorCode.NOT_COORDINATOR, ClassicErrorKind.COORDINATOR_MOVED,
            ErrorCode.COORDINATOR_NOT_AVAILABLE, ClassicErrorKind.COORDINATOR_MOVED,
            ErrorCode.REBALANCE_IN_PROGRESS, ClassicErrorKind.REBALANCING,
            ErrorCode.MEMBER_ID_REQUIRED, ClassicErrorKind.MEMBER_ID_REQUIRED,
            ErrorCode.ILLEGAL_GENERATION, ClassicErrorKind.FENCED,
            ErrorCode.UNKNOWN_MEMBER_ID, ClassicErrorKind.FENCED);

    @ParameterizedTest
    @CsvSource({
        "NONE, NONE",
        "NOT_COORDINATOR, COORDINATOR_MOVED",
        "COORDINATOR_NOT_AVAILABLE, COORDINATOR_MOVED",
        "COORDINATOR_LOAD_IN_PROGRESS, RETRIABLE",
        "REQUEST_TIMED_OUT, RETRIABLE",
        "NETWORK_EXCEPTION, RETRIABLE",
        "REBALANCE_IN_PROGRESS, REBALANCING",
        "MEMBER_ID_REQUIRED, MEMBER_ID_REQUIRED",
        "ILLEGAL_GENERATION, FENCED",
        "UNKNOWN_MEMBER_ID, FENCED",
        "FENCED_INSTANCE_ID, FATAL",
        "GROUP_AUTHORIZATION_FAILED, FATAL",
        "INCONSISTENT_GROUP_PROTOCOL, FATAL",
        "INVALID_SESSION_TIMEOUT, FATAL",
        "INVALID_GROUP_ID, FATAL",
        "GROUP_MAX_SIZE_REACHED, FATAL",
        "UNSUPPORTED_VERSION, FATAL",
        "UNKNOWN_SERVER_ERROR, FATAL",
        "UNRELEASED_INSTANCE_ID, FATAL",
    })
    void testClassifiesEachErrorAsKafkasCoordinatorHandlesIt(ErrorCode error, ClassicErrorKind kind) {
        assertThat(ClassicErrorKind.of(error)).isEqualTo(kind);
    }

    @ParameterizedTest
    @EnumSource(ErrorCode.class)
    void testEveryErrorCodeIsClassifiedRetriableOnesAsRetriableTheRestAsFatal(ErrorCode error) {
        ClassicErrorKind expected = NAMED.getOrDefault(error, error.isRetriable() ? ClassicErrorKind.RETRIABLE : ClassicErrorKind.FATAL);

        assertThat(ClassicErrorKind.of(error)).isEqualTo(expected);
    }

    @Test
    void testFailsAsKafkaConsumerDoes() {
        assertThat(ClassicErrorKind.exception(ErrorCode.GROUP_AUTHORIZATION_FAILED, null, "g"))
                .isInstanceOfSatisfying(GroupAuthorizationException.class, e -> assertThat(e.groupId()).isEqualTo("g"));
        assertThat(ClassicErrorKind.exception(ErrorCode.FENCED_INSTANCE_ID, null, "g")).isInstanceOf(FencedInstanceIdException.class);
        assertThat(ClassicErrorKind.exception(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, "", "g"))
                .isInstanceOf(InconsistentGroupProtocolException.class);
        assertThat(ClassicErrorKind.exception(ErrorCode.INVALID_SESSION_TIMEOUT, null, "g"))
                .isInstanceOf(InvalidSessionTimeoutException.class);
        assertThat(ClassicErrorKind.exception(ErrorCode.UNKNOWN_SERVER_ERROR, null, "g")).isInstanceOf(UnknownServerException.class);
    }

    @Test
    void testTheBrokersMessageIsKeptWhenItSentOne() {
        assertThat(ClassicErrorKind.exception(ErrorCode.GROUP_MAX_SIZE_REACHED, "the group is full", "g"))
                .isInstanceOf(GroupMaxSizeReachedException.class).hasMessage("the group is full");
        assertThat(ClassicErrorKind.exception(ErrorCode.GROUP_MAX_SIZE_REACHED, null, "g"))
                .hasMessage(ErrorCode.GROUP_MAX_SIZE_REACHED.message());
    }
}
