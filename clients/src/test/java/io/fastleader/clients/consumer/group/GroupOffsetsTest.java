package io.fastleader.clients.consumer.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.Closing;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.metadata.MetadataConfig;
import io.fastleader.clients.network.ConnectionConfig;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.ExponentialBackoff;
import io.fastleader.clients.network.PoolConfig;
import io.fastleader.clients.network.ScriptedBrokers;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.FindCoordinatorResponseData;
import io.fastleader.protocol.message.OffsetFetchResponseData;

/**
 * {@link GroupOffsets}' retries against a scripted coordinator, on a clock that stands still: whose
 * word a wait between attempts is. The retry policy's own waits are a millisecond, so the test
 * does not wait on them; it counts how often the policy was asked.
 */
@Timeout(60)
class GroupOffsetsTest {

    private static final String GROUP = "readers";
    private static final String TOPIC = "orders";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);

    private final AtomicLong clock = new AtomicLong(1_000_000);
    /** How often the retry policy drew a wait: once per wait it decided. */
    private final AtomicInteger waitsDrawn = new AtomicInteger();
    private final EpochBackoff retryPolicy = new EpochBackoff(new ExponentialBackoff(Duration.ofMillis(1), Duration.ofMillis(1), 0),
            () -> {
                waitsDrawn.incrementAndGet();
                return 0.5;
            }, true);
    private final AtomicInteger offsetFetches = new AtomicInteger();
    private final Metrics metrics = new Metrics();
    /** The group-level error of each OffsetFetch answer, by its index; NONE past the list. */
    private volatile List<ErrorCode> fetchErrors = List.of();
    private ScriptedBrokers brokers;
    private ConnectionPool pool;
    private ClusterMetadata metadata;
    private final SingleThreadOwner owner = new SingleThreadOwner();

    @AfterEach
    void stop() throws Exception {
        Closing.inOrder(metadata, pool, brokers, owner, metrics);
    }

    @Test
    void testACoordinatorRetryWaitsAsTheConsumersRetryPolicySays() throws Exception {
        fetchErrors = List.of(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);

        Map<TopicPartition, OffsetAndMetadata> committed = start().committed(Set.of(PARTITION), StableOffsets.NOT_ASKED, clock.get() + 30_000)
                .get(10, TimeUnit.SECONDS);

        assertThat(committed).containsEntry(PARTITION, new OffsetAndMetadata(42, ""));
        assertThat(offsetFetches).hasValue(3);
        assertThat(waitsDrawn).as("one wait per retry, each the policy's").hasValue(2);
    }

    @Test
    void testALostCoordinatorIsFoundAndAskedAgainWithoutWaitingTheFirstTime() throws Exception {
        fetchErrors = List.of(ErrorCode.NOT_COORDINATOR, ErrorCode.NOT_COORDINATOR);

        Map<TopicPartition, OffsetAndMetadata> committed = start().committed(Set.of(PARTITION), StableOffsets.NOT_ASKED, clock.get() + 30_000)
                .get(10, TimeUnit.SECONDS);

        assertThat(committed).containsEntry(PARTITION, new OffsetAndMetadata(42, ""));
        assertThat(offsetFetches).hasValue(3);
        assertThat(waitsDrawn).as("no leader epoch to follow: losing the coordinator again backs off").hasValue(1);
    }

    private GroupOffsets start() throws Exception {
        brokers = new ScriptedBrokers(1, this::answer);
        pool = new ConnectionPool(ConnectionConfig.defaults("group-offsets-test"), PoolConfig.defaults());
        metadata = new ClusterMetadata(MetadataConfig.defaults(), pool, List.of(InetSocketAddress.createUnresolved("127.0.0.1",
                brokers.port(0))), metrics);
        metadata.awaitTopics(List.of(TOPIC)).get(10, TimeUnit.SECONDS);
        return new GroupOffsets(pool, metadata, GROUP, retryPolicy, clock::get, owner);
    }

    private ApiMessage answer(int node, ApiKey api, ApiMessage request) {
        return switch (api) {
            case METADATA -> brokers.metadataAnswer(TOPIC, Uuid.randomUuid(), 0, 5);
            case FIND_COORDINATOR -> new FindCoordinatorResponseData().setCoordinators(List.of(new FindCoordinatorResponseData.Coordinator()
                    .setKey(GROUP).setNodeId(0).setHost("127.0.0.1").setPort(brokers.port(0))));
            case OFFSET_FETCH -> {
                int index = offsetFetches.getAndIncrement();
                ErrorCode error = index < fetchErrors.size() ? fetchErrors.get(index) : ErrorCode.NONE;
                yield committed(error);
            }
            default -> throw new IllegalArgumentException("unexpected " + api);
        };
    }

    /** The group's answer: {@code error} for the whole group, else offset 42 of {@link #PARTITION}. */
    private static OffsetFetchResponseData committed(ErrorCode error) {
        OffsetFetchResponseData.OffsetFetchResponseGroup group = new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId(GROUP)
                .setErrorCode(error.code());
        if (error == ErrorCode.NONE) {
            group.setTopics(List.of(new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(TOPIC).setPartitions(List.of(
                    new OffsetFetchResponseData.OffsetFetchResponsePartitions().setPartitionIndex(0).setCommittedOffset(42)
                            .setMetadata("")))));
        }
        return new OffsetFetchResponseData().setGroups(List.of(group));
    }
}
