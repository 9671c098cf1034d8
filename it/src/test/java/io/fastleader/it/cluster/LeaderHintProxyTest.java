package io.fastleader.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.clients.network.BrokerConnection;
import io.fastleader.clients.network.ConnectionConfig;
import io.fastleader.clients.network.SecurityConfig;
import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.consumer.BackgroundConsumer;
import io.fastleader.it.consumer.Consumption;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.FetchRequestData;
import io.fastleader.protocol.message.FetchResponseData;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceResponseData;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * fastleader's leader-hint filter in a real Kroxylicious proxy in front of three Kafka 3.6.2
 * brokers (before KIP-951, child JVMs), next to three Kafka 4.3.1 brokers (in this JVM) that
 * send hints themselves.
 *
 * <p>Every moved partition here starts on replicas {@code [0, 1, 2]} and is rotated to
 * {@code [1, 2, 0]}: node 0, the old leader, stays a follower and refuses; node 1 leads.
 *
 */
class LeaderHintProxyTest {

    private static final int OLD_LEADER = 0;
    private static final int NEW_LEADER = 1;
    private static final short PRODUCE_V10 = 10;
    private static final short FETCH_V16 = 16;
    private static final int CORRELATION_ID = 7;

    private static KafkaTestCluster legacy;
    private static Disturbances legacyDisturbances;
    private static KroxyliciousProxy proxy;
    private static KafkaTestCluster current;
    private static Disturbances currentDisturbances;

    @BeforeAll
    static void startClustersAndProxy() {
        legacy = ClusterSpec.builder().release(KafkaRelease.LEGACY).brokerJvmOption(ClusterSpec.C1_ONLY).start();
        legacyDisturbances = new Disturbances(legacy);
        proxy = KroxyliciousProxy.start(legacy, true);
        current = ClusterSpec.builder().execution(Execution.IN_JVM).start();
        currentDisturbances = new Disturbances(current);
    }

    @AfterAll
    static void stopAll() {
        for (AutoCloseable closeable : new AutoCloseable[] {currentDisturbances, current, proxy, legacyDisturbances, legacy}) {
            if (closeable != null) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    throw new IllegalStateException("cannot close " + closeable, e);
                }
            }
        }
    }

    @Test
    void advertisesProduceV10AndFetchV16InFrontOfA36Broker() {
        try (BrokerConnection connection = BrokerConnection.open(proxy.bootstrapAddress(), config(5))) {
            assertThat(connection.versions().version(ApiKey.PRODUCE)).isEqualTo(PRODUCE_V10);
            assertThat(connection.versions().version(ApiKey.FETCH)).isEqualTo(FETCH_V16);
        }
    }

    @Test
    void aRawV10ProduceToAMovedPartitionGetsTheHintA43BrokerSendsByteForByte() {
        String topic = "moved-produce";
        int servedEpoch = moveThroughProxy(topic);
        byte[] throughProxy = RawExchange.roundTrip(proxy.nodeAddress(OLD_LEADER), ApiKey.PRODUCE, PRODUCE_V10, CORRELATION_ID, produce(topic, 0));

        currentDisturbances.createTopic(onReplicas012(topic));
        currentDisturbances.rotateReplicas(topic);
        awaitOldLeaderKnowsTheNewOne(current, topic);
        byte[] native43 = RawExchange.roundTrip(nodeAddress(current, OLD_LEADER), ApiKey.PRODUCE, PRODUCE_V10, CORRELATION_ID, produce(topic, 0));

        ProduceResponseData hinted = (ProduceResponseData) RawExchange.body(ApiKey.PRODUCE, PRODUCE_V10, throughProxy);
        ProduceResponseData.PartitionProduceResponse partition = hinted.responses().find(topic).partitionResponses().get(0);
        assertThat(partition.errorCode()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
        assertThat(partition.currentLeader().leaderId()).isEqualTo(NEW_LEADER);
        assertThat(partition.currentLeader().leaderEpoch()).isEqualTo(leaderEpochThroughProxy(topic)).isGreaterThan(servedEpoch);
        InetSocketAddress newLeaderThroughProxy = proxy.nodeAddress(NEW_LEADER);
        assertThat(hinted.nodeEndpoints()).singleElement().satisfies(endpoint -> {
            assertThat(endpoint.nodeId()).isEqualTo(NEW_LEADER);
            assertThat(endpoint.host()).isEqualTo(newLeaderThroughProxy.getHostString());
            assertThat(endpoint.port()).isEqualTo(newLeaderThroughProxy.getPort());
        });

        // The 4.3 broker's own bytes round-trip through our classes, so re-encoding it after
        // putting in this cluster's epoch and the proxy's address changes exactly those values.
        ProduceResponseData expected = (ProduceResponseData) RawExchange.body(ApiKey.PRODUCE, PRODUCE_V10, native43);
        assertThat(RawExchange.encodeResponse(ApiKey.PRODUCE, PRODUCE_V10, CORRELATION_ID, expected)).isEqualTo(native43);
        expected.responses().find(topic).partitionResponses().get(0).currentLeader().setLeaderEpoch(partition.currentLeader().leaderEpoch());
        expected.nodeEndpoints().forEach(endpoint -> endpoint.setHost(newLeaderThroughProxy.getHostString()).setPort(newLeaderThroughProxy.getPort()));
        assertThat(throughProxy).isEqualTo(RawExchange.encodeResponse(ApiKey.PRODUCE, PRODUCE_V10, CORRELATION_ID, expected));
    }

    @Test
    void a43BrokerBehindTheProxyAnswersWithItsOwnHintUntouched() {
        String topic = "moved-on-4.3";
        currentDisturbances.createTopic(onReplicas012(topic));
        currentDisturbances.rotateReplicas(topic);
        awaitOldLeaderKnowsTheNewOne(current, topic);
        try (KroxyliciousProxy proxyFor43 = KroxyliciousProxy.start(current, true)) {
            byte[] throughProxy = RawExchange.roundTrip(proxyFor43.nodeAddress(OLD_LEADER), ApiKey.PRODUCE, PRODUCE_V10, CORRELATION_ID, produce(topic, 0));
            byte[] direct = RawExchange.roundTrip(nodeAddress(current, OLD_LEADER), ApiKey.PRODUCE, PRODUCE_V10, CORRELATION_ID, produce(topic, 0));

            // Kroxylicious itself rewrites the endpoint to the proxy's address; nothing else changes.
            ProduceResponseData expected = (ProduceResponseData) RawExchange.body(ApiKey.PRODUCE, PRODUCE_V10, direct);
            InetSocketAddress newLeaderThroughProxy = proxyFor43.nodeAddress(NEW_LEADER);
            expected.nodeEndpoints().forEach(endpoint -> endpoint.setHost(newLeaderThroughProxy.getHostString()).setPort(newLeaderThroughProxy.getPort()));
            assertThat(expected.nodeEndpoints()).isNotEmpty();
            assertThat(throughProxy).isEqualTo(RawExchange.encodeResponse(ApiKey.PRODUCE, PRODUCE_V10, CORRELATION_ID, expected));
        }
    }

    @Test
    void aRawV16FetchFromAMovedPartitionGetsTheHint() {
        String topic = "moved-fetch";
        int servedEpoch = moveThroughProxy(topic);
        MetadataResponseData.MetadataResponseTopic described = metadataThroughProxy(topic);
        FetchRequestData fetch = new FetchRequestData().setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20).setSessionEpoch(-1);
        fetch.topics().add(new FetchRequestData.FetchTopic().setTopicId(described.topicId()).setPartitions(List.of(
            new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0).setCurrentLeaderEpoch(servedEpoch).setPartitionMaxBytes(1 << 20))));

        byte[] frame = RawExchange.roundTrip(proxy.nodeAddress(OLD_LEADER), ApiKey.FETCH, FETCH_V16, CORRELATION_ID, fetch);

        FetchResponseData response = (FetchResponseData) RawExchange.body(ApiKey.FETCH, FETCH_V16, frame);
        FetchResponseData.PartitionData partition = response.responses().get(0).partitions().get(0);
        assertThat(partition.errorCode()).isIn(Errors.NOT_LEADER_OR_FOLLOWER.code(), Errors.FENCED_LEADER_EPOCH.code());
        assertThat(partition.currentLeader().leaderId()).isEqualTo(NEW_LEADER);
        assertThat(partition.currentLeader().leaderEpoch()).isEqualTo(described.partitions().get(0).leaderEpoch());
        assertThat(response.nodeEndpoints()).singleElement()
            .satisfies(endpoint -> assertThat(endpoint.port()).isEqualTo(proxy.nodeAddress(NEW_LEADER).getPort()));
    }

    @Test
    void aClientThatSkipsApiVersionsStillGetsTheHint() {
        String topic = "moved-no-api-versions";
        moveThroughProxy(topic);

        // RawExchange opens a new connection and sends Produce v10 as its first request.
        byte[] frame = RawExchange.roundTrip(proxy.nodeAddress(OLD_LEADER), ApiKey.PRODUCE, PRODUCE_V10, CORRELATION_ID, produce(topic, 0));

        ProduceResponseData response = (ProduceResponseData) RawExchange.body(ApiKey.PRODUCE, PRODUCE_V10, frame);
        assertThat(response.responses().find(topic).partitionResponses().get(0).currentLeader().leaderId()).isEqualTo(NEW_LEADER);
        assertThat(response.nodeEndpoints()).extracting(ProduceResponseData.NodeEndpoint::nodeId).containsExactly(NEW_LEADER);
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderWithHintsOnlyWhereRefused() throws Exception {
        String moved = "pipelined-moved";
        String steady = "pipelined-steady";
        moveThroughProxy(moved);
        legacyDisturbances.createTopic(onReplicas012(steady));
        int requests = 200;
        List<CompletableFuture<?>> futures = new ArrayList<>();
        List<Integer> completionOrder = new ArrayList<>();
        AtomicInteger outstandingPeak = new AtomicInteger();

        try (BrokerConnection connection = BrokerConnection.open(proxy.nodeAddress(OLD_LEADER), config(requests))) {
            // Admin sees the new topic's ISR full a moment before its leader has taken the partition on.
            Await.until("the steady topic's leader accepting records", Duration.ofSeconds(30), () -> {
                ProduceResponseData probe = (ProduceResponseData) connection.send(ApiKey.PRODUCE, produce(steady, -1)).get(30, TimeUnit.SECONDS);
                return probe.responses().iterator().next().partitionResponses().get(0).errorCode() == Errors.NONE.code();
            });
            for (int i = 0; i < requests; i++) {
                int index = i;
                CompletableFuture<?> future = connection.send(ApiKey.PRODUCE, produce(i % 2 == 0 ? steady : moved, i));
                futures.add(future.whenComplete((response, failure) -> {
                    synchronized (completionOrder) {
                        completionOrder.add(index);
                    }
                }));
                outstandingPeak.accumulateAndGet((int) futures.stream().filter(f -> !f.isDone()).count(), Math::max);
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        }

        assertThat(outstandingPeak.get()).as("requests in flight at once").isGreaterThan(1);
        assertThat(completionOrder).as("answered in the order sent").isSorted().hasSize(requests);
        long expectedOffset = -1;
        for (int i = 0; i < requests; i++) {
            ProduceResponseData response = (ProduceResponseData) futures.get(i).get();
            ProduceResponseData.PartitionProduceResponse partition = response.responses().iterator().next().partitionResponses().get(0);
            if (i % 2 == 0) {
                assertThat(partition.errorCode()).as("request %d to the steady leader", i).isEqualTo(Errors.NONE.code());
                assertThat(partition.baseOffset()).as("request %d", i).isEqualTo(expectedOffset == -1 ? partition.baseOffset() : expectedOffset);
                assertThat(response.nodeEndpoints()).isEmpty();
                expectedOffset = partition.baseOffset() + 1;
            } else {
                assertThat(partition.errorCode()).as("request %d to the moved partition", i).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
                assertThat(partition.currentLeader().leaderId()).as("request %d", i).isEqualTo(NEW_LEADER);
            }
        }
    }

    @Test
    void kafkaProducerThroughTheProxyFollowsAReassignment() throws Exception {
        createSixPartitions("reassigned");
        try (SteadyProducer producer = new SteadyProducer(proxy.clientConfig(), "reassigned", 1000)) {
            produceThroughAReassignment(producer, "reassigned");

            AckedRecords.assertAllReadBack(producer, proxy.clientConfig());
        }
    }

    @Test
    void fastLeaderProducerThroughTheProxyFollowsTheFiltersHints() throws Exception {
        String topic = "reassigned-fastleader";
        createSixPartitions(topic);
        FastLeaderProducer<String, String> fastleader =
            new FastLeaderProducer<>(proxy.clientConfig(), new StringSerializer(), new StringSerializer());
        try (SteadyProducer producer = new SteadyProducer(fastleader, topic, 6, 1000)) {
            produceThroughAReassignment(producer, topic);

            AckedRecords.assertAllReadBackOnceInSendOrder(producer, proxy.clientConfig());
            // A 3.6.2 broker never hints: every accepted hint was written by the filter.
            assertThat(producer.metric(MetadataMetrics.GROUP, "leader-hints-accepted-total")).isGreaterThan(0);
        }
    }

    @Test
    void fastLeaderConsumerThroughTheProxyFollowsTheFiltersHints() throws Exception {
        String topic = "reassigned-fastleader-consumer";
        Set<TopicPartition> partitions = createSixPartitions(topic);
        try (BackgroundConsumer consumer = new BackgroundConsumer(proxy.clientConfig(), partitions);
             SteadyProducer producer = SteadyProducer.kafkaClients(legacy.clientConfig(), topic, partitions.size(), 1000)) {
            consumer.awaitMoreConsumed(500);
            produceThroughAReassignment(producer, topic);

            Map<TopicPartition, Map<Long, String>> log = ReadBack.readAll(legacy.clientConfig(), partitions);
            consumer.finishAt(Consumption.endsOf(log, partitions)).assertExactly(log);
            // A 3.6.2 broker never hints: every accepted hint was written by the filter.
            assertThat(consumer.metric(MetadataMetrics.GROUP, "leader-hints-accepted-total")).isGreaterThan(0);
        }
    }

    /** Creates a 6-partition topic on the legacy cluster; returns its partitions once they have full ISR. */
    private static Set<TopicPartition> createSixPartitions(String topic) {
        legacyDisturbances.createTopic(new NewTopic(topic, 6, (short) 3).configs(Map.of("min.insync.replicas", "2")));
        return IntStream.range(0, 6).mapToObj(partition -> new TopicPartition(topic, partition)).collect(Collectors.toSet());
    }

    /** Produces to {@code topic} on the legacy cluster while its replicas rotate, then flushes. */
    private static void produceThroughAReassignment(SteadyProducer producer, String topic) throws Exception {
        producer.awaitMoreAcks(500);
        legacyDisturbances.rotateReplicas(topic);
        producer.awaitMoreAcks(500);
        producer.stopAndFlush();
    }

    /**
     * Creates {@code topic} on the legacy cluster on replicas {@code [0, 1, 2]}, lets a Metadata
     * response through the proxy tell clients node 0 leads it, then rotates its replicas and
     * waits until node 0 itself knows node 1 leads: that is what the filter's refresh asks.
     *
     * @return the leader epoch clients were told before the move
     */
    private static int moveThroughProxy(String topic) {
        legacyDisturbances.createTopic(onReplicas012(topic));
        Await.until("the proxy to serve node " + OLD_LEADER + " as leader of " + topic, Disturbances.TIMEOUT,
            () -> metadataThroughProxy(topic).partitions().get(0).leaderId() == OLD_LEADER);
        int servedEpoch = metadataThroughProxy(topic).partitions().get(0).leaderEpoch();
        legacyDisturbances.rotateReplicas(topic);
        awaitOldLeaderKnowsTheNewOne(legacy, topic);
        return servedEpoch;
    }

    /**
     * Disturbances return once one broker reports the new leader; the old leader may lag a
     * moment, and its own view is what it refuses with (and what it hints, on 4.3.1). Asked
     * directly: through the proxy, this Metadata would count as served to clients.
     */
    private static void awaitOldLeaderKnowsTheNewOne(KafkaTestCluster cluster, String topic) {
        InetSocketAddress oldLeader = nodeAddress(cluster, OLD_LEADER);
        Await.until("node " + OLD_LEADER + " to know node " + NEW_LEADER + " leads " + topic, Disturbances.TIMEOUT,
            () -> metadata(oldLeader, topic).partitions().get(0).leaderId() == NEW_LEADER);
    }

    private static NewTopic onReplicas012(String topic) {
        return new NewTopic(topic, Map.of(0, List.of(0, 1, 2)));
    }

    private static int leaderEpochThroughProxy(String topic) {
        return metadataThroughProxy(topic).partitions().get(0).leaderEpoch();
    }

    private static MetadataResponseData.MetadataResponseTopic metadataThroughProxy(String topic) {
        return metadata(proxy.bootstrapAddress(), topic);
    }

    private static MetadataResponseData.MetadataResponseTopic metadata(InetSocketAddress address, String topic) {
        try (BrokerConnection connection = BrokerConnection.open(address, config(5))) {
            MetadataRequestData request = new MetadataRequestData().setAllowAutoTopicCreation(false);
            request.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(topic));
            MetadataResponseData response = (MetadataResponseData) connection.send(ApiKey.METADATA, request).get(30, TimeUnit.SECONDS);
            return response.topics().find(topic);
        } catch (Exception e) {
            throw new IllegalStateException("Metadata for " + topic + " from " + address + " failed", e);
        }
    }

    private static ProduceRequestData produce(String topic, int value) {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(Integer.toString(value).getBytes()));
        ProduceRequestData request = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(30_000);
        request.topicData().add(new ProduceRequestData.TopicProduceData().setName(topic)
            .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records))));
        return request;
    }

    private static InetSocketAddress nodeAddress(KafkaTestCluster cluster, int nodeId) {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            Node node = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream()
                .filter(candidate -> candidate.id() == nodeId).findFirst().orElseThrow();
            return new InetSocketAddress(node.host(), node.port());
        } catch (Exception e) {
            throw new IllegalStateException("cannot find node " + nodeId, e);
        }
    }

    private static ConnectionConfig config(int maxInFlight) {
        return new ConnectionConfig("fastleader-it", maxInFlight, Duration.ofSeconds(30), Duration.ofSeconds(10), 1 << 20, SecurityConfig.PLAINTEXT);
    }
}
