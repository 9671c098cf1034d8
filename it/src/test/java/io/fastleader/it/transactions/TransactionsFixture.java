package io.fastleader.it.transactions;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

import io.fastleader.clients.producer.FastLeaderProducer;
import io.fastleader.it.cluster.Await;
import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.cluster.NetworkModel;

/**
 * A 3-broker cluster finalized at one {@code transaction.version}, with what the transaction tests
 * on it share: topics, transactional producers of both clients, the coordinator's view through
 * Admin, and the {@code read_committed} reader that checks what a transaction left.
 */
final class TransactionsFixture implements AutoCloseable {

    static final int PARTITIONS = 3;

    final KafkaTestCluster cluster;
    final Disturbances disturbances;
    final int transactionVersion;
    private final Admin admin;

    private TransactionsFixture(KafkaTestCluster cluster, int transactionVersion) {
        this.cluster = cluster;
        this.transactionVersion = transactionVersion;
        this.disturbances = new Disturbances(cluster);
        this.admin = Admin.create(cluster.clientConfig());
    }

    /** Starts an in-JVM cluster finalized at {@code transactionVersion}, with {@code brokerConfigs} on every broker. */
    static TransactionsFixture start(int transactionVersion, Map<String, String> brokerConfigs) {
        return start(transactionVersion, brokerConfigs, NetworkModel.loopback());
    }

    /** As {@link #start(int, Map)}, the brokers reached over {@code network}. */
    static TransactionsFixture start(int transactionVersion, Map<String, String> brokerConfigs, NetworkModel network) {
        ClusterSpec.Builder spec = ClusterSpec.builder().execution(Execution.IN_JVM).transactionVersion(transactionVersion)
                .network(network);
        brokerConfigs.forEach(spec::brokerConfig);
        return new TransactionsFixture(spec.start(), transactionVersion);
    }

    @Override
    public void close() {
        admin.close();
        disturbances.close();
        cluster.close();
    }

    /** Creates {@code txn-<name>}, {@link #PARTITIONS} partitions on every broker, and returns its name once it is led and in sync. */
    String topic(String name) {
        String topic = "txn-" + name;
        disturbances.createTopic(new NewTopic(topic, PARTITIONS, (short) 3));
        return topic;
    }

    Producer<String, String> fastLeader(String transactionalId, Map<String, Object> extra) {
        return new FastLeaderProducer<>(producerConfig(transactionalId, extra), new StringSerializer(), new StringSerializer());
    }

    Producer<String, String> kafka(String transactionalId, Map<String, Object> extra) {
        return new KafkaProducer<>(producerConfig(transactionalId, extra), new StringSerializer(), new StringSerializer());
    }

    private Map<String, Object> producerConfig(String transactionalId, Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        config.putAll(extra);
        return config;
    }

    /** Sends {@code <prefix>-0} to {@code <prefix>-<count-1>}, keyed by themselves. */
    static List<Future<RecordMetadata>> sendAll(Producer<String, String> producer, String topic, String prefix, int count) {
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            futures.add(producer.send(new ProducerRecord<>(topic, prefix + "-" + i, prefix + "-" + i)));
        }
        return futures;
    }

    /** {@code <prefix>-0} to {@code <prefix>-<count-1>} for each prefix with its count, in that order. */
    static List<String> values(List<String> prefixes, List<Integer> counts) {
        List<String> values = new ArrayList<>();
        for (int p = 0; p < prefixes.size(); p++) {
            for (int i = 0; i < counts.get(p); i++) {
                values.add(prefixes.get(p) + "-" + i);
            }
        }
        return values;
    }

    /** The values {@link ReadCommitted#records} reads from {@code topic}. */
    List<String> readCommitted(String topic) {
        return readCommittedRecords(topic).stream().map(ConsumerRecord::value).toList();
    }

    /** What {@link ReadCommitted#records} reads from {@code topic}, once every transaction on it has ended. */
    List<ConsumerRecord<String, String>> readCommittedRecords(String topic) {
        return ReadCommitted.records(admin, cluster.clientConfig(), topic, PARTITIONS);
    }

    /** The transaction coordinator's description of {@code transactionalId}'s transaction. */
    TransactionDescription describeTransaction(String transactionalId) {
        try {
            return admin.describeTransactions(List.of(transactionalId)).description(transactionalId).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("describing transaction " + transactionalId + " failed", e.getCause());
        } catch (Exception e) {
            throw new IllegalStateException("describing transaction " + transactionalId + " failed", e);
        }
    }

    /** The description of {@code transactionalId}'s transaction once its coordinator has it completely committed (markers written). */
    TransactionDescription awaitCompleteCommit(String transactionalId) {
        TransactionDescription[] seen = new TransactionDescription[1];
        Await.until(transactionalId + " completely committed", Disturbances.TIMEOUT, () -> {
            seen[0] = describeTransaction(transactionalId);
            return seen[0].state() == TransactionState.COMPLETE_COMMIT;
        });
        return seen[0];
    }

    /** {@code <prefix>-<case>}, the case's name in lower case with dashes: a transactional id or topic name per case of a test. */
    static String nameOf(String prefix, Enum<?> testCase) {
        return prefix + "-" + testCase.name().toLowerCase().replace('_', '-');
    }

    /** The committed offsets of {@code groupId}. */
    Map<TopicPartition, Long> committedOffsets(String groupId) {
        try {
            Map<TopicPartition, Long> offsets = new HashMap<>();
            admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                    .forEach((partition, offset) -> offsets.put(partition, offset.offset()));
            return offsets;
        } catch (Exception e) {
            throw new IllegalStateException("listing the offsets of " + groupId + " failed", e);
        }
    }
}
