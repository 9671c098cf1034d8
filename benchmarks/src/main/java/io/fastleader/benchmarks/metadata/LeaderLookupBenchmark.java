package io.fastleader.benchmarks.metadata;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.fastleader.clients.metadata.BrokerEndpoint;
import io.fastleader.clients.metadata.LeaderCache;
import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.clients.metadata.PartitionLeadership;
import org.apache.kafka.clients.Metadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Metrics;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The cost of one leader lookup, what a producer does per record: fastleader's
 * {@link LeaderCache#leadership} (alone, and followed by {@link LeaderCache#node} for the leader's
 * endpoint), next to kafka-clients 4.3.1's {@link Metadata#currentLeader}, which answers both at
 * once.
 *
 * <p>Both caches hold the same {@link SyntheticCluster}. Each op looks up the next of all its
 * partitions, in a fixed shuffled order, so the ops spread over the whole table, as a producer
 * writing to many partitions does, instead of hitting one hot entry. The keys are equal to the
 * caches' own but distinct objects, down to the topic strings, as a record's topic is not the
 * string a Metadata response was parsed into: each lookup compares topic names for real.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Threads(1)
public class LeaderLookupBenchmark {

    /** Partitions in the cluster, spread evenly over {@value SyntheticCluster#TOPICS} topics. */
    @Param({"10000"})
    public int partitions;

    private Metrics metrics;
    private LeaderCache cache;
    private Metadata metadata;
    private TopicPartition[] keys;
    private int next;

    @Setup(Level.Trial)
    public void fill() {
        SyntheticCluster cluster = new SyntheticCluster(partitions);
        metrics = new Metrics();
        cache = cluster.leaderCache(new MetadataMetrics(metrics));
        metadata = cluster.kafkaMetadata();
        List<Integer> ordinals = new ArrayList<>();
        for (int ordinal = 0; ordinal < partitions; ordinal++) {
            ordinals.add(ordinal);
        }
        // A fixed seed, so every run looks partitions up in the same order.
        Collections.shuffle(ordinals, new Random(42));
        keys = new TopicPartition[partitions];
        for (int i = 0; i < partitions; i++) {
            int ordinal = ordinals.get(i);
            TopicPartition stored = SyntheticCluster.partition(ordinal);
            keys[i] = new TopicPartition(new String(stored.topic()), stored.partition());
            verify(keys[i], SyntheticCluster.leader(ordinal, 0));
        }
    }

    /** Fails unless both caches name {@code leader} for {@code key}, so no benchmark measures a miss. */
    private void verify(TopicPartition key, int leader) {
        PartitionLeadership leadership = cache.leadership(key);
        Metadata.LeaderAndEpoch current = metadata.currentLeader(key);
        if (leadership == null || leadership.leaderId() != leader || cache.node(leader) == null
                || current.leader.map(Node::id).orElse(-1) != leader) {
            throw new IllegalStateException("the caches disagree on " + key + ": fastleader " + leadership
                + ", kafka-clients " + current + ", expected leader " + leader);
        }
    }

    private TopicPartition nextKey() {
        int i = next;
        next = i + 1 == keys.length ? 0 : i + 1;
        return keys[i];
    }

    @Benchmark
    public void fastleader(Blackhole blackhole) {
        blackhole.consume(cache.leadership(nextKey()));
    }

    @Benchmark
    public void fastleaderWithEndpoint(Blackhole blackhole) {
        PartitionLeadership leadership = cache.leadership(nextKey());
        BrokerEndpoint endpoint = cache.node(leadership.leaderId());
        blackhole.consume(endpoint);
    }

    @Benchmark
    public void kafkaClients(Blackhole blackhole) {
        blackhole.consume(metadata.currentLeader(nextKey()));
    }

    @TearDown(Level.Trial)
    public void close() {
        metadata.close();
        metrics.close();
    }
}
