package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.Closing;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.ExponentialBackoff;
import io.fastleader.clients.network.ScriptedBrokers;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.FetchRequestData;
import io.fastleader.protocol.message.FetchResponseData;
import io.fastleader.protocol.message.MetadataResponseData;

/**
 * Which Fetches {@link Fetcher} sends, against scripted brokers, with the test as the consumer's
 * thread: it runs each answer and takes records when it says, on a clock that stands still. Every
 * Fetch sent is answered, so once as many answers as Fetches sent have run, the brokers have seen
 * every Fetch.
 */
@Timeout(60)
class FetcherTest {

    private static final String TOPIC = "orders";
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    /** Led by node 0; has three records from offset 0, the only records of the topic. */
    private static final TopicPartition BACKLOGGED = new TopicPartition(TOPIC, 0);
    /** Led by node 0, caught up. */
    private static final TopicPartition CAUGHT_UP = new TopicPartition(TOPIC, 1);
    /** Led by node 1, caught up. */
    private static final TopicPartition ELSEWHERE = new TopicPartition(TOPIC, 2);
    private static final EpochBackoff RETRY_BACKOFF = new EpochBackoff(
            new ExponentialBackoff(Duration.ofMillis(100), Duration.ofMillis(1000), ExponentialBackoff.KAFKA_JITTER), () -> 0.5, true);

    private final AtomicLong clock = new AtomicLong(1_000_000);
    /** Answers on their way to the consumer's thread, which the test is: it runs them when it says. */
    private final LinkedBlockingQueue<Runnable> inbox = new LinkedBlockingQueue<>();
    private final List<Fetched> fetched = new CopyOnWriteArrayList<>();
    private final Metrics metrics = new Metrics();
    private final SubscriptionState subscriptions = new SubscriptionState();
    private int answersRun;
    private ScriptedBrokers brokers;
    private ConnectionPool pool;
    private ClusterMetadata metadata;
    private Fetcher<String, String> fetcher;

    /** One Fetch as a broker received it: its node and the partitions it asked for. */
    private record Fetched(int node, List<TopicPartition> partitions) {
    }

    @AfterEach
    void stop() throws Exception {
        Closing.inOrder(metadata, pool, brokers, metrics);
    }

    @Test
    void testSendsNoFetchToALeaderOfBufferedRecordsButStillFetchesFromOtherLeaders() throws Exception {
        start();
        fetcher.sendFetches();
        runAnswersToFetchesSent();
        assertThat(values(fetcher.collect(1))).as("one of the three records fetched").containsExactly("a");

        fetcher.sendFetches();
        runAnswersToFetchesSent();

        assertThat(fetchesTo(0)).as("node 0 leads a partition with records still buffered")
                .containsExactly(List.of(BACKLOGGED, CAUGHT_UP));
        assertThat(fetchesTo(1)).containsExactly(List.of(ELSEWHERE), List.of(ELSEWHERE));
    }

    @Test
    void testFetchesFromALeaderAgainOnceItsBufferedRecordsAreTaken() throws Exception {
        start();
        fetcher.sendFetches();
        runAnswersToFetchesSent();
        assertThat(values(fetcher.collect(3))).containsExactly("a", "b", "c");

        fetcher.sendFetches();
        runAnswersToFetchesSent();

        assertThat(fetchesTo(0)).containsExactly(List.of(BACKLOGGED, CAUGHT_UP), List.of(BACKLOGGED, CAUGHT_UP));
    }

    @Test
    void testBufferedRecordsOfAPausedPartitionDoNotHoldBackItsLeader() throws Exception {
        start();
        fetcher.sendFetches();
        runAnswersToFetchesSent();
        subscriptions.state(BACKLOGGED).pause();

        fetcher.sendFetches();
        runAnswersToFetchesSent();

        assertThat(fetchesTo(0)).containsExactly(List.of(BACKLOGGED, CAUGHT_UP), List.of(CAUGHT_UP));
    }

    /** Every partition assigned and fetching from offset 0, their leaders known. */
    private void start() throws Exception {
        brokers = new ScriptedBrokers(2, this::answer);
        Map<String, Object> configs = new HashMap<>();
        configs.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers.bootstrap());
        ConsumerSettings settings = ConsumerSettings.parse(configs, new StringDeserializer(), new StringDeserializer());
        pool = new ConnectionPool(settings.connectionConfig("fetcher-test"), settings.poolConfig());
        metadata = new ClusterMetadata(settings.metadataConfig(), pool, settings.bootstrapServers(), metrics);
        metadata.awaitTopics(List.of(TOPIC)).get(10, TimeUnit.SECONDS);
        PollThread thread = new PollThread(settings, new ConsumerMetrics(metrics, Time.SYSTEM), inbox::add, clock::get,
                new PendingErrors());
        RecordDecoding<String, String> decoding = new RecordDecoding<>(new StringDeserializer(), new StringDeserializer(),
                IsolationLevel.READ_UNCOMMITTED, true);
        fetcher = new Fetcher<>(pool, metadata, subscriptions, decoding, RETRY_BACKOFF, thread);
        subscriptions.assign(List.of(BACKLOGGED, CAUGHT_UP, ELSEWHERE));
        subscriptions.states().forEach(state -> state.seek(new FetchPosition(0, Optional.empty())));
    }

    /** Runs, as {@code poll} would, the answer to every Fetch sent so far. */
    private void runAnswersToFetchesSent() throws InterruptedException {
        while (answersRun < fetchesSent()) {
            Runnable answer = inbox.poll(10, TimeUnit.SECONDS);
            assertThat(answer).as("an answer").isNotNull();
            answer.run();
            answersRun++;
        }
    }

    /** The partitions of each Fetch node {@code node} received, in order. */
    private List<List<TopicPartition>> fetchesTo(int node) {
        return fetched.stream().filter(fetch -> fetch.node() == node).map(Fetched::partitions).toList();
    }

    private int fetchesSent() {
        return metrics.metrics().entrySet().stream()
                .filter(entry -> entry.getKey().group().equals(ConsumerMetrics.KAFKA_GROUP) && entry.getKey().name().equals("fetch-total"))
                .mapToInt(entry -> ((Number) entry.getValue().metricValue()).intValue())
                .sum();
    }

    private ApiMessage answer(int node, ApiKey api, ApiMessage request) {
        return switch (api) {
            case METADATA -> metadataAnswer();
            case FETCH -> fetchAnswer(node, (FetchRequestData) request);
            default -> throw new IllegalArgumentException("unexpected " + api);
        };
    }

    private MetadataResponseData metadataAnswer() {
        MetadataResponseData response = new MetadataResponseData();
        for (int node = 0; node < 2; node++) {
            response.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(node).setHost("127.0.0.1")
                    .setPort(brokers.port(node)));
        }
        MetadataResponseData.MetadataResponseTopic topic = new MetadataResponseData.MetadataResponseTopic()
                .setName(TOPIC).setTopicId(TOPIC_ID);
        for (TopicPartition partition : List.of(BACKLOGGED, CAUGHT_UP, ELSEWHERE)) {
            topic.partitions().add(new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(partition.partition())
                    .setLeaderId(partition.equals(ELSEWHERE) ? 1 : 0).setLeaderEpoch(5)
                    .setReplicaNodes(List.of(0, 1)).setIsrNodes(List.of(0, 1)));
        }
        response.topics().add(topic);
        return response;
    }

    /** {@link #BACKLOGGED}'s three records from offset 0; nothing new for every other partition. */
    private FetchResponseData fetchAnswer(int node, FetchRequestData request) {
        List<TopicPartition> asked = new ArrayList<>();
        FetchResponseData.FetchableTopicResponse topic = new FetchResponseData.FetchableTopicResponse().setTopic(TOPIC).setTopicId(TOPIC_ID);
        for (FetchRequestData.FetchPartition partition : request.topics().get(0).partitions()) {
            asked.add(new TopicPartition(TOPIC, partition.partition()));
            boolean backlog = partition.partition() == BACKLOGGED.partition() && partition.fetchOffset() == 0;
            topic.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(partition.partition())
                    .setHighWatermark(backlog ? 3 : partition.fetchOffset()).setLastStableOffset(backlog ? 3 : partition.fetchOffset())
                    .setRecords(backlog ? records("a", "b", "c") : MemoryRecords.EMPTY));
        }
        fetched.add(new Fetched(node, asked));
        return new FetchResponseData().setResponses(new ArrayList<>(List.of(topic)));
    }

    private static MemoryRecords records(String... values) {
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.CURRENT_MAGIC_VALUE,
                Compression.NONE, TimestampType.CREATE_TIME, 0, 1_000L, RecordBatch.NO_PRODUCER_ID,
                RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false, 5);
        for (String value : values) {
            builder.append(1_000L, null, value.getBytes());
        }
        return builder.build();
    }

    private static List<String> values(Optional<ConsumerRecords<String, String>> records) {
        List<String> values = new ArrayList<>();
        records.orElseThrow().forEach(record -> values.add(record.value()));
        return values;
    }
}
