package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.fastleader.clients.Eventually;
import io.fastleader.clients.metadata.FastLeaderConfigs;
import io.fastleader.clients.network.ScriptedBrokers;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.InitProducerIdResponseData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceResponseData;
import io.fastleader.protocol.message.ProduceResponseData.PartitionProduceResponse;
import io.fastleader.protocol.message.ProduceResponseData.TopicProduceResponse;

/**
 * Adaptive partitioning end to end, against scripted brokers: partition 0 is led by node 0, which
 * answers every Produce at once, and partition 1 by node 1, which takes Produce requests and never
 * answers, as a broker that has stopped keeping up. Every unkeyed record starts a stint of its own.
 */
@Timeout(60)
class AdaptivePartitioningTest {

    private static final String TOPIC = "orders";
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    private final AtomicInteger producesAtNode1 = new AtomicInteger();
    private ScriptedBrokers brokers;
    private FastLeaderProducer<String, String> producer;

    @AfterEach
    void close() throws Exception {
        if (producer != null) {
            producer.close(Duration.ZERO);
        }
        brokers.close();
    }

    @Test
    void testUnkeyedRecordsLeaveAPartitionWhoseLeaderTakesNoBatches() throws Exception {
        start(Map.of(ProducerConfig.PARTITIONER_AVAILABILITY_TIMEOUT_MS_CONFIG, 100));
        awaitAProduceHeldAtNode1();

        Eventually.until("100 records in a row acknowledged by node 0", Duration.ofSeconds(30), () -> allAtPartition0(100));
    }

    @Test
    void testWithoutAdaptivePartitioningRecordsStillGoToThePartitionWhoseLeaderTakesNoBatches() throws Exception {
        start(Map.of(ProducerConfig.PARTITIONER_AVAILABILITY_TIMEOUT_MS_CONFIG, 100,
                ProducerConfig.PARTITIONER_ADPATIVE_PARTITIONING_ENABLE_CONFIG, false));
        awaitAProduceHeldAtNode1();

        assertThat(allAtPartition0(100)).as("100 records drawn uniformly, none at partition 1").isFalse();
    }

    private void start(Map<String, Object> overrides) throws Exception {
        brokers = new ScriptedBrokers(2, this::answer);
        Map<String, Object> configs = new HashMap<>();
        configs.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers.bootstrap());
        configs.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        // Every record fills a batch, so that every record draws its partition afresh.
        configs.put(ProducerConfig.BATCH_SIZE_CONFIG, 1);
        configs.put(FastLeaderConfigs.CONNECTIONS_PREWARM, false);
        configs.putAll(overrides);
        producer = new FastLeaderProducer<>(configs, new StringSerializer(), new StringSerializer());
    }

    /**
     * Sends records until node 1 holds one: with idempotence the partition's next batch waits for
     * the broker to answer the first, so from then on its batches wait at node 1.
     */
    private void awaitAProduceHeldAtNode1() throws InterruptedException {
        Eventually.until("node 1 holding a Produce request", Duration.ofSeconds(20), () -> {
            producer.send(new ProducerRecord<>(TOPIC, "filler"));
            return producesAtNode1.get() >= 1;
        });
    }

    /** Sends {@code count} records and tells whether node 0 acknowledged each (a record at partition 1 is never acknowledged). */
    private boolean allAtPartition0(int count) {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (int record = 0; record < count; record++) {
            sent.add(producer.send(new ProducerRecord<>(TOPIC, "record-" + record)));
        }
        for (Future<RecordMetadata> future : sent) {
            try {
                if (future.get(2, TimeUnit.SECONDS).partition() != 0) {
                    return false;
                }
            } catch (TimeoutException atPartition1) {
                return false;
            } catch (InterruptedException | ExecutionException e) {
                throw new IllegalStateException(e);
            }
        }
        return true;
    }

    private ApiMessage answer(int node, ApiKey api, ApiMessage request) {
        return switch (api) {
            case METADATA -> {
                MetadataResponseData answer = brokers.metadataAnswer(TOPIC, TOPIC_ID, 0, 1);
                MetadataResponseData.MetadataResponsePartition first = answer.topics().iterator().next().partitions().get(0);
                answer.topics().iterator().next().partitions().add(new MetadataResponseData.MetadataResponsePartition()
                        .setPartitionIndex(1).setLeaderId(1).setLeaderEpoch(1)
                        .setReplicaNodes(first.replicaNodes()).setIsrNodes(first.isrNodes()));
                yield answer;
            }
            case INIT_PRODUCER_ID -> new InitProducerIdResponseData().setProducerId(1).setProducerEpoch((short) 0);
            case PRODUCE -> {
                if (node == 1) {
                    producesAtNode1.incrementAndGet();
                    yield null;
                }
                yield acknowledged((ProduceRequestData) request);
            }
            default -> null;
        };
    }

    private static ProduceResponseData acknowledged(ProduceRequestData request) {
        ProduceResponseData response = new ProduceResponseData();
        for (ProduceRequestData.TopicProduceData topic : request.topicData()) {
            TopicProduceResponse answered = new TopicProduceResponse().setName(topic.name());
            for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                answered.partitionResponses().add(new PartitionProduceResponse().setIndex(partition.index()).setBaseOffset(0));
            }
            response.responses().add(answered);
        }
        return response;
    }
}
