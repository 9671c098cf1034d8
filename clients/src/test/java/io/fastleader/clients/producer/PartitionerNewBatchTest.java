package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.metadata.FastLeaderConfigs;
import io.fastleader.clients.network.ScriptedBrokers;
import io.fastleader.protocol.ApiKey;

/**
 * An application's partitioner is told of each new batch its partition would start, and asked
 * again, where the kafka-clients release on the classpath tells it (3.x's {@code onNewBatch});
 * beside 4.x, which took the method out, it is never told. Runs in both: the unit tests run beside
 * 4.3 here and beside 3.7 in clients/shaded.
 */
class PartitionerNewBatchTest {

    private static final List<Integer> NEW_BATCHES = new CopyOnWriteArrayList<>();
    private static final List<Integer> ASKED = new CopyOnWriteArrayList<>();

    private ScriptedBrokers brokers;
    private FastLeaderProducer<String, String> producer;

    @AfterEach
    void close() throws Exception {
        if (producer != null) {
            producer.close(Duration.ZERO);
        }
        brokers.close();
        NEW_BATCHES.clear();
        ASKED.clear();
    }

    @Test
    void testAPartitionerIsToldOfEachNewBatchAndAskedAgainWhereTheReleaseTellsIt() throws Exception {
        brokers = new ScriptedBrokers(1, this::answer);
        Map<String, Object> configs = new HashMap<>();
        configs.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers.bootstrap());
        configs.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, NewBatchCountingPartitioner.class);
        // Each record fills a batch of its own, so each starts a new one: a record of more than the
        // few bytes a first record's size estimate leaves over never joins the batch before it.
        configs.put(ProducerConfig.BATCH_SIZE_CONFIG, 1);
        configs.put(ProducerConfig.LINGER_MS_CONFIG, 60_000);
        configs.put(FastLeaderConfigs.CONNECTIONS_PREWARM, false);
        producer = new FastLeaderProducer<>(configs, new StringSerializer(), new StringSerializer());

        for (int record = 0; record < 3; record++) {
            producer.send(new ProducerRecord<>("orders", "value-" + record + "-" + "x".repeat(100)));
        }

        boolean releaseTells = Arrays.stream(Partitioner.class.getMethods()).anyMatch(method -> method.getName().equals("onNewBatch"));
        assertThat(NEW_BATCHES).isEqualTo(releaseTells ? List.of(0, 0, 0) : List.of());
        assertThat(ASKED).hasSize(releaseTells ? 6 : 3);
    }

    private ApiMessage answer(int node, ApiKey api, ApiMessage request) {
        return api == ApiKey.METADATA ? brokers.metadataAnswer("orders", Uuid.randomUuid(), 0, 1) : null;
    }

    /** Puts every record in partition 0, noting each time it is asked and each new batch it is told of. */
    public static final class NewBatchCountingPartitioner implements Partitioner {
        @Override
        public int partition(String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes, Cluster cluster) {
            ASKED.add(0);
            return 0;
        }

        /** kafka-clients 3.x's Partitioner method; beside 4.x no interface declares it. */
        public void onNewBatch(String topic, Cluster cluster, int prevPartition) {
            NEW_BATCHES.add(prevPartition);
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }
}
