package io.fastleader.clients.consumer.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.InvalidCommitOffsetSizeException;
import org.apache.kafka.common.errors.OffsetMetadataTooLarge;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.StaleMemberEpochException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.fastleader.protocol.ErrorCode;

class GroupErrorKindTest {

    @ParameterizedTest
    @CsvSource({
        "NONE, NONE, NONE",
        "COORDINATOR_NOT_AVAILABLE, COORDINATOR_MOVED, COORDINATOR_MOVED",
        "NOT_COORDINATOR, COORDINATOR_MOVED, COORDINATOR_MOVED",
        "REQUEST_TIMED_OUT, COORDINATOR_MOVED, COORDINATOR_MOVED",
        "COORDINATOR_LOAD_IN_PROGRESS, RETRIABLE, RETRIABLE",
        "UNKNOWN_TOPIC_OR_PARTITION, RETRIABLE, FATAL",
        "UNSTABLE_OFFSET_COMMIT, RETRIABLE, RETRIABLE",
        "GROUP_AUTHORIZATION_FAILED, FATAL, FATAL",
        "TOPIC_AUTHORIZATION_FAILED, FATAL, FATAL",
        "OFFSET_METADATA_TOO_LARGE, FATAL, FATAL",
        "INVALID_COMMIT_OFFSET_SIZE, FATAL, FATAL",
        "UNKNOWN_MEMBER_ID, FATAL, FATAL",
        "ILLEGAL_GENERATION, FATAL, FATAL",
        "REBALANCE_IN_PROGRESS, FATAL, FATAL",
        "INVALID_REQUEST, FATAL, FATAL",
    })
    void testClassifiesEachErrorOncePerRpc(ErrorCode error, GroupErrorKind commit, GroupErrorKind fetch) {
        assertThat(GroupErrorKind.ofCommit(error, false)).isEqualTo(commit);
        assertThat(GroupErrorKind.ofFetch(error, false)).isEqualTo(fetch);
    }

    @Test
    void testFailsAsKafkaConsumerDoes() {
        TopicPartition partition = new TopicPartition("t", 3);

        assertThat(exception(ErrorCode.GROUP_AUTHORIZATION_FAILED, partition)).isInstanceOf(GroupAuthorizationException.class)
                .satisfies(e -> assertThat(((GroupAuthorizationException) e).groupId()).isEqualTo("g"));
        assertThat(exception(ErrorCode.TOPIC_AUTHORIZATION_FAILED, partition)).isInstanceOf(TopicAuthorizationException.class)
                .satisfies(e -> assertThat(((TopicAuthorizationException) e).unauthorizedTopics()).containsExactlyInAnyOrder("t", "u"));
        assertThat(exception(ErrorCode.OFFSET_METADATA_TOO_LARGE, partition)).isInstanceOf(OffsetMetadataTooLarge.class);
        assertThat(exception(ErrorCode.INVALID_COMMIT_OFFSET_SIZE, partition)).isInstanceOf(InvalidCommitOffsetSizeException.class);
        assertThat(exception(ErrorCode.REBALANCE_IN_PROGRESS, partition)).isInstanceOf(RebalanceInProgressException.class);
        assertThat(exception(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, partition)).isExactlyInstanceOf(KafkaException.class)
                .hasMessageContaining("t-3");
    }

    @Test
    void testAMembersStaleEpochIsRetriedButIsFatalOutsideTheGroup() {
        assertThat(GroupErrorKind.ofCommit(ErrorCode.STALE_MEMBER_EPOCH, true)).isEqualTo(GroupErrorKind.RETRIABLE);
        assertThat(GroupErrorKind.ofFetch(ErrorCode.STALE_MEMBER_EPOCH, true)).isEqualTo(GroupErrorKind.RETRIABLE);
        assertThat(GroupErrorKind.ofCommit(ErrorCode.STALE_MEMBER_EPOCH, false)).isEqualTo(GroupErrorKind.FATAL);
        assertThat(GroupErrorKind.ofCommit(ErrorCode.FENCED_MEMBER_EPOCH, true)).isEqualTo(GroupErrorKind.FATAL);
    }

    @Test
    void testACommitTheCoordinatorDoesNotTakeFromAMemberFailsWithKafkaConsumersMessages() {
        assertThat(GroupErrorKind.commitException(ErrorCode.UNKNOWN_MEMBER_ID, null, "g", null, Set.of()))
                .isExactlyInstanceOf(CommitFailedException.class)
                .hasMessage("OffsetCommit failed with unknown member ID. The coordinator is not aware of this member.");
        assertThat(GroupErrorKind.commitException(ErrorCode.STALE_MEMBER_EPOCH, null, "g", null, Set.of()))
                .isExactlyInstanceOf(CommitFailedException.class)
                .hasMessage("OffsetCommit failed with stale member epoch. " + ErrorCode.STALE_MEMBER_EPOCH.message());
        assertThat(GroupErrorKind.commitException(ErrorCode.FENCED_MEMBER_EPOCH, null, "g", null, Set.of()))
                .isExactlyInstanceOf(CommitFailedException.class)
                .hasMessage("OffsetCommit failed with fenced member epoch. " + ErrorCode.FENCED_MEMBER_EPOCH.message());
    }

    @Test
    void testAnOffsetFetchTheCoordinatorDoesNotTakeFromAMemberFailsWithTheErrorsOwnException() {
        assertThat(exception(ErrorCode.UNKNOWN_MEMBER_ID, null)).isExactlyInstanceOf(UnknownMemberIdException.class);
        assertThat(exception(ErrorCode.STALE_MEMBER_EPOCH, null)).isExactlyInstanceOf(StaleMemberEpochException.class);
    }

    private static RuntimeException exception(ErrorCode error, TopicPartition partition) {
        return GroupErrorKind.exception(error, null, "g", partition, Set.of("t", "u"));
    }
}
