package io.fastleader.it.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.ApiVersionsRequestData;
import io.fastleader.protocol.message.InitProducerIdRequestData;
import io.fastleader.protocol.message.InitProducerIdResponseData;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Each fault commanded on a simulated cluster, as a bare socket sees it. */
class SimulatedClusterFaultWireTest {

    private static final String TOPIC = "faults";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);

    @Test
    void stopBrokerMovesItsLeadershipThenClosesItsConnectionsAndUnlistsIt() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            cluster.createTopic(TOPIC, 3, 3); // partition p led by broker p, replicas p, p+1, p+2
            String address = cluster.brokerAddress(0);
            try (WireConnection toStopped = new WireConnection(cluster, 0, "wire");
                 WireConnection toOther = new WireConnection(cluster, 1, "wire")) {
                assertThat(toStopped.metadata(TOPIC).brokers()).hasSize(3);

                assertThat(cluster.stopBroker(0)).containsExactly(Map.entry(P0, 1));
                assertThat(toStopped.closedByBroker()).isTrue();
                assertThatThrownBy(() -> new WireConnection(cluster, 0, "wire")).isInstanceOf(ConnectException.class);
                assertThat(cluster.isRunning(0)).isFalse();
                MetadataResponseData metadata = toOther.metadata(TOPIC);
                assertThat(metadata.brokers()).extracting(b -> b.nodeId()).containsExactlyInAnyOrder(1, 2);
                assertThat(metadata.topics().find(TOPIC).partitions())
                    .extracting(p -> p.leaderId(), p -> p.leaderEpoch())
                    .containsExactly(tuple(1, 1), tuple(1, 0), tuple(2, 0));
            }

            cluster.startBroker(0);
            assertThat(cluster.brokerAddress(0)).isEqualTo(address);
            try (WireConnection restarted = new WireConnection(cluster, 0, "wire")) {
                MetadataResponseData metadata = restarted.metadata(TOPIC);
                assertThat(metadata.brokers()).hasSize(3);
                assertThat(metadata.topics().find(TOPIC).partitions()).extracting(p -> p.leaderId()).doesNotContain(0);
                assertThat(restarted.produce(TOPIC, 0, "x").errorCode()).isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER.code());
            }
            assertThat(cluster.moveLeader(P0, 0)).as("a restarted broker leads once moved").isEqualTo(2);
        }
    }

    @Test
    void stoppingThePartitionsLastRunningReplicaLeavesItWithoutALeader() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2)) {
            cluster.createTopic(TOPIC, 1, 2);
            assertThat(cluster.stopBroker(1)).isEmpty();
            assertThat(cluster.stopBroker(0)).containsExactly(Map.entry(P0, 1));
            assertThat(cluster.leader(P0)).isEqualTo(-1);
            assertThatThrownBy(() -> cluster.moveLeader(P0, 0)).as("a stopped broker cannot lead")
                .isInstanceOf(IllegalArgumentException.class);
            cluster.startBroker(0);
            assertThat(cluster.moveLeader(P0, 0)).isEqualTo(2);
        }
    }

    @Test
    void aKilledBrokerStaysListedAndLeadingUntilFailOver() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(3)) {
            cluster.createTopic(TOPIC, 3, 3);
            try (WireConnection toKilled = new WireConnection(cluster, 0, "wire");
                 WireConnection toOther = new WireConnection(cluster, 2, "wire")) {
                toKilled.sendProduce(TOPIC, 0, "before");
                toKilled.receive(ApiKey.PRODUCE, (short) 12);
                cluster.dropAnswers(0, ApiKey.PRODUCE, 1);
                toKilled.sendProduce(TOPIC, 0, "unanswered");
                Conditions.await("the second Produce served", () -> cluster.highWatermark(P0) == 2);

                cluster.killBroker(0);
                assertThat(toKilled.closedByBroker()).as("a request in progress is not answered").isTrue();
                assertThatThrownBy(() -> new WireConnection(cluster, 0, "wire")).isInstanceOf(ConnectException.class);
                MetadataResponseData unnoticed = toOther.metadata(TOPIC);
                assertThat(unnoticed.brokers()).as("the controller has not noticed").hasSize(3);
                assertThat(unnoticed.topics().find(TOPIC).partitions().get(0).leaderId()).isZero();
                assertThat(cluster.leaderEpoch(P0)).isZero();

                assertThat(cluster.failOver(0)).containsExactly(Map.entry(P0, 1));
                MetadataResponseData noticed = toOther.metadata(TOPIC);
                assertThat(noticed.brokers()).extracting(b -> b.nodeId()).containsExactlyInAnyOrder(1, 2);
                assertThat(noticed.topics().find(TOPIC).partitions().get(0).leaderId()).isEqualTo(1);
            }
            try (WireConnection newLeader = new WireConnection(cluster, 1, "wire")) {
                assertThat(newLeader.produce(TOPIC, 0, "after").baseOffset()).isEqualTo(2);
            }
            assertThat(cluster.records(P0)).extracting(LoggedRecord::valueString, LoggedRecord::leaderEpoch)
                .containsExactly(tuple("before", 0), tuple("unanswered", 0), tuple("after", 1));
            assertThatThrownBy(() -> cluster.failOver(0)).isInstanceOf(IllegalStateException.class);
            cluster.startBroker(0);
            assertThat(cluster.isRunning(0)).isTrue();
        }
    }

    @Test
    void aKilledBrokerRestartedBeforeFailOverStillLeads() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2)) {
            cluster.createTopic(TOPIC, 1, 2);
            cluster.killBroker(0);
            cluster.startBroker(0);
            try (WireConnection leader = new WireConnection(cluster, 0, "wire")) {
                assertThat(leader.produce(TOPIC, 0, "x").errorCode()).isZero();
            }
            assertThat(cluster.leaderEpoch(P0)).isZero();
        }
    }

    @Test
    void staleMetadataAnswersFromTheSnapshotTakenAtTheCallUntilCleared() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(3);
             WireConnection stale = new WireConnection(cluster, 1, "wire");
             WireConnection fresh = new WireConnection(cluster, 2, "wire")) {
            cluster.createTopic(TOPIC, 1, 3);
            cluster.staleMetadata(1);
            cluster.moveLeader(P0, 2);
            cluster.createTopic("later", 1, 1);

            MetadataResponseData old = stale.metadata(TOPIC, "later");
            assertThat(old.topics().find(TOPIC).partitions().get(0)).extracting(p -> p.leaderId(), p -> p.leaderEpoch())
                .containsExactly(0, 0);
            assertThat(old.topics().find("later").errorCode()).isEqualTo(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code());
            assertThat(fresh.metadata(TOPIC).topics().find(TOPIC).partitions().get(0).leaderId()).isEqualTo(2);

            cluster.freshMetadata(1);
            assertThat(stale.metadata(TOPIC).topics().find(TOPIC).partitions().get(0).leaderEpoch()).isEqualTo(1);
            assertThat(cluster.requestLog()).extracting(LoggedRequest::brokerId, LoggedRequest::faults).containsExactly(
                tuple(1, Set.of(LoggedRequest.Fault.STALE_METADATA)), tuple(2, Set.of()), tuple(1, Set.of()));
        }
    }

    @Test
    void staleMetadataForADurationEndsWhenItRunsOut() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2); WireConnection wire = new WireConnection(cluster, 1, "wire")) {
            cluster.createTopic(TOPIC, 1, 2);
            cluster.staleMetadata(1, Duration.ofHours(1));
            cluster.moveLeader(P0, 1);
            assertThat(wire.metadata(TOPIC).topics().find(TOPIC).partitions().get(0).leaderId()).isZero();
            cluster.staleMetadata(1, Duration.ZERO); // a new snapshot, already run out
            assertThat(wire.metadata(TOPIC).topics().find(TOPIC).partitions().get(0).leaderId()).isEqualTo(1);
        }
    }

    @Test
    void aDelayedAnswerKeepsTheConnectionsOrder() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "wire")) {
            cluster.delay(0, ApiKey.METADATA, Duration.ofMillis(100));
            int metadata = wire.send(ApiKey.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
            int apiVersions = wire.send(ApiKey.API_VERSIONS, (short) 3, new ApiVersionsRequestData()
                .setClientSoftwareName("wire").setClientSoftwareVersion("1"));
            assertThat(wire.receive(ApiKey.METADATA, (short) 12).correlationId()).isEqualTo(metadata);
            assertThat(wire.receive(ApiKey.API_VERSIONS, (short) 3).correlationId()).isEqualTo(apiVersions);
            assertThat(cluster.requestLog()).extracting(LoggedRequest::api, LoggedRequest::faults).containsExactly(
                tuple(ApiKey.METADATA, Set.of(LoggedRequest.Fault.ANSWER_DELAYED)), tuple(ApiKey.API_VERSIONS, Set.of()));

            cluster.delay(0, ApiKey.METADATA, Duration.ZERO);
            wire.send(ApiKey.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
            wire.receive(ApiKey.METADATA, (short) 12);
            assertThat(cluster.requestLog().get(2).faults()).isEmpty();
        }
    }

    @Test
    void aDroppedAnswerIsServedAndLeavesItsConnectionOpenAndSilent() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1);
             WireConnection dropped = new WireConnection(cluster, 0, "dropped");
             WireConnection other = new WireConnection(cluster, 0, "other")) {
            cluster.createTopic(TOPIC, 1, 1);
            cluster.dropAnswers(0, ApiKey.PRODUCE, 1);
            dropped.sendProduce(TOPIC, 0, "served");
            dropped.send(ApiKey.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
            Conditions.await("the Produce served", () -> cluster.highWatermark(P0) == 1);

            assertThat(other.produce(TOPIC, 0, "answered").baseOffset()).as("the next Produce is answered").isEqualTo(1);
            assertThat(dropped.silentFor(200)).isTrue();
            assertThat(cluster.requestLog()).extracting(LoggedRequest::clientId, LoggedRequest::api, LoggedRequest::faults)
                .as("the Metadata behind the dropped answer is not served").containsExactly(
                    tuple("dropped", ApiKey.PRODUCE, Set.of(LoggedRequest.Fault.ANSWER_DROPPED)),
                    tuple("other", ApiKey.PRODUCE, Set.of()));
        }
    }

    @Test
    void anInjectedErrorAnswersTheNextRequestsWithoutServingThem() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(1); WireConnection wire = new WireConnection(cluster, 0, "wire")) {
            cluster.createTopic(TOPIC, 1, 1);
            cluster.injectError(0, ApiKey.PRODUCE, ErrorCode.NOT_ENOUGH_REPLICAS, 2);
            cluster.injectError(0, ApiKey.METADATA, ErrorCode.LEADER_NOT_AVAILABLE, 1);
            cluster.injectError(0, ApiKey.INIT_PRODUCER_ID, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, 1);

            assertThat(wire.produce(TOPIC, 0, "a").errorCode()).isEqualTo(ErrorCode.NOT_ENOUGH_REPLICAS.code());
            assertThat(wire.produce(TOPIC, 0, "b").errorCode()).isEqualTo(ErrorCode.NOT_ENOUGH_REPLICAS.code());
            assertThat(wire.produce(TOPIC, 0, "c").baseOffset()).isZero();
            assertThat(cluster.records(P0)).extracting(LoggedRecord::valueString).containsExactly("c");

            MetadataResponseTopic refused = wire.metadata(TOPIC).topics().find(TOPIC);
            assertThat(refused.errorCode()).isEqualTo(ErrorCode.LEADER_NOT_AVAILABLE.code());
            assertThat(wire.metadata(TOPIC).topics().find(TOPIC).errorCode()).isZero();

            InitProducerIdResponseData init = (InitProducerIdResponseData) wire.call(ApiKey.INIT_PRODUCER_ID, (short) 4,
                new InitProducerIdRequestData().setTransactionTimeoutMs(60_000).setProducerId(-1).setProducerEpoch((short) -1));
            assertThat(init.errorCode()).isEqualTo(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code());
            assertThat(init.producerId()).isEqualTo(-1);
            assertThat(cluster.requestLog()).filteredOn(r -> r.faults().contains(LoggedRequest.Fault.ERROR_INJECTED))
                .extracting(LoggedRequest::api)
                .containsExactly(ApiKey.PRODUCE, ApiKey.PRODUCE, ApiKey.METADATA, ApiKey.INIT_PRODUCER_ID);
        }
    }

    @Test
    void anErrorCannotBeInjectedIntoAnApiWithoutAnErrorAnswer() {
        try (SimulatedCluster cluster = SimulatedCluster.start(1)) {
            assertThatThrownBy(() -> cluster.injectError(0, ApiKey.SASL_HANDSHAKE, ErrorCode.ILLEGAL_SASL_STATE, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SaslHandshake");
            assertThatThrownBy(() -> cluster.injectError(0, ApiKey.PRODUCE, ErrorCode.NONE, 1))
                .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> cluster.injectError(5, ApiKey.PRODUCE, ErrorCode.NOT_LEADER_OR_FOLLOWER, 1))
                .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void theRequestLogListsEachRequestsBrokerApiVersionClientAndCorrelationIdInOrder() throws IOException {
        try (SimulatedCluster cluster = SimulatedCluster.start(2);
             WireConnection first = new WireConnection(cluster, 0, "first");
             WireConnection second = new WireConnection(cluster, 1, "second")) {
            first.call(ApiKey.API_VERSIONS, (short) 3, new ApiVersionsRequestData().setClientSoftwareName("w").setClientSoftwareVersion("1"));
            second.metadata();
            first.metadata();
            assertThat(cluster.requestLog())
                .extracting(LoggedRequest::brokerId, LoggedRequest::api, LoggedRequest::version, LoggedRequest::clientId,
                    LoggedRequest::correlationId)
                .containsExactly(
                    tuple(0, ApiKey.API_VERSIONS, (short) 3, "first", 1),
                    tuple(1, ApiKey.METADATA, (short) 12, "second", 1),
                    tuple(0, ApiKey.METADATA, (short) 12, "first", 2));
            cluster.clearRequestLog();
            assertThat(cluster.requestLog()).isEmpty();
        }
    }

    @Test
    void theRequestLogKeepsTheLastRequestsUpToItsCapacity() throws IOException {
        for (int capacity : new int[] {0, 2}) {
            try (SimulatedCluster cluster = SimulatedCluster.builder().requestLogCapacity(capacity).start();
                 WireConnection wire = new WireConnection(cluster, 0, "wire")) {
                for (int i = 0; i < 3; i++) {
                    wire.metadata();
                }
                assertThat(cluster.requestLog()).extracting(LoggedRequest::correlationId)
                    .as("capacity %d", capacity).containsExactlyElementsOf(capacity == 0 ? List.of() : List.of(2, 3));
            }
        }
    }
}
