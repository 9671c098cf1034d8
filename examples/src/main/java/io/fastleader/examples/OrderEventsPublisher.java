package io.fastleader.examples;

import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Publishes the events of orders (created, paid, shipped, ...) to a topic, promising its readers
 * that each order's events arrive in the order they were published, each exactly once. The order
 * id is the record key, so every event of an order lands in one partition; the producer
 * {@link #producerConfig configuration} makes the client retry what a broker did not acknowledge
 * without writing it twice or out of order.
 *
 * <p>It is written against kafka-clients' {@link Producer} interface, so the application chooses
 * the client: {@code new FastLeaderProducer<>(config)} or {@code new KafkaProducer<>(config)}.
 */
public final class OrderEventsPublisher {

    private final Producer<String, String> producer;
    private final String topic;
    private final AtomicReference<Exception> firstFailure = new AtomicReference<>();

    /** Publishes to {@code topic} with {@code producer}, built from {@link #producerConfig}; the caller closes it. */
    public OrderEventsPublisher(Producer<String, String> producer, String topic) {
        this.producer = producer;
        this.topic = topic;
    }

    /**
     * The producer settings the promise rests on: {@code acks=all}, so an acknowledged event is on
     * every in-sync replica, and idempotence, so a retried batch is neither appended twice nor
     * behind a later one. Both are kafka-clients' defaults since 3.0; they are set here so that no
     * other configuration can quietly turn them off.
     */
    public static Properties producerConfig(String bootstrapServers) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return config;
    }

    /** Sends {@code event} of order {@code orderId} without waiting for it: see {@link #awaitPublished()}. */
    public void publish(String orderId, String event) {
        producer.send(new ProducerRecord<>(topic, orderId, event), (metadata, exception) -> {
            if (exception != null) {
                firstFailure.compareAndSet(null, exception);
            }
        });
    }

    /**
     * Waits until every event published so far is acknowledged.
     *
     * @throws IllegalStateException if the client gave up on one (its {@code delivery.timeout.ms}
     *                               passed, or the error could not be retried)
     */
    public void awaitPublished() {
        producer.flush();
        Exception failure = firstFailure.get();
        if (failure != null) {
            throw new IllegalStateException("an order event was not published", failure);
        }
    }
}
