package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageUtil;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.metadata.Coordinator.Answer;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.FindCoordinatorRequestData;
import io.fastleader.protocol.message.FindCoordinatorResponseData;

class CoordinatorTest {

    @Test
    void testAsksForOneKeyInTheSingleLayoutBeforeV4AndTheBatchedOneFrom() {
        for (short version = ApiKey.FIND_COORDINATOR.lowestVersion(); version <= ApiKey.FIND_COORDINATOR.highestVersion(); version++) {
            FindCoordinatorRequestData request = (FindCoordinatorRequestData) Coordinator.request(Coordinator.KeyType.GROUP, "g").at(version);

            assertThat(request.keyType()).isEqualTo((byte) 0);
            if (version >= 4) {
                assertThat(request.coordinatorKeys()).containsExactly("g");
            } else {
                assertThat(request.key()).isEqualTo("g");
            }
            assertSerializable(request, version);
        }
    }

    @Test
    void testReadsTheKeysCoordinatorFromEitherLayout() {
        FindCoordinatorResponseData single = new FindCoordinatorResponseData().setNodeId(2).setHost("h").setPort(9092);
        FindCoordinatorResponseData batched = new FindCoordinatorResponseData().setCoordinators(List.of(
                new FindCoordinatorResponseData.Coordinator().setKey("other").setNodeId(1),
                new FindCoordinatorResponseData.Coordinator().setKey("g").setNodeId(3),
                new FindCoordinatorResponseData.Coordinator().setKey("g2").setNodeId(-1)
                        .setErrorCode(ErrorCode.COORDINATOR_NOT_AVAILABLE.code()).setErrorMessage("loading")));

        assertThat(Coordinator.answerFor(single, "g")).isEqualTo(new Answer(2, ErrorCode.NONE, ""));
        assertThat(Coordinator.answerFor(batched, "g")).isEqualTo(new Answer(3, ErrorCode.NONE, ""));
        assertThat(Coordinator.answerFor(batched, "g2")).isEqualTo(new Answer(-1, ErrorCode.COORDINATOR_NOT_AVAILABLE, "loading"));
        assertThat(Coordinator.answerFor(batched, "missing").error()).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }

    @Test
    void testAsksForATransactionalIdWithTheTransactionKeyType() {
        FindCoordinatorRequestData request = (FindCoordinatorRequestData) Coordinator.request(Coordinator.KeyType.TRANSACTION, "txn")
                .at(ApiKey.FIND_COORDINATOR.highestVersion());

        assertThat(request.keyType()).isEqualTo((byte) 1);
        assertThat(request.coordinatorKeys()).containsExactly("txn");
    }

    @Test
    void testAsksTheKnownBrokersInTurnAsLookupsFail() {
        assertThat(Coordinator.brokerToAsk(List.of(3, 1, 2), 0, Coordinator.UNKNOWN)).isEqualTo(1);
        assertThat(Coordinator.brokerToAsk(List.of(3, 1, 2), 1, Coordinator.UNKNOWN)).isEqualTo(2);
        assertThat(Coordinator.brokerToAsk(List.of(3, 1, 2), 3, Coordinator.UNKNOWN)).isEqualTo(1);
        assertThat(Coordinator.brokerToAsk(List.of(), 0, Coordinator.UNKNOWN)).isEqualTo(Coordinator.UNKNOWN);
    }

    @Test
    void testSkipsTheCoordinatorJustFoundGoneWhileAnotherBrokerIsKnown() {
        assertThat(Coordinator.brokerToAsk(List.of(0, 1, 2), 0, 0)).isEqualTo(1);
        assertThat(Coordinator.brokerToAsk(List.of(0, 1, 2), 1, 0)).isEqualTo(2);
        assertThat(Coordinator.brokerToAsk(List.of(0), 0, 0)).as("the only broker known").isEqualTo(0);
    }

    private static void assertSerializable(ApiMessage message, short version) {
        assertThat(MessageUtil.toByteBufferAccessor(message, version).buffer().remaining()).as("written at v%d", version).isPositive();
    }
}
