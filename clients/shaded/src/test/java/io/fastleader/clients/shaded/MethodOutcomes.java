package io.fastleader.clients.shaded;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.Method;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import io.fastleader.clients.consumer.FastLeaderConsumer;
import io.fastleader.clients.producer.FastLeaderProducer;

/**
 * Calls that end the same way on every client of one kafka-clients release, or should: misused
 * transactional methods, calls on a closed client, and the methods only 3.x's interfaces have. Each
 * {@link Case} is made on a fresh {@code FastLeaderProducer} or {@code FastLeaderConsumer} and on a
 * fresh client of the release on the classpath, and its {@link #outcome} compared.
 *
 * <p>Methods are called through {@link MethodHandles}, found on each client's own class with the
 * signature the release's client declares: a method 3.x has and 4.x dropped is then no
 * compile-time reference, and finding one method on fastleader's class does not load the classes
 * other methods' signatures name (which {@code Class.getMethod} would, and {@code CloseOptions} is
 * not in 3.7).
 */
final class MethodOutcomes {

    private static final TopicPartition PARTITION = new TopicPartition("t", 0);
    /** Offsets a misused {@code sendOffsetsToTransaction} carries when not empty. */
    private static final Map<TopicPartition, OffsetAndMetadata> OFFSETS = Map.of(PARTITION, new OffsetAndMetadata(1));
    /** Bounds any call that would wait for a broker, on both clients alike. */
    private static final int MAX_BLOCK_MS = 3_000;

    enum Kind { PRODUCER, CONSUMER }

    /** The client's state before the call. */
    enum Before { NOTHING, CLOSED }

    /** One call: on which kind of client, configured how, in which state, and the call itself. */
    record Case(String name, Kind kind, Map<String, Object> config, Before before, String method, List<Class<?>> parameterTypes,
                List<Object> arguments) {
        @Override
        public String toString() {
            return name;
        }

        /** Whether the release on the classpath has this method at all. */
        boolean inThisRelease() {
            return releasesMethod() != null;
        }

        /** How the call ends on a fresh client built by {@code build} from {@code base} and this case's config. */
        String outcomeOn(BiFunction<Kind, Map<String, Object>, AutoCloseable> build, Map<String, Object> base) throws Exception {
            Map<String, Object> merged = new HashMap<>(base);
            merged.putAll(config);
            try (AutoCloseable client = build.apply(kind, merged)) {
                if (before == Before.CLOSED) {
                    client.close();
                }
                return outcome(client);
            }
        }

        private String outcome(Object client) {
            MethodHandle handle;
            try {
                handle = MethodHandles.publicLookup().findVirtual(client.getClass(), method,
                    MethodType.methodType(releasesMethod().getReturnType(), parameterTypes));
            } catch (NoSuchMethodException | IllegalAccessException e) {
                return "no method " + this + " on " + client.getClass().getName();
            }
            List<Object> receiverAndArguments = new ArrayList<>();
            receiverAndArguments.add(client);
            receiverAndArguments.addAll(arguments);
            try {
                return "returned " + described(handle.invokeWithArguments(receiverAndArguments));
            } catch (Throwable thrown) {
                return "threw " + described(thrown);
            }
        }

        /** The method as the release's own client of this kind declares it, or null if the release has none. */
        private Method releasesMethod() {
            try {
                return (kind == Kind.PRODUCER ? KafkaProducer.class : KafkaConsumer.class).getMethod(method, parameterTypes.toArray(Class[]::new));
            } catch (NoSuchMethodException e) {
                return null;
            }
        }
    }

    /** A returned value; a future is waited for, as the application would, and described by how it ends. */
    private static String described(Object returned) {
        if (returned instanceof Future<?> future) {
            try {
                return "a future of " + future.get(MAX_BLOCK_MS * 2L, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                return "a future failed with " + described(e.getCause());
            } catch (InterruptedException | TimeoutException e) {
                return "a future not done: " + e;
            }
        }
        return String.valueOf(returned);
    }

    private static String described(Throwable thrown) {
        return thrown.getClass().getName() + ": " + thrown.getMessage();
    }

    private MethodOutcomes() {
    }

    /** Every case, whether or not the release on the classpath has its method. */
    static List<Case> all() {
        List<Case> cases = new ArrayList<>();
        // Idempotent (the default), a producer without transactional.id has a transaction manager in KafkaProducer; without, none.
        for (boolean idempotent : List.of(true, false)) {
            String without = "without transactional.id, " + (idempotent ? "idempotent" : "not idempotent") + ": ";
            Map<String, Object> config = Map.of(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, idempotent);
            cases.add(producerCase(without + "initTransactions()", config, Before.NOTHING, "initTransactions"));
            cases.add(producerCase(without + "beginTransaction()", config, Before.NOTHING, "beginTransaction"));
            cases.add(producerCase(without + "commitTransaction()", config, Before.NOTHING, "commitTransaction"));
            cases.add(producerCase(without + "abortTransaction()", config, Before.NOTHING, "abortTransaction"));
            cases.add(new Case(without + "sendOffsetsToTransaction(no offsets, group metadata)", Kind.PRODUCER, config, Before.NOTHING,
                "sendOffsetsToTransaction", List.of(Map.class, ConsumerGroupMetadata.class), List.of(Map.of(), new ConsumerGroupMetadata("g"))));
            cases.add(new Case(without + "sendOffsetsToTransaction(offsets, group metadata)", Kind.PRODUCER, config, Before.NOTHING,
                "sendOffsetsToTransaction", List.of(Map.class, ConsumerGroupMetadata.class), List.of(OFFSETS, new ConsumerGroupMetadata("g"))));
            cases.add(new Case(without + "sendOffsetsToTransaction(no offsets, group id)", Kind.PRODUCER, config, Before.NOTHING,
                "sendOffsetsToTransaction", List.of(Map.class, String.class), List.of(Map.of(), "g")));
            cases.add(new Case(without + "sendOffsetsToTransaction(offsets, group id)", Kind.PRODUCER, config, Before.NOTHING,
                "sendOffsetsToTransaction", List.of(Map.class, String.class), List.of(OFFSETS, "g")));
        }
        Map<String, Object> transactional = Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "outcomes");
        String closedTransactional = "closed, with transactional.id: ";
        cases.add(producerCase(closedTransactional + "initTransactions()", transactional, Before.CLOSED, "initTransactions"));
        cases.add(producerCase(closedTransactional + "beginTransaction()", transactional, Before.CLOSED, "beginTransaction"));
        cases.add(producerCase(closedTransactional + "commitTransaction()", transactional, Before.CLOSED, "commitTransaction"));
        cases.add(producerCase(closedTransactional + "abortTransaction()", transactional, Before.CLOSED, "abortTransaction"));
        cases.add(new Case(closedTransactional + "sendOffsetsToTransaction(no offsets, group id)", Kind.PRODUCER, transactional,
            Before.CLOSED, "sendOffsetsToTransaction", List.of(Map.class, String.class), List.of(Map.of(), "g")));
        cases.add(new Case("closed: send(record)", Kind.PRODUCER, Map.of(), Before.CLOSED, "send", List.of(ProducerRecord.class),
            List.of(new ProducerRecord<>("t", "v"))));
        cases.add(producerCase("closed: flush()", Map.of(), Before.CLOSED, "flush"));
        cases.add(producerCase("closed: initTransactions() without transactional.id", Map.of(), Before.CLOSED, "initTransactions"));
        cases.add(producerCase("closed: close()", Map.of(), Before.CLOSED, "close"));
        cases.add(new Case("closed: partitionsFor(topic)", Kind.PRODUCER, Map.of(), Before.CLOSED, "partitionsFor", List.of(String.class),
            List.of("t")));

        Map<String, Object> noGroup = Map.of();
        Map<String, Object> group = Map.of(ConsumerConfig.GROUP_ID_CONFIG, "outcomes");
        cases.add(consumerCase("not subscribed: poll(0)", noGroup, Before.NOTHING, "poll", List.of(long.class), List.of(0L)));
        cases.add(consumerCase("poll(-1)", noGroup, Before.NOTHING, "poll", List.of(long.class), List.of(-1L)));
        cases.add(consumerCase("without group.id: committed(partition)", noGroup, Before.NOTHING, "committed",
            List.of(TopicPartition.class), List.of(PARTITION)));
        cases.add(consumerCase("without group.id: committed(partition, timeout)", noGroup, Before.NOTHING, "committed",
            List.of(TopicPartition.class, Duration.class), List.of(PARTITION, Duration.ofSeconds(2))));
        cases.add(consumerCase("not subscribed: poll(timeout)", noGroup, Before.NOTHING, "poll", List.of(Duration.class),
            List.of(Duration.ZERO)));
        cases.add(consumerCase("without group.id: subscribe(topics)", noGroup, Before.NOTHING, "subscribe", List.of(Collection.class),
            List.of(List.of("t"))));
        cases.add(consumerCase("without group.id: commitSync()", noGroup, Before.NOTHING, "commitSync", List.of(), List.of()));
        cases.add(consumerCase("without group.id: groupMetadata()", noGroup, Before.NOTHING, "groupMetadata", List.of(), List.of()));
        cases.add(consumerCase("closed: poll(0)", group, Before.CLOSED, "poll", List.of(long.class), List.of(0L)));
        cases.add(consumerCase("closed: poll(timeout)", group, Before.CLOSED, "poll", List.of(Duration.class), List.of(Duration.ZERO)));
        cases.add(consumerCase("closed: committed(partition)", group, Before.CLOSED, "committed", List.of(TopicPartition.class),
            List.of(PARTITION)));
        cases.add(consumerCase("closed: committed(partition, timeout)", group, Before.CLOSED, "committed",
            List.of(TopicPartition.class, Duration.class), List.of(PARTITION, Duration.ofSeconds(2))));
        cases.add(consumerCase("closed: committed(partitions)", group, Before.CLOSED, "committed", List.of(Set.class),
            List.of(Set.of(PARTITION))));
        cases.add(consumerCase("closed: subscribe(topics)", group, Before.CLOSED, "subscribe", List.of(Collection.class),
            List.of(List.of("t"))));
        cases.add(consumerCase("closed: subscribe(pattern)", group, Before.CLOSED, "subscribe", List.of(Pattern.class),
            List.of(Pattern.compile("t.*"))));
        cases.add(consumerCase("closed: assignment()", group, Before.CLOSED, "assignment", List.of(), List.of()));
        cases.add(consumerCase("closed: commitSync()", group, Before.CLOSED, "commitSync", List.of(), List.of()));
        cases.add(consumerCase("closed: close()", group, Before.CLOSED, "close", List.of(), List.of()));
        return cases;
    }

    /** Producer and consumer settings every case's clients get, on top of the bootstrap address. */
    static Map<String, Object> baseConfig(Kind kind) {
        Map<String, Object> config = new HashMap<>();
        if (kind == Kind.PRODUCER) {
            config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, MAX_BLOCK_MS);
        } else {
            config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, MAX_BLOCK_MS);
        }
        return config;
    }

    /** The release's own client of the case's kind. */
    static AutoCloseable kafkaClient(Kind kind, Map<String, Object> config) {
        return kind == Kind.PRODUCER ? new KafkaProducer<>(config) : new KafkaConsumer<>(config);
    }

    /** fastleader's client of the case's kind. */
    static AutoCloseable fastLeaderClient(Kind kind, Map<String, Object> config) {
        return kind == Kind.PRODUCER ? new FastLeaderProducer<>(config) : new FastLeaderConsumer<>(config);
    }

    private static Case producerCase(String name, Map<String, Object> config, Before before, String method) {
        return new Case(name, Kind.PRODUCER, config, before, method, List.of(), List.of());
    }

    private static Case consumerCase(String name, Map<String, Object> config, Before before, String method, List<Class<?>> types,
                                     List<Object> arguments) {
        return new Case(name, Kind.CONSUMER, config, before, method, types, arguments);
    }
}
