package io.fastleader.clients.producer;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.metadata.BrokerEndpoint;
import io.fastleader.clients.metadata.ClientResources;
import io.fastleader.clients.metadata.ClientTelemetry;
import io.fastleader.clients.metadata.ClientResources.ClusterLink;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.EpochBackoff;
import io.fastleader.clients.metadata.ClusterView;
import io.fastleader.clients.metadata.FastLeaderConfigs;
import io.fastleader.clients.metadata.KafkaKeys;
import io.fastleader.clients.metadata.LeaderCache;
import io.fastleader.clients.metadata.PartitionLeadership;
import io.fastleader.clients.metadata.ReplicaPrewarm;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.KafkaClientsRange;
import io.fastleader.clients.network.NetworkMetrics;
import io.fastleader.clients.producer.transaction.Transactions;

/**
 * A Kafka producer that follows KIP-951 leader hints: when a broker refuses a batch because the
 * partition's leadership moved and names the new leader, the batch goes to that leader at once,
 * with no backoff and no Metadata round trip first. A drop-in for {@code KafkaProducer}: the same
 * constructors, configuration keys and {@link Producer} contract, plus the {@code fastleader.*}
 * keys described in the module's README.
 *
 * <p>Transactions are {@code KafkaProducer}'s: set {@code transactional.id}, call
 * {@link #initTransactions()} once, then begin, send (and {@link #sendOffsetsToTransaction}) and
 * commit or abort, with the same states, exceptions and {@code max.block.ms} bounds. The producer
 * speaks the transaction protocol the cluster finalized ({@code transaction.version} 1 or 2), and
 * finds its coordinators again at once when one moves.
 *
 * <p>With {@code acks=0} a record is done once its request is written, as with {@code KafkaProducer}:
 * its {@link RecordMetadata} has no offset ({@link RecordMetadata#hasOffset()} is false).
 *
 * <p>Not supported yet: adaptive partitioning and client telemetry.
 *
 * <p>Thread-safe: share one instance between threads, as with {@code KafkaProducer}.
 */
public final class FastLeaderProducer<K, V> implements Producer<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(FastLeaderProducer.class);
    /** No partition's leader in the producer's rack: without {@code partitioner.rack.aware}, no lambda per record. */
    private static final IntPredicate NO_RACK = index -> false;
    /** The JMX domain of the client's MBeans, kafka-clients' own. */
    private static final String JMX_PREFIX = "kafka.producer";
    /** KafkaProducer's words for a send or a transactional call after close. */
    static final String CLOSED = "Cannot perform operation after producer has been closed";
    /** KafkaProducer's words for the same refusal. */
    private static final String FLUSH_IN_CALLBACK =
            "KafkaProducer.flush() invocation inside a callback is not permitted because it may lead to deadlock.";

    private final ProducerSettings settings;
    private final LongSupplier clockMs = () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ClientResources resources = new ClientResources("FastLeaderProducer");
    private final Metrics metrics;
    private final ProducerMetrics producerMetrics;
    private final ConnectionPool pool;
    private final ClusterMetadata metadata;
    private final LeaderCache cache;
    private final RecordAccumulator accumulator;
    private final Sender sender;
    /** Null without {@code transactional.id}. */
    private final Transactions transactions;
    private final TransactionalCalls transactionalCalls;
    private final Serializer<K> keySerializer;
    private final Serializer<V> valueSerializer;
    private final Partitioner partitioner;
    private final StickyPartitioner stickyPartitioner;
    private final Interceptors<K, V> interceptors;
    private final ReplicaPrewarm prewarm;
    private final ClientTelemetry telemetry;
    /** {@code client.rack} under {@code partitioner.rack.aware}, else null. */
    private final String partitionerRack;

    /** A producer configured by {@code configs}, serializers from {@code key.serializer} and {@code value.serializer}. */
    public FastLeaderProducer(Map<String, Object> configs) {
        this(configs, null, null);
    }

    /** A producer configured by {@code properties}, serializers from {@code key.serializer} and {@code value.serializer}. */
    public FastLeaderProducer(Properties properties) {
        this(Utils.propsToMap(properties), null, null);
    }

    /** A producer configured by {@code properties} with the given serializers, which it closes on close. */
    public FastLeaderProducer(Properties properties, Serializer<K> keySerializer, Serializer<V> valueSerializer) {
        this(Utils.propsToMap(properties), keySerializer, valueSerializer);
    }

    /**
     * A producer configured by {@code configs} with the given serializers (null: from the
     * serializer keys), which it closes on close. As with {@code KafkaProducer}, serializers given
     * here are not configured again.
     *
     * @throws org.apache.kafka.common.config.ConfigException naming the key, the value and what is allowed
     * @throws KafkaException when the kafka-clients on the classpath is outside the supported line
     *         ({@link KafkaClientsRange})
     */
    public FastLeaderProducer(Map<String, Object> configs, Serializer<K> keySerializer, Serializer<V> valueSerializer) {
        KafkaClientsRange.requireSupported();
        this.settings = ProducerSettings.parse(configs, keySerializer, valueSerializer);
        ProducerConfig kafka = settings.kafkaConfig();
        String clientId = settings.clientId();
        Map<String, Object> clientIdOverride = Map.of(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        try {
            this.metrics = resources.openMetrics(clientId, kafka, JMX_PREFIX);
            this.keySerializer = resources.registerPlugin(keySerializer != null ? keySerializer
                    : configuredSerializer(kafka, ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, clientIdOverride, true),
                    metrics, ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
            this.valueSerializer = resources.registerPlugin(valueSerializer != null ? valueSerializer
                    : configuredSerializer(kafka, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, clientIdOverride, false),
                    metrics, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
            this.partitioner = kafka.getConfiguredInstance(ProducerConfig.PARTITIONER_CLASS_CONFIG, Partitioner.class,
                    clientIdOverride);
            if (partitioner != null) {
                resources.registerPlugin(partitioner, metrics, ProducerConfig.PARTITIONER_CLASS_CONFIG);
            }
            @SuppressWarnings("unchecked")
            List<ProducerInterceptor<K, V>> configured = (List<ProducerInterceptor<K, V>>) (List<?>) kafka.getConfiguredInstances(
                    ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, ProducerInterceptor.class, clientIdOverride);
            configured.forEach(interceptor -> resources.monitor(interceptor, metrics, ProducerConfig.INTERCEPTOR_CLASSES_CONFIG));
            this.interceptors = resources.register(new Interceptors<>(configured));
            this.partitionerRack = settings.partitionerRack();
            ClusterLink cluster = resources.openCluster(clientId, settings, metrics, ProducerMetrics.KAFKA_GROUP,
                    ProducerMetrics.NODE_GROUP, opened -> opened::inUse);
            this.pool = cluster.pool();
            this.metadata = cluster.metadata();
            metadata.tellClusterId(ClientResources.clusterIdListeners(this.keySerializer, this.valueSerializer, configured, metrics));
            this.prewarm = cluster.prewarm();
            this.telemetry = cluster.telemetry();
            this.cache = metadata.cache();
            this.producerMetrics = new ProducerMetrics(metrics);
            producerMetrics.watch(cluster.network()::requestsInFlight, metadata::ageMs);
            SlowBatchLog slowBatches = new SlowBatchLog(settings.slowBatchLogMs());
            this.accumulator = new RecordAccumulator(new AccumulatorConfig(settings.batchSize(), settings.lingerMs(),
                    settings.bufferMemory(), settings.compression(), settings.deliveryTimeoutMs(), settings.maxRequestSize(),
                    settings.bufferAllocation()),
                    producerMetrics, cache::leaderEpoch, slowBatches.isOn());
            this.sender = new Sender(accumulator, metadata, pool, settings, EpochBackoff.of(settings.metadataConfig()),
                    producerMetrics, slowBatches, clockMs);
            this.stickyPartitioner = new StickyPartitioner(settings.batchSize(), bound -> ThreadLocalRandom.current().nextInt(bound),
                    settings.partitionerAdaptive() ? new QueueLoads(accumulator, cache, sender.availability())
                            : StickyPartitioner.PartitionLoads.NONE);
            this.transactions = sender.transactions();
            this.transactionalCalls = new TransactionalCalls(sender, settings.idempotent(), settings.maxBlockMs(), producerMetrics, closed::get);
            sender.start();
            FastLeaderConfigs.logUnusedKeys(kafka, ProducerConfig.configDef(), KafkaKeys.Clients.PRODUCER);
        } catch (RuntimeException e) {
            throw resources.failedToStart(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> Serializer<T> configuredSerializer(ProducerConfig kafka, String key, Map<String, Object> overrides,
                                                          boolean isKey) {
        Serializer<T> serializer = kafka.getConfiguredInstance(key, Serializer.class);
        serializer.configure(kafka.originals(overrides), isKey);
        return serializer;
    }

    /** {@inheritDoc} Same as {@code send(record, null)}. */
    @Override
    public Future<RecordMetadata> send(ProducerRecord<K, V> record) {
        return send(record, null);
    }

    /**
     * Sends a record: interceptors, serializers, partitioner, then the accumulator. Blocks at most
     * {@code max.block.ms} in all, for the topic's metadata and for buffer memory; past it the
     * record fails with a {@link TimeoutException} (through the callback and the future, as in
     * {@code KafkaProducer}).
     *
     * @throws IllegalStateException after {@link #close}
     * @throws InterruptException    if interrupted while blocked
     * @throws SerializationException when the key or value cannot be serialized
     */
    @Override
    public Future<RecordMetadata> send(ProducerRecord<K, V> record, Callback callback) {
        ProducerRecord<K, V> intercepted = interceptors.onSend(record);
        TopicPartition partition = null;
        try {
            if (closed.get()) {
                throw new IllegalStateException(CLOSED);
            }
            // A send that waits for nothing reads one clock, as KafkaProducer's send does: the wall clock for
            // the record's timestamp. The monotonic one is read for a wait, or by the accumulator for a new batch.
            String topic = intercepted.topic();
            long blockMs = settings.maxBlockMs();
            int partitionCount = usedTopicPartitionCount(topic);
            if (needsMetadata(intercepted, partitionCount)) {
                long deadlineMs = clockMs.getAsLong() + blockMs;
                if (partitionCount == 0) {
                    partitionCount = awaitTopic(topic, deadlineMs);
                }
                if (namesMissingPartition(intercepted, partitionCount)) {
                    partitionCount = awaitPartition(new TopicPartition(topic, intercepted.partition()), deadlineMs);
                }
                blockMs = Math.max(0, deadlineMs - clockMs.getAsLong());
            }
            Headers headers = intercepted.headers();
            byte[] key = serialize(keySerializer, topic, headers, intercepted.key(), "key");
            byte[] value = serialize(valueSerializer, topic, headers, intercepted.value(), "value");
            long timestamp = intercepted.timestamp() == null ? System.currentTimeMillis() : intercepted.timestamp();
            Header[] headerArray = headers.toArray();
            StickyPartitioner.Stint stint = usesStickyPartition(intercepted, key)
                    ? stickyPartitioner.stintForUnkeyed(topic, partitionCount, index -> hasLeader(topic, index),
                            partitionerRack == null ? NO_RACK : index -> leaderInRack(topic, index),
                            index -> accumulator.startsNewBatch(new TopicPartition(topic, index), timestamp, key, value, headerArray))
                    : null;
            partition = new TopicPartition(topic, stint != null ? stint.partition() : partition(intercepted, key, value, partitionCount));
            if (tellsPartitionerOfNewBatches(intercepted) && accumulator.startsNewBatch(partition, timestamp, key, value, headerArray)) {
                PartitionerNewBatch.tell(partitioner, topic, ClusterView.forTopic(cache, topic), partition.partition());
                partition = new TopicPartition(topic, partition(intercepted, key, value, partitionCount));
            }
            if (transactions != null) {
                transactions.checkSend(partition);
            }
            // Without interceptors the application's callback is the batch's to run, with nothing around it.
            Callback acknowledged = interceptors.isEmpty() ? callback : (metadata, error) -> {
                interceptors.onAcknowledgement(metadata, error, headers);
                if (callback != null) {
                    callback.onCompletion(metadata, error);
                }
            };
            AppendResult appended = accumulator.append(partition, timestamp, key, value, headerArray, acknowledged,
                    blockMs, clockMs);
            if (stint != null) {
                stickyPartitioner.appended(topic, stint, appended.appendedBytes(), appended.lastBatchFull());
            }
            if (appended.batchIsFull() || appended.newBatchCreated()) {
                sender.wakeup();
            }
            return appended.future();
        } catch (ApiException e) {
            TopicPartition failed = partition != null ? partition
                    : new TopicPartition(intercepted.topic(), intercepted.partition() == null ? -1 : intercepted.partition());
            RecordMetadata unknown = new RecordMetadata(failed, -1, -1, RecordBatch.NO_TIMESTAMP, -1, -1);
            interceptors.onAcknowledgement(unknown, e, intercepted.headers());
            if (callback != null) {
                callback.onCompletion(unknown, e);
            }
            return CompletableFuture.failedFuture(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        }
    }

    /**
     * The topic's partition count, waiting for its metadata until {@code deadlineMs}. Counts as a
     * use of the topic: one not used for {@code metadata.max.idle.ms} is no longer refreshed, and
     * waits here for its metadata again, as a new topic does.
     */
    private int awaitTopic(String topic, long deadlineMs) throws InterruptedException {
        int count = usedTopicPartitionCount(topic);
        if (count > 0) {
            return count;
        }
        awaitMetadata(metadata.awaitTopics(List.of(topic)), deadlineMs,
                () -> String.format("Topic %s not present in metadata after %d ms.", topic, settings.maxBlockMs()));
        if (prewarm != null) {
            prewarm.prewarmTopic(topic);
        }
        return cache.partitionCount(topic);
    }

    /** Whether the send waits for metadata: its topic has none ({@code partitionCount} 0), or not the partition the record names. */
    private static boolean needsMetadata(ProducerRecord<?, ?> record, int partitionCount) {
        return partitionCount == 0 || namesMissingPartition(record, partitionCount);
    }

    /** Whether the record names a partition its topic's {@code partitionCount} partitions do not include. */
    private static boolean namesMissingPartition(ProducerRecord<?, ?> record, int partitionCount) {
        return record.partition() != null && record.partition() >= partitionCount;
    }

    /** The topic's partition count, its use noted; 0 when it has no metadata or is not in use. */
    private int usedTopicPartitionCount(String topic) {
        int count = cache.partitionCount(topic);
        return count > 0 && metadata.recordUse(topic) ? count : 0;
    }

    /**
     * The topic's partition count once Metadata shows the partition a record names, waiting until
     * {@code deadlineMs}: as in {@code KafkaProducer}, partitions may be added meanwhile, so a
     * partition the topic does not have fails only when {@code max.block.ms} runs out.
     */
    private int awaitPartition(TopicPartition partition, long deadlineMs) throws InterruptedException {
        awaitMetadata(metadata.awaitPartition(partition), deadlineMs,
                () -> String.format("Partition %d of topic %s with partition count %d is not present in metadata after %d ms.",
                        partition.partition(), partition.topic(), cache.partitionCount(partition.topic()), settings.maxBlockMs()));
        return cache.partitionCount(partition.topic());
    }

    /** Waits until {@code deadlineMs} for {@code answer}; past it, stops waiting and throws a {@link TimeoutException}. */
    private void awaitMetadata(CompletableFuture<Void> answer, long deadlineMs, Supplier<String> timeoutMessage)
            throws InterruptedException {
        long waitStartNanos = System.nanoTime();
        try {
            answer.get(Math.max(0, deadlineMs - clockMs.getAsLong()), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            answer.cancel(false);
            throw new TimeoutException(timeoutMessage.get());
        } catch (InterruptedException e) {
            answer.cancel(false);
            throw e;
        } catch (ExecutionException e) {
            throw e.getCause() instanceof KafkaException kafka ? kafka : new KafkaException(e.getCause());
        } finally {
            producerMetrics.metadataWaited(System.nanoTime() - waitStartNanos);
        }
    }

    private static <T> byte[] serialize(Serializer<T> serializer, String topic, Headers headers, T data, String what) {
        try {
            return serializer.serialize(topic, headers, data);
        } catch (ClassCastException e) {
            throw new SerializationException("Can't convert " + what + " of class " + data.getClass().getName() + " to class "
                    + serializer.getClass().getName() + " specified in " + what + ".serializer", e);
        }
    }

    /** Whether the record's partition is the built-in sticky one: no partition, no partitioner, no key that counts. */
    private boolean usesStickyPartition(ProducerRecord<K, V> record, byte[] key) {
        return record.partition() == null && partitioner == null && (key == null || settings.partitionerIgnoreKeys());
    }

    /**
     * Whether the record's partition comes from an application's partitioner that kafka-clients
     * 3.x tells of new batches ({@link PartitionerNewBatch}): that producer asks it again when the
     * partition it chose would start one.
     */
    private boolean tellsPartitionerOfNewBatches(ProducerRecord<K, V> record) {
        return record.partition() == null && partitioner != null && PartitionerNewBatch.told();
    }

    /** The partition of a record that names one, goes through {@code partitioner.class}, or has a key that counts. */
    private int partition(ProducerRecord<K, V> record, byte[] key, byte[] value, int partitionCount) {
        if (record.partition() != null) {
            return record.partition();
        }
        if (partitioner != null) {
            return partitioner.partition(record.topic(), record.key(), key, record.value(), value, ClusterView.forTopic(cache, record.topic()));
        }
        return StickyPartitioner.partitionForKey(key, partitionCount);
    }

    private boolean hasLeader(String topic, int index) {
        PartitionLeadership leadership = cache.leadership(new TopicPartition(topic, index));
        return leadership != null && leadership.hasLeader();
    }

    /** Whether the partition's leader is in {@code client.rack}, for {@code partitioner.rack.aware}. */
    private boolean leaderInRack(String topic, int index) {
        PartitionLeadership leadership = cache.leadership(new TopicPartition(topic, index));
        BrokerEndpoint leader = leadership == null ? null : cache.node(leadership.leaderId());
        return leader != null && partitionerRack.equals(leader.rack());
    }

    /**
     * Sends every record sent so far at once (linger is ignored meanwhile) and waits until each has
     * been acknowledged or has failed.
     *
     * @throws InterruptException if interrupted while waiting
     * @throws KafkaException     when called from a send callback, which runs on the thread that ends
     *                            records, as {@code KafkaProducer} refuses it
     */
    @Override
    public void flush() {
        if (sender.inSender()) {
            // The records it would wait for can only end on this very thread.
            throw new KafkaException(FLUSH_IN_CALLBACK);
        }
        long startNanos = System.nanoTime();
        Flush flush = accumulator.beginFlush();
        sender.wakeup();
        try {
            flush.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        } finally {
            producerMetrics.flushed(System.nanoTime() - startNanos);
        }
    }

    /**
     * The topic's partitions, waiting at most {@code max.block.ms} for its metadata.
     *
     * @throws TimeoutException when the metadata did not arrive in time, with KafkaProducer's message
     */
    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        try {
            awaitTopic(topic, clockMs.getAsLong() + settings.maxBlockMs());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        }
        return ClusterView.partitions(cache, topic);
    }

    /**
     * The producer's metrics: Kafka's names in {@code producer-metrics}, {@code producer-topic-metrics}
     * and {@code producer-node-metrics} (see {@link ProducerMetrics} and {@link NetworkMetrics}),
     * leader discovery in {@code fastleader-metadata}, KIP-951 retries in {@code fastleader-producer},
     * requests per API in {@code fastleader-network}.
     * Every metric carries the {@code client-id} tag.
     */
    @Override
    public Map<MetricName, ? extends Metric> metrics() {
        return Collections.unmodifiableMap(metrics.metrics());
    }

    /**
     * The id the brokers gave this producer for its client telemetry (KIP-714), waiting up to
     * {@code timeout} for it; null if it did not come in time, as in {@code KafkaProducer}.
     *
     * @throws IllegalStateException with {@code enable.metrics.push=false}, as {@code KafkaProducer} does
     * @throws IllegalArgumentException for a negative timeout
     */
    @Override
    public Uuid clientInstanceId(Duration timeout) {
        return telemetry.clientInstanceId(timeout);
    }

    /** Adds the application's {@code metric} to this producer's client telemetry, unless it is one of the producer's own. */
    @Override
    public void registerMetricForSubscription(KafkaMetric metric) {
        telemetry.addApplicationMetric(metric, metrics);
    }

    /** Takes the application's {@code metric} out of this producer's client telemetry; the producer's own stay. */
    @Override
    public void unregisterMetricFromSubscription(KafkaMetric metric) {
        telemetry.removeApplicationMetric(metric, metrics);
    }

    /**
     * Gets the producer's id and epoch from its transaction coordinator, which first ends any
     * transaction a previous producer with this {@code transactional.id} left open and fences that
     * producer. Blocks at most {@code max.block.ms}; after a {@link TimeoutException} it goes on, and
     * calling it again waits for the same outcome.
     *
     * @throws IllegalStateException without {@code transactional.id}, after close, or when called again after it completed
     */
    @Override
    public void initTransactions() {
        transactionalCalls.initTransactions();
    }

    /**
     * Begins a transaction: local only, the coordinator learns of it with its first partition or offsets.
     *
     * @throws ProducerFencedException once another producer took the {@code transactional.id}
     * @throws IllegalStateException   before {@link #initTransactions()} or while a transaction is open
     */
    @Override
    public void beginTransaction() {
        transactionalCalls.beginTransaction();
    }

    /**
     * Adds the consumer's offsets to the transaction: they commit with it, at the group's
     * coordinator, which refuses a consumer of an older generation (the transaction then fails with
     * {@link org.apache.kafka.clients.consumer.CommitFailedException} and must be aborted). Blocks
     * at most {@code max.block.ms}.
     *
     * @throws IllegalArgumentException for null group metadata, or a generation without a member id
     * @throws IllegalStateException    outside a transaction
     */
    @Override
    public void sendOffsetsToTransaction(Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata groupMetadata) {
        transactionalCalls.sendOffsetsToTransaction(offsets, groupMetadata);
    }

    /**
     * {@code Producer}'s in kafka-clients 3.x (deprecated there, gone in 4.0), so applications on
     * 3.7 to 3.9 find it: offsets of a group whose generation the coordinator does not check.
     */
    @Deprecated
    public void sendOffsetsToTransaction(Map<TopicPartition, OffsetAndMetadata> offsets, String consumerGroupId) {
        sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata(consumerGroupId));
    }

    /**
     * Sends every record of the transaction (none lingers), waits for all of them, then commits.
     * Blocks at most {@code max.block.ms}; after a {@link TimeoutException} calling it again waits
     * for the same commit.
     *
     * @throws KafkaException when a record or an offset of the transaction failed: abort it
     * @throws ProducerFencedException once another producer took the {@code transactional.id}: close
     */
    @Override
    public void commitTransaction() {
        transactionalCalls.commitTransaction();
    }

    /**
     * Aborts the transaction: records not yet sent fail with
     * {@link org.apache.kafka.common.errors.TransactionAbortedException}, those in flight are
     * waited for, then the coordinator aborts it. Blocks at most {@code max.block.ms}.
     *
     * @throws ProducerFencedException once another producer took the {@code transactional.id}: close
     */
    @Override
    public void abortTransaction() {
        LOG.info("Aborting incomplete transaction");
        transactionalCalls.abortTransaction();
    }

    /** Closes the producer after every record sent so far has been acknowledged or has failed, however long that takes. */
    @Override
    public void close() {
        close(Duration.ofMillis(Long.MAX_VALUE));
    }

    /**
     * Refuses further sends, then waits up to {@code timeout} for the records already sent to be
     * acknowledged; whatever is left then fails with a {@link KafkaException}. {@link Duration#ZERO}
     * fails everything unsent at once. Called from a send callback it does not wait (the thread
     * it would wait for is the caller). Returns with no producer thread left running.
     *
     * @throws IllegalArgumentException for a negative timeout
     */
    @Override
    public void close(Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("The timeout cannot be negative: " + timeout);
        }
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        long deadlineMs = clockMs.getAsLong() + Math.min(timeout.toMillis(), Long.MAX_VALUE / 2);
        boolean onSenderThread = sender.inSender();
        accumulator.close();
        sender.initiateClose();
        boolean drained = false;
        if (!timeout.isZero() && !onSenderThread) {
            drained = joinSender(timeout.toMillis());
        }
        if (!drained) {
            accumulator.abortAll(new KafkaException("The producer was closed before the record was acknowledged"));
            sender.forceClose();
            if (!onSenderThread) {
                joinSender(0);
            }
        }
        if (!onSenderThread) {
            telemetry.closeWithin(Duration.ofMillis(Math.max(0, deadlineMs - clockMs.getAsLong())));
        }
        resources.close();
    }

    /** Waits for the sender to end ({@code 0}: without limit); false if it still runs. */
    private boolean joinSender(long timeoutMs) {
        try {
            if (timeoutMs == 0) {
                sender.whenEnded().get();
            } else {
                sender.whenEnded().get(timeoutMs, TimeUnit.MILLISECONDS);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("Interrupted while closing the producer; records not yet acknowledged fail");
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            // Not ended within the timeout: the caller forces the end.
        }
        return false;
    }
}
