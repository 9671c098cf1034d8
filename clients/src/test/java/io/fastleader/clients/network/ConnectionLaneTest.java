package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.fastleader.protocol.ApiKey;
import org.junit.jupiter.api.Test;

class ConnectionLaneTest {

    @Test
    void onlyFetchRequestsTakeTheFetchLane() {
        assertThat(Arrays.stream(ApiKey.values()).filter(api -> ConnectionLane.of(api) == ConnectionLane.FETCH))
            .containsExactly(ApiKey.FETCH);
    }

    @Test
    void onlyJoinGroupAndSyncGroupTakeTheRebalanceLane() {
        assertThat(Arrays.stream(ApiKey.values()).filter(api -> ConnectionLane.of(api) == ConnectionLane.REBALANCE))
            .containsExactlyInAnyOrder(ApiKey.JOIN_GROUP, ApiKey.SYNC_GROUP);
    }

    @Test
    void adminApisTakeTheOrdinaryLane() {
        assertThat(Stream.of(ApiKey.CREATE_TOPICS, ApiKey.DELETE_TOPICS, ApiKey.DESCRIBE_CONFIGS, ApiKey.ELECT_LEADERS,
                ApiKey.ALTER_PARTITION_REASSIGNMENTS, ApiKey.LIST_PARTITION_REASSIGNMENTS).map(ConnectionLane::of))
            .containsOnly(ConnectionLane.OTHER);
    }

    @Test
    void onlyTheRebalanceLaneIsNotConnectedAheadOfNeed() {
        assertThat(Arrays.stream(ConnectionLane.values()).filter(lane -> !lane.connectedAheadOfNeed()))
            .containsExactly(ConnectionLane.REBALANCE);
    }

    @Test
    void everyRequestOfALaneHasTheSameTimeout() {
        ConnectionConfig config = ConnectionConfig.defaults("test-client").withRebalanceRequestTimeout(Duration.ofMinutes(5));

        assertThat(Arrays.stream(ApiKey.values()).collect(Collectors.groupingBy(ConnectionLane::of,
                Collectors.mapping(config::requestTimeoutFor, Collectors.toSet()))))
            .allSatisfy((lane, timeouts) -> assertThat(timeouts).as(lane.name()).hasSize(1));
    }
}
