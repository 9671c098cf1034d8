package io.fastleader.it.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.LeaderMoves;
import io.fastleader.clients.metadata.MetadataConfig;
import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.clients.metadata.PartitionLeadership;
import io.fastleader.clients.network.ConnectionConfig;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.PoolConfig;
import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceResponseData;
import io.fastleader.protocol.message.ProduceResponseData.PartitionProduceResponse;

/** {@link ClusterMetadata} keeping its leader cache current against a real Kafka 4.3.1 cluster. */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ClusterMetadataOnRealBrokersTest {

    private final Metrics metrics = new Metrics();
    private ConnectionPool pool;
    private ClusterMetadata metadata;

    @AfterEach
    void close() {
        if (metadata != null) {
            metadata.close();
        }
        if (pool != null) {
            pool.close();
        }
        metrics.close();
    }

    @Test
    void learnsEveryPartitionsLeaderAndReplicas(@Cluster(execution = Execution.IN_JVM) KafkaTestCluster cluster) throws Exception {
        TopicDescription topic;
        try (Disturbances disturbances = new Disturbances(cluster)) {
            topic = disturbances.createTopic(new NewTopic("described", 6, (short) 3));
        }
        start(cluster);

        metadata.awaitTopics(List.of("described")).get(30, TimeUnit.SECONDS);

        assertThat(metadata.cache().topicId("described")).contains(topic.topicId());
        assertThat(metadata.cache().partitionCount("described")).isEqualTo(6);
        for (TopicPartitionInfo partition : topic.partitions()) {
            PartitionLeadership leadership = metadata.cache().leadership(new TopicPartition("described", partition.partition()));
            assertThat(leadership.leaderId()).isEqualTo(partition.leader().id());
            assertThat(leadership.replicas()).containsExactlyElementsOf(partition.replicas().stream().map(Node::id).toList());
            assertThat(leadership.leaderEpoch()).isGreaterThanOrEqualTo(0);
        }
        assertThat(metadata.cache().nodes().keySet()).containsExactlyInAnyOrderElementsOf(cluster.brokerIds());

        double requestsBefore = metric("metadata-requests-total", Map.of());
        metadata.describeAllTopics().get(30, TimeUnit.SECONDS);
        assertThat(metric("metadata-requests-total", Map.of())).isEqualTo(requestsBefore + 1);
    }

    @Test
    void followsARealBrokersHintAtOnceAndConfirmsItByOneTargetedRefresh(
            @Cluster(execution = Execution.IN_JVM) KafkaTestCluster cluster) throws Exception {
        TopicPartition partition = new TopicPartition("moving", 0);
        try (Disturbances disturbances = new Disturbances(cluster)) {
            TopicDescription created = disturbances.createTopic(new NewTopic("moving", 1, (short) 3));
            start(cluster);
            metadata.awaitTopics(List.of("moving")).get(30, TimeUnit.SECONDS);
            PartitionLeadership before = metadata.cache().leadership(partition);
            int oldLeader = created.partitions().get(0).leader().id();
            int newLeader = cluster.brokerIds().stream().filter(id -> id != oldLeader).findFirst().orElseThrow();

            disturbances.moveLeadershipOnto("moving", newLeader);
            ProduceResponseData refused = (ProduceResponseData) pool.send(oldLeader, ApiKey.PRODUCE, produce(partition))
                    .get(30, TimeUnit.SECONDS);
            PartitionProduceResponse answer = refused.responses().find("moving").partitionResponses().get(0);
            assertThat(answer.errorCode()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
            LeaderMoves moves = LeaderMoves.of(refused, Map.of("moving", created.topicId()));

            metadata.onLeaderMoves(moves);

            assertThat(metric("leader-hints-accepted-total", Map.of())).isEqualTo(1.0);
            PartitionLeadership hinted = metadata.cache().leadership(partition);
            assertThat(hinted.leaderId()).isEqualTo(newLeader);
            assertThat(hinted.leaderEpoch()).isGreaterThan(before.leaderEpoch());
            assertThat(hinted.view()).as("a hint keeps the view of the answer it replaced").isEqualTo(before.view());

            Await.until("the hint is confirmed by Metadata", Duration.ofSeconds(30),
                    () -> metadata.cache().leadership(partition).view() > hinted.view());
            assertThat(metadata.cache().leadership(partition).leaderEpoch()).isEqualTo(hinted.leaderEpoch());
            assertThat(refreshes("hint-confirmation")).isEqualTo(1.0);
            assertThat(refreshes("rejected-hint")).isZero();
            assertThat(refreshes("leader-error")).isZero();

            metadata.onLeaderMoves(moves);
            assertThat(metric("leader-hints-rejected-total", Map.of("reason", "not-advancing"))).isEqualTo(1.0);
            Await.until("the stale hint triggers a refresh", Duration.ofSeconds(30), () -> refreshes("rejected-hint") == 1.0);
        }
    }

    private void start(KafkaTestCluster cluster) {
        pool = new ConnectionPool(ConnectionConfig.defaults("fastleader-it"), PoolConfig.defaults());
        metadata = new ClusterMetadata(MetadataConfig.defaults(), pool, cluster.bootstrapAddresses(), metrics);
    }

    private double refreshes(String cause) {
        return metric("metadata-refreshes-total", Map.of("cause", cause));
    }

    private double metric(String name, Map<String, String> tags) {
        MetricName metricName = metrics.metricName(name, MetadataMetrics.GROUP, "", tags);
        return (double) metrics.metric(metricName).metricValue();
    }

    private static ProduceRequestData produce(TopicPartition partition) {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("refused".getBytes()));
        ProduceRequestData request = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
        request.topicData().add(new ProduceRequestData.TopicProduceData().setName(partition.topic())
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                        .setIndex(partition.partition()).setRecords(records))));
        return request;
    }
}
