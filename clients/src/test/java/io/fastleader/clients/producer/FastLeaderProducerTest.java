package io.fastleader.clients.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fastleader.clients.NeedsKafkaClientsNewerThan37;
import io.fastleader.clients.metadata.MetadataMetrics;

/** The producer's behaviour that needs no broker: against a bootstrap address nobody listens on. */
class FastLeaderProducerTest {

    private static final List<String> INTERCEPTED = new ArrayList<>();
    private FastLeaderProducer<String, String> producer;

    @AfterEach
    void close() {
        if (producer != null) {
            producer.close(Duration.ZERO);
        }
        INTERCEPTED.clear();
    }

    @Test
    void testSendFailsAsKafkaProducerDoesWhenTheTopicNeverAppears() throws Exception {
        producer = unreachable(Map.of(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, Recording.class.getName()));
        List<Exception> callbackErrors = new ArrayList<>();

        Future<RecordMetadata> future = producer.send(new ProducerRecord<>("nowhere", "k", "v"),
                (metadata, error) -> callbackErrors.add(error));

        assertThatThrownBy(future::get).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(TimeoutException.class).hasMessage("Topic nowhere not present in metadata after 200 ms.");
        assertThat(callbackErrors).singleElement().isInstanceOf(TimeoutException.class);
        assertThat(INTERCEPTED).containsExactly("onSend nowhere", "onAcknowledgement TimeoutException");
    }

    @Test
    void testPartitionsForFailsAsKafkaProducerDoesWhenTheTopicNeverAppears() {
        producer = unreachable(Map.of());

        assertThatThrownBy(() -> producer.partitionsFor("nowhere")).isInstanceOf(TimeoutException.class)
                .hasMessage("Topic nowhere not present in metadata after 200 ms.");
    }

    @Test
    void testTransactionalMethodsOfAnIdempotentProducerWithoutATransactionalIdAreRefusedAsNonTransactional() {
        producer = unreachable(Map.of());

        for (Runnable call : transactionalCalls(producer, Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(1)))) {
            assertThatThrownBy(call::run).isInstanceOf(IllegalStateException.class)
                    .hasMessage("Transactional method invoked on a non-transactional producer.");
        }
    }

    @Test
    @SuppressWarnings("deprecation")
    void testNoOffsetsSentToTheTransactionOfAnIdempotentProducerWithoutATransactionalIdReturn() {
        producer = unreachable(Map.of());

        producer.sendOffsetsToTransaction(Map.of(), new ConsumerGroupMetadata("group"));
        // kafka-clients 3.x's, deprecated there and gone in 4.0: an idle poll's empty offsets, as 3.x applications send them.
        producer.sendOffsetsToTransaction(Map.of(), "group");
    }

    @Test
    void testTransactionalMethodsWithoutIdempotenceOrATransactionalIdAreRefusedForWantOfTransactions() {
        producer = unreachable(Map.of(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false));

        for (Runnable call : transactionalCalls(producer, Map.of())) {
            assertThatThrownBy(call::run).isInstanceOf(IllegalStateException.class)
                    .hasMessage("Cannot use transactional methods without enabling transactions by setting the "
                            + "transactional.id configuration property");
        }
    }

    @Test
    void testTransactionalMethodsOfAClosedIdempotentProducerAreRefusedAsClosed() {
        producer = unreachable(Map.of());
        producer.close(Duration.ofMillis(100));

        for (Runnable call : transactionalCalls(producer, Map.of())) {
            assertThatThrownBy(call::run).isInstanceOf(IllegalStateException.class)
                    .hasMessage("Cannot perform operation after producer has been closed");
        }
    }

    /** Every transactional method of {@code target}, each {@code sendOffsetsToTransaction} with {@code offsets}. */
    @SuppressWarnings("deprecation")
    private static List<Runnable> transactionalCalls(FastLeaderProducer<String, String> target, Map<TopicPartition, OffsetAndMetadata> offsets) {
        return List.of(target::initTransactions, target::beginTransaction,
                () -> target.sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata("group")), target::commitTransaction,
                target::abortTransaction,
                // kafka-clients 3.x's, deprecated there and gone in 4.0.
                () -> target.sendOffsetsToTransaction(offsets, "group"));
    }

    @Test
    @NeedsKafkaClientsNewerThan37
    void testInterceptorsAreToldOfAnAcknowledgementWithTheRecordsHeadersAsKafkaProducer41AndLaterTellsThem() {
        producer = unreachable(Map.of(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, RecordingWithHeaders.class.getName()));
        ProducerRecord<String, String> record = new ProducerRecord<>("nowhere", "v");
        record.headers().add("trace", "t-1".getBytes(StandardCharsets.UTF_8));

        Future<RecordMetadata> sent = producer.send(record);

        assertThatThrownBy(sent::get).hasCauseInstanceOf(TimeoutException.class);
        assertThat(INTERCEPTED).containsExactly("onAcknowledgement TimeoutException t-1");
    }

    @Test
    void testPartitionsForAfterCloseFailsAsKafkaProducerDoes() {
        producer = unreachable(Map.of());
        producer.close(Duration.ofMillis(100));

        assertThatThrownBy(() -> producer.partitionsFor("t")).isExactlyInstanceOf(KafkaException.class)
                .hasMessage("Requested metadata update after close");
    }

    @Test
    void testMetricsCarryKafkasNamesAndOurs() {
        producer = unreachable(Map.of(ProducerConfig.CLIENT_ID_CONFIG, "metered"));

        List<String> names = producer.metrics().keySet().stream().map(name -> name.group() + "/" + name.name()).toList();

        assertThat(names).contains("producer-metrics/record-send-total", "producer-metrics/record-send-rate",
                "producer-metrics/record-retry-total", "producer-metrics/record-error-total",
                "producer-metrics/request-latency-avg", "producer-metrics/batch-size-avg", "producer-metrics/batch-split-total",
                "fastleader-producer/retry-backoffs-skipped-total",
                MetadataMetrics.GROUP + "/leader-hints-accepted-total", MetadataMetrics.GROUP + "/metadata-refreshes-total");
        assertThat(producer.metrics().keySet()).extracting(MetricName::tags).allMatch(tags -> "metered".equals(tags.get("client-id")));
    }

    @Test
    void testCloseLeavesNoProducerThreadAndRefusesSends() {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        producer = unreachable(Map.of(ProducerConfig.CLIENT_ID_CONFIG, "closing"));

        producer.close(Duration.ofMillis(100));

        assertThat(Thread.getAllStackTraces().keySet()).as("threads the producer started, alive after close")
                .noneMatch(thread -> !before.contains(thread) && thread.getName().startsWith("fastleader-") && thread.isAlive());
        assertThatThrownBy(() -> producer.send(new ProducerRecord<>("t", "v"))).isInstanceOf(IllegalStateException.class)
                .hasMessage("Cannot perform operation after producer has been closed");
    }

    private static FastLeaderProducer<String, String> unreachable(Map<String, Object> overrides) {
        Map<String, Object> configs = new HashMap<>();
        configs.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        configs.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 200);
        configs.putAll(overrides);
        return new FastLeaderProducer<>(configs, new StringSerializer(), new StringSerializer());
    }

    /** Writes down the acknowledgements it is told of, with their records' headers, overriding only kafka-clients 4.1's variant. */
    public static final class RecordingWithHeaders implements ProducerInterceptor<String, String> {

        @Override
        public ProducerRecord<String, String> onSend(ProducerRecord<String, String> record) {
            return record;
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
            INTERCEPTED.add("onAcknowledgement without headers");
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception, Headers headers) {
            INTERCEPTED.add("onAcknowledgement " + exception.getClass().getSimpleName() + " "
                    + new String(headers.lastHeader("trace").value(), StandardCharsets.UTF_8));
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }

    /** Writes down what it is called with. */
    public static final class Recording implements ProducerInterceptor<String, String> {

        @Override
        public ProducerRecord<String, String> onSend(ProducerRecord<String, String> record) {
            INTERCEPTED.add("onSend " + record.topic());
            return record;
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
            INTERCEPTED.add("onAcknowledgement " + (exception == null ? "ok" : exception.getClass().getSimpleName()));
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }
}
