package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.Closing;
import io.fastleader.clients.consumer.PartitionState.Phase;
import io.fastleader.clients.consumer.group.SingleThreadOwner;
import io.fastleader.clients.metadata.BrokerEndpoint;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.metadata.LeaderHint;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.ExponentialBackoff;
import io.fastleader.clients.network.ScriptedBrokers;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.ListOffsetsRequestData;
import io.fastleader.protocol.message.ListOffsetsResponseData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.OffsetForLeaderEpochRequestData;
import io.fastleader.protocol.message.OffsetForLeaderEpochResponseData;

/**
 * {@link PositionResolver}'s retries against scripted brokers, on a clock the test moves: a lookup
 * that goes out with the clock standing still went out because no backoff held it, and two
 * partitions with one leader go out in one request when both are due, so a request naming one of
 * them shows the other was held back.
 */
@Timeout(60)
class PositionResolverTest {

    private static final String TOPIC = "orders";
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    /** retry.backoff.ms 100 to 1000, at the midpoint of the jitter: every wait is its base term. */
    private static final EpochBackoff RETRY_BACKOFF = new EpochBackoff(
            new ExponentialBackoff(Duration.ofMillis(100), Duration.ofMillis(1000), ExponentialBackoff.KAFKA_JITTER), () -> 0.5, true);

    private final AtomicLong clock = new AtomicLong(1_000_000);
    /** Answers on their way to the consumer's thread, which the test is: it runs them when it says. */
    private final LinkedBlockingQueue<Runnable> inbox = new LinkedBlockingQueue<>();
    /** Runs the ListOffsets loop; its results reach the resolver through {@link #inbox}, as in the consumer. */
    private final SingleThreadOwner lookups = new SingleThreadOwner();
    private final List<Asked> validations = new CopyOnWriteArrayList<>();
    private final List<List<TopicPartition>> listings = new CopyOnWriteArrayList<>();
    private final Metrics metrics = new Metrics();
    private final SubscriptionState subscriptions = new SubscriptionState();
    /** How a broker answers each partition of an OffsetsForLeaderEpoch. */
    private volatile Function<TopicPartition, ErrorCode> validationErrors = partition -> ErrorCode.NONE;
    /** How a broker answers each partition of a ListOffsets. */
    private volatile Function<TopicPartition, ErrorCode> listingErrors = partition -> ErrorCode.NONE;
    /** Who leads {@link #P0} at which epoch, as Metadata answers say. */
    private volatile int leaderOfP0 = 0;
    private volatile int epochOfP0 = 5;
    private ScriptedBrokers brokers;
    private ConnectionPool pool;
    private ClusterMetadata metadata;
    private PositionResolver resolver;

    /** One partition of an OffsetsForLeaderEpoch, as the broker received it. */
    private record Asked(int node, TopicPartition partition, int currentLeaderEpoch) {
    }

    @AfterEach
    void stop() throws Exception {
        Closing.inOrder(metadata, pool, brokers, lookups, metrics);
    }

    @Test
    void testAFailedValidationBacksOffOnlyItsPartition() throws Exception {
        start();
        validationErrors = partition -> partition.equals(P0) ? ErrorCode.KAFKA_STORAGE_ERROR : ErrorCode.NONE;
        awaitValidation(P0);
        resolver.resolve();
        applyAnswer();

        awaitValidation(P1);
        resolver.resolve();
        applyAnswer();

        assertThat(validations).containsExactly(new Asked(0, P0, 5), new Asked(0, P1, 5));
        assertThat(subscriptions.state(P1).phase()).isEqualTo(Phase.FETCHING);
        assertThat(subscriptions.state(P0).phase()).isEqualTo(Phase.AWAIT_VALIDATION);
        assertThat(resolver.retryAtMs()).isEqualTo(clock.get() + 100);
    }

    @Test
    void testAValidationBackoffEndsByTimeAtTheSameLeaderEpoch() throws Exception {
        start();
        validationErrors = partition -> validations.size() == 1 ? ErrorCode.KAFKA_STORAGE_ERROR : ErrorCode.NONE;
        awaitValidation(P0);
        resolver.resolve();
        applyAnswer();

        clock.addAndGet(100);
        resolver.resolve();
        applyAnswer();

        assertThat(validations).containsExactly(new Asked(0, P0, 5), new Asked(0, P0, 5));
        assertThat(subscriptions.state(P0).phase()).isEqualTo(Phase.FETCHING);
        assertThat(subscriptions.state(P0).backoff()).as("the leader answered").isEqualTo(EpochBackoff.State.NONE);
        assertThat(resolver.retryAtMs()).isZero();
    }

    @Test
    void testANewerLeaderEpochEndsAValidationBackoff() throws Exception {
        start();
        validationErrors = partition -> validations.size() == 1 ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.NONE;
        awaitValidation(P0);
        resolver.resolve();
        applyAnswer();
        assertThat(resolver.retryAtMs()).isEqualTo(clock.get() + 100);

        moveLeader(P0, 1, 6);
        resolver.resolve();
        applyAnswer();

        assertThat(validations).as("asked again at once, of the new leader at its epoch")
                .containsExactly(new Asked(0, P0, 5), new Asked(1, P0, 6));
        assertThat(subscriptions.state(P0).phase()).isEqualTo(Phase.FETCHING);
    }

    @Test
    void testAValidationRefusedByAFormerLeaderLearnsTheNewOneAndAsksItAtOnce() throws Exception {
        start();
        validationErrors = partition -> validations.size() == 1 ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.NONE;
        CountDownLatch moved = new CountDownLatch(1);
        metadata.cache().wakeOnChange(() -> {
            if (metadata.cache().leaderEpoch(P0) == 6) {
                moved.countDown();
            }
        });
        awaitValidation(P0);
        resolver.resolve();
        leaderOfP0 = 1;
        epochOfP0 = 6;
        applyAnswer();

        assertThat(moved.await(10, TimeUnit.SECONDS)).as("the refusal's refresh found the new leader").isTrue();
        resolver.resolve();
        applyAnswer();

        assertThat(validations).containsExactly(new Asked(0, P0, 5), new Asked(1, P0, 6));
        assertThat(subscriptions.state(P0).phase()).isEqualTo(Phase.FETCHING);
    }

    @Test
    void testAValidationRefusedAgainAtTheSameLeaderEpochBacksOffLonger() throws Exception {
        start();
        validationErrors = partition -> ErrorCode.KAFKA_STORAGE_ERROR;
        awaitValidation(P0);
        resolver.resolve();
        applyAnswer();
        assertThat(resolver.retryAtMs()).isEqualTo(clock.get() + 100);

        clock.addAndGet(100);
        resolver.resolve();
        applyAnswer();

        assertThat(validations).hasSize(2);
        assertThat(resolver.retryAtMs()).as("retry.backoff.ms doubled, as a refused Fetch backs off").isEqualTo(clock.get() + 200);
    }

    @Test
    void testAFailedResetBacksOffOnlyItsPartition() throws Exception {
        start();
        listingErrors = partition -> partition.equals(P0) && listings.size() == 1 ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : ErrorCode.NONE;
        subscriptions.state(P0).requestReset(ResetStrategy.EARLIEST);
        resolver.resolve();
        applyAnswer();

        subscriptions.state(P1).requestReset(ResetStrategy.EARLIEST);
        resolver.resolve();
        applyAnswer();

        assertThat(listings).containsExactly(List.of(P0), List.of(P1));
        assertThat(subscriptions.state(P1).phase()).isEqualTo(Phase.FETCHING);
        assertThat(subscriptions.state(P0).phase()).isEqualTo(Phase.AWAIT_RESET);
        assertThat(resolver.retryAtMs()).isEqualTo(clock.get() + 100);
    }

    @Test
    void testANewerLeaderEpochEndsAResetBackoff() throws Exception {
        start();
        listingErrors = partition -> listings.size() == 1 ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : ErrorCode.NONE;
        subscriptions.state(P0).requestReset(ResetStrategy.EARLIEST);
        resolver.resolve();
        applyAnswer();

        moveLeader(P0, 1, 6);
        resolver.resolve();
        applyAnswer();

        assertThat(listings).containsExactly(List.of(P0), List.of(P0));
        assertThat(subscriptions.state(P0).phase()).isEqualTo(Phase.FETCHING);
    }

    @Test
    void testSeekingToTheEndForgetsTheBackoffOfAFailedReset() throws Exception {
        start();
        listingErrors = partition -> listings.size() == 1 ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : ErrorCode.NONE;
        subscriptions.state(P0).requestReset(ResetStrategy.EARLIEST);
        resolver.resolve();
        applyAnswer();

        subscriptions.state(P0).requestReset(ResetStrategy.LATEST);
        resolver.resolve();
        applyAnswer();

        assertThat(listings).containsExactly(List.of(P0), List.of(P0));
        assertThat(subscriptions.state(P0).phase()).isEqualTo(Phase.FETCHING);
    }

    /** Both partitions led by node 0 at epoch 5, assigned and fetching from offset 100 read at epoch 4. */
    private void start() throws Exception {
        brokers = new ScriptedBrokers(2, this::answer);
        Map<String, Object> configs = new HashMap<>();
        configs.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers.bootstrap());
        ConsumerSettings settings = ConsumerSettings.parse(configs, new StringDeserializer(), new StringDeserializer());
        pool = new ConnectionPool(settings.connectionConfig("position-resolver-test"), settings.poolConfig());
        metadata = new ClusterMetadata(settings.metadataConfig(), pool, settings.bootstrapServers(), metrics);
        metadata.awaitTopics(List.of(TOPIC)).get(10, TimeUnit.SECONDS);
        PollThread thread = new PollThread(settings, new ConsumerMetrics(metrics, Time.SYSTEM), inbox::add, clock::get,
                new PendingErrors());
        resolver = new PositionResolver(pool, metadata, subscriptions, new OffsetLookup(pool, metadata, RETRY_BACKOFF, clock::get, lookups),
                Optional.empty(), RETRY_BACKOFF, thread);
        subscriptions.assign(List.of(P0, P1));
        subscriptions.states().forEach(state -> state.seek(new FetchPosition(100, Optional.of(4))));
    }

    private void awaitValidation(TopicPartition partition) {
        subscriptions.state(partition).awaitValidation();
    }

    /** Runs the next answer on this thread, as the consumer's poll would. */
    private void applyAnswer() throws InterruptedException {
        Runnable answer = inbox.poll(10, TimeUnit.SECONDS);
        assertThat(answer).as("an answer").isNotNull();
        answer.run();
    }

    /** A hint names {@code leader} at {@code epoch}, as a refused Fetch or Produce may. */
    private void moveLeader(TopicPartition partition, int leader, int epoch) {
        metadata.cache().applyHints(List.of(new LeaderHint(partition, TOPIC_ID, leader, epoch)),
                List.of(new BrokerEndpoint(leader, "127.0.0.1", brokers.port(leader), null, false)));
        assertThat(metadata.cache().leaderEpoch(partition)).isEqualTo(epoch);
    }

    private ApiMessage answer(int node, ApiKey api, ApiMessage request) {
        return switch (api) {
            case METADATA -> metadataAnswer();
            case OFFSET_FOR_LEADER_EPOCH -> validationAnswer(node, (OffsetForLeaderEpochRequestData) request);
            case LIST_OFFSETS -> listingAnswer((ListOffsetsRequestData) request);
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
        for (int partition = 0; partition < 2; partition++) {
            topic.partitions().add(new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(partition)
                    .setLeaderId(partition == 0 ? leaderOfP0 : 0).setLeaderEpoch(partition == 0 ? epochOfP0 : 5)
                    .setReplicaNodes(List.of(0, 1)).setIsrNodes(List.of(0, 1)));
        }
        response.topics().add(topic);
        return response;
    }

    private OffsetForLeaderEpochResponseData validationAnswer(int node, OffsetForLeaderEpochRequestData request) {
        OffsetForLeaderEpochResponseData response = new OffsetForLeaderEpochResponseData();
        for (OffsetForLeaderEpochRequestData.OffsetForLeaderTopic topic : request.topics()) {
            OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult result =
                    new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(topic.topic());
            for (OffsetForLeaderEpochRequestData.OffsetForLeaderPartition asked : topic.partitions()) {
                TopicPartition partition = new TopicPartition(topic.topic(), asked.partition());
                validations.add(new Asked(node, partition, asked.currentLeaderEpoch()));
                ErrorCode error = validationErrors.apply(partition);
                result.partitions().add(new OffsetForLeaderEpochResponseData.EpochEndOffset().setPartition(asked.partition())
                        .setErrorCode(error.code())
                        .setLeaderEpoch(error == ErrorCode.NONE ? asked.leaderEpoch() : -1)
                        .setEndOffset(error == ErrorCode.NONE ? 150 : -1));
            }
            response.topics().add(result);
        }
        return response;
    }

    private ListOffsetsResponseData listingAnswer(ListOffsetsRequestData request) {
        List<TopicPartition> asked = new ArrayList<>();
        request.topics().forEach(topic -> topic.partitions().forEach(p -> asked.add(new TopicPartition(topic.name(), p.partitionIndex()))));
        listings.add(asked);
        ListOffsetsResponseData response = new ListOffsetsResponseData();
        for (ListOffsetsRequestData.ListOffsetsTopic topic : request.topics()) {
            ListOffsetsResponseData.ListOffsetsTopicResponse result = new ListOffsetsResponseData.ListOffsetsTopicResponse()
                    .setName(topic.name());
            for (ListOffsetsRequestData.ListOffsetsPartition partition : topic.partitions()) {
                ErrorCode error = listingErrors.apply(new TopicPartition(topic.name(), partition.partitionIndex()));
                result.partitions().add(new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                        .setPartitionIndex(partition.partitionIndex()).setErrorCode(error.code())
                        .setOffset(error == ErrorCode.NONE ? 0 : -1).setTimestamp(-1).setLeaderEpoch(5));
            }
            response.topics().add(result);
        }
        return response;
    }
}
