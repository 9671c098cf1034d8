package io.fastleader.examples.streams;

import java.time.Duration;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import io.fastleader.it.cluster.Await;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.TaskId;

/**
 * One started instance of a counting application ({@link PageViewCounts#countingTopology}), from
 * {@code input} to {@link PageViewCounts#output its output topic}, configured by {@code properties}
 * (see {@link PageViewCounts#streamsProperties}); closing it closes Streams within 30 s.
 */
final class CountingInstance implements AutoCloseable {
    final KafkaStreams streams;
    /** What killed a stream thread, if anything did. */
    private final AtomicReference<Throwable> died = new AtomicReference<>();
    /** Changelog records restored into the state stores. */
    final AtomicLong restoredRecords = new AtomicLong();

    CountingInstance(StreamsClients clients, Properties properties, String input) {
        StreamsBuilder builder = new StreamsBuilder();
        PageViewCounts.countingTopology(builder, input, PageViewCounts.output(properties.getProperty(StreamsConfig.APPLICATION_ID_CONFIG)));
        streams = clients.build(builder.build(), properties);
        streams.setUncaughtExceptionHandler(exception -> {
            died.set(exception);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition partition, String store, long startOffset, long endOffset) {
            }

            @Override
            public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long records) {
            }

            @Override
            public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
                restoredRecords.addAndGet(totalRestored);
            }
        });
        streams.start();
    }

    /** Throws (an {@code Error}, which {@link Await} passes on at once) if a stream thread died. */
    void failIfDied() {
        if (died.get() != null) {
            throw new AssertionError("a stream thread died; the instance is now " + streams.state(), died.get());
        }
    }

    boolean isRunning() {
        return streams.state() == KafkaStreams.State.RUNNING;
    }

    Set<TaskId> activeTasks() {
        return streams.metadataForLocalThreads().stream()
            .flatMap(thread -> thread.activeTasks().stream())
            .map(TaskMetadata::taskId)
            .collect(Collectors.toSet());
    }

    @Override
    public String toString() {
        return streams.state() + " with tasks " + activeTasks();
    }

    @Override
    public void close() {
        streams.close(Duration.ofSeconds(30));
    }
}
