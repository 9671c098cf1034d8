package io.fastleader.benchmarks.metadata;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.fastleader.clients.metadata.BrokerEndpoint;
import io.fastleader.clients.metadata.HintVerdict;
import io.fastleader.clients.metadata.LeaderCache;
import io.fastleader.clients.metadata.LeaderHint;
import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.clients.metadata.PartitionLeadership;
import org.apache.kafka.clients.Metadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
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

/**
 * The cost of applying the {@code CurrentLeader} hints of one Produce or Fetch response to a
 * client's leader cache: fastleader's {@link LeaderCache#applyHints} against kafka-clients 4.3.1's
 * {@link Metadata#updatePartitionLeadership}, the call KafkaProducer and KafkaConsumer make for the
 * same hints.
 *
 * <p>Both caches hold the same {@link SyntheticCluster} of {@code partitions} partitions. Each op
 * hints the same {@code hinted} partitions (each in a different topic) one epoch further than the
 * last op, each to the next broker, with the {@code NodeEndpoints} of the brokers it names, so
 * every hint of every op is complete and advancing: accepted, and a real leader change. An op
 * includes building the call's input from those fields (what a client's response handling does
 * before the call), so each client is measured with its own input types.
 *
 * <p>Fails fast unless every hint was accepted: before the first iteration (fastleader's verdicts
 * must all be {@link HintVerdict#ACCEPTED}; kafka-clients must report every partition updated and
 * its {@link Metadata#currentLeader} must move) and after every iteration (both caches must hold
 * the newest epoch and leader, and the count of accepted hints must equal hints sent).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Threads(1)
public class HintApplyBenchmark {

    /** Partitions in the cluster, spread evenly over {@value SyntheticCluster#TOPICS} topics. */
    @Param({"1000", "10000", "100000"})
    public int partitions;

    /** Partitions hinted per op, as from one response; at most {@value SyntheticCluster#TOPICS}. */
    @Param({"1", "100"})
    public int hinted;

    @Benchmark
    public Map<TopicPartition, HintVerdict> fastleader(FastleaderCache cache) {
        return cache.applyNextHints();
    }

    @Benchmark
    public Set<TopicPartition> kafkaClients(KafkaClientsMetadata metadata) {
        return metadata.applyNextHints();
    }

    /**
     * The hinted partitions and the epoch they were last moved to, with the checks both clients
     * must pass; a subclass holds one client's cache.
     */
    abstract static class HintedPartitions {

        TopicPartition[] targets;
        Uuid[] topicIds;
        /** The epoch of the last applied hints; the next op hints {@code epoch + 1}. */
        int epoch;

        /** The client's name in failure messages. */
        abstract String client();

        /** Fills the client's cache with {@code cluster}. */
        abstract void open(SyntheticCluster cluster);

        /** Applies the next op's hints, and tells whether the client reported every one of them applied. */
        abstract boolean applyNextHintsAllTaken();

        /** The leader id and epoch the client's cache now holds for {@code partition}. */
        abstract int[] leaderAndEpoch(TopicPartition partition);

        /** How many hints the client has accepted since its cache was filled. */
        abstract long acceptedHints();

        @Setup(Level.Trial)
        public void fill(HintApplyBenchmark benchmark) {
            if (benchmark.hinted < 1 || benchmark.hinted > SyntheticCluster.TOPICS) {
                throw new IllegalArgumentException("hinted must be 1 to " + SyntheticCluster.TOPICS + ": " + benchmark.hinted);
            }
            targets = new TopicPartition[benchmark.hinted];
            topicIds = new Uuid[benchmark.hinted];
            for (int ordinal = 0; ordinal < targets.length; ordinal++) {
                targets[ordinal] = SyntheticCluster.partition(ordinal);
                topicIds[ordinal] = SyntheticCluster.topicId(ordinal);
            }
            open(new SyntheticCluster(benchmark.partitions));
            verify();
            // The per-iteration check below only sees the end state; the first op's own report
            // shows that the client took the hints, rather than ignoring them as not advancing.
            if (!applyNextHintsAllTaken()) {
                throw new IllegalStateException(client() + " did not apply every hint of the first op");
            }
            verify();
        }

        /** Fails unless the cache holds what the last op's hints said, and accepted every hint so far. */
        @TearDown(Level.Iteration)
        public void verify() {
            for (int ordinal = 0; ordinal < targets.length; ordinal++) {
                int[] held = leaderAndEpoch(targets[ordinal]);
                int expectedLeader = SyntheticCluster.leader(ordinal, epoch);
                if (held[0] != expectedLeader || held[1] != epoch) {
                    throw new IllegalStateException(client() + " holds leader " + held[0] + " at epoch " + held[1]
                        + " for " + targets[ordinal] + ", expected leader " + expectedLeader + " at epoch " + epoch);
                }
            }
            long expected = (long) epoch * targets.length;
            if (acceptedHints() != expected) {
                throw new IllegalStateException(client() + " accepted " + acceptedHints() + " hints of " + expected);
            }
        }
    }

    /** fastleader's cache; verdicts are counted by the cache's own metrics. */
    @State(Scope.Thread)
    public static class FastleaderCache extends HintedPartitions {

        private Metrics metrics;
        private LeaderCache cache;
        /** The response's {@code NodeEndpoints}, by {@code epoch % BROKERS}. */
        private List<List<BrokerEndpoint>> endpoints;

        @Override
        String client() {
            return "fastleader";
        }

        @Override
        void open(SyntheticCluster cluster) {
            metrics = new Metrics();
            cache = cluster.leaderCache(new MetadataMetrics(metrics));
            endpoints = SyntheticCluster.endpointsByEpoch(targets.length, SyntheticCluster::endpoint);
        }

        Map<TopicPartition, HintVerdict> applyNextHints() {
            int next = ++epoch;
            List<LeaderHint> hints = new ArrayList<>(targets.length);
            for (int ordinal = 0; ordinal < targets.length; ordinal++) {
                hints.add(new LeaderHint(targets[ordinal], topicIds[ordinal], SyntheticCluster.leader(ordinal, next), next));
            }
            return cache.applyHints(hints, endpoints.get(next % SyntheticCluster.BROKERS));
        }

        @Override
        boolean applyNextHintsAllTaken() {
            Map<TopicPartition, HintVerdict> verdicts = applyNextHints();
            return verdicts.size() == targets.length && verdicts.values().stream().allMatch(HintVerdict::isAccepted);
        }

        @Override
        int[] leaderAndEpoch(TopicPartition partition) {
            PartitionLeadership leadership = cache.leadership(partition);
            return new int[] {leadership.leaderId(), leadership.leaderEpoch()};
        }

        @Override
        long acceptedHints() {
            Object count = metrics.metric(metrics.metricName("leader-hints-accepted-total", MetadataMetrics.GROUP))
                .metricValue();
            return ((Double) count).longValue();
        }

        @TearDown(Level.Trial)
        public void close() {
            metrics.close();
        }
    }

    /** kafka-clients' metadata; it reports the partitions each call updated, which are counted here. */
    @State(Scope.Thread)
    public static class KafkaClientsMetadata extends HintedPartitions {

        private Metadata metadata;
        private long updated;
        /** The response's {@code NodeEndpoints}, by {@code epoch % BROKERS}. */
        private List<List<Node>> nodes;

        @Override
        String client() {
            return "kafka-clients";
        }

        @Override
        void open(SyntheticCluster cluster) {
            metadata = cluster.kafkaMetadata();
            nodes = SyntheticCluster.endpointsByEpoch(targets.length, SyntheticCluster::node);
        }

        Set<TopicPartition> applyNextHints() {
            int next = ++epoch;
            Map<TopicPartition, Metadata.LeaderIdAndEpoch> leaders = new HashMap<>();
            for (int ordinal = 0; ordinal < targets.length; ordinal++) {
                leaders.put(targets[ordinal], new Metadata.LeaderIdAndEpoch(
                    Optional.of(SyntheticCluster.leader(ordinal, next)), Optional.of(next)));
            }
            Set<TopicPartition> moved = metadata.updatePartitionLeadership(leaders, nodes.get(next % SyntheticCluster.BROKERS));
            // One add per op, against a call that rebuilds the whole snapshot: noise.
            updated += moved.size();
            return moved;
        }

        @Override
        boolean applyNextHintsAllTaken() {
            return applyNextHints().equals(Set.of(targets));
        }

        @Override
        int[] leaderAndEpoch(TopicPartition partition) {
            Metadata.LeaderAndEpoch current = metadata.currentLeader(partition);
            return new int[] {current.leader.map(Node::id).orElse(-1), current.epoch.orElse(-1)};
        }

        @Override
        long acceptedHints() {
            return updated;
        }

        @TearDown(Level.Trial)
        public void close() {
            metadata.close();
        }
    }
}
